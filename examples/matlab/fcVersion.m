function v = fcVersion()
%FCVERSION  Version of the fastconn library in use, as 'major.minor.patch'.
%   v = fcVersion() is the version of the C library that fastconn_mex is linked against.
%
%   Example:
%     fcVersion()
%
%   See also fcHasCuda, fastconn.
[major, minor, patch] = fastconn_mex('version');
v = sprintf('%d.%d.%d', major, minor, patch);
end
