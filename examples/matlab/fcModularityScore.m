function Q = fcModularityScore(G, labels, varargin)
%FCMODULARITYSCORE  Modularity Q of any partition of a network.
%   Q = fcModularityScore(G, labels) is the modularity of the partition labels (N whole numbers
%   >= 0, any numbering) of the network G (as fcModularity takes it).
%
%   Options: 'Resolution' gamma (default 1).
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcModularityScore')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     G = fcGraph(X, 'density', 0.15, 'Weights', 'abs');
%     fcModularityScore(G, [ones(15, 1); 2 * ones(16, 1)])
%
%   See also fcModularity.
[~, extra] = fc_options('fcModularityScore', varargin, {'Resolution'});
if isfield(extra, 'resolution')
  Q = fastconn_mex('modularity_score', G, labels, extra.resolution);
else
  Q = fastconn_mex('modularity_score', G, labels);
end
end
