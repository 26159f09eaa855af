function [C, lambda] = fcDfcEcm(X, width, step, varargin)
%FCDFCECM  Fast eigenvector centrality of every sliding window.
%   C = fcDfcEcm(X, width, step) is the W x N matrix whose row k is fcEcm of window k of the
%   T x N matrix X (time points (k-1)*step+1 .. (k-1)*step+width): the leading eigenvector of
%   (R_k + 1) / 2, unit norm, without any window's N x N matrix (fc_dfc_ecm). W is
%   floor((T - width) / step) + 1. [C, lambda] = fcDfcEcm(...) also returns the W eigenvalues.
%   A column constant within a window gets NaN there (or stays in with r = 0 under 'Constant',
%   'zero').
%
%   Options (name/value):
%     'Taper', 'Sigma' as for fcDfc
%     'Tolerance'   as for fcEcm
%     'Precision', 'Backend', 'Threads', 'MemoryLimit', 'Constant' as for fcCorr
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcDfcEcm')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     C = fcDfcEcm(X, 50, 10, 'Precision', 'fp64');
%     size(C)                               % 21 windows x 31 regions
%     max(abs(C(3, :)' - fcEcm(X(21:70, :), 'Precision', 'fp64')))   % about 1e-15
%
%   See also fcEcm, fcDfcDegree.
[opts, extra] = fc_options('fcDfcEcm', varargin, {'Taper', 'Sigma', 'Tolerance', 'Precision', 'Backend', ...
                                                   'Threads', 'MemoryLimit', 'Constant'});
taper = fc_taper('fcDfcEcm', extra);
tolerance = [];
if isfield(extra, 'tolerance'), tolerance = extra.tolerance; end
[C, lambda] = fastconn_mex('dfc_ecm', X, width, step, taper{:}, tolerance, opts);
end
