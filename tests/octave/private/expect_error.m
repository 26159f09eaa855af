function expect_error(f, want_id, want_text, what)
% EXPECT_ERROR  expect() that f() raises an error with identifier want_id whose message
% contains every string of want_text (a string or a cell array of strings: e.g. the bad value).
  [id, msg] = caught(f);
  if ischar(want_text), want_text = {want_text}; end
  ok = strcmp(id, want_id);
  for k = 1:numel(want_text)
    ok = ok && ~isempty(strfind(msg, want_text{k}));
  end
  expect(ok, sprintf('%s: %s naming %s (got "%s": %s)', what, want_id, strjoin(want_text, ', '), id, msg));
end
