function [opts, extra] = fc_options(caller, args, names)
%FC_OPTIONS  Name/value options of the fastconn functions (private helper).
%   [OPTS, EXTRA] = FC_OPTIONS(CALLER, ARGS, NAMES) reads the name/value pairs of the cell ARGS,
%   accepting the names listed in the cell NAMES (in any letter case). OPTS is the options
%   struct of fastconn_mex (fields backend, precision, threads, memory_limit, constant, order,
%   weights, method, values, devices, as given); EXTRA holds every other name, in lower case, with its value.
if mod(numel(args), 2) ~= 0
  error('fastconn:usage', '%s: options come in name/value pairs (e.g. ''Precision'', ''fp64'')', caller);
end
gateway = struct('backend', 'backend', 'precision', 'precision', 'threads', 'threads', ...
                 'memorylimit', 'memory_limit', 'constant', 'constant', 'order', 'order', 'weights', 'weights', ...
                 'method', 'method', 'values', 'values', 'devices', 'devices');
opts = struct();
extra = struct();
for k = 1:2:numel(args)
  name = args{k};
  if ~ischar(name) || ~any(strcmpi(name, names))
    if ischar(name)
      shown = ['''' name ''''];
    else
      shown = sprintf('a %s as argument %d', class(name), k);
    end
    error('fastconn:usage', '%s: unknown option %s (known: %s)', caller, shown, strjoin(names, ', '));
  end
  key = lower(name);
  if isfield(gateway, key)
    opts.(gateway.(key)) = args{k + 1};
  else
    extra.(key) = args{k + 1};
  end
end
end
