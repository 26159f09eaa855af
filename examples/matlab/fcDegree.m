function [k, s] = fcDegree(X, rule, p, varargin)
%FCDEGREE  Degree and strength of every series in the correlation network, without the network.
%   [k, s] = fcDegree(X, rule, p) are N x 1 vectors: the degree k (edges per series) and the
%   strength s (the sum of its edges' |r|; of r under 'signed') of the network fcGraph(X, rule, p)
%   would return, computed without forming it. Rules and ranges as in fcGraph.
%
%   Options: those of fcCorr ('Precision', 'Backend', 'Threads', 'MemoryLimit', 'Method').
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcDegree')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     [k, s] = fcDegree(X, 'abs', 0.5);
%     isequal(k, full(sum(fcGraph(X, 'abs', 0.5) ~= 0, 2)))
%
%   See also fcGraph, fcDfcDegree.
opts = fc_options('fcDegree', varargin, {'Backend', 'Precision', 'Threads', 'MemoryLimit', 'Method'});
[k, s] = fastconn_mex('degree', X, rule, p, opts);
end
