function [S, Q, flexibility, allegiance] = fcMultilayer(layers, varargin)
%FCMULTILAYER  Modules over time: multilayer modularity, flexibility and module allegiance.
%   [S, Q, flexibility, allegiance] = fcMultilayer(layers) finds the modules of a cell array of L
%   networks on the same N nodes (e.g. fcDfcGraphs' windows; weights >= 0) by multilayer
%   modularity (Mucha et al. 2010), each node coupled to itself across layers with weight omega:
%   S is N x L (GenLouvain's layout), module ids 1..K shared across layers; Q the multilayer
%   modularity; flexibility N x 1, the fraction of consecutive layer pairs in which a node changes
%   module (Bassett et al. 2011); allegiance N x N, the fraction of layers in which two nodes
%   share a module (computed only when asked for).
%
%   Options (name/value):
%     'Resolution'    gamma >= 0 of every layer, or L values (default 1)
%     'Omega'         coupling >= 0 (default 1)
%     'Coupling'      'ordinal' (default: layers s and s + 1) or 'categorical' (every two layers)
%     'Seed'          node orders (default 1)
%     'MaxIterations' passes at most (default 0: until no node moves)
%     'AllegianceFloor' f in (0, 1]: allegiance is a sparse matrix of the pairs at or above f
%                     (and the diagonal), computed without the dense N x N one (voxel-level N)
%     'Algorithm'     'queue' (default: single moves from a seeded queue, on the host) or
%                     'synchronous' (rounds of simultaneous moves: the same labels on every
%                     backend and thread count; they differ from 'queue''s)
%     'Backend', 'Threads' as for fcCorr (only 'synchronous' may use a GPU)
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcMultilayer')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     layers = fcDfcGraphs(X, 40, 20, 'signed', 0.3);
%     [S, Q, flexibility, allegiance] = fcMultilayer(layers, 'Omega', 0.5);
%     size(S)                                       % 31 regions x 11 windows
%     [~, most] = max(flexibility)                  % the region that changes module most often
%     [S2, Q2] = fcMultilayer(layers, 'Omega', 0.5, 'Algorithm', 'synchronous');   % simultaneous moves
%
%   See also fcDfcGraphs, fcLeiden, fcModularity.
map = struct('resolution', 'resolution', 'omega', 'omega', 'coupling', 'coupling', 'seed', 'seed', ...
             'maxiterations', 'maxiterations', 'allegiancefloor', 'allegiancefloor', 'algorithm', 'algorithm');
[opts, extra] = fc_options('fcMultilayer', varargin, {'Resolution', 'Omega', 'Coupling', 'Seed', 'MaxIterations', ...
                                                       'AllegianceFloor', 'Algorithm', 'Backend', 'Threads', ...
                                                       'MemoryLimit'});
args = {};
names = fieldnames(extra);
for k = 1:numel(names)
  args = [args, {map.(names{k}), extra.(names{k})}];  %#ok<AGROW>
end
if nargout > 3
  [S, Q, flexibility, allegiance] = fastconn_mex('multilayer', layers, args{:}, opts);
else
  [S, Q, flexibility] = fastconn_mex('multilayer', layers, args{:}, opts);
end
end
