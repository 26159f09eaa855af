function expect(ok, what)
% EXPECT  Records one check of the fastconn Octave tests: prints "ok" or "FAIL" and what was
% checked; failures are collected in the global fastconn_failures (see finish_checks).
  global fastconn_failures;
  if ok
    printf('ok    %s\n', what);
  else
    printf('FAIL  %s\n', what);
    fastconn_failures{end+1} = what;
  end
end
