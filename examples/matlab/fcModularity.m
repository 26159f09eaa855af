function [labels, Q, tree] = fcModularity(G, varargin)
%FCMODULARITY  Modules of a network (Newman's leading-eigenvector method, refined).
%   [labels, Q] = fcModularity(G) splits the network G (a symmetric N x N matrix, sparse or full,
%   double or logical, zero diagonal, as fcGraph returns and the Brain Connectivity Toolbox
%   takes) into modules: labels is N x 1 (modules numbered 1..K by first appearance), Q the
%   modularity. [labels, Q, tree] also returns the division tree, a 1 x splits struct array
%   (parent, child_a, child_b: module ids, 1 = the whole graph; eigenvalue, gain, iterations,
%   residual). Weights are stored in single precision.
%
%   Options (name/value):
%     'Resolution'     gamma > 0 (default 1)
%     'EigenThreshold' leading eigenvalue a split needs (default 1e-8)
%     'MaxCommunities' stop at this many modules (default 0: no limit)
%     'MinSize'        never make a module smaller than this (default 1)
%     'Seed'           start vectors' seed (default 1)
%     'Signed'         'gomez' (default) or 'rubinov', for negative weights
%     'Refine'         true (default) or false: vertex-move refinement
%     'Backend', 'Threads', 'MemoryLimit' as for fcCorr
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcModularity')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     G = fcGraph(X, 'density', 0.15, 'Weights', 'abs');
%     [labels, Q] = fcModularity(G);
%     Q - fcModularityScore(G, labels)      % 0
%
%   See also fcModularityScore, fcGraph, fcGraphLoad.
map = struct('resolution', 'resolution', 'eigenthreshold', 'threshold', 'maxcommunities', 'maxcommunities', ...
             'minsize', 'minsize', 'seed', 'seed', 'signed', 'signed', 'refine', 'refine');
[opts, extra] = fc_options('fcModularity', varargin, {'Resolution', 'EigenThreshold', 'MaxCommunities', 'MinSize', ...
                                                       'Seed', 'Signed', 'Refine', 'Backend', 'Threads', 'MemoryLimit'});
args = {};
names = fieldnames(extra);
for k = 1:numel(names)
  args = [args, {map.(names{k}), extra.(names{k})}];  %#ok<AGROW>
end
if nargout > 2
  [labels, Q, tree] = fastconn_mex('modularity', G, args{:}, opts);
else
  [labels, Q] = fastconn_mex('modularity', G, args{:}, opts);
end
end
