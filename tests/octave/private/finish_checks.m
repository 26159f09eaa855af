function finish_checks(caller)
% FINISH_CHECKS  Raises an error listing the failed checks (octave then exits non-zero).
  global fastconn_failures;
  if ~isempty(fastconn_failures)
    error('%s: %d check(s) failed:\n  %s', caller, numel(fastconn_failures), strjoin(fastconn_failures, '\n  '));
  end
  printf('%s: all checks passed\n', caller);
end
