function start_checks(mex_dir, caller)
% START_CHECKS  Clears the failure list and puts MEX_DIR first on the path, making sure that
% fastconn_mex is the MEX file built there and not another build found first.
  global fastconn_failures;
  fastconn_failures = {};
  addpath(mex_dir);
  found = which('fastconn_mex');
  if exist('fastconn_mex') ~= 3 || ~strcmp(fileparts(canonicalize_file_name(found)), canonicalize_file_name(mex_dir))
    error('%s: fastconn_mex resolves to "%s", not to the MEX file built in %s', caller, found, mex_dir);
  end
  printf('%s: testing %s\n', caller, found);
end
