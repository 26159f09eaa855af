function [built, usable] = fcHasCuda()
%FCHASCUDA  Whether fastconn was built with CUDA, and whether a GPU can be used now.
%   [built, usable] = fcHasCuda(): built is true when the library has its CUDA backend; usable
%   when, moreover, a context on a GPU can be created now (the 'Backend', 'auto' default then
%   runs there).
%
%   Example:
%     [built, usable] = fcHasCuda()
%
%   See also fcVersion, fcCorr.
[built, usable] = fastconn_mex('has_cuda');
end
