function G = fcGraph(X, rule, p, varargin)
%FCGRAPH  The correlation network of the columns of X as a sparse matrix, without the N x N matrix.
%   G = fcGraph(X, rule, p) is the symmetric sparse N x N matrix (zero diagonal) of the network
%   whose edges the rule chooses as the correlations are computed:
%     'abs'      |r| >= p, 0 <= p <= 1
%     'signed'   r >= p, -1 <= p <= 1 (p > 0: positive edges only)
%     'density'  the ceil(p * N(N-1)/2) pairs of largest |r|, 0 <= p <= 1
%     'topk'     each series' p strongest |r| (p a whole number >= 1), the union of both ends
%   A p outside its range is an error naming it (a negative 'abs' threshold would keep every
%   pair). graph(G) makes a MATLAB graph object of it (MATLAB only).
%
%   Options: 'Weights' 'r' (default: the edge weighs r), 'abs' (|r|) or 'binary' (1), and those
%   of fcCorr ('Precision', 'Backend', 'Threads', 'MemoryLimit', 'Method').
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcGraph')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     G = fcGraph(X, 'density', 0.1, 'Weights', 'abs');
%     nnz(G) / 2                            % 47 edges of 465 pairs
%     labels = fcModularity(G);
%
%   See also fcDegree, fcModularity, fcGraphSave, fcDfcGraphs.
opts = fc_options('fcGraph', varargin, {'Weights', 'Backend', 'Precision', 'Threads', 'MemoryLimit', 'Method'});
G = fastconn_mex('graph', X, rule, p, opts);
end
