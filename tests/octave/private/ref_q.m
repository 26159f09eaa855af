function q = ref_q(A, labels, gamma)
% Newman's Q = (1/2m) sum_ij (A_ij - gamma k_i k_j / 2m) delta(c_i, c_j) of a non-negative A.
  if nargin < 3, gamma = 1; end
  A = full(double(A));
  k = sum(A, 2);
  two_m = sum(k);
  if two_m == 0, q = 0; return; end
  same = labels(:) == labels(:).';
  B = A - gamma * (k * k.') / two_m;
  q = sum(B(same)) / two_m;
end
