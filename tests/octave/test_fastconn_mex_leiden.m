function test_fastconn_mex_leiden(mex_dir, csv_path)
% TEST_FASTCONN_MEX_LEIDEN  Checks the MEX gateway's 'leiden' and 'multilayer' commands and their
% wrappers fcLeiden / fcMultilayer against Octave computations in double: Newman's Q of the
% returned labels, connected modules, the karate club's optimum, Mucha et al.'s multilayer Q,
% flexibility and allegiance computed from the returned labels (ordinal and categorical
% coupling, a resolution per layer), odd sizes and bad arguments.
%
%   test_fastconn_mex_leiden(MEX_DIR, CSV_PATH): MEX_DIR holds fastconn_mex.mex, CSV_PATH is
%   examples/data/fmri_timeseries.csv. Prints one line per check and raises an error (octave exits
%   non-zero) if any failed.
  addpath(fullfile(fileparts(fileparts(fileparts(mfilename('fullpath')))), 'examples', 'matlab'));
  start_checks(mex_dir, 'test_fastconn_mex_leiden');
  X = dlmread(csv_path, ',', 1, 0);
  check_leiden_karate();
  check_leiden_fmri(X);
  check_leiden_synchronous(X);
  check_multilayer(X);
  check_multilayer_synchronous(X);
  check_multilayer_odd_sizes();
  check_errors();
  finish_checks('test_fastconn_mex_leiden');
end

% Mucha et al.'s Q of the N x L labels S (no null term in a layer without edges).
function q = ref_multilayer_q(layers, S, omega, gamma, categorical)
  L = numel(layers);
  n = size(S, 1);
  if numel(gamma) == 1, gamma = repmat(gamma, 1, L); end
  total = 0; two_mu = 0;
  for s = 1:L
    A = full(double(layers{s}));
    k = sum(A, 2);
    two_m = sum(k);
    two_mu = two_mu + two_m;
    same = S(:, s) == S(:, s).';
    B = A;
    if two_m > 0, B = A - gamma(s) * (k * k.') / two_m; end
    total = total + sum(B(same));
  end
  for s = 1:L
    for r = 1:L
      if s ~= r && (categorical || abs(s - r) == 1)
        total = total + omega * sum(S(:, s) == S(:, r));
        two_mu = two_mu + omega * n;
      end
    end
  end
  q = 0;
  if two_mu > 0, q = total / two_mu; end
end

% Every module induces a connected subgraph (breadth-first search inside it).
function ok = connected_modules(A, labels)
  ok = true;
  A = full(A) ~= 0;
  for c = unique(labels(:)).'
    members = find(labels == c);
    seen = false(1, numel(members)); seen(1) = true;
    frontier = 1;
    while ~isempty(frontier)
      next = find(any(A(members(frontier), members), 1) & ~seen);
      seen(next) = true;
      frontier = next;
    end
    ok = ok && all(seen);
  end
end

function check_leiden_karate()
  A = karate();
  [labels, Q] = fastconn_mex('leiden', A);
  printf('      karate club: Leiden Q = %.6f, K = %d\n', Q, max(labels));
  expect(Q >= 0.41978, sprintf('karate club: Leiden reaches the optimum 0.41979 (got %.6f)', Q));
  within(Q, ref_q(A, labels), 1e-9, 'karate club: Q = Newman''s Q of the returned labels (Octave)');
  expect(first_appearance(labels), 'karate club: labels 1..K by first appearance');
  expect(connected_modules(A, labels), 'karate club: every module connected');
  [l2, q2] = fastconn_mex('leiden', A, 'seed', 3);
  [l3, q3] = fastconn_mex('leiden', A, 'Seed', 3, struct('threads', 1));
  expect(isequal(l2, l3) && q2 == q3, 'karate club: same seed, same labels on 1 thread');
  for gamma = [0.5 2]
    [lg, qg] = fastconn_mex('leiden', A, 'resolution', gamma);
    within(qg, ref_q(A, lg, gamma), 1e-9, sprintf('karate club resolution %g: Q at gamma of its labels', gamma));
  end
  spectral = fastconn_mex('modularity', A);
  [~, qi] = fastconn_mex('leiden', A, 'initial', int32(spectral));
  expect(qi >= ref_q(A, spectral) - 1e-12, 'karate club: from the spectral labels (int32), Q does not drop');
  [lc, qc] = fastconn_mex('leiden', A, 'quality', 'cpm', 'resolution', 1e-6);
  expect(all(lc == 1) && abs(qc) < 1e-12, 'karate club CPM below every density: one module (connected graph), Q = 0');
  [lw, qw] = fcLeiden(A, 'Resolution', 1, 'MaxIterations', 0, 'Randomness', 1e-3);
  within(qw, ref_q(A, lw), 1e-9, 'fcLeiden with name/value options: Q of its labels');
end

function check_leiden_fmri(X)
  G = fastconn_mex('graph', X, 'density', 0.15, struct('weights', 'abs'));
  [labels, Q] = fcLeiden(G);
  within(Q, ref_q(G, labels), 1e-6, 'bundled data |r| network: Q of the labels (weights stored as float)');
  within(fastconn_mex('modularity_score', G, labels), Q, 1e-12, 'bundled data: modularity_score of the labels = Q');
  expect(connected_modules(G, labels), 'bundled data: every module connected');
  [~, q_spectral] = fastconn_mex('modularity', G);
  expect(Q >= q_spectral - 0.02, sprintf('bundled data: Leiden Q %.4f near or above the spectral %.4f', Q, q_spectral));
end

% 'algorithm' 'synchronous' (fc_leiden_v2): deterministic, Q of its labels, connected modules, a
% planted partition recovered; 'queue' is the default's result.
function check_leiden_synchronous(X)
  A = karate();
  [ls, qs] = fastconn_mex('leiden', A, 'algorithm', 'synchronous');
  printf('      karate club: synchronous Leiden Q = %.6f, K = %d\n', qs, max(ls));
  [l2, q2] = fastconn_mex('leiden', A, 'Algorithm', 'Synchronous', struct('threads', 1));
  expect(isequal(ls, l2) && qs == q2, 'karate club synchronous: the same labels on 1 thread');
  within(qs, ref_q(A, ls), 1e-9, 'karate club synchronous: Q = Newman''s Q of the returned labels (Octave)');
  expect(connected_modules(A, ls), 'karate club synchronous: every module connected');
  [lq, qq] = fastconn_mex('leiden', A, 'seed', 4, 'algorithm', 'queue');
  [ld, qd] = fastconn_mex('leiden', A, 'seed', 4);
  expect(isequal(lq, ld) && qq == qd, 'karate club: algorithm queue is the default''s result');
  % 4 groups of 30 nodes, edges inside with p 0.4 and across with p 0.01 (a fixed generator state)
  rand('state', 7);
  truth = kron((1:4).', ones(30, 1));
  P = 0.01 + 0.39 * (truth == truth.');
  U = triu(rand(120) < P, 1);
  B = double(U | U.');
  lp = fcLeiden(sparse(B), 'Algorithm', 'synchronous', 'Seed', 3);
  expect(isequal(lp, truth), 'planted partition: fcLeiden synchronous recovers the 4 groups');
  G = fcGraph(X, 'density', 0.2, 'Weights', 'abs');
  [lg, qg] = fcLeiden(G, 'Algorithm', 'synchronous');
  within(qg, fcModularityScore(G, lg), 1e-12, 'bundled data synchronous: Q = fcModularityScore of its labels');
end

function check_multilayer(X)
  layers = fastconn_mex('dfc_graphs', X, 40, 20, 'signed', 0.3);
  L = numel(layers);
  cases = {0.1, 'ordinal'; 1, 'ordinal'; 0.5, 'categorical'};
  for c = 1:size(cases, 1)
    omega = cases{c, 1}; coupling = cases{c, 2};
    [S, Q, flexibility, allegiance] = fastconn_mex('multilayer', layers, 'omega', omega, 'coupling', coupling);
    what = sprintf('windows omega %g %s', omega, coupling);
    expect(isequal(size(S), [31 L]) && S(1, 1) == 1 && isequal(unique(S(:)).', 1:max(S(:))), [what ': S is 31 x L, ids 1..K']);
    within(Q, ref_multilayer_q(layers, S, omega, 1, strcmp(coupling, 'categorical')), 1e-6, [what ': Mucha Q of S']);
    expect(isequal(flexibility, mean(S(:, 2:end) ~= S(:, 1:end-1), 2)), [what ': flexibility from S']);
    shared = zeros(31);
    for s = 1:L, shared = shared + (S(:, s) == S(:, s).'); end
    within(allegiance, shared / L, 1e-15, [what ': allegiance from S']);
    for floor = [0.3 0.5 1]
      [~, ~, ~, sparse_a] = fastconn_mex('multilayer', layers, 'omega', omega, 'coupling', coupling, 'allegiancefloor', floor);
      expect(issparse(sparse_a) && isequal(full(sparse_a), allegiance .* (allegiance >= floor)), ...
             sprintf('%s: allegiancefloor %g gives the dense values at or above it, sparse', what, floor));
    end
  end
  gamma = linspace(0.5, 1.5, L);
  [S, Q] = fcMultilayer(layers, 'Resolution', gamma, 'Omega', 0.3);
  within(Q, ref_multilayer_q(layers, S, 0.3, gamma, false), 1e-6, 'fcMultilayer with a resolution per layer: Mucha Q');
  [S2, Q2, f2] = fcMultilayer(layers, 'Resolution', gamma, 'Omega', 0.3, 'Threads', 1);
  expect(isequal(S2, S) && Q2 == Q && numel(f2) == 31, 'fcMultilayer: same labels on 1 thread');
end

% 'algorithm' 'synchronous' (fc_multilayer_modularity_v2): Mucha's Q of its labels, the same labels
% on 1 thread and again; 'queue' is the default's result.
function check_multilayer_synchronous(X)
  layers = fastconn_mex('dfc_graphs', X, 40, 20, 'signed', 0.3);
  L = numel(layers);
  cases = {0.1, 'ordinal'; 0.5, 'categorical'};
  for c = 1:size(cases, 1)
    omega = cases{c, 1}; coupling = cases{c, 2};
    [S, Q, flexibility] = fastconn_mex('multilayer', layers, 'omega', omega, 'coupling', coupling, 'algorithm', 'synchronous');
    what = sprintf('windows synchronous omega %g %s', omega, coupling);
    printf('      %s: Q = %.6f, K = %d\n', what, Q, max(S(:)));
    expect(isequal(size(S), [31 L]) && isequal(unique(S(:)).', 1:max(S(:))), [what ': S is 31 x L, ids 1..K']);
    within(Q, ref_multilayer_q(layers, S, omega, 1, strcmp(coupling, 'categorical')), 1e-9, [what ': Mucha Q of S']);
    expect(isequal(flexibility, mean(S(:, 2:end) ~= S(:, 1:end-1), 2)), [what ': flexibility from S']);
    [S1, Q1] = fastconn_mex('multilayer', layers, 'omega', omega, 'coupling', coupling, 'Algorithm', 'Synchronous', ...
                            struct('threads', 1));
    expect(isequal(S1, S) && Q1 == Q, [what ': the same labels on 1 thread']);
  end
  gamma = linspace(0.5, 1.5, L);
  [S, Q] = fcMultilayer(layers, 'Resolution', gamma, 'Omega', 0.3, 'Algorithm', 'synchronous');
  within(Q, ref_multilayer_q(layers, S, 0.3, gamma, false), 1e-9, 'fcMultilayer synchronous, a resolution per layer: Mucha Q');
  [S2, Q2] = fcMultilayer(layers, 'Resolution', gamma, 'Omega', 0.3, 'Algorithm', 'synchronous', 'Threads', 1);
  expect(isequal(S2, S) && Q2 == Q, 'fcMultilayer synchronous: same labels on 1 thread');
  [Sq, Qq, fq, aq] = fastconn_mex('multilayer', layers, 'omega', 0.5, 'seed', 4, 'algorithm', 'queue');
  [Sd, Qd, fd, ad] = fastconn_mex('multilayer', layers, 'omega', 0.5, 'seed', 4);
  expect(isequal(Sq, Sd) && Qq == Qd && isequal(fq, fd) && isequal(aq, ad), 'multilayer: algorithm queue is the default''s result');
end

function check_multilayer_odd_sizes()
  [S, Q, f, a] = fastconn_mex('multilayer', {sparse(1, 1), zeros(1)});
  expect(isequal(S, [1 1]) && Q == 1 && f == 0 && a == 1, 'one node, two layers: S = [1 1], Q = 1 (only the coupling)');
  pair = [0 1; 1 0];
  [S, Q] = fastconn_mex('multilayer', {pair, zeros(2)}, 'omega', 0.2);
  within(Q, ref_multilayer_q({pair, zeros(2)}, S, 0.2, 1, false), 1e-12, 'two nodes, an empty layer: Mucha Q');
  path = [0 1 0; 1 0 2; 0 2 0];
  [S, Q, f] = fastconn_mex('multilayer', {path});
  within(Q, ref_q(path, S), 1e-12, 'one layer: Newman''s Q');
  expect(isequal(f, zeros(3, 1)), 'one layer: flexibility 0');
end

function check_errors()
  A = karate();
  expect_error(@() fastconn_mex('leiden', A, 'resolution', 0), 'fastconn:FC_ERR_INVALID_ARG', 'resolution', 'leiden resolution 0');
  expect_error(@() fastconn_mex('leiden', A, 'quality', 'surprise'), 'fastconn:usage', 'quality', 'leiden unknown quality');
  expect_error(@() fastconn_mex('leiden', A, 'gamma', 1), 'fastconn:usage', {'unknown leiden option', 'gamma'}, 'leiden unknown option');
  expect_error(@() fastconn_mex('leiden', A, 'initial', 1:3), 'fastconn:usage', {'initial', '34'}, 'leiden initial of 3 labels');
  expect_error(@() fastconn_mex('leiden', A, 'initial', [-1; ones(33, 1)]), 'fastconn:usage', 'initial(1) = -1', 'leiden negative initial label');
  expect_error(@() fastconn_mex('leiden', A, 'seed', -1), 'fastconn:usage', 'seed', 'leiden seed -1');
  expect_error(@() fastconn_mex('leiden', A, 'algorithm', 'louvain'), 'fastconn:usage', {'algorithm', 'louvain'}, 'leiden unknown algorithm');
  expect_error(@() fcLeiden(A, 'Algorithm', 2), 'fastconn:usage', {'algorithm', 'char array'}, 'fcLeiden algorithm not text');
  ring = circshift(eye(5), 1); ring = ring + ring.';
  expect_error(@() fastconn_mex('multilayer', ring), 'fastconn:usage', 'cell array', 'multilayer of a matrix');
  expect_error(@() fastconn_mex('multilayer', {}), 'fastconn:usage', 'non-empty', 'multilayer of no layers');
  expect_error(@() fastconn_mex('multilayer', {ring, zeros(4)}), 'fastconn:FC_ERR_INVALID_ARG', {'layers[1]', '4'}, 'multilayer node counts differ');
  expect_error(@() fastconn_mex('multilayer', {ring, -ring}), 'fastconn:FC_ERR_INVALID_ARG', 'negative', 'multilayer negative weights');
  expect_error(@() fastconn_mex('multilayer', {ring, ring}, 'omega', -1), 'fastconn:FC_ERR_INVALID_ARG', 'omega', 'multilayer omega -1');
  expect_error(@() fastconn_mex('multilayer', {ring, ring}, 'resolution', [1 1 1]), 'fastconn:usage', {'resolution', '2'}, 'multilayer 3 resolutions for 2 layers');
  expect_error(@() fastconn_mex('multilayer', {ring, ring}, 'coupling', 'multiplex'), 'fastconn:usage', 'coupling', 'multilayer unknown coupling');
  expect_error(@() fastconn_mex('multilayer', {ring, ring}, 'omega'), 'fastconn:usage', 'no value', 'multilayer option without value');
  expect_error(@() fastconn_mex('multilayer', {ring, ring}, 'allegiancefloor', 0), 'fastconn:usage', 'allegiancefloor', 'multilayer allegiancefloor 0');
  expect_error(@() fastconn_mex('multilayer', {ring, ring}, 'algorithm', 'louvain'), 'fastconn:usage', {'algorithm', 'louvain'}, 'multilayer unknown algorithm');
  expect_error(@() fcMultilayer({ring, ring}, 'Algorithm', 2), 'fastconn:usage', {'algorithm', 'char array'}, 'fcMultilayer algorithm not text');
  expect_error(@() fcMultilayer({ring}, 'Gamma', 1), 'fastconn:usage', 'unknown option', 'fcMultilayer unknown option');
end
