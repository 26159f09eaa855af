function [P, shrinkage] = fcPartialCorrelation(X, varargin)
%FCPARTIALCORRELATION  Partial correlation (or precision) with Ledoit-Wolf shrinkage.
%   P = fcPartialCorrelation(X) is the N x N partial correlation matrix of the columns of the
%   T x N matrix X, as nilearn's ConnectivityMeasure(kind='partial correlation') computes it: the
%   columns are standardized (population sd), their correlation matrix R is shrunk to
%   S = (1 - a) R + a I with Ledoit and Wolf's automatic intensity a (as scikit-learn computes it),
%   S is inverted by Cholesky (the precision Q) and P(i,j) = -Q(i,j) / sqrt(Q(i,i) Q(j,j)), with a
%   unit diagonal. [P, a] = fcPartialCorrelation(X) also returns the intensity applied. N > T is
%   fine with a > 0. A constant column is an error naming it. P is double.
%
%   Options (name/value):
%     'Shrinkage'   'ledoit-wolf' (default) or a number in [0, 1] (0 needs N <= T - 1)
%     'Output'      'partial' (default) or 'precision' (Q, the inverse of S)
%     'Precision', 'Backend', 'Threads', 'MemoryLimit' as for fcCorr ('fp64' stores the series in
%                   double: use it for double accuracy)
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcPartialCorrelation')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     P = fcPartialCorrelation(X, 'Shrinkage', 0.1, 'Precision', 'fp64');
%     Q = inv(0.9 * corr(X) + 0.1 * eye(size(X, 2)));
%     D = -Q ./ sqrt(diag(Q) * diag(Q)');
%     D(logical(eye(size(D)))) = 1;
%     max(abs(P(:) - D(:)))                 % about 1e-12
%
%   See also fcCorr, fcEcm.
[opts, extra] = fc_options('fcPartialCorrelation', varargin, {'Shrinkage', 'Output', 'Precision', 'Backend', ...
                                                              'Threads', 'MemoryLimit'});
shrinkage = 'ledoit-wolf';
output = 'partial';
if isfield(extra, 'shrinkage'), shrinkage = extra.shrinkage; end
if isfield(extra, 'output'), output = extra.output; end
[P, shrinkage] = fastconn_mex('partial', X, shrinkage, output, opts);
end
