// batch_pipeline.hpp - the per-subject pipeline of `fastconn batch`: the built-in steps of
// fastconn.cohort_pipeline (degree, window_degree, triangle, matrix, modules), spelled, checked and recorded as the Python runner does, so that both
// write the same done-markers and arrays for the same pipeline.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <fastconn/fastconn.h>

#include "batch_json.hpp"

namespace fcli {

struct BatchStep {
  std::string name;  // output name: files <name>.<array>.npy
  std::string kind;  // degree, window_degree, triangle, matrix, modules
  JValue params;     // an object, as recorded in the manifest
};

// A step as given: its kind and its parameters (with "name" when given).
struct RawStep {
  std::string kind;
  JValue params;
};
// "degree:threshold=0.5,signed=true" -> ("degree", {"threshold": 0.5, "signed": true}); a value
// that is not JSON is a string (python3 -m fastconn.cohort --step's syntax).
RawStep parse_step_text(const std::string& text);
// A --pipeline file's entry {"step": kind, "name"?: ..., params...}; throws naming the entry.
RawStep step_from_json(const JValue& entry, size_t index);
// Checks the steps as cohort_pipeline.normalize_pipeline does; throws (exit 1) naming the step.
std::vector<BatchStep> normalize_steps(const std::vector<RawStep>& raw);
// cohort_pipeline.pipeline_json: [{"name", "step", "params"}].
JValue pipeline_json(const std::vector<BatchStep>& steps);

struct StepArray {
  std::string name;   // "degree", "strength", "r"
  std::string descr;  // numpy dtype: "<i8", "<f8", "<f4"
  std::vector<int64_t> shape;
  std::vector<unsigned char> bytes;
};
// One step's arrays for the series (n series of n_time points) on ctx; `fp64`: the context's
// precision is fp64 (triangle and matrix then float64, as the Python Context gives them).
std::vector<StepArray> compute_step(fc_context* ctx, const fc_series* series, int64_t n, int64_t n_time,
                                    const BatchStep& step, bool fp64);

}  // namespace fcli
