function [labels, Q] = fcLeiden(G, varargin)
%FCLEIDEN  Modules of a network by the Leiden algorithm (connected modules).
%   [labels, Q] = fcLeiden(G) finds the modules of the network G (a symmetric N x N matrix,
%   sparse or full, double or logical, zero diagonal, as fcGraph returns) by Leiden (Traag,
%   Waltman and van Eck 2019): labels is N x 1 (modules numbered 1..K by first appearance, each
%   module connected), Q the modularity. Same G, options and seed: the same labels on any
%   thread count. Weights are stored in single precision.
%
%   Options (name/value):
%     'Resolution'    gamma > 0 (default 1): of modularity, or the density of the CPM
%     'Quality'       'modularity' (default) or 'cpm' (Constant Potts Model; Q is then Newman's
%                     Q at gamma 1 of the labels)
%     'Initial'       N labels >= 0 to start from (e.g. fcModularity's)
%     'Seed'          node orders and merges (default 1)
%     'MaxIterations' passes at most (default 0: until no node moves)
%     'Randomness'    theta > 0 of the refinement's merges (default 1e-4)
%     'Signed'        'gomez' (default) or 'rubinov', for negative weights
%     'Algorithm'     'queue' (default: single moves from a seeded queue, on the host) or
%                     'synchronous' (rounds of simultaneous moves with a greedy refinement,
%                     'Randomness' unused: on the GPU with 'Backend' 'cuda', else on the host's
%                     threads, the same labels either way; they differ from 'queue''s)
%     'Backend', 'Threads' as for fcCorr (only 'synchronous' uses a GPU)
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcLeiden')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     G = fcGraph(X, 'density', 0.15, 'Weights', 'abs');
%     [labels, Q] = fcLeiden(G);
%     Q - fcModularityScore(G, labels)              % 0
%     [~, Q2] = fcLeiden(G, 'Initial', fcModularity(G));   % from the spectral modules
%     [labels3, Q3] = fcLeiden(G, 'Algorithm', 'synchronous');   % the GPU's algorithm
%
%   See also fcModularity, fcModularityScore, fcMultilayer, fcGraph.
map = struct('resolution', 'resolution', 'quality', 'quality', 'initial', 'initial', 'seed', 'seed', ...
             'maxiterations', 'maxiterations', 'randomness', 'randomness', 'signed', 'signed', ...
             'algorithm', 'algorithm');
[opts, extra] = fc_options('fcLeiden', varargin, {'Resolution', 'Quality', 'Initial', 'Seed', 'MaxIterations', ...
                                                   'Randomness', 'Signed', 'Algorithm', 'Backend', 'Threads', ...
                                                   'MemoryLimit'});
args = {};
names = fieldnames(extra);
for k = 1:numel(names)
  args = [args, {map.(names{k}), extra.(names{k})}];  %#ok<AGROW>
end
[labels, Q] = fastconn_mex('leiden', G, args{:}, opts);
end
