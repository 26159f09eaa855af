function test_fastconn_mex_functions(mex_dir, csv_path)
% TEST_FASTCONN_MEX_FUNCTIONS  The MATLAB-style functions of examples/matlab (fcCorr, fcGraph,
% ...) over the MEX gateway, and the rest of the C API they reach: name/value options, the
% triangle in both orders and its indices, graph files, one window and streamed windows, fp64,
% thread count and memory limit, version and CUDA; help text and a runnable example for each.
  functions_dir = fullfile(fileparts(fileparts(fileparts(mfilename('fullpath')))), 'examples', 'matlab');
  addpath(functions_dir);
  start_checks(mex_dir, 'test_fastconn_mex_functions');
  X = dlmread(csv_path, ',', 1, 0);
  check_correlations(X);
  check_triangle_indices(X);
  check_networks_and_files(X);
  check_windows(X);
  check_settings(X);
  check_library();
  check_help_and_examples(functions_dir);
  finish_checks('test_fastconn_mex_functions');
end

function check_correlations(X)
  R64 = corr(X);
  within(fcCorr(X, 'Precision', 'fp64'), R64, 1e-12, 'fcCorr fp64');
  within(fcCorr(X), R64, 1e-5, 'fcCorr fp32');
  within(fcCorr(X(:, 1:3), X(:, 4:end), 'precision', 'FP64'), corr(X(:, 1:3), X(:, 4:end)), 1e-12, ...
         'fcCorr(X, Y) fp64, option names in any case');
  expect(strcmp(class(fcCorr(single(X))), 'single'), 'fcCorr of single X is single');
  expect_error(@() fcCorr(X, 'Precisio', 'fp64'), 'fastconn:usage', {'unknown option ''Precisio''', 'Precision'}, ...
               'fcCorr misspelt option');
  expect_error(@() fcCorr(X, 'Precision'), 'fastconn:usage', 'name/value pairs', 'fcCorr option without value');
  expect_error(@() fcGraph(X, 'abs', -0.2), 'fastconn:usage', 'keeps every pair', 'fcGraph abs -0.2');
  expect_error(@() fcDegree(X, 'density', 1.5), 'fastconn:usage', 'not 1.5', 'fcDegree density 1.5');
  expect_error(@() fcDfcDegree(X, 50, 10, 'topk', 0), 'fastconn:usage', 'not 0', 'fcDfcDegree topk 0');
  Xc = X; Xc(:, 5) = 2;
  text = evalc('R = fcCorr(Xc);');
  expect(numel(strfind(text, 'zero variance')) == 1 && ~isempty(strfind(text, 'column 5')) && all(isnan(R(5, :))), ...
         'fcCorr warns once about the constant column 5');
  R0 = fcCorr(Xc, 'Constant', 'zero');
  expect(all(R0(5, [1:4 6:end]) == 0), 'fcCorr ''Constant'', ''zero'' gives 0');
end

function check_triangle_indices(X)
  N = columns(X);
  R = corr(X);
  within(fcCorrTriu(X, 'Precision', 'fp64'), R(tril(true(N), -1)), 1e-12, 'fcCorrTriu row order');
  vc = fcCorrTriu(X, 'Order', 'col', 'Precision', 'fp64');
  within(vc, R(triu(true(N), 1)), 1e-12, 'fcCorrTriu col order = R(triu(true(N), 1))');
  c = fcCorrTriu(X, 'Values', 'int16', 'Order', 'col');   % compact values through the option name
  expect(strcmp(class(c), 'int16') && isequal(size(c), size(vc)), 'fcCorrTriu Values int16 gives int16 codes');
  within(double(c) / 32767, R(triu(true(N), 1)), 0.5 / 32767 + 1e-5, 'fcCorrTriu Values int16 decoded');
  within(fcCorrTriu(X, 'Values', 'half'), R(tril(true(N), -1)), 2^-12 + 1e-5, 'fcCorrTriu Values half');
  [I, J] = find(triu(true(N), 1));                        % column order
  expect(isequal(fcTriuIndex(N, I, J, 'Order', 'col'), (1:numel(I))'), 'fcTriuIndex col order enumerates the pairs');
  expect(isequal(fcTriuIndex(N, J, I, 'Order', 'col'), (1:numel(I))'), 'fcTriuIndex takes (j, i) as (i, j)');
  k = fcTriuIndex(N, I, J);
  vr = fcCorrTriu(X);
  expect(isequal(vr(k), fcCorrTriu(X, 'Order', 'col')), 'fcTriuIndex row positions reorder row to col');
  [i, j] = fcTriuPair(N, k);
  expect(isequal([i j], [I J]), 'fcTriuPair inverts fcTriuIndex (row order)');
  [i, j] = fcTriuPair(N, [1 465], 'Order', 'col');
  expect(isequal([i; j], [1 30; 2 31]), 'fcTriuPair col order: first and last pair');
  expect_error(@() fcTriuIndex(N, 3, 3), 'fastconn:usage', 'pair 1 is (3, 3)', 'fcTriuIndex of a diagonal pair');
  expect_error(@() fcTriuPair(N, 466), 'fastconn:usage', {'[1, 465]', '466'}, 'fcTriuPair past the end');
end

function check_networks_and_files(X)
  G = fcGraph(X, 'density', 0.1, 'Weights', 'abs');
  expect(issparse(G) && nnz(G) == 2 * ceil(0.1 * 465), 'fcGraph density 0.1: 47 edges');
  [k, s] = fcDegree(X, 'density', 0.1);
  expect(isequal(k, full(sum(G ~= 0, 2))), 'fcDegree = row counts of fcGraph');
  within(s, full(sum(G, 2)), 1e-5, 'fcDegree strength = row sums of |r|');
  file = [tempname() '.fcg'];
  cleanup = onCleanup(@() delete(file));
  fcGraphSave(G, file);
  H = fcGraphLoad(file);
  expect(issparse(H) && isequal(H, G), 'fcGraphSave / fcGraphLoad round trip');
  expect_error(@() fcGraphLoad([file '.missing']), 'fastconn:FC_ERR_IO', 'missing', 'fcGraphLoad of a missing file');
  [labels, Q, tree] = fcModularity(G, 'Resolution', 1, 'Seed', 2, 'Refine', true);
  expect(numel(labels) == 31 && Q > 0 && isstruct(tree), 'fcModularity with name/value options');
  within(fcModularityScore(G, labels), Q, 1e-9, 'fcModularityScore of its labels is Q');
  expect(fcModularityScore(G, labels, 'Resolution', 2) < Q, 'fcModularityScore ''Resolution'', 2 is lower');
  [labels2] = fcModularity(G, 'MaxCommunities', 2);
  expect(max(labels2) <= 2, 'fcModularity ''MaxCommunities'', 2');
end

function check_windows(X)
  R = fcWindowCorr(X, 101, 50, 'Precision', 'fp64');
  within(R, corr(X(101:150, :)), 1e-12, 'fcWindowCorr fp64 = corr of rows 101..150');
  Rg = fcWindowCorr(X, 101, 50, 'Taper', 'gaussian', 'Sigma', 5);
  expect(max(abs(Rg(:) - R(:))) > 1e-3, 'fcWindowCorr Gaussian taper weighs the rows');
  expect_error(@() fcWindowCorr(X, 202, 50), 'fastconn:usage', {'width 50 at row 202', '250 rows'}, ...
               'fcWindowCorr past the end');
  expect_error(@() fcWindowCorr(X, 1, 50, 'Sigma', 2), 'fastconn:usage', 'Sigma', 'fcWindowCorr Sigma without gaussian');
  D = fcDfc(X, 50, 25, 'Precision', 'fp64');
  out = fcDfcWindows(X, 50, 25, @(r, k) r, 'Precision', 'fp64');
  expect(numel(out) == 9 && isequal(cell2mat(out), D), 'fcDfcWindows streams the rows of fcDfc (fp64), in order');
  within(D(3, :), fcCorrTriu(X(51:100, :), 'Precision', 'fp64')', 1e-12, 'fcDfc fp64 window 3 = rows 51..100');
  best = fcDfcWindows(X, 50, 25, @(r, k) [k max(r)]);
  expect(isequal(cellfun(@(c) c(1), best)', 1:9), 'fcDfcWindows passes the window numbers');
  % the iterator by hand, and it is freed when fun fails
  id = fastconn_mex('dfc_begin', X, 100, 100);
  [r1, k1] = fastconn_mex('dfc_next', id);
  [r2, k2] = fastconn_mex('dfc_next', id);
  [r3, k3] = fastconn_mex('dfc_next', id);
  fastconn_mex('dfc_end', id);
  expect(k1 == 1 && k2 == 2 && k3 == 0 && isempty(r3) && numel(r1) == 465, 'dfc_begin / dfc_next / dfc_end');
  expect_error(@() fastconn_mex('dfc_next', id), 'fastconn:usage', 'not an open window iterator', 'dfc_next after dfc_end');
  [~, msg] = caught(@() fcDfcWindows(X, 50, 25, @(r, k) error('mine:stop', 'stop')));
  ids = zeros(1, 64);
  for n = 1:64
    ids(n) = fastconn_mex('dfc_begin', X, 100, 100);  % all 64 slots free again: none leaked
  end
  for n = 1:64
    fastconn_mex('dfc_end', ids(n));
  end
  expect(strcmp(msg, 'stop'), 'fcDfcWindows ends its iterator when fun fails (64 slots free afterwards)');
  [k, s] = fcDfcDegree(X, 50, 25, 'abs', 0.5, 'Taper', 'gaussian', 'Sigma', 4);
  expect(isequal(size(k), [9 31]) && isequal(size(s), [9 31]), 'fcDfcDegree with a Gaussian taper: 9 x 31');
  G = fcDfcGraphs(X, 50, 25, 'density', 0.1, 'Weights', 'binary');
  expect(numel(G) == 9 && all(cellfun(@nnz, G) == 94), 'fcDfcGraphs density 0.1, binary');
  [m, sd] = fcDfcSummary(X, 50, 25);
  within(m, mean(fcDfc(X, 50, 25)), 1e-6, 'fcDfcSummary mean = mean of fcDfc');
  [V, err] = fcLowRank(X, 5);
  within(norm(corr(X) - V * V', 'fro') / norm(corr(X), 'fro'), err, 1e-5, 'fcLowRank error');
  [V, err] = fcDfcLowRank(X, 50, 25, 3);
  expect(isequal(size(V), [31 3 9]) && numel(err) == 9, 'fcDfcLowRank: 31 x 3 x 9');
end

function check_settings(X)
  % threads and the memory limit reach the library: same values; a limit too small is refused
  within(fcCorr(X, 'Threads', 1, 'MemoryLimit', 2^20, 'Backend', 'cpu'), fcCorr(X, 'Backend', 'cpu'), 2.5e-7, ...
         'fcCorr with 1 thread and a 1 MiB memory limit');
  [id, msg] = caught(@() fcCorrTriu(X, 'MemoryLimit', 1, 'Backend', 'cpu'));
  expect(strncmp(id, 'fastconn:FC_ERR', 15), sprintf('a 1-byte memory limit is refused by the library (%s: %s)', id, msg));
  expect_error(@() fcCorr(X, 'MemoryLimit', -1), 'fastconn:usage', 'memory_limit', 'negative memory limit');
  within(fcCorr(X), corr(X), 1e-5, 'the next call without a limit works');
  % 'Devices': several GPUs as one context, for the CUDA backend only; ids checked by the library
  expect_error(@() fcCorr(X, 'Devices', [0 1], 'Backend', 'cpu'), 'fastconn:usage', 'backend ''cuda''', 'Devices without CUDA');
  expect_error(@() fcCorr(X, 'Devices', 'some', 'Backend', 'cuda'), 'fastconn:usage', 'devices', 'Devices ''some''');
  expect_error(@() fcCorr(X, 'Devices', 0.5, 'Backend', 'cuda'), 'fastconn:usage', 'whole numbers', 'Devices 0.5');
  expect_error(@() fcCorrTriu(X, 'Devices', [0 0], 'Backend', 'cuda'), 'fastconn:FC_ERR_INVALID_ARG', ...
               'devices[1] is 0, which devices lists twice', 'a repeated device id');
  [built, usable] = fastconn_mex('has_cuda');
  if ~usable
    [id, msg] = caught(@() fcCorr(X, 'Devices', [0 1], 'Backend', 'cuda'));
    expect(strcmp(id, 'fastconn:FC_ERR_BACKEND_UNAVAILABLE'), sprintf('Devices without a GPU: unavailable (%s: %s)', id, msg));
  else
    within(fcCorr(X, 'Devices', 'all', 'Backend', 'cuda'), fcCorr(X, 'Backend', 'cuda'), 0, 'all GPUs give one GPU''s values');
  end
  within(fcCorr(X), corr(X), 1e-5, 'a one-device context again after the devices');
end

function check_library()
  v = fcVersion();
  expect(~isempty(regexp(v, '^\d+\.\d+\.\d+$', 'once')), sprintf('fcVersion is major.minor.patch (%s)', v));
  [built, usable] = fcHasCuda();
  expect(islogical(built) && islogical(usable) && (built || ~usable), 'fcHasCuda: two logicals, usable only if built');
  info = fcCpuInfo();
  expect(ischar(info) && ~isempty(regexp(info, '^pair kernels: (avx512|avx2|portable) .*BLAS: ', 'once')), 'fcCpuInfo: the pair-kernel path and the BLAS');
end

% Every function has help text with an example, and the examples run.
function check_help_and_examples(functions_dir)
  files = dir(fullfile(functions_dir, '*.m'));
  names = setdiff(strrep({files.name}, '.m', ''), {'fastconn_loadlibrary_demo'});
  listing = evalc('help fastconn');
  for k = 1:numel(names)
    text = evalc(sprintf('help %s', names{k}));
    ok = ~isempty(strfind(text, 'Example'));
    if ~strcmp(names{k}, 'fastconn')
      ok = ok && ~isempty(strfind(listing, names{k}));
    end
    expect(ok, sprintf('help %s has an example and help fastconn lists it', names{k}));
    lines = strsplit(text, "\n");
    at = find(~cellfun(@isempty, strfind(lines, 'Example')), 1);
    code = {};
    for m = at + 1:numel(lines)
      line = lines{m};
      if isempty(regexp(line, '^\s{4,}\S', 'once')), break; end
      code{end + 1} = strtrim(line); %#ok<AGROW>
    end
    [id, msg] = caught(@() run_example(strjoin(code, "\n")));
    expect(numel(code) >= 1 && strcmp(id, '<no error>'), ...
           sprintf('the example of %s (%d lines) runs (%s %s)', names{k}, numel(code), id, msg));
  end
end

function run_example(code)
  evalc(code);
end
