function R = fcCorr(X, varargin)
%FCCORR  Pearson correlations of the columns of X (and Y), like corr.
%   R = fcCorr(X) is the N x N correlation matrix of the T x N matrix X: rows are time points,
%   columns are series (regions or voxels), as for corr(X). R = fcCorr(X, Y) is the Nx x Ny
%   matrix of correlations between the columns of X and of Y (seed-to-voxel maps).
%   X and Y are real double or single matrices, read in place; R is single if either is single,
%   else double. A column with zero variance gives NaN in its row and column, with one warning
%   (fastconn:constant) naming it; NaN or Inf in the input is an error naming the series.
%
%   Options (name/value pairs, as for every fastconn function):
%     'Precision'   'fp32' (default; |r - r64| <= 1e-5), 'fp64' (float64 throughout, <= 1e-12)
%                   or 'tf32' (GPU tensor cores, about 1e-3)
%     'Backend'     'auto' (default: CUDA when built in and a GPU is visible), 'cpu' or 'cuda'
%     'Threads'     CPU threads, 0 (default) = every core
%     'MemoryLimit' bytes of working memory of one computation, 0 (default) = what is free
%     'Devices'     with 'Backend' 'cuda': 'all' or CUDA device ids (0 = the first GPU): one
%                   context over several GPUs, the work split across them, the same values
%     'Constant'    'nan' (default) or 'zero': what a zero-variance series correlates as
%     'Method'      'pearson' (default) or 'spearman': Spearman's rho, as corr(X, 'Type',
%                   'Spearman') (columns ranked, ties sharing their average rank)
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcCorr')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     R = fcCorr(X, 'Precision', 'fp64');
%     max(max(abs(R - corr(X))))          % about 1e-15
%     C = fcCorr(X(:, 1:2), X(:, 3:end));  % 2 x 29
%
%   See also fcCorrTriu, fcGraph, fcDegree, fcWindowCorr, fastconn.
names = {'Backend', 'Devices', 'Precision', 'Threads', 'MemoryLimit', 'Constant', 'Method'};
if ~isempty(varargin) && isnumeric(varargin{1})
  opts = fc_options('fcCorr', varargin(2:end), names);
  R = fastconn_mex('cross', X, varargin{1}, opts);
else
  opts = fc_options('fcCorr', varargin, names);
  R = fastconn_mex('cor', X, opts);
end
end
