function test_fastconn_mex_lfcd(mex_dir, csv_path)
% TEST_FASTCONN_MEX_LFCD  'lfcd' of the MEX gateway and fcLfcd: against a plain region growing
% written here (a queue per seed, Octave's corr for r) on masks with holes, the three
% neighbourhoods, both rules and a constant column; voxels touching along an edge or at a corner
% (6, 18 and 26 differ); bad values named.
  functions_dir = fullfile(fileparts(fileparts(fileparts(mfilename('fullpath')))), 'examples', 'matlab');
  addpath(functions_dir);
  start_checks(mex_dir, 'test_fastconn_mex_lfcd');
  X = dlmread(csv_path, ',', 1, 0);
  check_reference(X);
  check_edges_and_corners();
  check_errors(X);
  finish_checks('test_fastconn_mex_lfcd');
end

function L = grow(X, coords, neighbourhood, t, signed)
  R = corr(X);
  constant = all(X == X(1, :), 1);
  [a, b, c] = ndgrid(-1:1, -1:1, -1:1);
  steps = [a(:) b(:) c(:)];
  reach = sum(abs(steps), 2);
  steps = steps(reach >= 1 & reach <= find([6 18 26] == neighbourhood), :);
  n = size(X, 2);
  L = zeros(n, 1);
  for seed = 1:n
    if constant(seed), continue; end
    in = false(n, 1); in(seed) = true;
    queue = seed;
    while ~isempty(queue)
      v = queue(1); queue(1) = [];
      for s = 1:size(steps, 1)
        u = find(all(coords == coords(v, :) + steps(s, :), 2));
        if isempty(u) || in(u) || constant(u), continue; end
        r = R(seed, u);
        if ~signed, r = abs(r); end
        if r >= t
          in(u) = true;
          queue(end + 1) = u;
        end
      end
    end
    L(seed) = sum(in);
  end
end

function check_reference(X)
  rand('seed', 5);
  n = size(X, 2);                          % 31 regions as voxels scattered in a 5 x 4 x 3 box
  [~, order] = sort(rand(60, 1));
  [i, j, k] = ind2sub([5 4 3], sort(order(1:n)));
  coords = [i j k];
  X(:, 9) = 2;                             % a constant column
  R = corr(X);
  t = 0.3;
  while any(abs([R(:); abs(R(:))] - t) < 1e-4), t = t + 2e-4; end
  for h = [6 18 26]
    within(fastconn_mex('lfcd', X, coords, [5 4 3], 'signed', t, h), grow(X, coords, h, t, true), 0, ...
           sprintf('lfcd signed, %d neighbours = region growing', h));
    within(fcLfcd(X, coords, [5 4 3], 'abs', t, 'Neighbourhood', h, 'Precision', 'fp64'), ...
           grow(X, coords, h, t, false), 0, sprintf('fcLfcd abs fp64, %d neighbours = region growing', h));
  end
  L = fcLfcd(X, coords, [5 4 3], 'abs', t);
  expect(L(9) == 0 && all(L([1:8 10:end]) >= 1), 'the constant column scores 0, every other at least 1');
end

function check_edges_and_corners()
  coords = [1 1 1; 2 1 1; 3 2 1; 4 3 2];   % a face, an edge, a corner
  X = repmat([0; 1; 4; 9], 1, 4);
  expect(isequal(fcLfcd(X, coords, [4 3 2], 'signed', 0.9, 'Neighbourhood', 6), [2; 2; 1; 1]), '6 neighbours');
  expect(isequal(fcLfcd(X, coords, [4 3 2], 'signed', 0.9, 'Neighbourhood', 18), [3; 3; 3; 1]), '18 neighbours');
  expect(isequal(fcLfcd(X, coords, [4 3 2], 'signed', 0.9), [4; 4; 4; 4]), '26 neighbours (the default)');
end

function check_errors(X)
  X = X(:, 1:3);
  coords = [1 1 1; 2 1 1; 3 1 1];
  expect_error(@() fcLfcd(X, coords, [2 1 1], 'abs', 0.5), 'fastconn:FC_ERR_INVALID_ARG', 'off the grid', ...
               'lfcd coordinates off the grid');
  expect_error(@() fcLfcd(X, [1 1 1; 2 1 1; 2 1 1], [3 1 1], 'abs', 0.5), 'fastconn:FC_ERR_INVALID_ARG', ...
               'same voxel', 'lfcd two columns on one voxel');
  expect_error(@() fcLfcd(X, coords, [3 1 1], 'abs', 0.5, 'Neighbourhood', 7), 'fastconn:FC_ERR_INVALID_ARG', ...
               'neighbourhood is 7', 'lfcd neighbourhood 7');
  expect_error(@() fcLfcd(X, coords, [3 1 1], 'density', 0.5), 'fastconn:FC_ERR_INVALID_ARG', 'FC_EDGE_DENSITY', ...
               'lfcd density rule refused');
  expect_error(@() fcLfcd(X, coords(1:2, :), [3 1 1], 'abs', 0.5), 'fastconn:usage', 'N x 3', 'lfcd coords rows');
  expect_error(@() fcLfcd(X, coords + 0.5, [3 1 1], 'abs', 0.5), 'fastconn:usage', 'whole number', ...
               'lfcd fractional coordinates');
end
