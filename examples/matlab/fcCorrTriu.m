function v = fcCorrTriu(X, varargin)
%FCCORRTRIU  Every pair's correlation as one vector (the strict upper triangle).
%   v = fcCorrTriu(X) is the N(N-1)/2 x 1 vector of the correlations of the columns of X in
%   pdist / squareform order: pairs (1,2), (1,3), ..., (1,N), (2,3), ... (so squareform(v')
%   rebuilds the matrix, with zeros on its diagonal). Nothing of N x N size is formed.
%
%   Options: 'Order' 'row' (default, as above) or 'col' (pairs grouped by the larger index:
%   (1,2), (1,3), (2,3), (1,4), ..., the order of R(triu(true(N), 1))), and those of fcCorr
%   ('Precision', 'Backend', 'Devices', 'Threads', 'MemoryLimit', 'Constant', 'Method').
%   'Values' 'int16': an int16 vector of codes round(r * 32767) (ties to even; -32768 stands for
%   NaN), so r = double(v) / 32767 within 1.53e-5; 'half': r rounded to IEEE half precision,
%   returned as single (within 2.44e-4). Both take 2 bytes a pair in the library, which halves
%   what leaves a GPU (fc_pcc_triu_compact).
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcCorrTriu')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     R = corr(X);
%     v = fcCorrTriu(X, 'Order', 'col', 'Precision', 'fp64');
%     max(abs(v - R(triu(true(31), 1))))
%     k = fcTriuIndex(31, 2, 5, 'Order', 'col');   % where the pair (2, 5) is in v
%     c = fcCorrTriu(X, 'Values', 'int16');         % int16 codes
%     max(abs(double(c) / 32767 - R(tril(true(31), -1))))   % <= 1.53e-5 + 1e-5
%
%   See also fcCorr, fcTriuIndex, fcTriuPair.
opts = fc_options('fcCorrTriu', varargin, {'Order', 'Backend', 'Devices', 'Precision', 'Threads', 'MemoryLimit', 'Constant', 'Method', 'Values'});
v = fastconn_mex('triu', X, opts);
end
