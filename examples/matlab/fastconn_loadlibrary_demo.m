%% fastconn_loadlibrary_demo.m - calling the fastconn C library from MATLAB with loadlibrary/calllib
%
% A walkthrough of the C API from MATLAB without compiling anything: load the shared library
% with its header, create a context, upload a T x N matrix of time series, get the full
% correlation triangle, stream the same triangle block by block with the pull iterator, read
% the library's error text after a deliberate error, and clean up.
%
% Needs: MATLAB R2019a or later (readmatrix; local functions in scripts), a C compiler that MATLAB knows
% (mex -setup C; loadlibrary uses it to parse the header) and an installed fastconn: set
% FASTCONN_PREFIX to the install prefix (the folder holding include/fastconn/ and lib/).
% Nothing here needs a toolbox: corrcoef is core MATLAB.
%
% This script follows MathWorks' documented loadlibrary/calllib/libpointer rules but has not
% been run in MATLAB by the fastconn project (there is no MATLAB in its CI, and Octave has no
% loadlibrary). The MEX gateway fastconn_mex.c next to it is the tested route; see README.md.

%% 1. Load the library with its header
prefix = getenv('FASTCONN_PREFIX');
if isempty(prefix), prefix = '/usr/local'; end
incdir = fullfile(prefix, 'include', 'fastconn');   % fastconn.h includes its two neighbours
libfile = fullfile(prefix, 'lib', ['libfastconn.' lib_extension()]);
if exist(libfile, 'file') ~= 2   % some distributions install into lib64
  libfile = fullfile(prefix, 'lib64', ['libfastconn.' lib_extension()]);
end
lib = 'libfastconn';                                % the alias every calllib below uses
if ~libisloaded(lib)
  % Absolute paths: loadlibrary parses the header in a temporary folder, so relative include
  % paths would not resolve. The warnings are about fc_context_set_progress and
  % fc_pcc_blocks_foreach, whose function-pointer arguments MATLAB cannot supply: this demo
  % uses the pull iterator instead, which exists for exactly this reason.
  [~, ~] = loadlibrary(libfile, fullfile(incdir, 'fastconn.h'), 'includepath', incdir, 'alias', lib);
end
% libfunctions(lib, '-full') lists every signature as MATLAB sees it.
[major, minor, patchlevel] = calllib(lib, 'fc_version', 0, 0, 0);   % void function: the outputs are its three int*
fprintf('fastconn %d.%d.%d, CUDA built in: %d\n', major, minor, patchlevel, calllib(lib, 'fc_has_cuda'));

%% 2. Data: 250 time points of 31 regions (T x N, one column per series)
here = fileparts(mfilename('fullpath'));
X = readmatrix(fullfile(here, '..', 'data', 'fmri_timeseries.csv'), 'NumHeaderLines', 1);
[T, N] = size(X);

%% 3. A context: fc_context_create(backend, device, fc_context** out)
% The handle comes back through a pointer to a pointer. A libpointer behaves like a handle
% object: calllib writes through it, and its Value is then the fc_context* to pass on.
ctxOut = libpointer('voidPtrPtr');
check(lib, calllib(lib, 'fc_context_create', 'FC_BACKEND_AUTO', -1, ctxOut), 'fc_context_create');
ctx = ctxOut.Value;
check(lib, calllib(lib, 'fc_context_set_precision', ctx, 'FC_PRECISION_FP32'), 'fc_context_set_precision');

%% 4. Series from the T x N double matrix, read in place: series_stride = T, time_stride = 1
% MATLAB stores X column by column, so series s starts at element s*T and its samples are
% adjacent. No transpose, and the library copies what it needs before returning.
seriesOut = libpointer('voidPtrPtr');
check(lib, calllib(lib, 'fc_series_create_f64', ctx, X, int64(N), int64(T), int64(T), int64(1), seriesOut), ...
      'fc_series_create_f64');
series = seriesOut.Value;

%% 5. The full triangle, N(N-1)/2 values, into a caller-owned single buffer
% FC_TRIU_ROW lists (1,2),(1,3),...,(1,N),(2,3),...: the order of pdist/squareform vectors,
% i.e. the column-major lower triangle R(tril(true(N), -1)).
K = double(calllib(lib, 'fc_triu_size', int64(N)));
triangle = libpointer('singlePtr', zeros(K, 1, 'single'));
check(lib, calllib(lib, 'fc_pcc_triu', ctx, series, 'FC_TRIU_ROW', triangle, int64(K)), 'fc_pcc_triu');
r = double(triangle.Value);
R = corrcoef(X);                                   % float64 reference
fprintf('full triangle: %d pairs, max |r - corrcoef| = %.2g\n', K, max(abs(r - R(tril(true(N), -1)))));

%% 6. The same triangle block by block (the pull iterator; MATLAB cannot pass C callbacks)
% Each block holds the pairs of rows [row_begin, row_end) and is the slice
% [triu_offset, triu_offset + count) of the row-ordered triangle: write it there.
blocksOut = libpointer('voidPtrPtr');
check(lib, calllib(lib, 'fc_pcc_blocks_begin', ctx, series, int64(8), blocksOut), 'fc_pcc_blocks_begin');
blocks = blocksOut.Value;
capacityOut = libpointer('int64Ptr', 0);
check(lib, calllib(lib, 'fc_blocks_max_count', blocks, capacityOut), 'fc_blocks_max_count');
capacity = double(capacityOut.Value);
buffer = libpointer('singlePtr', zeros(capacity, 1, 'single'));
info = libpointer('fc_block_info', struct('row_begin', 0, 'row_end', 0, 'triu_offset', 0, 'count', 0));
streamed = zeros(K, 1, 'single');
n_blocks = 0;
while true
  if check(lib, calllib(lib, 'fc_blocks_next', blocks, buffer, int64(capacity), info), 'fc_blocks_next')
    break;                                         % FC_DONE: every block delivered
  end
  block = info.Value;                              % struct with int64 fields
  first = double(block.triu_offset) + 1;           % MATLAB indices start at 1
  count = double(block.count);
  values = buffer.Value;
  streamed(first:first + count - 1) = values(1:count);
  n_blocks = n_blocks + 1;
end
calllib(lib, 'fc_blocks_destroy', blocks);
fprintf('streamed %d blocks, max |blocks - triangle| = %.2g\n', n_blocks, max(abs(double(streamed) - r)));

%% 7. A deliberate error: NaN in the input is refused, and fc_last_error says where
bad = X;
bad(7, 4) = NaN;                                   % row 7, column 4
badOut = libpointer('voidPtrPtr');
status = calllib(lib, 'fc_series_create_f64', ctx, bad, int64(N), int64(T), int64(T), int64(1), badOut);
fprintf('NaN input: %s\n  %s\n', calllib(lib, 'fc_status_string', status), calllib(lib, 'fc_last_error'));
% The library counts from 0: its "series 3 ... time point 6" is column 4, row 7 of bad.

%% 8. Cleanup: handles first (destroy accepts NULL), then the library
calllib(lib, 'fc_series_destroy', series);
calllib(lib, 'fc_context_destroy', ctx);
clear ctxOut seriesOut blocksOut badOut triangle buffer info capacityOut ctx series blocks
unloadlibrary(lib);

%% Local functions
% calllib returns a C enum as the name of its value ('FC_OK'); a number is handled too. Values
% >= 100 are errors: raise one with the library's own description. Returns true for FC_DONE.
function done = check(lib, status, what)
  if ischar(status)
    code = find(strcmp(status, {'FC_OK', 'FC_DONE'})) - 1;
    if isempty(code), code = 100; end
  else
    code = double(status);
  end
  if code >= 100
    error('fastconn:callFailed', '%s failed: %s\n%s', what, calllib(lib, 'fc_status_string', status), ...
          calllib(lib, 'fc_last_error'));
  end
  done = code == 1;
end

function ext = lib_extension()
  if ismac, ext = 'dylib'; else, ext = 'so'; end
end
