function fcGraphSave(G, file)
%FCGRAPHSAVE  Write a network to a fastconn graph file (.fcg).
%   fcGraphSave(G, file) writes the symmetric matrix G (as fcModularity takes it; weights in
%   single precision) to file in fastconn's graph format, which fcGraphLoad, the R and Python
%   packages and the C library (fc_graph_load) read.
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcGraphSave')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     G = fcGraph(X, 'density', 0.1);
%     file = [tempname() '.fcg'];
%     fcGraphSave(G, file);
%     isequal(fcGraphLoad(file), G)         % true
%     delete(file);
%
%   See also fcGraphLoad, fcGraph.
fastconn_mex('graph_save', G, file);
end
