// session.hpp - what every subcommand does around its one library call: parse the shared
// options, read the scan and the mask, create the context and the series, write the maps and
// the sidecar, and time each step (the sidecar's "timing_s", which bench/cli reads).
//
// The context is created on a thread of its own (context_start.hpp) from the moment the scan's
// header has passed its checks, while the voxels are read, masked and gathered; make_series()
// joins it. Its timing is then the create's own duration ("context"), beside the part the main
// thread waited for it ("context_wait"), and "timing_overlap" lists the steps it overlapped.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fastconn/fastconn.h>

#include "context_start.hpp"
#include "handles.hpp"
#include "nifti_io.hpp"
#include "options.hpp"
#include "outputs.hpp"
#include "progress.hpp"
#include "sidecar.hpp"

namespace fcli {

// Options every subcommand takes (input, output, mask, backend, threads, memory, precision).
std::vector<OptionSpec> common_specs();
// Options that choose a network's edges (degree, graph, dfc, modules).
std::vector<OptionSpec> edge_specs();
// Concatenation helper for option tables.
std::vector<OptionSpec> operator+(std::vector<OptionSpec> a, const std::vector<OptionSpec>& b);

struct EdgeRule {
  fc_edge_rule rule;
  double param;
  std::string text;  // "|r| >= 0.5", for messages
};
// Exactly one of --threshold R (|r| >= R; with --signed r >= R), --density D, --top-k K.
EdgeRule edge_rule_from(const Args& args);
// The rule's parameters as sidecar members.
void describe_edge_rule(const EdgeRule& rule, Json& parameters);

class Session {
 public:
  // Parses the shared options of `args` (the command's own ones are the command's business).
  Session(int argc, char** argv, const Args& args);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();  // waits for release_library()'s thread

  const std::string& input() const { return input_; }
  const std::string& output() const { return output_; }
  Progress& progress() { return progress_; }
  Outputs& outputs() { return outputs_; }
  Json& parameters() { return sidecar_.member("parameters"); }
  Json& results() { return sidecar_.member("results"); }
  Json& output_files() { return sidecar_.member("outputs"); }
  // Records a step's seconds; a step timed while the context is still starting is listed as
  // overlapped with it.
  void set_timing(const std::string& step, double seconds);

  // Requires -o to end in .nii or .nii.gz (maps) and reserves it and its sidecar.
  std::string reserve_map(const std::string& path, const std::string& what);
  // Reserves any other output file (graph, edge list, raw triangle).
  std::string reserve_file(const std::string& path, const std::string& what);

  // Reads and checks the scan's header, starts the context (on its own thread) and reads the
  // voxels (timing "read"); then the mask or the automatic one ("mask").
  void load_scan();
  void select_voxels();
  // The voxels' series: gathered ("gather") time-major into float32 when every value of the scan
  // is exact in float32 (and --precision is not fp64), else float64; then the context is joined
  // and configured ("context", "context_wait"), the series created ("series"), the buffer freed
  // and the scan's voxel data released (the header stays for the output geometry).
  void make_series();

  // The context of a command that reads no scan (`modules --graph`), created and configured as
  // make_series() does, instead of load_scan() ... make_series().
  void open_context_alone();

  nifti_image* scan() { return scan_.get(); }
  const std::string& scan_path() const { return input_; }
  const std::vector<int64_t>& voxels() const { return voxels_; }
  int64_t n_voxels() const { return static_cast<int64_t>(voxels_.size()); }
  int64_t n_time() const { return n_time_; }
  fc_context* context() { return context_.get(); }
  int io_threads() const { return io_threads_; }  // the program's own reading and gathering threads
  fc_series* series() { return series_.get(); }

  // Maps on the scan's grid from per-voxel values, volume-major (volume k at values + k * N);
  // voxels outside the mask get 0. One volume is a 3D map unless `four_d` (write_map).
  void write_float_map(const std::string& tmp_path, const float* values, int64_t n_volumes, double volume_step,
                       const std::string& description, bool four_d = false);
  void write_int_map(const std::string& tmp_path, const int32_t* values, int intent, const std::string& description,
                     int64_t n_volumes = 1, double volume_step = 0.0, bool four_d = false);

  // After the command's last library call: the series and the context are destroyed on a thread
  // of their own (CUDA: device memory, streams, cuBLAS), which used to follow "total", while
  // the outputs are written; finish() waits for it ("release", with the steps it overlapped in
  // "timing_overlap"). context() and series() are null afterwards.
  void release_library();

  // Times `seconds` since the session started as "total", writes the sidecar of the main output
  // and renames every output into place; then says what was written.
  void finish();

 private:
  Progress progress_;
  Outputs outputs_;
  Json sidecar_ = Json::object();
  double start_;
  std::string input_, output_, mask_path_, sidecar_tmp_;
  bool automask_ = false;
  bool automask_explicit_ = false;
  int threads_ = 0;       // --threads, for the library (0: every core)
  int io_threads_ = 1;  // the program's own reading and gathering threads
  fc_backend backend_ = FC_BACKEND_AUTO;
  int64_t memory_limit_ = 0;
  fc_precision precision_ = FC_PRECISION_FP32;
  std::string precision_name_;
  NiftiPtr scan_;
  int64_t n_time_ = 0;
  std::vector<int64_t> voxels_;
  std::unique_ptr<ContextStart> context_start_;  // until make_series() joins it
  Json overlapped_ = Json::array();               // steps timed while the context started
  ContextPtr context_;
  SeriesPtr series_;
  std::thread release_;            // release_library()'s thread, until finish() joins it
  double release_seconds_ = 0;     // written by that thread
  Json released_overlap_ = Json::array();  // steps timed while it ran

  // Joins the context started by load_scan() and applies the options to it.
  void open_context();
  template <class T>
  void gather_and_create_series();
};

}  // namespace fcli
