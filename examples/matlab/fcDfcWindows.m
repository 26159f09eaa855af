function out = fcDfcWindows(X, width, step, fun, varargin)
%FCDFCWINDOWS  Sliding windows streamed one at a time to a function.
%   out = fcDfcWindows(X, width, step, fun) calls fun(r, k) for each window k in turn, r being the
%   window's 1 x N(N-1)/2 triangle (fcCorrTriu's order), computed only when its turn comes, so
%   that one window is held at a time. out is the W x 1 cell array of fun's results (fun may
%   return nothing, and then out{k} is []).
%
%   Options: 'Taper', 'Sigma' (as fcDfc), 'Precision', 'Backend', 'Threads', 'MemoryLimit',
%   'Constant'.
%
%   The same loop by hand, over fastconn_mex's iterator:
%     id = fastconn_mex('dfc_begin', X, width, step);
%     [r, k] = fastconn_mex('dfc_next', id);  % k = 0 and r = [] after the last window
%     fastconn_mex('dfc_end', id);
%
%   Example:
%     X = csvread(fullfile(fileparts(which('fcDfcWindows')), '..', 'data', 'fmri_timeseries.csv'), 1, 0);
%     best = fcDfcWindows(X, 50, 25, @(r, k) max(r));   % the strongest pair of each window
%     cell2mat(best)'
%
%   See also fcDfc, fcWindowCorr.
[opts, extra] = fc_options('fcDfcWindows', varargin, ...
                           {'Taper', 'Sigma', 'Backend', 'Precision', 'Threads', 'MemoryLimit', 'Constant'});
taper = fc_taper('fcDfcWindows', extra);
if ~isa(fun, 'function_handle')
  error('fastconn:usage', 'fcDfcWindows: fun must be a function handle, e.g. @(r, k) max(r)');
end
id = fastconn_mex('dfc_begin', X, width, step, taper{:}, opts);
closer = onCleanup(@() fastconn_mex('dfc_end', id));  % also when fun fails
out = {};
while true
  [r, k] = fastconn_mex('dfc_next', id);
  if k == 0
    break;
  end
  if nargout(fun) == 0
    fun(r, k);
    out{k, 1} = [];
  else
    out{k, 1} = fun(r, k);
  end
end
end
