function G = fcDfcGraphs(X, width, step, rule, p, varargin)
%FCDFCGRAPHS  Every sliding window's network as a sparse matrix.
%   G = fcDfcGraphs(X, width, step, rule, p) is a W x 1 cell array: G{k} is window k's network
%   as fcGraph returns it (rule and p as there).
%
%   Options: 'Weights' (as fcGraph), 'Taper', 'Sigma' (as fcDfc), 'Precision', 'Backend',
%   'Threads', 'MemoryLimit'.
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcDfcGraphs')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     G = fcDfcGraphs(X, 50, 10, 'density', 0.1);
%     edges = cellfun(@nnz, G) / 2;          % 47 per window
%     labels = fcModularity(abs(G{1}));       % modules of window 1
%
%   See also fcGraph, fcDfc, fcModularity.
[opts, extra] = fc_options('fcDfcGraphs', varargin, ...
                           {'Weights', 'Taper', 'Sigma', 'Backend', 'Precision', 'Threads', 'MemoryLimit'});
taper = fc_taper('fcDfcGraphs', extra);
G = fastconn_mex('dfc_graphs', X, width, step, rule, p, taper{:}, opts);
end
