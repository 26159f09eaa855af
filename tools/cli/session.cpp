// session.cpp - see session.hpp.
#include "session.hpp"

#include <cmath>
#include <cstdio>

#include "errors.hpp"
#include "huge_buffer.hpp"
#include "scan_voxels.hpp"
#include "thread_split.hpp"

namespace fcli {
namespace {

std::string version_text() {
  int major = 0, minor = 0, patch = 0;
  fc_version(&major, &minor, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

const char* backend_name(fc_backend b) {
  switch (b) {
    case FC_BACKEND_CPU: return "cpu";
    case FC_BACKEND_CUDA: return "cuda";
    default: return "auto";
  }
}

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// fc_series_create_f32 or _f64, after the gather's element type.
fc_status create_series(fc_context* ctx, const float* data, int64_t n, int64_t t, fc_series** out) {
  return fc_series_create_f32(ctx, data, n, t, 1, n, out);  // time-major: series_stride 1, time_stride N
}
fc_status create_series(fc_context* ctx, const double* data, int64_t n, int64_t t, fc_series** out) {
  return fc_series_create_f64(ctx, data, n, t, 1, n, out);
}
const char* series_function(const float*) { return "fc_series_create_f32"; }
const char* series_function(const double*) { return "fc_series_create_f64"; }
const char* element_name(const float*) { return "float32"; }
const char* element_name(const double*) { return "float64"; }

}  // namespace

std::vector<OptionSpec> common_specs() {
  return {{"input", 'i', "FILE"},        {"output", 'o', "FILE"},       {"mask", 'm', "FILE"},
          {"automask", 0, nullptr},      {"threads", 0, "N"},           {"backend", 0, "auto|cpu|cuda"},
          {"memory-limit", 0, "BYTES"},  {"precision", 0, "fp32|fp64|tf32"}, {"quiet", 'q', nullptr},
          {"force", 0, nullptr},         {"help", 'h', nullptr}};
}

std::vector<OptionSpec> edge_specs() {
  return {{"threshold", 0, "R"}, {"signed", 0, nullptr}, {"density", 0, "D"}, {"top-k", 0, "K"}};
}

std::vector<OptionSpec> operator+(std::vector<OptionSpec> a, const std::vector<OptionSpec>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

EdgeRule edge_rule_from(const Args& args) {
  const int given = args.has("threshold") + args.has("density") + args.has("top-k");
  if (given != 1)
    fail(std::string(given == 0 ? "no" : "more than one") +
         " edge rule: give one of --threshold R (|r| >= R), --density D (the strongest fraction D of pairs) or "
         "--top-k K");
  if (args.has("signed") && !args.has("threshold"))
    fail("--signed applies to --threshold only (--density and --top-k rank pairs by |r|)");
  if (args.has("threshold")) {
    const double r = args.real("threshold");
    if (args.has("signed")) {
      if (r < -1.0 || r > 1.0) fail("--threshold: " + args.text("threshold") + " is not in [-1, 1]");
      return {FC_EDGE_THRESHOLD, r, "r >= " + args.text("threshold")};
    }
    if (r < 0.0 || r > 1.0) fail("--threshold: " + args.text("threshold") + " is not in [0, 1] (|r| >= R; --signed for r >= R)");
    return {FC_EDGE_ABS_THRESHOLD, r, "|r| >= " + args.text("threshold")};
  }
  if (args.has("density")) {
    const double d = args.real("density");
    if (d < 0.0 || d > 1.0) fail("--density: " + args.text("density") + " is not a fraction in [0, 1] (0.05 = 5 % of pairs)");
    return {FC_EDGE_DENSITY, d, "density " + args.text("density")};
  }
  const int64_t k = args.integer("top-k", 1, INT64_MAX);
  return {FC_EDGE_TOP_K, static_cast<double>(k), "top " + args.text("top-k") + " per voxel"};
}

void describe_edge_rule(const EdgeRule& rule, Json& parameters) {
  static const char* names[] = {"abs_threshold", "threshold", "density", "top_k"};
  parameters.set("edge_rule", names[rule.rule]);
  parameters.set("edge_parameter", rule.param);
  parameters.set("edge_rule_text", rule.text);
}

Session::Session(int argc, char** argv, const Args& args) : progress_(args.has("quiet")), start_(now_seconds()) {
  progress_.hold_notes();  // until the input has passed every check (make_series)
  const std::string see = " (see: fastconn " + args.command() + " --help)";
  const auto& pos = args.positional();
  if (args.has("graph")) {  // a graph file instead of a scan (modules --graph): no scan, no mask
    if (args.has("input") || !pos.empty())
      fail("--graph replaces the input scan; give one or the other, not '" + (pos.empty() ? args.text("input") : pos[0]) + "'" + see);
    for (const char* name : {"mask", "automask", "precision"})
      if (args.has(name)) fail(std::string("--") + name + " applies to a scan, not to --graph" + see);
    input_ = args.text("graph");
  } else if (args.has("input")) {
    if (!pos.empty()) fail("unexpected argument '" + pos[0] + "' (the input is given with -i)" + see);
    input_ = args.text("input");
  } else {
    if (pos.empty()) fail("no input scan: give a 4D NIfTI file" + see);
    if (pos.size() > 1) fail("unexpected argument '" + pos[1] + "'" + see);
    input_ = pos[0];
  }
  if (!args.has("output")) fail("no output: give -o FILE" + see);
  output_ = args.text("output");
  outputs_.set_overwrite(args.has("force"));
  if (args.has("mask") && args.has("automask")) fail("--mask and --automask exclude each other");
  mask_path_ = args.text_or("mask", "");
  automask_ = !args.has("mask");
  automask_explicit_ = args.has("automask");
  if (args.has("threads")) threads_ = static_cast<int>(args.integer("threads", 0, 1 << 20));
  io_threads_ = host_threads(threads_);
  const std::string backend = args.choice("backend", {"auto", "cpu", "cuda"}, "auto");
  backend_ = backend == "cpu" ? FC_BACKEND_CPU : backend == "cuda" ? FC_BACKEND_CUDA : FC_BACKEND_AUTO;
  if (args.has("memory-limit")) memory_limit_ = args.bytes("memory-limit");
  precision_name_ = args.choice("precision", {"fp32", "fp64", "tf32"}, "fp32");
  precision_ = precision_name_ == "fp64" ? FC_PRECISION_FP64 : precision_name_ == "tf32" ? FC_PRECISION_TF32 : FC_PRECISION_FP32;

  Json command_line = Json::array();
  std::string joined;
  for (int k = 0; k < argc; ++k) {
    command_line.push(argv[k]);
    joined += (k ? " " : "") + std::string(argv[k]);
  }
  sidecar_.set("tool", "fastconn");
  sidecar_.set("command", args.command());
  sidecar_.set("command_line", command_line);
  sidecar_.set("command_line_text", joined);
  sidecar_.set("fastconn_version", version_text());
  sidecar_.set("cuda_built_in", fc_has_cuda() != 0);
  sidecar_.set("cpu_kernels", std::string(fc_cpu_info()));  // the CPU path and BLAS kernel that ran
  sidecar_.member("parameters");
}

std::string Session::reserve_map(const std::string& path, const std::string& what) {
  if (nifti_extension(path).empty()) fail(what + " " + path + ": the name must end in .nii or .nii.gz");
  return reserve_file(path, what);
}

std::string Session::reserve_file(const std::string& path, const std::string& what) {
  const std::string tmp = outputs_.reserve(path);
  output_files().set(what, path);
  if (path == output_) {
    const std::string side = sidecar_path(output_);
    if (side == output_) fail("output " + output_ + ": the sidecar would overwrite it; choose another name");
    sidecar_tmp_ = outputs_.reserve(side);
    output_files().set("sidecar", side);
  }
  return tmp;
}

void Session::load_scan() {
  const double t0 = now_seconds();
  scan_ = read_header(input_, "scan");
  require_scan_shape(scan_.get(), input_);
  // The mask's header is checked before the (possibly long) read of the scan's voxels.
  if (!mask_path_.empty()) {
    NiftiPtr mask = read_header(mask_path_, "mask");
    require_mask_on_grid(mask.get(), mask_path_, "mask", scan_.get(), input_);
  }
  check_cancel();
  // Every check that needs no voxel has passed: start the backend now, so that its start (CUDA:
  // about 0.2 s) runs while the voxels are read, masked and gathered.
  context_start_ = std::make_unique<ContextStart>(backend_);
  load_data(scan_.get(), input_, "scan", io_threads_);
  check_cancel();
  n_time_ = time_points(scan_.get());
  const double tr = repetition_time_s(scan_.get());
  Json& in = sidecar_.member("input");
  in.set("path", input_);
  in.set("nifti_version", nifti_version(scan_.get()));
  in.set("datatype", nifti_datatype_string(scan_->datatype));
  Json dims = Json::array(), zooms = Json::array();
  for (int k = 1; k <= 4; ++k) {
    dims.push(static_cast<int64_t>(scan_->dim[k]));
    zooms.push(static_cast<double>(scan_->pixdim[k]));
  }
  in.set("dims", dims);
  in.set("pixdim", zooms);
  in.set("repetition_time_s", tr);
  sidecar_.set("n_time", n_time_);
  set_timing("read", now_seconds() - t0);
  progress_.note("read " + input_ + ": " + dims_text(scan_.get()) + " (" + nifti_datatype_string(scan_->datatype) +
                 (tr > 0 ? ", TR " + format("%g", tr) + " s" : std::string()) + ") in " +
                 format("%.2f", now_seconds() - t0) + " s");
}

void Session::select_voxels() {
  const double t0 = now_seconds();
  Json& m = sidecar_.member("mask");
  const int64_t nv = volume_voxels(scan_.get());
  if (automask_) {
    int64_t nonfinite = 0;
    voxels_ = automatic_mask(scan_.get(), &nonfinite, io_threads_);
    m.set("source", "automatic");
    m.set("rule", "voxels whose time series is nonzero, non-constant and finite");
    m.set("n_left_out_nonfinite", nonfinite);
    progress_.note(std::string(automask_explicit_ ? "--automask" : "no --mask given") +
                   ": automatic mask of nonzero, non-constant voxels: " + std::to_string(voxels_.size()) +
                   " of " + std::to_string(nv) + " voxels" +
                   (nonfinite ? " (" + std::to_string(nonfinite) + " with NaN/Inf left out)" : std::string()));
  } else {
    NiftiPtr mask = read_header(mask_path_, "mask");
    require_mask_on_grid(mask.get(), mask_path_, "mask", scan_.get(), input_);
    load_data(mask.get(), mask_path_, "mask", io_threads_);
    const std::vector<double> values = first_volume(mask.get());
    for (int64_t v = 0; v < nv; ++v)
      if (values[static_cast<size_t>(v)] != 0.0) voxels_.push_back(v);  // NaN counts as in: gather names it
    m.set("source", "file");
    m.set("path", mask_path_);
    m.set("rule", "voxels where the mask is nonzero");
    progress_.note("mask " + mask_path_ + ": " + std::to_string(voxels_.size()) + " of " + std::to_string(nv) + " voxels");
  }
  if (voxels_.empty())
    fail(automask_ ? "scan " + input_ + ": no voxel has a non-constant time series (automatic mask is empty)"
                   : "mask " + mask_path_ + " is empty (no nonzero voxel)");
  m.set("n_voxels", n_voxels());
  sidecar_.set("n_voxels", n_voxels());
  set_timing("mask", now_seconds() - t0);
  check_cancel();
}

Session::~Session() {
  if (release_.joinable()) release_.join();
}

void Session::set_timing(const std::string& step, double seconds) {
  sidecar_.member("timing_s").set(step, seconds);
  if (context_start_) overlapped_.push(step);
  if (release_.joinable()) released_overlap_.push(step);
}

void Session::open_context() {
  const double t0 = now_seconds();
  context_ = context_start_->join(std::string("cannot create a context on the ") + backend_name(backend_) + " backend");
  const double created = context_start_->create_seconds();
  context_start_.reset();
  fc_context* ctx = context_.get();
  const double t1 = now_seconds();
  check(fc_context_set_threads(ctx, threads_), "--threads");
  check(fc_context_set_memory_limit(ctx, memory_limit_), "--memory-limit");
  check(fc_context_set_precision(ctx, precision_), "--precision");
  // A constant voxel (possible inside a user's mask) gets r = 0 and no edges, so that maps hold
  // numbers only; how many there are is said and recorded.
  check(fc_context_set_constant_policy(ctx, FC_CONSTANT_ZERO), "constant policy");
  check(fc_context_set_progress(ctx, &Progress::callback, &progress_), "progress callback");
  fc_backend chosen = FC_BACKEND_AUTO;
  check(fc_context_get_backend(ctx, &chosen), "backend");
  sidecar_.set("backend", backend_name(chosen));
  sidecar_.set("backend_requested", backend_name(backend_));
  sidecar_.set("threads", threads_);
  sidecar_.set("precision", precision_name_);
  sidecar_.set("memory_limit_bytes", memory_limit_);
  sidecar_.set("constant_voxels", "r = 0, no edges");
  const double t2 = now_seconds();
  // "context": the library's own time (the create on its thread, the settings here), what a
  // program holding the matrix would spend too; "context_wait": what the main thread spent in
  // this step, waiting for the create included.
  set_timing("context", created + (t2 - t1));
  set_timing("context_wait", t2 - t0);
  sidecar_.member("timing_overlap").set("context", overlapped_);
}

void Session::open_context_alone() {
  context_start_ = std::make_unique<ContextStart>(backend_);
  open_context();
  progress_.release_notes();  // nothing more to check before the library call
}

void Session::make_series() {
  if (precision_ != FC_PRECISION_FP64 && float32_exact(scan_.get())) gather_and_create_series<float>();
  else gather_and_create_series<double>();
  nifti_image_unload(scan_.get());  // the voxels are in the series now; keep only the header
  const int64_t n = n_voxels();
  int64_t n_constant = 0;
  check(fc_series_info(series_.get(), nullptr, nullptr, &n_constant), "fc_series_info");
  sidecar_.set("n_constant", n_constant);
  fc_backend chosen = FC_BACKEND_AUTO;
  check(fc_context_get_backend(context_.get(), &chosen), "backend");
  progress_.note(std::to_string(n) + " voxels x " + std::to_string(n_time_) + " time points on the " +
                 backend_name(chosen) + " backend (" + precision_name_ + ")");
  if (n_constant > 0)
    progress_.note(std::to_string(n_constant) + " voxels of the mask are constant over time: r = 0 and no edges for them");
  check_cancel();
}

template <class T>
void Session::gather_and_create_series() {
  const double t0 = now_seconds();
  const int64_t n = n_voxels();
  // Uninitialized: the gather threads first-touch their own rows (a zero-fill on one thread cost
  // more than the gather itself), on huge pages (huge_buffer.hpp).
  HugeArray<T> buffer(static_cast<T*>(huge_alloc(static_cast<size_t>(n * n_time_) * sizeof(T))));
  if (!buffer) throw Error(kExitLibrary, "out of memory for the " + std::to_string(n) + " x " + std::to_string(n_time_) + " series");
  gather_series(scan_.get(), input_, voxels_, buffer.get(), io_threads_);
  set_timing("gather", now_seconds() - t0);
  check_cancel();
  open_context();
  progress_.release_notes();  // the input is valid and the backend started: say what was read
  check_cancel();
  const double t1 = now_seconds();
  fc_series* s = nullptr;
  check(create_series(context_.get(), buffer.get(), n, n_time_, &s), series_function(buffer.get()));
  series_.reset(s);
  set_timing("series", now_seconds() - t1);
  sidecar_.set("series_input", element_name(buffer.get()));
}

namespace {

// Per-voxel values of the mask (volume-major) scattered onto the scan's grid, 0 outside the mask.
template <class T>
std::vector<T> on_grid(const T* values, int64_t n_volumes, int64_t nv, const std::vector<int64_t>& voxels) {
  const int64_t n = static_cast<int64_t>(voxels.size());
  std::vector<T> grid(static_cast<size_t>(nv * n_volumes), T(0));
  for (int64_t k = 0; k < n_volumes; ++k)
    for (int64_t s = 0; s < n; ++s) grid[static_cast<size_t>(k * nv + voxels[static_cast<size_t>(s)])] = values[k * n + s];
  return grid;
}

}  // namespace

void Session::write_float_map(const std::string& tmp_path, const float* values, int64_t n_volumes, double volume_step,
                              const std::string& description, bool four_d) {
  const std::vector<float> grid = on_grid(values, n_volumes, volume_voxels(scan_.get()), voxels_);
  write_map(scan_.get(), tmp_path, DT_FLOAT32, n_volumes, volume_step, NIFTI_INTENT_NONE, grid.data(), description, io_threads_,
            four_d);
}

void Session::write_int_map(const std::string& tmp_path, const int32_t* values, int intent, const std::string& description,
                            int64_t n_volumes, double volume_step, bool four_d) {
  const std::vector<int32_t> grid = on_grid(values, n_volumes, volume_voxels(scan_.get()), voxels_);
  write_map(scan_.get(), tmp_path, DT_INT32, n_volumes, volume_step, intent, grid.data(), description, io_threads_, four_d);
}

void Session::release_library() {
  release_ = std::thread([this, series = std::move(series_), context = std::move(context_)]() mutable {
    block_cancel_signal();
    const double t0 = now_seconds();
    series.reset();  // before the context that made it
    context.reset();
    release_seconds_ = now_seconds() - t0;
  });
}

void Session::finish() {
  check_cancel();
  if (release_.joinable()) {
    release_.join();
    set_timing("release", release_seconds_);
    sidecar_.member("timing_overlap").set("release", released_overlap_);
  }
  set_timing("total", now_seconds() - start_);
  if (!sidecar_tmp_.empty()) write_json(sidecar_, sidecar_tmp_);
  outputs_.commit();
  std::string list;
  for (const std::string& f : outputs_.finals()) list += (list.empty() ? "" : ", ") + f;
  progress_.note("wrote " + list + " in " + format("%.2f", now_seconds() - start_) + " s");
}

}  // namespace fcli
