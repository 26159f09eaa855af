function test_fastconn_mex_centrality(mex_dir, csv_path)
% TEST_FASTCONN_MEX_CENTRALITY  'ecm', 'eigen_centrality', 'fisher_z' and the 'spearman' method of
% the MEX gateway, and fcEcm / fcEigenCentrality / fcFisherZ / 'Method': against Octave's eig in
% double ((R + 1) / 2 and the adjacency), Spearman's rho of the ranks (average ranks for ties,
% computed here) and atanh; bad values named.
  functions_dir = fullfile(fileparts(fileparts(fileparts(mfilename('fullpath')))), 'examples', 'matlab');
  addpath(functions_dir);
  start_checks(mex_dir, 'test_fastconn_mex_centrality');
  X = dlmread(csv_path, ',', 1, 0);
  check_ecm(X);
  check_eigen_centrality(X);
  check_spearman(X);
  check_fisher_z(X);
  finish_checks('test_fastconn_mex_centrality');
end

function [v, lambda] = dense_ecm(X)
  [V, D] = eig((corr(X) + 1) / 2);
  [lambda, k] = max(diag(D));
  v = abs(V(:, k));
end

function check_ecm(X)
  [v, lambda] = dense_ecm(X);
  [c, l] = fastconn_mex('ecm', X, struct('precision', 'fp64'));
  within(c, v, 1e-8, 'ecm fp64 = leading eigenvector of (R + 1) / 2');
  expect(abs(l - lambda) <= 1e-8 * lambda, 'ecm fp64 eigenvalue');
  within(fcEcm(X), v, 1e-5, 'fcEcm fp32');
  within(fcEcm(single(X), 'Tolerance', 1e-8), v, 1e-4, 'fcEcm of single X, tolerance 1e-8');
  expect(strcmp(class(fcEcm(single(X))), 'double'), 'fcEcm is double');
  Xc = X; Xc(:, 7) = 3;
  text = evalc('c7 = fcEcm(Xc, ''Precision'', ''fp64'');');
  expect(~isempty(strfind(text, 'column 7')) && isnan(c7(7)), 'fcEcm: constant column 7 is NaN, with a warning');
  within(c7([1:6 8:end]), dense_ecm(Xc(:, [1:6 8:end])), 1e-8, 'fcEcm leaves the constant column out');
  c0 = fcEcm(Xc, 'Constant', 'zero');
  expect(all(isfinite(c0)) && all(c0 >= 0), 'fcEcm ''Constant'', ''zero'' gives finite values');
  expect_error(@() fcEcm(X, 'Tolerance', 0.5), 'fastconn:FC_ERR_INVALID_ARG', 'tolerance is 0.5', 'fcEcm tolerance 0.5');
  expect_error(@() fastconn_mex('ecm', X, 'x'), 'fastconn:usage', 'tolerance', 'ecm tolerance of a string');
  expect_error(@() fcEcm(X, 'Method', 'kendall'), 'fastconn:usage', 'kendall', 'fcEcm method kendall');
  Xn = X; Xn(4, 2) = NaN;
  expect_error(@() fcEcm(Xn), 'fastconn:FC_ERR_NONFINITE_INPUT', 'series 1', 'fcEcm NaN names the series');
end

function check_eigen_centrality(X)
  G = fcGraph(X, 'density', 0.2, 'Weights', 'abs');
  [V, D] = eig(double(single(full(G))));
  [lambda, k] = max(diag(D));
  v = abs(V(:, k)) / max(abs(V(:, k)));
  [c, l] = fcEigenCentrality(G);
  within(c, v, 1e-6, 'fcEigenCentrality = leading eigenvector of G, largest 1');
  expect(abs(l - lambda) <= 1e-6 * lambda && max(c) == 1, 'fcEigenCentrality eigenvalue, max 1');
  B = double(G ~= 0);
  [V, D] = eig(B);
  [~, k] = max(diag(D));
  within(fcEigenCentrality(G, 'Weighted', false), abs(V(:, k)) / max(abs(V(:, k))), 1e-6, 'unweighted');
  [c, l] = fastconn_mex('eigen_centrality', sparse(4, 4));
  expect(isequal(c, ones(4, 1)) && l == 0, 'a network without edges: 1 everywhere, eigenvalue 0');
  A = [0 1 0; 1 0 -2; 0 -2 0];
  expect_error(@() fcEigenCentrality(A), 'fastconn:FC_ERR_INVALID_ARG', '-2', 'a negative weight is named');
  expect_error(@() fcEigenCentrality(abs(A), 'Weighted', 2), 'fastconn:usage', 'not 2', 'Weighted 2');
end

function r = ranks(x)
  % average ranks of each column (ties share theirs), as Spearman's rho takes them
  r = zeros(size(x));
  for j = 1:columns(x)
    [s, order] = sort(x(:, j));
    rk = zeros(rows(x), 1);
    rk(order) = 1:rows(x);
    [u, ~, g] = unique(s);
    avg = accumarray(g, (1:rows(x))') ./ accumarray(g, 1);
    rk(order) = avg(g);
    r(:, j) = rk;
  end
end

function check_spearman(X)
  Xt = round(2 * (X - mean(X)) ./ std(X));  % ties in every column, none constant
  rho = corr(ranks(Xt));
  within(fcCorr(Xt, 'Method', 'spearman', 'Precision', 'fp64'), rho, 1e-12, 'fcCorr Spearman fp64, ties');
  within(fcCorr(Xt, 'Method', 'Spearman'), rho, 1e-5, 'fcCorr Spearman fp32');
  within(fcCorr(Xt(:, 1:2), Xt, 'Method', 'spearman', 'Precision', 'fp64'), rho(1:2, :), 1e-12, 'Spearman cross');
  v = fcCorrTriu(Xt, 'Method', 'spearman', 'Precision', 'fp64');
  within(v, rho(tril(true(columns(Xt)), -1)), 1e-12, 'fcCorrTriu Spearman');
  within(fcEcm(Xt, 'Method', 'spearman', 'Precision', 'fp64'), dense_ecm(ranks(Xt)), 1e-8, 'fcEcm Spearman');
  within(fcCorr(Xt, 'Precision', 'fp64'), corr(Xt), 1e-12, 'Pearson stays Pearson');
  expect_error(@() fcCorr(X, 'Method', 'kendall'), 'fastconn:usage', {'method', 'kendall'}, 'method kendall');
end

function check_fisher_z(X)
  R = fcCorr(X, 'Precision', 'fp64');
  Z = fcFisherZ(R);
  off = ~eye(size(R));
  within(Z(off), atanh(R(off)), 1e-13, 'fcFisherZ = atanh');
  expect(all(diag(Z) == Inf) && isequal(size(Z), size(R)), 'the diagonal becomes Inf, the shape is kept');
  Zs = fcFisherZ(single(R));
  expect(strcmp(class(Zs), 'single'), 'fcFisherZ of single is single');
  within(double(Zs(off)), atanh(double(single(R(off)))), 1e-5, 'fcFisherZ single');
  z = fcFisherZ([-1 NaN 0.5]);
  expect(z(1) == -Inf && isnan(z(2)) && abs(z(3) - atanh(0.5)) < 1e-15, 'r = -1, NaN, 0.5');
  expect_error(@() fcFisherZ([0.2 1.5]), 'fastconn:FC_ERR_INVALID_ARG', '1.5', 'fcFisherZ names 1.5');
  expect_error(@() fcFisherZ('a'), 'fastconn:usage', 'real', 'fcFisherZ of a string');
end
