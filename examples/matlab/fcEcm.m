function [c, lambda] = fcEcm(X, varargin)
%FCECM  Fast eigenvector centrality of the correlation matrix (fast ECM), without the matrix.
%   c = fcEcm(X) is the N x 1 leading eigenvector of (R + 1) / 2, R = corr(X) of the T x N
%   matrix X (columns are series), with unit norm and entries >= 0: the fast ECM of Wink et al.
%   (2012, Brain Connectivity 2:265), as AFNI's 3dECM -fecm computes it. R is never formed: each
%   product costs O(N T). [c, lambda] = fcEcm(X) also returns the eigenvalue. c is double.
%   A zero-variance column gets NaN and is left out of R (with a fastconn:constant warning), or
%   stays in it with r = 0 under 'Constant', 'zero' (AFNI's answer).
%
%   Options (name/value):
%     'Tolerance'   residual test |B c - lambda c| <= Tolerance * lambda (default 1e-10; in
%                   [1e-13, 0.1])
%     'Method'      'pearson' (default) or 'spearman' (the matrix of Spearman's rho)
%     'Precision', 'Backend', 'Threads', 'MemoryLimit', 'Constant' as for fcCorr ('fp64' stores
%                   the normalized series in double: relative error <= 1e-6)
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcEcm')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     [c, lambda] = fcEcm(X, 'Precision', 'fp64');
%     [V, D] = eig((corr(X) + 1) / 2);
%     max(abs(c - abs(V(:, end))))          % about 1e-12
%
%   See also fcEigenCentrality, fcDegree, fcCorr.
[opts, extra] = fc_options('fcEcm', varargin, {'Tolerance', 'Method', 'Precision', 'Backend', 'Threads', ...
                                                'MemoryLimit', 'Constant'});
tolerance = [];
if isfield(extra, 'tolerance'), tolerance = extra.tolerance; end
[c, lambda] = fastconn_mex('ecm', X, tolerance, opts);
end
