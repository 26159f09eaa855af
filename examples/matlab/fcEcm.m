function [c, lambda] = fcEcm(X, varargin)
%FCECM  Eigenvector centrality of the correlation matrix (fast or thresholded ECM).
%   c = fcEcm(X) is the N x 1 leading eigenvector of (R + 1) / 2, R = corr(X) of the T x N
%   matrix X (columns are series), with unit norm and entries >= 0: the fast ECM of Wink et al.
%   (2012, Brain Connectivity 2:265), as AFNI's 3dECM -fecm computes it. R is never formed: each
%   product costs O(N T). [c, lambda] = fcEcm(X) also returns the eigenvalue. c is double.
%   A zero-variance column gets NaN and is left out of R (with a fastconn:constant warning), or
%   stays in it with r = 0 under 'Constant', 'zero' (AFNI's answer).
%
%   With 'Threshold', 'Density' or 'TopK' (the rules of fcGraph), the thresholded ECM of Lohmann
%   et al. (2010, PLoS ONE 5:e10232) instead: the leading eigenvector of the network's adjacency
%   matrix, binary ('Weights', 'binary', the default) or weighted ('abs': |r|; 'r': r, which must
%   be >= 0 on every edge), unit norm, entries >= 0. The network is built as fcGraph builds it
%   and freed after (it takes the graph's memory: about density x N^2 entries of 12 bytes).
%   Columns without edges (zero-variance ones among them) get 0.
%
%   Options (name/value):
%     'Tolerance'   residual test |B c - lambda c| <= Tolerance * lambda (default 1e-10; in
%                   [1e-13, 0.1])
%     'Method'      'pearson' (default) or 'spearman' (the matrix of Spearman's rho)
%     'Threshold'   |r| >= t (r >= t with 'Signed', true); 'Density' d: the ceil(d N(N-1)/2)
%                   pairs of largest |r|; 'TopK' k: each series' k largest |r|
%     'Weights'     'binary' (default), 'abs' or 'r': the thresholded ECM's edge weights
%     'Precision', 'Backend', 'Threads', 'MemoryLimit', 'Constant' as for fcCorr ('fp64' stores
%                   the normalized series in double: relative error <= 1e-6)
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcEcm')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     [c, lambda] = fcEcm(X, 'Precision', 'fp64');
%     [V, D] = eig((corr(X) + 1) / 2);
%     max(abs(c - abs(V(:, end))))          % about 1e-12
%     t = fcEcm(X, 'Threshold', 0.3, 'Precision', 'fp64');   % |r| >= 0.3, binarized
%     A = double(abs(corr(X)) >= 0.3) - eye(size(X, 2));
%     [V, D] = eig(A);
%     max(abs(t - abs(V(:, end))))          % about 1e-12
%
%   See also fcEigenCentrality, fcDegree, fcCorr, fcGraph.
[opts, extra] = fc_options('fcEcm', varargin, {'Tolerance', 'Method', 'Precision', 'Backend', 'Threads', ...
                                                'MemoryLimit', 'Constant', 'Threshold', 'Density', 'TopK', ...
                                                'Signed', 'Weights'});
tolerance = [];
if isfield(extra, 'tolerance'), tolerance = extra.tolerance; end
rules = {'threshold', 'density', 'topk'};
given = rules(isfield(extra, rules));
signed = isfield(extra, 'signed') && isequal(extra.signed, true);
if isempty(given)
  if isfield(extra, 'signed') || isfield(opts, 'weights')
    error('fastconn:usage', 'fcEcm: ''Signed'' and ''Weights'' apply to the thresholded ECM: give ''Threshold'', ''Density'' or ''TopK''');
  end
  [c, lambda] = fastconn_mex('ecm', X, tolerance, opts);
  return;
end
if numel(given) > 1
  error('fastconn:usage', 'fcEcm: give one of ''Threshold'', ''Density'' or ''TopK'', not %s', strjoin(given, ' and '));
end
rule = given{1};
p = extra.(rule);
if strcmp(rule, 'threshold')
  if signed, rule = 'signed'; else, rule = 'abs'; end
elseif signed
  error('fastconn:usage', 'fcEcm: ''Signed'' applies to ''Threshold'' only');
end
[c, lambda] = fastconn_mex('ecm_thresholded', X, rule, p, tolerance, opts);
end
