function test_fastconn_mex_dfc(mex_dir, csv_path)
% TEST_FASTCONN_MEX_DFC  Checks the MEX gateway's dynamic-connectivity and low-rank entries
% ('dfc', 'dfc_degree', 'dfc_graphs', 'dfc_summary', 'lowrank', 'dfc_lowrank') against
% references computed in double by Octave from the raw data: corr of each window, the weighted
% correlation of the Gaussian taper (the formula of fc_taper in fastconn.h), sums of the windows'
% graphs, and eig of the correlation matrix for the low-rank errors.
%
%   test_fastconn_mex_dfc(MEX_DIR, CSV_PATH): MEX_DIR holds fastconn_mex.mex, CSV_PATH is
%   examples/data/fmri_timeseries.csv (250 time points x 31 ROIs, a header row). Prints one line
%   per check and raises an error (octave exits non-zero) if any failed.
%
%   Bounds: the dfc results and the low-rank factors come from float outputs of the C API, so
%   they are held to the FP32 contract |r - r64| <= 1e-5 in every precision.

  start_checks(mex_dir, 'test_fastconn_mex_dfc');
  X = dlmread(csv_path, ',', 1, 0);
  expect(isequal(size(X), [250 31]), sprintf('real data is 250 x 31 (got %d x %d)', rows(X), columns(X)));

  check_dfc_real(X);
  check_dfc_odd_sizes();
  check_constant_in_one_window();
  check_gaussian(X);
  check_dfc_networks(X);
  check_summary(X);
  check_lowrank(X);
  check_dfc_lowrank();
  check_errors(X);
  finish_checks('test_fastconn_mex_dfc');
end

% ---------------------------------------------------------------------------------------------
% References in double.

% Row k: the strict upper triangle of window k's correlation matrix in squareform (row) order.
function R = ref_dfc(X, width, step, sigma)
  [T, N] = size(X);
  W = floor((T - width) / step) + 1;
  low = tril(true(N), -1);   % column-major lower triangle = row order of the upper triangle
  R = zeros(W, N * (N - 1) / 2);
  for k = 1:W
    Xw = X((k - 1) * step + (1:width), :);
    if nargin > 3
      C = weighted_corr(Xw, gaussian_taper(width, sigma));
    else
      C = corr(Xw);
    end
    R(k, :) = C(low).';
  end
end

% fastconn.h, FC_TAPER_GAUSSIAN (Allen et al. 2014): w_k = sum_{j=0}^{L-1} exp(-(k-j)^2 /
% (2 sigma^2)), scaled to a maximum of 1.
function w = gaussian_taper(L, sigma)
  k = (0:L-1).';
  w = sum(exp(-(k - (0:L-1)).^2 / (2 * sigma^2)), 2);
  w = w / max(w);
end

% The correlation of sqrt(w_k) (x_k - m_w(x)), m_w the weighted mean.
function C = weighted_corr(Xw, w)
  m = sum(w .* Xw) / sum(w);
  Z = sqrt(w) .* (Xw - m);
  nrm = sqrt(sum(Z.^2));
  C = (Z.' * Z) ./ (nrm.' * nrm);
end

function check_dfc_against(X, width, step, what)
  [T, N] = size(X);
  W = floor((T - width) / step) + 1;
  R = fastconn_mex('dfc', X, width, step);
  expect(strcmp(class(R), 'double') && isequal(size(R), [W N*(N-1)/2]), ...
         sprintf('%s: dfc is W x N(N-1)/2 = %d x %d double (got %s)', what, W, N*(N-1)/2, mat2str(size(R))));
  within(R, ref_dfc(X, width, step), 1e-5, sprintf('%s: dfc width %d step %d vs corr of each window', what, width, step));
end

% ---------------------------------------------------------------------------------------------

function check_dfc_real(X)
  N = columns(X);
  width = 50; step = 20;   % W = floor(200 / 20) + 1 = 11
  check_dfc_against(X, width, step, 'real data');
  R = fastconn_mex('dfc', X, width, step);
  % Window 3 starts at row 41: its row of R is 'triu' of those rows, i.e. squareform order.
  v = fastconn_mex('triu', X(41:90, :));
  within(R(3, :), v.', 1e-5, 'real data: dfc row 3 = triu of rows 41..90');
  % Pair (i, j) at squareform index (i-1)*(N-i/2)+j-i: pair (2, 5) of window 1.
  C1 = corr(X(1:50, :));
  within(R(1, (2-1)*(N-2/2) + 5 - 2), C1(2, 5), 1e-5, 'real data: dfc column (i-1)*(N-i/2)+j-i is pair (i, j)');
  Rs = fastconn_mex('dfc', single(X), width, step);
  expect(strcmp(class(Rs), 'single'), 'dfc of single X is single');
  within(Rs, ref_dfc(double(single(X)), width, step), 1e-5, 'real data: dfc of single input');
  % FP64 of double input is float64 throughout (each window through fc_pcc_triu_f64).
  within(fastconn_mex('dfc', X, width, step, struct('precision', 'fp64')), ref_dfc(X, width, step), 1e-12, ...
         'real data: dfc FP64');
  d32 = max(max(abs(fastconn_mex('dfc', X, width, step) - ref_dfc(X, width, step))));
  expect(d32 > 1e-12, sprintf('dfc FP32 carries float rounding (%.2g), FP64 does not: the check discriminates', d32));
  within(fastconn_mex('dfc', X, width, step, 'rectangular', struct('backend', 'cpu', 'threads', 1)), ...
         ref_dfc(X, width, step), 1e-5, 'real data: explicit rectangular taper, CPU, 1 thread');
end

function check_dfc_odd_sizes()
  randn('state', 11);
  T = 53; N = 7;
  X = cumsum(randn(T, N)) + 50 * (1:N);
  check_dfc_against(X, 13, 6, 'T 53, N 7');           % W = floor(40 / 6) + 1 = 7, 40 not a multiple of 6
  check_dfc_against(X, 5, 7, 'step > width');          % gaps between windows
  check_dfc_against(X, T, 1, 'width = T');             % one window: the static triangle
  check_dfc_against(X, 2, 3, 'width 2');               % every r is +-1
  check_dfc_against(X, T - 1, 1, 'width T-1');         % two windows
  R = fastconn_mex('dfc', X(:, 1), 10, 5);
  expect(isequal(size(R), [9 0]), sprintf('one series: dfc is W x 0 (got %s)', mat2str(size(R))));
  check_dfc_against(X(:, 1:2), 9, 4, 'two series');
end

% A series constant in one window only: NaN at its pairs of that window, finite elsewhere, in
% every dfc output.
function check_constant_in_one_window()
  randn('state', 3);
  T = 60; N = 6; width = 15; step = 15;   % windows 1..4 start at rows 1, 16, 31, 46
  X = randn(T, N) + 10;
  X(16:30, 4) = 4;                         % series 4 is constant within window 2 only
  ref = ref_dfc(X, width, step);
  R = fastconn_mex('dfc', X, width, step);
  bad = false(N); bad(4, :) = true; bad(:, 4) = true; bad = bad(tril(true(N), -1)).';
  expect(isequal(isnan(R(2, :)), bad) && ~any(any(isnan(R([1 3 4], :)))), ...
         'constant in window 2: NaN at its pairs there, finite elsewhere');
  within(R, ref, 1e-5, 'constant in window 2: dfc vs corr of each window');
  % said once per call, naming the window (1-based rows) and the column, in FP32 and FP64
  for prec = {'fp32', 'fp64'}
    lastwarn('');
    text = evalc('fastconn_mex(''dfc'', X, width, step, struct(''precision'', prec{1}));');
    [msg, id] = lastwarn();
    expect(numel(strfind(text, 'zero variance')) == 1 && strcmp(id, 'fastconn:constant') && ...
           ~isempty(strfind(msg, '1 window(s) (the first is window 2, rows 16 to 30)')) && ~isempty(strfind(msg, 'column 4')), ...
           sprintf('constant in window 2 (%s): one warning naming window 2 and column 4 (%s)', prec{1}, msg));
  end
  [m, sd] = fastconn_mex('dfc_summary', X, width, step);
  expect(isequal(isnan(m), bad) && isequal(isnan(sd), bad), 'constant in window 2: summary NaN at its pairs');
  within(m, mean(ref, 1), 1e-5, 'constant in window 2: mean over windows');
  [k, s] = fastconn_mex('dfc_degree', X, width, step, 'abs', 0.1);
  expect(k(2, 4) == 0 && s(2, 4) == 0, 'constant in window 2: no edges of series 4 there');
  G = fastconn_mex('dfc_graphs', X, width, step, 'abs', 0.1);
  expect(nnz(G{2}(4, :)) == 0, 'constant in window 2: its graph has no edges at series 4');
end

function check_gaussian(X)
  for c = {{50, 20, 3}, {31, 17, 7.5}, {40, 40, 0.5}}
    [width, step, sigma] = deal(c{1}{:});
    R = fastconn_mex('dfc', X, width, step, 'gaussian', sigma);
    within(R, ref_dfc(X, width, step, sigma), 1e-5, ...
           sprintf('Gaussian taper width %d step %d sigma %g vs weighted corr', width, step, sigma));
  end
  % The taper is not the rectangle: the check can fail.
  expect(max(max(abs(fastconn_mex('dfc', X, 50, 20, 'gaussian', 3) - ref_dfc(X, 50, 20)))) > 1e-3, ...
         'Gaussian taper differs from the rectangular window (the check discriminates)');
  [k, s] = fastconn_mex('dfc_degree', X, 50, 20, 'abs', 0.4, 'gaussian', 3);
  Rg = ref_dfc(X, 50, 20, 3);
  kd = degree_of(abs(Rg) >= 0.4, columns(X));
  near = degree_of(abs(abs(Rg) - 0.4) <= 1e-5, columns(X));
  expect(all(abs(k(:) - kd(:)) <= near(:)), 'Gaussian taper: dfc_degree vs the weighted corr');
end

% Per window (rows), the number of selected pairs touching each series (columns).
function k = degree_of(selected, N)
  low = tril(true(N), -1);
  k = zeros(rows(selected), N);
  for w = 1:rows(selected)
    M = zeros(N); M(low) = selected(w, :); M = M + M.';
    k(w, :) = sum(M, 1);
  end
end

function check_dfc_networks(X)
  N = columns(X); width = 50; step = 20; W = 11; t = 0.5;
  ref = ref_dfc(X, width, step);
  low = tril(true(N), -1);
  G = fastconn_mex('dfc_graphs', X, width, step, 'abs', t);
  expect(iscell(G) && isequal(size(G), [W 1]), sprintf('dfc_graphs: a W x 1 cell array (got %s %s)', class(G), mat2str(size(G))));
  all_ok = true; weights_ok = true;
  for k = 1:W
    g = G{k};
    r = zeros(N); r(low) = ref(k, :); r = r + r.';
    decided = ~eye(N) & abs(abs(r) - t) > 1e-5;
    all_ok = all_ok && issparse(g) && isequal(size(g), [N N]) && isequal(g, g.') && all(diag(g) == 0) ...
             && isequal(g(decided) ~= 0, abs(r(decided)) >= t);
    weights_ok = weights_ok && max([0; abs(nonzeros(g) - r(g ~= 0))]) <= 1e-5;
  end
  expect(all_ok, 'dfc_graphs |r| >= 0.5: every window sparse, symmetric, zero diagonal, the edges of its corr');
  expect(weights_ok, 'dfc_graphs: edge weights are the window''s r');
  expect(any(cellfun(@nnz, G) ~= nnz(G{1})), 'dfc_graphs: the windows'' networks differ');
  B = fastconn_mex('dfc_graphs', X, width, step, 'abs', t, struct('weights', 'binary'));
  expect(all(cellfun(@(b, g) isequal(b ~= 0, g ~= 0) && all(nonzeros(b) == 1), B, G)), 'dfc_graphs binary: same edges, weight 1');

  % Degree = the graphs' row sums, for every rule.
  [k, s] = fastconn_mex('dfc_degree', X, width, step, 'abs', t);
  expect(isequal(size(k), [W N]) && isequal(size(s), [W N]), 'dfc_degree: two W x N outputs');
  expect(isequal(k, cell2mat(cellfun(@(g) full(sum(g ~= 0, 1)), G, 'UniformOutput', false))), ...
         'dfc_degree abs = the row sizes of dfc_graphs');
  within(s, cell2mat(cellfun(@(g) full(sum(abs(g), 1)), G, 'UniformOutput', false)), 1e-5, ...
         'dfc_degree abs: strength = the row sums of |r| of dfc_graphs');
  for c = {{'signed', 0.3}, {'density', 0.1}, {'topk', 3}}
    [rule, p] = deal(c{1}{:});
    [k, s] = fastconn_mex('dfc_degree', X, width, step, rule, p);
    Gr = fastconn_mex('dfc_graphs', X, width, step, rule, p);
    ks = cell2mat(cellfun(@(g) full(sum(g ~= 0, 1)), Gr, 'UniformOutput', false));
    ss = cell2mat(cellfun(@(g) full(sum(g, 1)), Gr, 'UniformOutput', false));
    if ~strcmp(rule, 'signed'), ss = cell2mat(cellfun(@(g) full(sum(abs(g), 1)), Gr, 'UniformOutput', false)); end
    expect(isequal(k, ks), sprintf('dfc_degree %s %g = the row sizes of dfc_graphs', rule, p));
    within(s, ss, 1e-5, sprintf('dfc_degree %s %g: strength = the graphs'' row sums', rule, p));
  end
  Gd = fastconn_mex('dfc_graphs', X, width, step, 'density', 0.1);
  expect(all(cellfun(@nnz, Gd) == 2 * ceil(0.1 * N * (N - 1) / 2)), 'dfc_graphs density 0.1: ceil(d N(N-1)/2) edges in every window');
  % Degree against corr of each window directly (pairs within 1e-5 of the threshold excepted).
  k = fastconn_mex('dfc_degree', X, width, step, 'abs', t);
  kd = degree_of(abs(ref) >= t, N);
  near = degree_of(abs(abs(ref) - t) <= 1e-5, N);
  expect(all(abs(k(:) - kd(:)) <= near(:)), 'dfc_degree abs vs corr of each window');
end

function check_summary(X)
  N = columns(X);
  for c = {{50, 20}, {37, 9}}
    [width, step] = deal(c{1}{:});
    ref = ref_dfc(X, width, step);
    [m, sd] = fastconn_mex('dfc_summary', X, width, step);
    expect(isequal(size(m), [1 N*(N-1)/2]) && isequal(size(sd), [1 N*(N-1)/2]), 'dfc_summary: two 1 x N(N-1)/2 rows');
    within(m, mean(ref, 1), 1e-5, sprintf('dfc_summary width %d step %d: mean over windows', width, step));
    within(sd, std(ref, 0, 1), 1e-5, sprintf('dfc_summary width %d step %d: sample sd over windows', width, step));
  end
  [m, sd] = fastconn_mex('dfc_summary', X, 30, 10, 'gaussian', 4);
  ref = ref_dfc(X, 30, 10, 4);
  within(m, mean(ref, 1), 1e-5, 'dfc_summary Gaussian: mean');
  within(sd, std(ref, 0, 1), 1e-5, 'dfc_summary Gaussian: sd');
  [m, sd] = fastconn_mex('dfc_summary', X, 250, 1);
  v = fastconn_mex('triu', X);
  within(m, v.', 1e-5, 'dfc_summary of one window: the mean is the triangle');
  expect(all(isnan(sd)), 'dfc_summary of one window: sd is NaN (divisor W - 1 = 0)');
end

function check_lowrank(X)
  N = columns(X);
  R64 = corr(X);
  [U, L] = eig((R64 + R64.') / 2);
  [lam, order] = sort(diag(L), 'descend');
  U = U(:, order);
  Z = (X - mean(X)) ./ sqrt(sum((X - mean(X)).^2));   % T x N normalized series
  for l = [1 5 12]
    [V, err] = fastconn_mex('lowrank', X, l);
    expect(strcmp(class(V), 'double') && isequal(size(V), [N l]) && isscalar(err), sprintf('lowrank %d: V is N x %d, err a scalar', l, l));
    err_ref = sqrt(sum(lam(l+1:end).^2) / sum(lam.^2));
    within(err, err_ref, 1e-6, sprintf('lowrank %d: err vs eig of corr(X)', l));
    within(V * V.', U(:, 1:l) * diag(lam(1:l)) * U(:, 1:l).', 1e-5, sprintf('lowrank %d: V*V'' is the best rank-%d approximation', l, l));
    within(norm(R64 - V * V.', 'fro') / norm(R64, 'fro'), err, 1e-5, sprintf('lowrank %d: err = ||R - VV''||_F / ||R||_F', l));
    % V = Z_c U_l (Z_c = Z', N x T) with U_l's largest-magnitude entries positive (fastconn.h): U_l = Z V / lambda.
    Ul = (Z * V) ./ lam(1:l).';
    [~, at] = max(abs(Ul));
    expect(all(Ul(sub2ind(size(Ul), at, 1:l)) > 0), sprintf('lowrank %d: the eigenvectors'' signs are fixed', l));
  end
  [V, err] = fastconn_mex('lowrank', X, N);
  within(V * V.', R64, 1e-5, 'lowrank N: V*V'' reproduces corr(X)');
  expect(err <= 1e-6, sprintf('lowrank N: err is 0 (got %.3g)', err));
  [V2, err2] = fastconn_mex('lowrank', X, 5);
  [V3, err3] = fastconn_mex('lowrank', X, 5);
  expect(isequal(V2, V3) && err2 == err3, 'lowrank: the same result twice');
  Vs = fastconn_mex('lowrank', single(X), 5);
  expect(strcmp(class(Vs), 'single') && isequal(size(Vs), [N 5]), 'lowrank of single X is single');
end

function check_dfc_lowrank()
  randn('state', 5);
  T = 61; N = 40; width = 12; step = 7;   % W = floor(49 / 7) + 1 = 8; N > width
  X = randn(T, 4) * randn(4, N) + 0.5 * randn(T, N);
  W = 8;
  [V, err] = fastconn_mex('dfc_lowrank', X, width, step, 3);
  expect(isequal(size(V), [N 3 W]) && isequal(size(err), [W 1]), ...
         sprintf('dfc_lowrank: V is N x rank x W, err W x 1 (got %s, %s)', mat2str(size(V)), mat2str(size(err))));
  ok_err = true; ok_v = true; worst = 0;
  for k = 1:W
    C = corr(X((k - 1) * step + (1:width), :));
    lam = sort(eig((C + C.') / 2), 'descend');
    ok_err = ok_err && abs(err(k) - sqrt(sum(lam(4:end).^2) / sum(lam.^2))) <= 1e-6;
    d = abs(norm(C - V(:, :, k) * V(:, :, k).', 'fro') / norm(C, 'fro') - err(k));
    worst = max(worst, d);
  end
  expect(ok_err, 'dfc_lowrank rank 3: each window''s err vs eig of its corr');
  expect(worst <= 1e-5, sprintf('dfc_lowrank rank 3: err = ||R_k - V_k V_k''||_F / ||R_k||_F (worst %.3g)', worst));
  % rank = width - 1 holds the whole centered window: every r within the FP32 contract.
  [V, err] = fastconn_mex('dfc_lowrank', X, width, step, width - 1);
  worst = 0;
  for k = 1:W
    C = corr(X((k - 1) * step + (1:width), :));
    worst = max(worst, max(max(abs(V(:, :, k) * V(:, :, k).' - C))));
  end
  expect(worst <= 1e-5 && all(err <= 1e-5), sprintf('dfc_lowrank rank width-1: V_k V_k'' = corr of window k (worst %.3g, err %.3g)', worst, max(err)));
  [V1, e1] = fastconn_mex('lowrank', X(8:19, :), 3);
  [V2, e2] = fastconn_mex('dfc_lowrank', X, width, step, 3);
  within(V2(:, :, 2), V1, 1e-5, 'dfc_lowrank window 2 = lowrank of rows 8..19');
  % A window is normalized from the stored (float32) rows, lowrank here from the raw rows: about 1e-7.
  within(e2(2), e1, 1e-6, 'dfc_lowrank window 2 err = lowrank err of rows 8..19');
  [V, err] = fastconn_mex('dfc_lowrank', X, 20, 5, 2, 'gaussian', 3);
  expect(isequal(size(V), [N 2 9]) && all(err > 0 & err < 1), 'dfc_lowrank with a Gaussian taper: N x 2 x 9, errors in (0, 1)');
end

function check_errors(X)
  T = rows(X);
  lib = 'fastconn:FC_ERR_INVALID_ARG';
  expect_error(@() fastconn_mex('dfc', X, 300, 10), lib, '300', 'dfc width 300 > T 250');
  expect_error(@() fastconn_mex('dfc', X, 1, 10), lib, {'length', '1'}, 'dfc width 1');
  expect_error(@() fastconn_mex('dfc', X, 50, 0), lib, {'step', '0'}, 'dfc step 0');
  expect_error(@() fastconn_mex('dfc', X, 50, -3), lib, {'step', '-3'}, 'dfc step -3');
  expect_error(@() fastconn_mex('dfc', X, 50, 10, 'gaussian', 0), lib, 'sigma', 'Gaussian sigma 0');
  expect_error(@() fastconn_mex('dfc', X, 50, 10, 'gaussian', -2.5), lib, {'sigma', '-2.5'}, 'Gaussian sigma -2.5');
  expect_error(@() fastconn_mex('dfc_degree', X, 50, 10, 'density', 1.5), 'fastconn:usage', 'not 1.5', 'dfc_degree density 1.5');
  expect_error(@() fastconn_mex('dfc_graphs', X, 50, 10, 'topk', 0), 'fastconn:usage', 'not 0', 'dfc_graphs topk 0');
  expect_error(@() fastconn_mex('dfc_degree', X, 50, 10, 'abs', -0.3), 'fastconn:usage', 'keeps every pair', 'dfc_degree abs -0.3');
  expect_error(@() fastconn_mex('dfc_summary', X, 251, 1), lib, '251', 'dfc_summary width 251 > T');
  expect_error(@() fastconn_mex('lowrank', X, 0), lib, 'rank', 'lowrank rank 0');
  expect_error(@() fastconn_mex('lowrank', X, 251), lib, {'rank', '251'}, 'lowrank rank 251 > T 250');
  expect_error(@() fastconn_mex('dfc_lowrank', X, 50, 10, 51), lib, {'rank', '51'}, 'dfc_lowrank rank 51 > width 50');
  expect_error(@() fastconn_mex('dfc_lowrank', X, 50, 0, 3), lib, 'step', 'dfc_lowrank step 0');
  Xn = X; Xn(7, 4) = NaN;
  expect_error(@() fastconn_mex('dfc', Xn, 50, 10), 'fastconn:FC_ERR_NONFINITE_INPUT', 'series 3 ', 'dfc of NaN input');

  usage = 'fastconn:usage';
  expect_error(@() fastconn_mex('dfc', X, 2.5, 10), usage, '2.5', 'dfc width 2.5');
  expect_error(@() fastconn_mex('dfc', X, 50, NaN), usage, 'NaN', 'dfc step NaN');
  expect_error(@() fastconn_mex('dfc', X, '50', 10), usage, 'width', 'dfc width as text');
  expect_error(@() fastconn_mex('dfc', X, 50), usage, 'width, step', 'dfc without step');
  expect_error(@() fastconn_mex('dfc', X, 50, 10, 'hann'), usage, 'hann', 'unknown taper');
  expect_error(@() fastconn_mex('dfc', X, 50, 10, 'gaussian'), usage, 'sigma', 'gaussian without sigma');
  expect_error(@() fastconn_mex('dfc', X, 50, 10, 3), usage, 'argument 4', 'stray argument');
  expect_error(@() fastconn_mex('dfc', X, 50, 10, struct('weights', 'binary')), usage, 'weights', 'weights option for dfc');
  expect_error(@() fastconn_mex('dfc', X, 50, 10, struct('bogus', 1)), usage, 'bogus', 'unknown option for dfc');
  expect_error(@() fastconn_mex('dfc_degree', X, 50, 10, 'pearson', 0.5), usage, 'rule', 'dfc_degree unknown rule');
  expect_error(@() fastconn_mex('dfc_graphs', X, 50, 10), usage, 'rule', 'dfc_graphs without rule');
  expect_error(@() fastconn_mex('lowrank', X, 2.5), usage, '2.5', 'lowrank rank 2.5');
  expect_error(@() fastconn_mex('lowrank', X + 1i, 2), usage, 'real', 'lowrank of complex X');
  expect_error(@() three_outputs(X), usage, 'returns 2', 'three outputs of dfc_summary');
  % After errors the cached context still works.
  within(fastconn_mex('dfc', X(:, 1:4), 100, 50), ref_dfc(X(:, 1:4), 100, 50), 1e-5, 'a dfc call after errors succeeds');
end

function three_outputs(X)
  [a, b, c] = fastconn_mex('dfc_summary', X, 50, 10);
end
