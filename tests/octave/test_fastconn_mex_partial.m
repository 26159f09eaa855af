function test_fastconn_mex_partial(mex_dir, csv_path)
% TEST_FASTCONN_MEX_PARTIAL  'partial' of the MEX gateway and fcPartialCorrelation against a direct
% computation in double here: columns standardized with the population sd, Ledoit-Wolf's
% intensity by its formula (as scikit-learn's ledoit_wolf_shrinkage writes it) or a given one,
% the shrunk matrix inverted by inv; N > T included; bad values named.
  functions_dir = fullfile(fileparts(fileparts(fileparts(mfilename('fullpath')))), 'examples', 'matlab');
  addpath(functions_dir);
  start_checks(mex_dir, 'test_fastconn_mex_partial');
  X = dlmread(csv_path, ',', 1, 0);
  check_against_direct(X);
  check_errors(X);
  finish_checks('test_fastconn_mex_partial');
end

function [P, Q, a] = direct_partial(X, a)
  [t, n] = size(X);
  Z = X - mean(X, 1);
  Z = Z ./ sqrt(sum(Z .^ 2, 1) / t);
  R = (Z' * Z) / t;
  if ischar(a)
    Z2 = Z .^ 2;
    traces = sum(Z2, 1) / t;
    mu = sum(traces) / n;
    beta_sum = sum(sum(Z2' * Z2));
    delta_sum = sum(sum((Z' * Z) .^ 2)) / t ^ 2;
    beta = (beta_sum / t - delta_sum) / (n * t);
    delta = (delta_sum - 2 * mu * sum(traces) + n * mu ^ 2) / n;
    beta = min(beta, delta);
    if beta == 0, a = 0; else, a = beta / delta; end
  end
  Q = inv((1 - a) * R + a * eye(n));
  P = -Q ./ sqrt(diag(Q) * diag(Q)');
  P(logical(eye(n))) = 1;
end

function check_against_direct(X)
  [P, Q, a] = direct_partial(X, 'ledoit-wolf');
  [p, used] = fastconn_mex('partial', X, struct('precision', 'fp64'));
  within(p, P, 1e-6, 'partial fp64 (Ledoit-Wolf) = direct');
  expect(abs(used - a) <= 1e-12, 'partial: the Ledoit-Wolf intensity');
  expect(all(diag(p) == 1) && isequal(p, p'), 'partial: unit diagonal, symmetric');
  within(fastconn_mex('partial', X, [], 'precision', struct('precision', 'fp64')), Q, 1e-6 * max(abs(Q(:))), ...
         'precision fp64 = inv(S)');
  [P3, Q3] = direct_partial(X, 0.3);
  within(fcPartialCorrelation(X, 'Shrinkage', 0.3, 'Precision', 'fp64'), P3, 1e-6, 'fcPartialCorrelation 0.3');
  within(fcPartialCorrelation(X, 'Shrinkage', 0.3, 'Output', 'precision', 'Precision', 'fp64'), Q3, ...
         1e-6 * max(abs(Q3(:))), 'fcPartialCorrelation precision 0.3');
  within(fcPartialCorrelation(single(X)), P, 1e-3, 'fcPartialCorrelation of single X (fp32 rows)');
  % more series than samples: the first 20 samples of the 31 regions
  Xs = X(1:20, :);
  [Ps, ~, as] = direct_partial(Xs, 'ledoit-wolf');
  [ps, us] = fcPartialCorrelation(Xs, 'Precision', 'fp64');
  within(ps, Ps, 1e-6, 'N > T: fcPartialCorrelation = direct');
  expect(abs(us - as) <= 1e-12, 'N > T: the intensity');
  % odd sizes
  for n = [1 2 3]
    within(fcPartialCorrelation(X(:, 1:n), 'Precision', 'fp64'), direct_partial(X(:, 1:n), 'ledoit-wolf'), 1e-6, ...
           sprintf('%d series', n));
  end
end

function check_errors(X)
  expect_error(@() fcPartialCorrelation(X, 'Shrinkage', 1.5), 'fastconn:FC_ERR_INVALID_ARG', '1.5', 'shrinkage 1.5');
  expect_error(@() fcPartialCorrelation(X, 'Shrinkage', 'oas'), 'fastconn:usage', 'oas', 'shrinkage oas');
  expect_error(@() fcPartialCorrelation(X, 'Output', 'covariance'), 'fastconn:usage', 'covariance', 'output');
  Xc = X; Xc(:, 5) = 2;
  expect_error(@() fcPartialCorrelation(Xc), 'fastconn:FC_ERR_INVALID_ARG', '4', 'a constant column is named');
  expect_error(@() fcPartialCorrelation(X(1:10, :), 'Shrinkage', 0), 'fastconn:FC_ERR_INVALID_ARG', 'shrinkage 0', ...
               'no shrinkage with N > T - 1');
  expect_error(@() fastconn_mex('partial', X, 0.1, 'partial', struct('method', 'spearman')), 'fastconn:usage', ...
               'method', 'method does not apply');
end
