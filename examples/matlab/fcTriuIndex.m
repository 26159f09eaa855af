function k = fcTriuIndex(n, i, j, varargin)
%FCTRIUINDEX  Position of pairs (i, j) in the triangle of n series.
%   k = fcTriuIndex(n, i, j) is the 1-based position of each pair (i(m), j(m)) (1-based, i ~= j;
%   the pair is unordered) in the vector fcCorrTriu returns for n series. Nothing of the
%   triangle's size is formed.
%
%   Options: 'Order' 'row' (default) or 'col', as in fcCorrTriu.
%
%   Example:
%     fcTriuIndex(31, [1 30], [2 31])                 % [1 465]
%     fcTriuIndex(31, 2, 5, 'Order', 'col')           % 8
%
%   See also fcTriuPair, fcCorrTriu.
opts = fc_options('fcTriuIndex', varargin, {'Order'});
order = 'row';
if isfield(opts, 'order')
  order = opts.order;
end
k = fastconn_mex('triu_index', n, double(i), double(j), order);
end
