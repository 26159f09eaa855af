function test_fastconn_mex_ecm(mex_dir, csv_path)
% TEST_FASTCONN_MEX_ECM_THRESHOLDED  'ecm_thresholded' of the MEX gateway and fcEcm with an edge
% rule: against Octave's eig of the dense thresholded corr(X) in double (binary, |r|, r >= t
% weights), the density rule against fcGraph's network, constant columns, bad values named.
  functions_dir = fullfile(fileparts(fileparts(fileparts(mfilename('fullpath')))), 'examples', 'matlab');
  addpath(functions_dir);
  start_checks(mex_dir, 'test_fastconn_mex_ecm');
  X = dlmread(csv_path, ',', 1, 0);
  check_against_eig(X);
  check_edges(X);
  check_errors(X);
  check_dfc_ecm(X);
  finish_checks('test_fastconn_mex_ecm');
end

function [v, lambda] = leading(A)
  [V, D] = eig((A + A') / 2);
  [lambda, k] = max(diag(D));
  v = abs(V(:, k));
end

function check_against_eig(X)
  R = corr(X);
  n = size(X, 2);
  off = ~eye(n);
  [v, l] = leading(double(abs(R) >= 0.3 & off));
  [c, lambda] = fastconn_mex('ecm_thresholded', X, 'abs', 0.3, struct('precision', 'fp64'));
  within(c, v, 1e-8, 'ecm_thresholded abs 0.3 binary = eig');
  expect(abs(lambda - l) <= 1e-8 * l, 'ecm_thresholded eigenvalue');
  within(fcEcm(X, 'Threshold', 0.25, 'Weights', 'abs', 'Precision', 'fp64'), ...
         leading(abs(R) .* (abs(R) >= 0.25 & off)), 1e-8, 'fcEcm |r| >= 0.25 weighted by |r|');
  within(fcEcm(X, 'Threshold', 0.2, 'Signed', true, 'Weights', 'r', 'Precision', 'fp64'), ...
         leading(R .* (R >= 0.2 & off)), 1e-8, 'fcEcm r >= 0.2 weighted by r');
  G = fcGraph(X, 'density', 0.1, 'Weights', 'binary', 'Precision', 'fp64');
  within(fcEcm(X, 'Density', 0.1, 'Precision', 'fp64'), leading(full(G)), 1e-8, 'fcEcm density 0.1 = eig of fcGraph');
  c = fcEcm(X, 'TopK', 3);
  expect(abs(norm(c) - 1) < 1e-12 && all(c >= 0), 'fcEcm TopK 3: unit norm, entries >= 0');
end

function check_edges(X)
  Xc = X(:, 1:9); Xc(:, 4) = 2;
  c = fcEcm(Xc, 'Threshold', 0, 'Precision', 'fp64');
  expect(c(4) == 0, 'a constant column gets 0');
  [c, lambda] = fcEcm(X(:, 1:5), 'Threshold', 1, 'Precision', 'fp64');
  expect(lambda == 0 && max(abs(c - 1 / sqrt(5))) < 1e-15, 'no edges: 1/sqrt(N), eigenvalue 0');
end

function check_errors(X)
  expect_error(@() fcEcm(X, 'Density', 1.5), 'fastconn:usage', '1.5', 'density 1.5');
  expect_error(@() fcEcm(X, 'Threshold', NaN), 'fastconn:usage', 'NaN', 'threshold NaN');
  expect_error(@() fcEcm(X, 'Weights', 'abs'), 'fastconn:usage', 'Weights', 'weights without a rule');
  expect_error(@() fcEcm(X, 'Threshold', 0.3, 'Density', 0.1), 'fastconn:usage', 'threshold and density', 'two rules');
  expect_error(@() fcEcm(X, 'Density', 1, 'Weights', 'r'), 'fastconn:FC_ERR_INVALID_ARG', 'weight', ...
               'negative r weights are named');
end

function check_dfc_ecm(X)
  [C, lambda] = fcDfcEcm(X, 50, 20, 'Precision', 'fp64');
  starts = 1:20:(size(X, 1) - 50 + 1);
  expect(isequal(size(C), [numel(starts), size(X, 2)]) && isequal(size(lambda), [numel(starts), 1]), ...
         'fcDfcEcm: W x N and W x 1');
  for k = 1:numel(starts)
    W = X(starts(k):starts(k) + 49, :);
    [v, l] = leading((corr(W) + 1) / 2);
    within(C(k, :)', v, 1e-8, sprintf('fcDfcEcm window %d = eig of (R + 1) / 2', k));
    expect(abs(lambda(k) - l) <= 1e-8 * l, sprintf('fcDfcEcm window %d eigenvalue', k));
    within(C(k, :)', fcEcm(W, 'Precision', 'fp64'), 1e-12, sprintf('fcDfcEcm window %d = fcEcm of the window', k));
  end
  G = fcDfcEcm(X, 50, 20, 'Taper', 'gaussian', 'Sigma', 5);
  expect(all(abs(sqrt(sum(G .^ 2, 2)) - 1) < 1e-12), 'fcDfcEcm gaussian: unit norm rows');
  expect_error(@() fcDfcEcm(X, 1, 5), 'fastconn:FC_ERR_INVALID_ARG', 'length', 'width 1');
  expect_error(@() fcDfcEcm(X, 50, 20, 'Tolerance', 0.5), 'fastconn:FC_ERR_INVALID_ARG', 'tolerance', 'tolerance 0.5');
end
