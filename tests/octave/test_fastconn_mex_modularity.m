function test_fastconn_mex_modularity(mex_dir, csv_path)
% TEST_FASTCONN_MEX_MODULARITY  Checks the MEX gateway's 'modularity' and 'modularity_score'
% against Q computed by Octave in double (Newman 2006, eq. 2 with a resolution gamma; the signed
% forms of Gomez et al. 2009 and Rubinov and Sporns 2011 as fastconn.h gives them): a hand-computed
% Q on two cliques, the Zachary karate club (Newman 2006: Q = 0.419 with refinement), networks of
% the bundled ROI data, edge cases and bad arguments.
%
%   test_fastconn_mex_modularity(MEX_DIR, CSV_PATH): MEX_DIR holds fastconn_mex.mex, CSV_PATH is
%   examples/data/fmri_timeseries.csv. Prints one line per check and raises an error (octave exits
%   non-zero) if any failed.

  start_checks(mex_dir, 'test_fastconn_mex_modularity');
  X = dlmread(csv_path, ',', 1, 0);
  check_two_cliques();
  check_karate();
  check_fmri_networks(X);
  check_edge_cases();
  check_errors();
  finish_checks('test_fastconn_mex_modularity');
end

% Signed Q from the positive and negative parts: 'gomez' (2w+ Q+ - 2w- Q-) / (2w+ + 2w-),
% 'rubinov' Q+ - (w- / (w+ + w-)) Q-.
function q = ref_signed_q(A, labels, mode)
  A = full(double(A));
  P = max(A, 0); N = max(-A, 0);
  wp = sum(P(:)); wn = sum(N(:));
  qp = ref_q(P, labels); qn = ref_q(N, labels);
  if strcmp(mode, 'gomez')
    q = (wp * qp - wn * qn) / (wp + wn);
  else
    q = qp - wn / (wp + wn) * qn;
  end
end

function check_two_cliques()
  % Two 4-cliques joined by the edge 4-5: m = 13, each side has 6 internal edges and degree sum
  % 13, so Q = 2 (6/13 - (13/26)^2) = 12/13 - 1/2.
  A = zeros(8);
  A(1:4, 1:4) = 1; A(5:8, 5:8) = 1; A(4, 5) = 1; A(5, 4) = 1;
  A(1:9:end) = 0;
  G = sparse(A);
  [labels, Q] = fastconn_mex('modularity', G);
  expect(isequal(size(labels), [8 1]) && strcmp(class(labels), 'double'), 'modularity: labels are an N x 1 double column');
  expect(isequal(labels, [1 1 1 1 2 2 2 2].'), sprintf('two cliques: labels 1 1 1 1 2 2 2 2 (got %s)', mat2str(labels.')));
  within(Q, 12/13 - 1/2, 1e-12, 'two cliques: Q = 12/13 - 1/2 by hand');
  within(fastconn_mex('modularity_score', G, labels), 12/13 - 1/2, 1e-12, 'two cliques: modularity_score of the labels');
  within(fastconn_mex('modularity_score', G, labels - 1), 12/13 - 1/2, 1e-12, 'modularity_score takes 0-based labels too');
  within(fastconn_mex('modularity_score', G, ones(8, 1)), 0, 1e-12, 'one community: Q = 0');
  within(fastconn_mex('modularity_score', G, (1:8).'), ref_q(A, 1:8), 1e-12, 'singletons: Q = -sum (k_i / 2m)^2');
  [labels_full, Q_full] = fastconn_mex('modularity', A);
  expect(isequal(labels_full, labels) && Q_full == Q, 'two cliques: a full matrix gives the same result as sparse');
  [labels_logical, Q_logical] = fastconn_mex('modularity', G ~= 0);
  expect(isequal(labels_logical, labels) && Q_logical == Q, 'two cliques: a logical sparse matrix gives the same result');
  [~, ~, tree] = fastconn_mex('modularity', G);
  expect(isstruct(tree) && numel(tree) == 1 && all(isfield(tree, {'parent', 'child_a', 'child_b', 'eigenvalue', 'gain', 'iterations', 'residual'})), ...
         'two cliques: the tree is one split with its fields');
  expect(tree(1).parent == 1 && tree(1).gain > 0 && tree(1).eigenvalue > 0 && tree(1).iterations >= 1, ...
         'two cliques: the split is of the whole graph (id 1), with a positive eigenvalue and gain');
  expect(numel(unique([tree(1).parent tree(1).child_a tree(1).child_b])) == 3, 'two cliques: the split makes two new ids');
  % Weighted: a heavier bridge still leaves the cliques apart; Q against the reference.
  Aw = A; Aw(4, 5) = 2.5; Aw(5, 4) = 2.5; Aw(1, 2) = 0.5; Aw(2, 1) = 0.5;
  [lw, qw] = fastconn_mex('modularity', sparse(Aw));
  within(qw, ref_q(Aw, lw), 1e-6, 'weighted cliques: Q = Newman''s Q of the labels (float weights)');
  within(fastconn_mex('modularity_score', sparse(Aw), [1 1 1 1 2 2 2 2], 0.5), ref_q(Aw, [1 1 1 1 2 2 2 2], 0.5), 1e-6, ...
         'modularity_score at resolution 0.5');
end

function check_karate()
  A = karate();
  expect(nnz(A) == 156 && isequal(A, A.'), 'karate club: 78 edges, symmetric');
  [labels, Q, tree] = fastconn_mex('modularity', A);
  K = max(labels);
  printf('      karate club: Q = %.6f, K = %d, %d splits\n', Q, K, numel(tree));
  expect(Q >= 0.41, sprintf('karate club: Q >= 0.41 (Newman 2006: 0.419; got %.4f)', Q));
  within(Q, ref_q(A, labels), 1e-9, 'karate club: Q = Newman''s Q of the returned labels (Octave)');
  within(fastconn_mex('modularity_score', A, labels), Q, 1e-12, 'karate club: modularity_score of the labels = Q');
  expect(first_appearance(labels), 'karate club: labels 1..K by first appearance (node 1 has label 1)');
  expect(numel(tree) >= K - 1 && all([tree.gain] > 0), 'karate club: at least K - 1 splits, each raising Q');
  [l2, q2] = fastconn_mex('modularity', A);
  expect(isequal(l2, labels) && q2 == Q, 'karate club: same labels and Q twice');
  [lr, qr] = fastconn_mex('modularity', A, 'refine', false);
  within(qr, ref_q(A, lr), 1e-9, 'karate club without refinement: Q of its labels');
  expect(qr <= Q + 1e-12, sprintf('karate club: refinement does not lower Q (%.4f without, %.4f with)', qr, Q));
  l2 = fastconn_mex('modularity', A, 'maxcommunities', 2);
  expect(max(l2) <= 2, sprintf('karate club maxcommunities 2: at most 2 communities (got %d)', max(l2)));
  l3 = fastconn_mex('modularity', A, 'minsize', 10);
  expect(all(accumarray(l3, 1) >= 10) || max(l3) == 1, 'karate club minsize 10: no community smaller than 10');
  [lg, qg] = fastconn_mex('modularity', A, 'resolution', 2);
  within(qg, ref_q(A, lg, 2), 1e-9, 'karate club resolution 2: Q at gamma 2 of its labels');
  expect(max(lg) >= K, sprintf('karate club resolution 2: no fewer communities than at 1 (%d vs %d)', max(lg), K));
  [lt, qt] = fastconn_mex('modularity', A, 'threshold', 1e6);
  expect(all(lt == 1) && qt == 0, 'karate club threshold 1e6: no split, one community, Q = 0');
  [ls, qs] = fastconn_mex('modularity', A, 'seed', 7, 'Resolution', 1);
  within(qs, ref_q(A, ls), 1e-9, 'karate club seed 7 (option names in any case): Q of its labels');
end

function check_fmri_networks(X)
  % Weighted |r| network of the bundled ROI data.
  G = fastconn_mex('graph', X, 'abs', 0.3, struct('weights', 'abs'));
  [labels, Q, tree] = fastconn_mex('modularity', G);
  printf('      fMRI |r| >= 0.3: Q = %.6f, K = %d, %d splits\n', Q, max(labels), numel(tree));
  within(Q, ref_q(G, labels), 1e-6, 'fMRI |r| >= 0.3 weighted: Q = Newman''s Q of the labels');
  within(fastconn_mex('modularity_score', G, labels), Q, 1e-9, 'fMRI weighted: modularity_score of the labels = Q');
  expect(Q > 0 && first_appearance(labels), 'fMRI weighted: Q > 0, labels by first appearance');
  % Signed network: weights r, negative included.
  S = fastconn_mex('graph', X, 'abs', 0.2);
  expect(any(nonzeros(S) < 0) && any(nonzeros(S) > 0), 'fMRI signed network has both signs');
  [lg, qg] = fastconn_mex('modularity', S);
  within(qg, ref_signed_q(S, lg, 'gomez'), 1e-6, 'fMRI signed, Gomez: Q of the labels');
  within(fastconn_mex('modularity_score', S, lg), ref_signed_q(S, lg, 'gomez'), 1e-6, 'fMRI signed: modularity_score is Gomez''s Q');
  [lr, qr] = fastconn_mex('modularity', S, 'signed', 'rubinov');
  within(qr, ref_signed_q(S, lr, 'rubinov'), 1e-6, 'fMRI signed, Rubinov: Q* of the labels');
  % The full matrix a BCT user holds (corr with the diagonal set to 0) gives the same answer.
  F = full(G);
  [lf, qf] = fastconn_mex('modularity', F);
  expect(isequal(lf, labels) && abs(qf - Q) <= 1e-12, 'fMRI weighted: the full matrix gives the sparse matrix''s result');
  % The networks of dfc_graphs, one window at a time (weights |r|).
  Gw = fastconn_mex('dfc_graphs', X, 50, 50, 'density', 0.2, struct('weights', 'abs'));
  ok = true;
  for k = 1:numel(Gw)
    [lw, qw] = fastconn_mex('modularity', Gw{k});
    ok = ok && abs(qw - ref_q(Gw{k}, lw)) <= 1e-6 && qw > 0;
  end
  expect(ok, 'dfc_graphs density 0.2, |r|: every window''s Q > 0 and Newman''s Q of its labels');
end

function check_edge_cases()
  [l, q] = fastconn_mex('modularity', sparse(5, 5));
  expect(isequal(l, (1:5).') && q == 0, 'no edges: every node its own community, Q = 0');
  [l, q] = fastconn_mex('modularity', sparse(1, 1));
  expect(isequal(l, 1) && q == 0, 'one node: label 1, Q = 0');
  % Two triangles and an isolated node (node 4): disconnected, defined answer.
  A = zeros(7);
  A([1 2 3], [1 2 3]) = 1; A([5 6 7], [5 6 7]) = 1; A(1:8:end) = 0;
  [l, q, tree] = fastconn_mex('modularity', sparse(A));
  expect(~any(isnan(l)) && ~isnan(q) && numel(unique(l([1 2 3]))) == 1 && numel(unique(l([5 6 7]))) == 1 ...
         && l(1) ~= l(5) && all(l(4) ~= l([1 5])), sprintf('two triangles and an isolated node: three communities (got %s)', mat2str(l.')));
  within(q, ref_q(A, l), 1e-12, 'two triangles and an isolated node: Q of the labels');
  expect(isstruct(tree), 'third output is a struct array');
  [~, ~, tree] = fastconn_mex('modularity', sparse(3, 3));
  expect(isstruct(tree) && isempty(tree) && isfield(tree, 'gain'), 'no splits: an empty struct array with the fields');
end

function check_errors()
  A = full(karate());
  lib = 'fastconn:FC_ERR_INVALID_ARG';
  usage = 'fastconn:usage';
  expect_error(@() fastconn_mex('modularity', A, 'resolution', -1), lib, {'resolution', '-1'}, 'resolution -1');
  expect_error(@() fastconn_mex('modularity', A, 'resolution', 0), lib, 'resolution', 'resolution 0');
  expect_error(@() fastconn_mex('modularity', A, 'minsize', 0), lib, {'min_community_size', '0'}, 'minsize 0');
  expect_error(@() fastconn_mex('modularity', A, 'maxcommunities', -2), lib, {'max_communities', '-2'}, 'maxcommunities -2');
  expect_error(@() fastconn_mex('modularity', A, 'threshold', -1), lib, {'threshold', '-1'}, 'threshold -1');
  expect_error(@() fastconn_mex('modularity_score', A, ones(34, 1), -0.5), lib, '-0.5', 'modularity_score resolution -0.5');
  B = A; B(1, 2) = 3;
  expect_error(@() fastconn_mex('modularity', B), usage, {'symmetric', 'G(1,2) = 3', 'G(2,1) = 1'}, 'asymmetric G');
  expect_error(@() fastconn_mex('modularity', sparse(B)), usage, {'symmetric', 'G(1,2) = 3'}, 'asymmetric sparse G');
  B = A; B(3, 3) = 1;
  expect_error(@() fastconn_mex('modularity', sparse(B)), usage, {'G(3,3) = 1', 'diagonal'}, 'self-loop');
  B = A; B(2, 5) = NaN; B(5, 2) = NaN;
  expect_error(@() fastconn_mex('modularity', B), usage, {'G(5,2) = NaN', 'finite'}, 'NaN weight');
  expect_error(@() fastconn_mex('modularity', A(1:5, :)), usage, '5 x 34', 'non-square G');
  expect_error(@() fastconn_mex('modularity', A + 1i), usage, 'real', 'complex G');
  expect_error(@() fastconn_mex('modularity', A, 'gamma', 1), usage, 'gamma', 'unknown option');
  expect_error(@() fastconn_mex('modularity', A, 'seed'), usage, 'seed', 'option without a value');
  expect_error(@() fastconn_mex('modularity', A, 'seed', -1), usage, '-1', 'seed -1');
  expect_error(@() fastconn_mex('modularity', A, 'maxcommunities', 2.5), usage, '2.5', 'maxcommunities 2.5');
  expect_error(@() fastconn_mex('modularity', A, 'signed', 'newman'), usage, 'gomez', 'unknown signed mode');
  expect_error(@() fastconn_mex('modularity', A, 'refine', 2), usage, 'refine', 'refine 2');
  expect_error(@() fastconn_mex('modularity'), usage, 'modularity', 'modularity without G');
  expect_error(@() fastconn_mex('modularity_score', A, ones(33, 1)), usage, {'34', '33'}, 'labels of the wrong length');
  L = ones(34, 1); L(3) = -1;
  expect_error(@() fastconn_mex('modularity_score', A, L), usage, 'labels(3) = -1', 'negative label');
  L(3) = 1.5;
  expect_error(@() fastconn_mex('modularity_score', A, L), usage, 'labels(3) = 1.5', 'fractional label');
  expect_error(@() fastconn_mex('modularity_score', A), usage, 'labels', 'modularity_score without labels');
  within(fastconn_mex('modularity_score', A, int32(ones(34, 1))), 0, 1e-12, 'modularity_score takes integer-class labels');
end
