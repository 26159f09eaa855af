function within(a, b, tol, what)
% WITHIN  expect() that a and b have the same size, NaN at the same places, and
% max |a - b| <= tol elsewhere.
  a = double(a); b = double(b);
  if ~isequal(size(a), size(b))
    expect(false, sprintf('%s: size %s differs from the reference %s', what, mat2str(size(a)), mat2str(size(b))));
    return;
  end
  nan_a = isnan(a(:)); nan_b = isnan(b(:));
  d = max(abs(a(~nan_a & ~nan_b) - b(~nan_a & ~nan_b)));
  if isempty(d), d = 0; end
  expect(isequal(nan_a, nan_b) && d <= tol, sprintf('%s: max |a - ref| = %.3g (bound %.0g)', what, d, tol));
end
