function [V, err] = fcLowRank(X, rank, varargin)
%FCLOWRANK  Optimal low-rank factor of the correlation matrix, with its exact error.
%   [V, err] = fcLowRank(X, rank) is the N x rank factor with corr(X) ~= V*V' (the best rank-l
%   approximation in the Frobenius norm, from the T x T eigenproblem) and
%   err = norm(R - V*V', 'fro') / norm(R, 'fro'). V comes from the library's float output
%   (no double twin exists), so a double V carries float rounding (about 6e-8) in any precision.
%
%   Options: 'Precision', 'Backend', 'Threads', 'MemoryLimit'.
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcLowRank')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     [V, err] = fcLowRank(X, 5);
%     R = corr(X);  norm(R - V*V', 'fro') / norm(R, 'fro') - err
%
%   See also fcDfcLowRank.
opts = fc_options('fcLowRank', varargin, {'Backend', 'Precision', 'Threads', 'MemoryLimit'});
[V, err] = fastconn_mex('lowrank', X, rank, opts);
end
