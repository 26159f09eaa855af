function [m, sd] = fcDfcSummary(X, width, step, varargin)
%FCDFCSUMMARY  Mean and standard deviation of every pair's correlation over the windows.
%   [m, sd] = fcDfcSummary(X, width, step) are 1 x N(N-1)/2 rows (fcCorrTriu's order): the mean
%   and the sample standard deviation (divisor W - 1) of each pair's r over the sliding windows,
%   accumulated in float64 without storing the windows.
%
%   Options: 'Taper', 'Sigma' (as fcDfc), 'Precision', 'Backend', 'Threads', 'MemoryLimit',
%   'Constant'.
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcDfcSummary')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     [m, sd] = fcDfcSummary(X, 50, 10);
%     R = fcDfc(X, 50, 10);
%     max(abs(m - mean(R)))
%
%   See also fcDfc.
[opts, extra] = fc_options('fcDfcSummary', varargin, ...
                           {'Taper', 'Sigma', 'Backend', 'Precision', 'Threads', 'MemoryLimit', 'Constant'});
taper = fc_taper('fcDfcSummary', extra);
[m, sd] = fastconn_mex('dfc_summary', X, width, step, taper{:}, opts);
end
