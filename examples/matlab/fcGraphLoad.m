function G = fcGraphLoad(file)
%FCGRAPHLOAD  Read a fastconn graph file (.fcg) as a sparse matrix.
%   G = fcGraphLoad(file) is the network in file (written by fcGraphSave, by the R or Python
%   packages, or by the command line's `fastconn graph ... -o net.fcg`, whose nodes are the
%   mask's voxels in NIfTI storage order) as a symmetric sparse N x N double matrix.
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcGraphLoad')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     file = [tempname() '.fcg'];
%     fcGraphSave(fcGraph(X, 'abs', 0.5), file);
%     G = fcGraphLoad(file);
%     labels = fcModularity(abs(G));
%     delete(file);
%
%   See also fcGraphSave, fcModularity.
G = fastconn_mex('graph_load', file);
end
