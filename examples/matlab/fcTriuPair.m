function [i, j] = fcTriuPair(n, k, varargin)
%FCTRIUPAIR  The pairs (i < j) at positions of the triangle of n series.
%   [i, j] = fcTriuPair(n, k) are the pairs (1-based) at the 1-based positions k of the vector
%   fcCorrTriu returns for n series.
%
%   Options: 'Order' 'row' (default) or 'col', as in fcCorrTriu.
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcTriuPair')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     v = fcCorrTriu(X);
%     [~, best] = max(abs(v));
%     [i, j] = fcTriuPair(31, best)                   % the most correlated regions
%
%   See also fcTriuIndex, fcCorrTriu.
opts = fc_options('fcTriuPair', varargin, {'Order'});
order = 'row';
if isfield(opts, 'order')
  order = opts.order;
end
[i, j] = fastconn_mex('triu_pair', n, double(k), order);
end
