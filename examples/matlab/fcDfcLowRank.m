function [V, err] = fcDfcLowRank(X, width, step, rank, varargin)
%FCDFCLOWRANK  Optimal low-rank factor of every sliding window's correlation matrix.
%   [V, err] = fcDfcLowRank(X, width, step, rank) is the N x rank x W array of factors
%   (V(:, :, k) for window k, as fcLowRank) and the W x 1 relative errors.
%
%   Options: 'Taper', 'Sigma' (as fcDfc), 'Precision', 'Backend', 'Threads', 'MemoryLimit'.
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcDfcLowRank')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     [V, err] = fcDfcLowRank(X, 50, 10, 3);
%     size(V)                               % 31 x 3 x 21
%
%   See also fcLowRank, fcDfc.
[opts, extra] = fc_options('fcDfcLowRank', varargin, {'Taper', 'Sigma', 'Backend', 'Precision', 'Threads', 'MemoryLimit'});
taper = fc_taper('fcDfcLowRank', extra);
[V, err] = fastconn_mex('dfc_lowrank', X, width, step, rank, taper{:}, opts);
end
