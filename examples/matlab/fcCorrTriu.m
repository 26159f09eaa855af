function v = fcCorrTriu(X, varargin)
%FCCORRTRIU  Every pair's correlation as one vector (the strict upper triangle).
%   v = fcCorrTriu(X) is the N(N-1)/2 x 1 vector of the correlations of the columns of X in
%   pdist / squareform order: pairs (1,2), (1,3), ..., (1,N), (2,3), ... (so squareform(v')
%   rebuilds the matrix, with zeros on its diagonal). Nothing of N x N size is formed.
%
%   Options: 'Order' 'row' (default, as above) or 'col' (pairs grouped by the larger index:
%   (1,2), (1,3), (2,3), (1,4), ..., the order of R(triu(true(N), 1))), and those of fcCorr
%   ('Precision', 'Backend', 'Threads', 'MemoryLimit', 'Constant', 'Method').
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcCorrTriu')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     R = corr(X);
%     v = fcCorrTriu(X, 'Order', 'col', 'Precision', 'fp64');
%     max(abs(v - R(triu(true(31), 1))))
%     k = fcTriuIndex(31, 2, 5, 'Order', 'col');   % where the pair (2, 5) is in v
%
%   See also fcCorr, fcTriuIndex, fcTriuPair.
opts = fc_options('fcCorrTriu', varargin, {'Order', 'Backend', 'Precision', 'Threads', 'MemoryLimit', 'Constant', 'Method'});
v = fastconn_mex('triu', X, opts);
end
