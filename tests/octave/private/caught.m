function [id, msg] = caught(f)
% CAUGHT  Runs f() and returns the identifier and message of the error it raises
% ('<no error>' and '' if it returns).
  id = '<no error>'; msg = '';
  try
    f();
  catch err
    id = err.identifier; msg = err.message;
  end
end
