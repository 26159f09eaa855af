function R = fcWindowCorr(X, start, width, varargin)
%FCWINDOWCORR  Correlation matrix of one window of time points.
%   R = fcWindowCorr(X, start, width) is the N x N correlation matrix of rows
%   start .. start+width-1 of X, the window cut and normalized by the library from the uploaded
%   data (fc_series_window); with the rectangular taper it equals corr(X(start:start+width-1, :)).
%
%   Options: 'Taper' 'rectangular' (default) or 'gaussian' (Allen et al. 2014) with 'Sigma' (its
%   standard deviation in time points, default 3), and those of fcCorr ('Precision', 'Backend',
%   'Threads', 'MemoryLimit', 'Constant').
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcWindowCorr')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     R = fcWindowCorr(X, 101, 50, 'Precision', 'fp64');
%     max(max(abs(R - corr(X(101:150, :)))))
%     T = fcWindowCorr(X, 101, 50, 'Taper', 'gaussian', 'Sigma', 10);
%
%   See also fcDfc, fcDfcWindows, fcCorr.
[opts, extra] = fc_options('fcWindowCorr', varargin, ...
                           {'Taper', 'Sigma', 'Backend', 'Precision', 'Threads', 'MemoryLimit', 'Constant'});
taper = fc_taper('fcWindowCorr', extra);
R = fastconn_mex('window', X, start, width, taper{:}, opts);
end
