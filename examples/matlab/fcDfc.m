function R = fcDfc(X, width, step, varargin)
%FCDFC  Dynamic connectivity: every sliding window's correlations.
%   R = fcDfc(X, width, step) is the W x N(N-1)/2 matrix whose row k is the triangle (in
%   fcCorrTriu's order) of window k: rows (k-1)*step+1 .. (k-1)*step+width of X. There are
%   W = floor((T - width) / step) + 1 windows. The data is uploaded once; each window is cut and
%   normalized by the library. Series constant within a window give NaN there, with one warning.
%
%   Options: 'Taper' 'rectangular' (default) or 'gaussian' with 'Sigma' (default 3), and those
%   of fcCorr ('Precision': with 'fp64' and double X the windows are float64 throughout).
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcDfc')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     R = fcDfc(X, 50, 10);                 % 21 windows x 465 pairs
%     [m, sd] = fcDfcSummary(X, 50, 10);    % their mean and sd, without R
%     [i, j] = fcTriuPair(31, 1:465);       % the pair of each column of R
%
%   See also fcDfcWindows, fcDfcDegree, fcDfcGraphs, fcDfcSummary, fcDfcLowRank, fcWindowCorr.
[opts, extra] = fc_options('fcDfc', varargin, ...
                           {'Taper', 'Sigma', 'Backend', 'Precision', 'Threads', 'MemoryLimit', 'Constant'});
taper = fc_taper('fcDfc', extra);
R = fastconn_mex('dfc', X, width, step, taper{:}, opts);
end
