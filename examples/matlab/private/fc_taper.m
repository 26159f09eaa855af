function taper = fc_taper(caller, extra)
%FC_TAPER  The taper arguments of fastconn_mex from the 'Taper' and 'Sigma' options (private).
%   TAPER is {} (rectangular) or {'gaussian', sigma} (sigma 3 unless given).
taper = {};
name = 'rectangular';
if isfield(extra, 'taper')
  name = lower(extra.taper);
end
if strcmp(name, 'gaussian')
  sigma = 3;
  if isfield(extra, 'sigma')
    sigma = extra.sigma;
  end
  taper = {'gaussian', sigma};
elseif ~strcmp(name, 'rectangular')
  error('fastconn:usage', '%s: ''Taper'' must be ''rectangular'' or ''gaussian''', caller);
elseif isfield(extra, 'sigma')
  error('fastconn:usage', '%s: ''Sigma'' applies to ''Taper'', ''gaussian'' only', caller);
end
end
