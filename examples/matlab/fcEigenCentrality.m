function [c, lambda] = fcEigenCentrality(G, varargin)
%FCEIGENCENTRALITY  Eigenvector centrality of a network.
%   c = fcEigenCentrality(G) is the N x 1 leading eigenvector of the adjacency matrix G (a
%   symmetric N x N matrix, sparse or full, double or logical, zero diagonal, as fcGraph returns
%   and fcModularity takes), scaled so that its largest entry is 1 (igraph's eigen_centrality).
%   [c, lambda] = fcEigenCentrality(G) also returns the eigenvalue. A network without edges gives
%   1 everywhere (lambda 0); on a disconnected network c lives on the component with the largest
%   eigenvalue (0 elsewhere). Weights are stored in single precision.
%
%   Options (name/value):
%     'Weighted'    true (default: the weights, which must be >= 0) or false (every edge 1)
%     'Tolerance'   residual test, as for fcEcm (default 1e-10)
%     'Backend', 'Threads' as for fcCorr (computed on the host either way)
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcEigenCentrality')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     G = fcGraph(X, 'density', 0.2, 'Weights', 'abs');
%     [c, lambda] = fcEigenCentrality(G);
%     norm(G * c - lambda * c)              % about 1e-7 (single-precision weights)
%
%   See also fcEcm, fcGraph, fcDegree, fcModularity.
[opts, extra] = fc_options('fcEigenCentrality', varargin, {'Weighted', 'Tolerance', 'Backend', 'Threads'});
weighted = true;
tolerance = [];
if isfield(extra, 'weighted'), weighted = extra.weighted; end
if isfield(extra, 'tolerance'), tolerance = extra.tolerance; end
[c, lambda] = fastconn_mex('eigen_centrality', G, weighted, tolerance, opts);
end
