function [k, s] = fcDfcDegree(X, width, step, rule, p, varargin)
%FCDFCDEGREE  Degree and strength of every series in every sliding window's network.
%   [k, s] = fcDfcDegree(X, width, step, rule, p) are W x N matrices: row k holds the degree and
%   strength (as fcDegree) of window k's network under the rule (as fcGraph), computed for all
%   windows without forming any network.
%
%   Options: 'Taper', 'Sigma' (as fcDfc), 'Precision', 'Backend', 'Threads', 'MemoryLimit'.
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcDfcDegree')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     k = fcDfcDegree(X, 50, 10, 'abs', 0.5);   % 21 x 31 time-resolved degree
%     mean(k)                                   % each region's mean degree over the windows
%
%   See also fcDegree, fcDfc, fcDfcGraphs.
[opts, extra] = fc_options('fcDfcDegree', varargin, {'Taper', 'Sigma', 'Backend', 'Precision', 'Threads', 'MemoryLimit'});
taper = fc_taper('fcDfcDegree', extra);
[k, s] = fastconn_mex('dfc_degree', X, width, step, rule, p, taper{:}, opts);
end
