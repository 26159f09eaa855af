function L = fcLfcd(X, coords, dims, rule, p, varargin)
%FCLFCD  Local functional connectivity density (lFCD) on a voxel grid, without the N x N matrix.
%   L = fcLfcd(X, coords, dims, rule, p) is the N x 1 lFCD (Tomasi and Volkow 2010, PNAS
%   107:9885; AFNI's 3dLFCD) of the T x N matrix X, whose column s is the voxel coords(s, :) =
%   [i j k] (1-based) of a grid of size dims: for each seed voxel, the number of voxels in the
%   cluster grown from it, where a voxel adjacent to the cluster joins when its correlation with
%   the SEED passes the rule ('signed': r >= p; 'abs': |r| >= p). The seed counts itself (AFNI's
%   convention), so L >= 1; a zero-variance column never joins a cluster and scores 0. Only
%   seed-to-neighbour correlations are computed. L is double.
%
%   Options (name/value):
%     'Neighbourhood'  6 (voxels sharing a face), 18 (a face or an edge) or 26 (a face, an edge or
%                      a corner; default, AFNI's)
%     'Method', 'Precision', 'Backend', 'Threads', 'MemoryLimit' as for fcCorr
%
%   Example:
%     mask = false(4, 4, 4); mask(1:3, 1:3, 1:3) = true;   % a 3 x 3 x 3 cube of voxels
%     [i, j, k] = ind2sub(size(mask), find(mask));
%     X = repmat(randn(50, 1), 1, 27) + 0.8 * randn(50, 27);
%     L = fcLfcd(X, [i j k], size(mask), 'signed', 0.5);
%     L6 = fcLfcd(X, [i j k], size(mask), 'signed', 0.5, 'Neighbourhood', 6);
%     all(L6 <= L)                          % fewer neighbours never grow larger clusters
%
%   See also fcDegree, fcEcm.
[opts, extra] = fc_options('fcLfcd', varargin, {'Neighbourhood', 'Method', 'Precision', 'Backend', 'Threads', ...
                                                 'MemoryLimit'});
neighbourhood = 26;
if isfield(extra, 'neighbourhood'), neighbourhood = extra.neighbourhood; end
L = fastconn_mex('lfcd', X, double(coords), double(dims), rule, p, neighbourhood, opts);
end
