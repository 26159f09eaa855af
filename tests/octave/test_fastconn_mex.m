function test_fastconn_mex(mex_dir, csv_path)
% TEST_FASTCONN_MEX  Checks the fastconn MEX gateway against Octave's own corr in double.
%
%   test_fastconn_mex(MEX_DIR, CSV_PATH) puts MEX_DIR (where fastconn_mex.mex was built) on the
%   path, runs every check, prints one line per check, and raises an error (non-zero exit status
%   of octave) if any failed. CSV_PATH is examples/data/fmri_timeseries.csv: 250 time points of
%   31 ROIs, with a header row.
%
%   Bounds (the numerical contract): FP32 |r - r64| <= 1e-5, FP64 <= 1e-12, where r64 is corr
%   in double on the same data.

  global fastconn_failures;
  fastconn_failures = {};
  addpath(mex_dir);
  % The file under test, not another build found first (the current folder precedes the path).
  found = which('fastconn_mex');
  if exist('fastconn_mex') ~= 3 || ~strcmp(fileparts(canonicalize_file_name(found)), canonicalize_file_name(mex_dir))
    error('test_fastconn_mex: fastconn_mex resolves to "%s", not to the MEX file built in %s', found, mex_dir);
  end
  printf('testing %s\n', found);

  X = dlmread(csv_path, ',', 1, 0);   % skip the header row of ROI names
  expect(isequal(size(X), [250 31]), sprintf('real data is 250 x 31 (got %d x %d)', rows(X), columns(X)));
  check_real_data(X);
  check_synthetic();
  check_constant_columns();
  check_network(X);
  check_errors(X);
  check_compact(X);

  if ~isempty(fastconn_failures)
    error('test_fastconn_mex: %d check(s) failed:\n  %s', numel(fastconn_failures), ...
          strjoin(fastconn_failures, '\n  '));
  end
  printf('test_fastconn_mex: all checks passed\n');
end

function check_real_data(X)
  N = columns(X);
  R64 = corr(X);

  R = fastconn_mex('cor', X);
  expect(strcmp(class(R), 'double') && isequal(size(R), [N N]), 'cor(double X) is an N x N double matrix');
  within(R, R64, 1e-5, 'real data: cor FP32');
  expect(all(diag(R) == 1), 'real data: cor diagonal is exactly 1');
  expect(isequal(R, R.'), 'real data: cor is exactly symmetric');
  within(fastconn_mex('cor', X, struct('precision', 'fp64')), R64, 1e-12, 'real data: cor FP64');
  within(fastconn_mex('cor', X, struct('backend', 'cpu', 'threads', 1)), R64, 1e-5, 'real data: cor on the CPU, 1 thread');

  % Single input: single output, compared with corr of the same (rounded) values in double.
  Xs = single(X);
  Rs = fastconn_mex('cor', Xs);
  expect(strcmp(class(Rs), 'single') && isequal(size(Rs), [N N]), 'cor(single X) is an N x N single matrix');
  within(Rs, corr(double(Xs)), 1e-5, 'real data: cor of single input');
  expect(all(diag(Rs) == 1), 'real data: single cor diagonal is exactly 1');

  % Triangle order: MATLAB's pdist/squareform order (2,1),(3,1),...,(N,1),(3,2),... = the
  % column-major lower triangle = row order of the upper triangle.
  v = fastconn_mex('triu', X);
  expect(isequal(size(v), [N*(N-1)/2 1]) && strcmp(class(v), 'double'), 'triu is an N(N-1)/2 x 1 double column');
  within(v, R64(tril(true(N), -1)), 1e-5, 'real data: triu FP32 in squareform order');
  % The same order through squareform's own index formula, pair by pair.
  k = zeros(N*(N-1)/2, 1); ref = k; m = 0;
  for i = 1:N-1
    for j = i+1:N
      m = m + 1;
      k(m) = (i-1)*(N-i/2) + j - i;
      ref(m) = R64(i, j);
    end
  end
  expect(isequal(k, (1:m).'), 'squareform index formula enumerates pairs in row order');
  within(v(k), ref, 1e-5, 'real data: triu pair (i,j) at squareform index (i-1)*(N-i/2)+j-i');
  % Guard that the order check can fail: the column-grouped order is far from it on this data.
  wrong_order = R64(triu(true(N), 1));
  expect(max(abs(v - wrong_order)) > 0.1, 'triu differs from the column-grouped order (the check discriminates)');
  within(fastconn_mex('triu', X, struct('precision', 'double')), R64(tril(true(N), -1)), 1e-12, 'real data: triu FP64');
  vs = fastconn_mex('triu', Xs);
  expect(strcmp(class(vs), 'single'), 'triu(single X) is single');
  Rs64 = corr(double(Xs));
  within(vs, Rs64(tril(true(N), -1)), 1e-5, 'real data: triu of single input');

  % Cross form, non-square so that a transposed layout cannot pass.
  A = X(:, 1:10); B = X(:, 11:end);
  C = fastconn_mex('cross', A, B);
  expect(isequal(size(C), [10 N-10]) && strcmp(class(C), 'double'), 'cross(X, Y) is Nx x Ny double');
  within(C, corr(A, B), 1e-5, 'real data: cross FP32 equals corr(X, Y)');
  % The C API returns cross correlations as float: FP64 is bounded by float rounding (2^-24 relative).
  within(fastconn_mex('cross', A, B, struct('precision', 'fp64')), corr(A, B), 1e-7, 'real data: cross FP64 (float output)');
  Cs = fastconn_mex('cross', single(A), B);
  expect(strcmp(class(Cs), 'single'), 'cross with a single input is single');
  within(Cs, corr(double(single(A)), B), 1e-5, 'real data: cross of single and double input');
end

function check_synthetic()
  % Seeded structured data: 6 latent signals mixed into 180 series plus noise, with large and
  % different offsets (fMRI intensities sit around 1e4) and scales.
  randn('state', 20240601);
  rand('state', 20240601);
  T = 1200; N = 180;
  t = (0:T-1).' * 2.0;   % seconds, TR = 2 s
  F = [sin(2*pi*0.01*t), cos(2*pi*0.03*t), sin(2*pi*0.05*t + 1), randn(T, 3)];
  W = randn(6, N);
  X = F * W + 0.7 * randn(T, N);
  X = X .* (1 + 9 * rand(1, N)) + 1e4 * (1 + rand(1, N));
  R64 = corr(X);
  within(fastconn_mex('cor', X), R64, 1e-5, 'synthetic 1200 x 180: cor FP32');
  within(fastconn_mex('cor', X, struct('precision', 'fp64')), R64, 1e-12, 'synthetic 1200 x 180: cor FP64');
  within(fastconn_mex('triu', X), R64(tril(true(N), -1)), 1e-5, 'synthetic: triu FP32');
  within(fastconn_mex('cross', X(:, 1:7), X), R64(1:7, :), 1e-5, 'synthetic: cross of a seed set with all series');
  within(fastconn_mex('cross', X, X(:, 50)), R64(:, 50), 1e-5, 'synthetic: cross with one seed column');
  within(fastconn_mex('cor', X(:, 1)), 1, 0, 'one series: cor is 1');
  expect(isequal(size(fastconn_mex('triu', X(:, 1))), [0 1]), 'one series: triu is 0 x 1');
end

function check_constant_columns()
  randn('state', 7);
  T = 240; N = 25;
  X = cumsum(randn(T, N)) + 100;        % random walks: strongly correlated, like slow drifts
  X(:, [4 17]) = 3.5;                   % constant voxels (outside the brain)
  X(:, 9) = -2;
  bad = [4 9 17];
  good = setdiff(1:N, bad);
  R64 = corr(X(:, good));
  for prec = {'fp32', 'fp64'}
    opts = struct('precision', prec{1});
    for cls = {'double', 'single'}
      Xc = cast(X, cls{1});
      tol = bound(prec{1}, cls{1});
      R = fastconn_mex('cor', Xc, opts);
      what = sprintf('constant columns (%s, %s)', cls{1}, prec{1});
      expect(all(all(isnan(R(bad, :)))) && all(all(isnan(R(:, bad)))), [what ': their rows and columns are NaN, diagonal included']);
      expect(~any(any(isnan(R(good, good)))), [what ': other pairs are finite']);
      within(R(good, good), corr(double(Xc(:, good))), tol, [what ': other pairs match corr']);
      v = fastconn_mex('triu', Xc, opts);
      mask = false(N); mask(bad, :) = true; mask(:, bad) = true;
      expect(isequal(isnan(v), mask(tril(true(N), -1))), [what ': triu is NaN exactly at pairs with a constant series']);
    end
  end
  C = fastconn_mex('cross', X(:, good), X(:, [1 4 9]));
  expect(all(isnan(C(:, 2))) && all(isnan(C(:, 3))) && ~any(isnan(C(:, 1))), 'cross: constant columns of Y give NaN columns');
  within(C(:, 1), R64(:, 1), 1e-5, 'cross: the other column matches corr');
  % Like corr's NaN, said: one warning per call naming the constant columns (1-based).
  for cmd = {'cor', 'triu'}
    [n, msg, id] = warnings_of(@() fastconn_mex(cmd{1}, X));
    expect(n == 1 && strcmp(id, 'fastconn:constant') && ~isempty(strfind(msg, '3 column(s) of X have zero variance')) ...
           && ~isempty(strfind(msg, 'columns 4, 9, 17')), sprintf('%s warns once naming columns 4, 9, 17 (%d: %s)', cmd{1}, n, msg));
  end
  [n, msg] = warnings_of(@() fastconn_mex('cross', X(:, good), X(:, [1 4])));
  expect(n == 1 && ~isempty(strfind(msg, 'of Y')) && ~isempty(strfind(msg, 'column 2')), sprintf('cross names column 2 of Y (%s)', msg));
  n = warnings_of(@() fastconn_mex('cor', X(:, good)));
  expect(n == 0, 'no warning without constant columns');
  n = warnings_of(@() fastconn_mex('cor', X, struct('constant', 'zero')));
  R0 = fastconn_mex('cor', X, struct('constant', 'zero'));
  expect(n == 0 && R0(4, 1) == 0 && ~any(isnan(R0(:))), 'constant ''zero'': 0 instead of NaN, no warning');
end

% Runs f and counts the fastconn:constant warnings it gives (evalc captures them), with the
% last one's message and identifier.
function [n, msg, id] = warnings_of(f)
  lastwarn('');
  text = evalc('f();');
  n = numel(strfind(text, 'have zero variance'));
  [msg, id] = lastwarn();
end

% 'graph' and 'degree' against corr in double: the same edges except pairs within 1e-5 of the
% threshold, weights within float rounding of r, degree and strength = the network's row sums.
function check_network(X)
  N = columns(X);
  R64 = corr(X);
  off = ~eye(N);
  t = 0.5;
  G = fastconn_mex('graph', X, 'abs', t);
  expect(issparse(G) && isequal(size(G), [N N]) && strcmp(class(G), 'double'), 'graph: a sparse N x N double matrix');
  expect(isequal(G, G.') && all(diag(G) == 0), 'graph: symmetric with a zero diagonal');
  decided = off & abs(abs(R64) - t) > 1e-5;
  want = decided & abs(R64) >= t;
  expect(isequal(G(decided) ~= 0, want(decided)), sprintf('graph |r| >= %g: the edges of corr (%d edges)', t, nnz(G) / 2));
  expect(nnz(want) > 0 && nnz(decided & ~want) > 0, 'graph: the threshold keeps some pairs and drops others');
  within(full(G(G ~= 0)), R64(G ~= 0), 1e-5, 'graph: edge weights are r');
  B = fastconn_mex('graph', X, 'abs', t, struct('weights', 'binary'));
  expect(isequal(B ~= 0, G ~= 0) && all(nonzeros(B) == 1), 'graph, binary weights: the same edges, weight 1');
  A = fastconn_mex('graph', X, 'abs', t, struct('weights', 'abs'));
  expect(isequal(A, abs(G)), 'graph, |r| weights: abs of the r weights');
  S = fastconn_mex('graph', X, 'signed', t);
  decided_s = off & abs(R64 - t) > 1e-5;
  expect(isequal(S(decided_s) ~= 0, R64(decided_s) >= t) && all(nonzeros(S) > 0), 'graph r >= t: positive edges only');
  d = 0.1;
  D = fastconn_mex('graph', X, 'density', d);
  expect(nnz(D) == 2 * ceil(d * N * (N - 1) / 2), sprintf('graph density %g: exactly ceil(d N(N-1)/2) edges', d));
  kept = abs(R64(D ~= 0)); dropped = abs(R64(off & D == 0));
  expect(min(kept) >= max(dropped) - 1e-5, 'graph density: the kept pairs have the largest |r|');
  K = fastconn_mex('graph', X, 'topk', 3);
  expect(isequal(K, K.') && all(sum(K ~= 0, 2) >= 3), 'graph top-3: symmetric, every node keeps at least its 3');
  [k, s] = fastconn_mex('degree', X, 'abs', t);
  expect(isequal(size(k), [N 1]) && isequal(size(s), [N 1]), 'degree: two N x 1 outputs');
  expect(isequal(k, full(sum(G ~= 0, 2))), 'degree = the row sizes of the graph');
  within(s, full(sum(abs(G), 2)), 1e-5, 'strength = the row sums of |r|');
  [k2, s2] = fastconn_mex('degree', X, 'signed', t);
  expect(isequal(k2, full(sum(S ~= 0, 2))), 'degree, signed rule = the row sizes of that graph');
  within(s2, full(sum(S, 2)), 1e-5, 'strength, signed rule = the row sums of r');
  k3 = fastconn_mex('degree', X, 'density', d);
  expect(isequal(k3, full(sum(D ~= 0, 2))), 'degree, density rule = the row sizes of that graph');
  E = fastconn_mex('graph', X, 'abs', 1);
  expect(issparse(E) && nnz(E) == 0 && isequal(size(E), [N N]), 'graph with no edges: an empty sparse N x N');
end

% The accuracy bound of a result: FP32 1e-5; FP64 1e-12, or float rounding for a single result.
function tol = bound(precision, result_class)
  if strcmp(precision, 'fp32')
    tol = 1e-5;
  elseif strcmp(result_class, 'single')
    tol = 1e-7;
  else
    tol = 1e-12;
  end
end

function check_errors(X)
  Xn = X; Xn(7, 4) = NaN;   % row 7, column 4: fastconn's series 3, time point 6
  [id, msg] = caught(@() fastconn_mex('cor', Xn));
  expect(strcmp(id, 'fastconn:FC_ERR_NONFINITE_INPUT'), sprintf('NaN input: identifier fastconn:FC_ERR_NONFINITE_INPUT (got "%s")', id));
  expect(~isempty(strfind(msg, 'series 3 ')) && ~isempty(strfind(msg, 'time point 6')), ...
         sprintf('NaN input: the message names series 3 and time point 6 (got "%s")', msg));
  expect(~isempty(strfind(msg, 'column s+1')), 'NaN input: the message says how fastconn indices map to columns');
  Xi = single(X); Xi(250, 31) = Inf;
  [id, msg] = caught(@() fastconn_mex('triu', Xi));
  expect(strcmp(id, 'fastconn:FC_ERR_NONFINITE_INPUT') && ~isempty(strfind(msg, 'series 30 ')), ...
         sprintf('Inf in single input names series 30 (got "%s")', msg));
  [id, msg] = caught(@() fastconn_mex('cross', X, Xn));
  expect(strcmp(id, 'fastconn:FC_ERR_NONFINITE_INPUT') && ~isempty(strfind(msg, 'in Y')) && ~isempty(strfind(msg, 'series 3 ')), ...
         sprintf('NaN in Y of cross: the message names Y and the series (got "%s")', msg));
  % After an error the cached context still works.
  within(fastconn_mex('cor', X(:, 1:5)), corr(X(:, 1:5)), 1e-5, 'a call after an error succeeds');

  usage = {
    {'unknown command', @() fastconn_mex('spearman', X)}
    {'no arguments', @() fastconn_mex()}
    {'missing X', @() fastconn_mex('cor')}
    {'cross with unequal rows', @() fastconn_mex('cross', X, X(1:100, :))}
    {'complex input', @() fastconn_mex('cor', X + 1i)}
    {'integer input', @() fastconn_mex('cor', int32(X))}
    {'3-D input', @() fastconn_mex('cor', zeros(4, 3, 2))}
    {'unknown option', @() fastconn_mex('cor', X, struct('bogus', 1))}
    {'bad precision', @() fastconn_mex('cor', X, struct('precision', 'fp16'))}
    {'bad backend', @() fastconn_mex('cor', X, struct('backend', 'opencl'))}
    {'negative threads', @() fastconn_mex('cor', X, struct('threads', -1))}
    {'options not a struct', @() fastconn_mex('cor', X, 'fp64')}
    {'graph without rule', @() fastconn_mex('graph', X)}
    {'unknown rule', @() fastconn_mex('graph', X, 'pearson', 0.5)}
    {'rule parameter not a number', @() fastconn_mex('graph', X, 'abs', '0.5')}
    {'bad weights', @() fastconn_mex('graph', X, 'abs', 0.5, struct('weights', 'log'))}
    {'weights for degree', @() fastconn_mex('degree', X, 'abs', 0.5, struct('weights', 'binary'))}
    {'three outputs of degree', @() nargout_three(X)}
  };
  for k = 1:numel(usage)
    [id, msg] = caught(usage{k}{2});
    expect(strcmp(id, 'fastconn:usage') && ~isempty(msg), sprintf('usage error "%s" raises fastconn:usage (got "%s": %s)', usage{k}{1}, id, msg));
  end
  % A rule's parameter out of range is refused as the R package refuses it, naming the value:
  % none of them may quietly give the complete network or an empty one.
  rules = {
    {'graph', 'density', 1.5, 'density must be in [0, 1]'}
    {'graph', 'density', -0.1, 'not -0.1'}
    {'graph', 'abs', -0.2, {'threshold -0.2 with rule ''abs'' keeps every pair', 'use rule ''signed'''}}
    {'degree', 'abs', 1.5, {'rule ''abs'' must be in [0, 1]', 'not 1.5'}}
    {'degree', 'abs', NaN, 'not NaN'}
    {'graph', 'signed', 1.5, {'rule ''signed'' must be in [-1, 1]', '1.5'}}
    {'degree', 'signed', -2, 'not -2'}
    {'degree', 'topk', 0, {'k of rule ''topk'' must be a whole number >= 1', 'not 0'}}
    {'graph', 'topk', 2.5, 'not 2.5'}
  };
  for k = 1:numel(rules)
    r = rules{k};
    [id, msg] = caught(@() fastconn_mex(r{1}, X, r{2}, r{3}));
    want = r{4};
    if ischar(want), want = {want}; end
    ok = strcmp(id, 'fastconn:usage');
    for w = 1:numel(want), ok = ok && ~isempty(strfind(msg, want{w})); end
    expect(ok, sprintf('%s %s %g: fastconn:usage naming %s (got "%s": %s)', r{1}, r{2}, r{3}, strjoin(want, ', '), id, msg));
  end
  G = fastconn_mex('graph', X, 'signed', -0.2);
  expect(nnz(G) > 0 && nnz(G) < 31 * 30, 'signed -0.2 is accepted and keeps some pairs, not all');
  % Errors from the library carry its status: one time point is too short for a correlation.
  [id, msg] = caught(@() fastconn_mex('cor', X(1, :)));
  expect(strcmp(id, 'fastconn:FC_ERR_INVALID_ARG') && ~isempty(strfind(msg, 'n_time')), ...
         sprintf('one time point: fastconn:FC_ERR_INVALID_ARG naming n_time (got "%s": %s)', id, msg));
end

% Compact values ('triu' with options.values): int16 codes are Octave's round(r * 32767) of the
% float triangle (round goes away from zero at exact halves, where the library goes to even:
% such ties do not occur in this data, checked by the strict bound below), -32768 for NaN; half
% values come back as single within 2^-12 of r.
function check_compact(X)
  N = columns(X);
  r = fastconn_mex('triu', X);   % FP32: the float r, widened to double
  c = fastconn_mex('triu', X, struct('values', 'int16'));
  expect(strcmp(class(c), 'int16') && isequal(size(c), [N*(N-1)/2 1]), 'compact int16: an int16 column');
  expect(isequal(c, int16(round(double(r) * 32767))), 'compact int16: the codes are round(r * 32767) of the float r');
  expect(all(abs(double(c) - double(r) * 32767) < 0.5), 'compact int16: no code at an exact tie');
  within(double(c) / 32767, corr(X)(tril(true(N), -1)), 0.5 / 32767 + 1e-5, 'compact int16 decoded vs corr');
  h = fastconn_mex('triu', X, struct('values', 'half', 'order', 'col'));
  expect(strcmp(class(h), 'single'), 'compact half: decoded to single');
  within(h, corr(X)(triu(true(N), 1)), 2^-12 + 1e-5, 'compact half decoded vs corr');
  Xc = X; Xc(:, 4) = 7;
  saved = warning('off', 'fastconn:constant');
  cc = fastconn_mex('triu', Xc, struct('values', 'int16', 'constant', 'nan'));
  warning(saved);
  R = corr(Xc); mask = isnan(R(tril(true(N), -1)));
  expect(any(mask) && isequal(cc == -32768, mask), 'compact int16: NaN pairs carry -32768');
  [id, msg] = caught(@() fastconn_mex('triu', X, struct('values', 'int8')));
  expect(strcmp(id, 'fastconn:usage') && ~isempty(strfind(msg, 'options.values')), 'compact: a bad values option is refused');
  [id, msg] = caught(@() fastconn_mex('cor', X, struct('values', 'int16')));
  expect(strcmp(id, 'fastconn:usage') && ~isempty(strfind(msg, 'values applies to ''triu'' only')), ...
         'compact: values applies to triu only');
end

function nargout_three(X)
  [a, b, c] = fastconn_mex('degree', X, 'abs', 0.5);
end

function [id, msg] = caught(f)
  id = '<no error>'; msg = '';
  try
    f();
  catch err
    id = err.identifier; msg = err.message;
  end
end

function within(a, b, tol, what)
  a = double(a); b = double(b);
  if ~isequal(size(a), size(b))
    expect(false, sprintf('%s: size %s differs from the reference %s', what, mat2str(size(a)), mat2str(size(b))));
    return;
  end
  d = max(abs(a(:) - b(:)));
  if isempty(d), d = 0; end
  expect(~any(isnan(a(:)) ~= isnan(b(:))) && d <= tol, sprintf('%s: max |r - r64| = %.3g (bound %.0g)', what, d, tol));
end

function expect(ok, what)
  global fastconn_failures;
  if ok
    printf('ok    %s\n', what);
  else
    printf('FAIL  %s\n', what);
    fastconn_failures{end+1} = what;
  end
end
