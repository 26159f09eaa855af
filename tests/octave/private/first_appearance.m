function ok = first_appearance(labels)
% Labels numbered 1..K by first appearance.
  [~, first] = unique(labels(:), 'first');
  ok = isequal(sort(unique(labels(:))).', 1:max(labels)) && issorted(labels(sort(first))) && labels(1) == 1 ...
       && isequal(labels(sort(first)).', 1:max(labels));
end
