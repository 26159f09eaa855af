#include "batch_pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <regex>

#include "errors.hpp"
#include "handles.hpp"

namespace fcli {
namespace {

const char* const kRules[] = {"threshold", "density", "topk"};

struct StepSpec {
  const char* kind;
  std::vector<std::string> required, optional;
  bool needs_rule;
};

const std::vector<StepSpec>& step_specs() {
  static const std::vector<StepSpec> specs = {
      {"degree", {}, {"threshold", "density", "topk", "signed"}, true},
      {"triangle", {}, {"order"}, false},
      {"matrix", {}, {}, false},
      {"window_degree", {"width"}, {"step", "taper", "threshold", "density", "topk", "signed"}, true},
      {"modules", {}, {"threshold", "density", "topk", "signed", "weights", "resolution", "max_communities", "min_size",
                       "seed", "eigen_threshold", "signed_mode"}, true},
  };
  return specs;
}

std::string label(size_t index, const std::string& kind) {
  return "pipeline step " + std::to_string(index) + " ('" + kind + "')";
}

bool present(const JValue& params, const std::string& key) {
  const JValue* v = params.find(key);
  return v && v->kind() != JValue::Kind::Null;
}

double number_param(const JValue& params, const std::string& key, const std::string& where) {
  const JValue* v = params.find(key);
  if (!v || !v->is_number()) fail(where + ": " + key + " must be a number, not " + (v ? v->dump().substr(0, 40) : "missing"));
  return v->number();
}

int64_t whole_param(const JValue& params, const std::string& key, int64_t fallback, int64_t min, const std::string& where) {
  if (!present(params, key)) return fallback;
  const double v = number_param(params, key, where);
  if (v != std::floor(v) || v < static_cast<double>(min) || v > 9.0e18)
    fail(where + ": " + key + " must be a whole number >= " + std::to_string(min));
  return static_cast<int64_t>(v);
}

struct Rule {
  fc_edge_rule rule;
  double param;
};

// network.edge_rule: threshold (|r| >= t, r >= t with signed), density or topk.
Rule edge_rule(const JValue& params, const std::string& where) {
  const JValue* sign = params.find("signed");
  if (sign && sign->kind() != JValue::Kind::Bool && sign->kind() != JValue::Kind::Null)
    fail(where + ": signed must be true or false");
  const bool is_signed = sign && sign->kind() == JValue::Kind::Bool && sign->boolean();
  if (present(params, "threshold")) {
    const double t = number_param(params, "threshold", where);
    if (!(t >= -1.0 && t <= 1.0) || (!is_signed && t < 0))
      fail(where + ": threshold must be in " + (is_signed ? "[-1, 1]" : "[0, 1] (signed=true for r >= t)"));
    return {is_signed ? FC_EDGE_THRESHOLD : FC_EDGE_ABS_THRESHOLD, t};
  }
  if (is_signed) fail(where + ": signed=true applies to threshold= only");
  if (present(params, "density")) {
    const double d = number_param(params, "density", where);
    if (!(d >= 0.0 && d <= 1.0)) fail(where + ": density must be in [0, 1]");
    return {FC_EDGE_DENSITY, d};
  }
  return {FC_EDGE_TOP_K, static_cast<double>(whole_param(params, "topk", 1, 1, where))};
}

std::string text_param(const JValue& params, const std::string& key, const std::string& fallback,
                       const std::vector<std::string>& choices, const std::string& where) {
  const JValue* v = params.find(key);
  if (!v || v->kind() == JValue::Kind::Null) return fallback;
  if (v->kind() == JValue::Kind::String && std::count(choices.begin(), choices.end(), v->string())) return v->string();
  std::string list;
  for (const std::string& c : choices) list += (list.empty() ? "" : ", ") + c;
  fail(where + ": " + key + " must be one of " + list);
}

// The "modules" step's options as fastconn.Context.modularity sets them (the rest: defaults).
fc_modularity_options modularity_options(const JValue& params, const std::string& where) {
  fc_modularity_options o;
  check(fc_modularity_options_default(&o), "fc_modularity_options_default");
  if (present(params, "resolution")) o.resolution = number_param(params, "resolution", where);
  if (present(params, "eigen_threshold")) o.eigen_threshold = number_param(params, "eigen_threshold", where);
  o.max_communities = whole_param(params, "max_communities", 0, 0, where);
  o.min_community_size = whole_param(params, "min_size", 1, 0, where);
  o.seed = static_cast<uint64_t>(whole_param(params, "seed", 1, 0, where));
  o.signed_mode = text_param(params, "signed_mode", "gomez", {"gomez", "rubinov"}, where) == "rubinov"
                      ? FC_SIGNED_RUBINOV
                      : FC_SIGNED_GOMEZ;
  return o;
}

int graph_weights(const JValue& params, const std::string& where) {
  const std::string w = text_param(params, "weights", "r", {"r", "abs", "binary"}, where);
  return w == "abs" ? FC_GRAPH_WEIGHTED_ABS : w == "binary" ? FC_GRAPH_BINARY : FC_GRAPH_WEIGHTED;
}

template <class T>
StepArray make_array(const std::string& name, const char* descr, std::vector<int64_t> shape) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  StepArray a{name, descr, std::move(shape), {}};
  a.bytes.resize(static_cast<size_t>(count) * sizeof(T));
  return a;
}

template <class T>
T* data_of(StepArray& a) {
  return reinterpret_cast<T*>(a.bytes.data());
}

}  // namespace

RawStep parse_step_text(const std::string& text) {
  const size_t colon = text.find(':');
  auto trim = [](std::string s) {
    const size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  };
  RawStep step{trim(text.substr(0, colon)), JValue::object()};
  if (colon == std::string::npos) return step;
  const std::string rest = text.substr(colon + 1);
  size_t begin = 0;
  while (begin <= rest.size()) {
    size_t end = rest.find(',', begin);
    if (end == std::string::npos) end = rest.size();
    const std::string part = rest.substr(begin, end - begin);
    begin = end + 1;
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    if (eq == std::string::npos) fail("--step '" + text + "': '" + part + "' is not key=value");
    const std::string value = part.substr(eq + 1);
    JValue parsed;
    try {
      parsed = JValue::parse(value);
    } catch (const std::exception&) {
      parsed = JValue(value);
    }
    step.params.set(trim(part.substr(0, eq)), parsed);
  }
  return step;
}

RawStep step_from_json(const JValue& entry, size_t index) {
  const JValue* kind = entry.find("step");
  if (!kind || kind->kind() != JValue::Kind::String)
    fail("pipeline step " + std::to_string(index) + " is not an object with a \"step\" name");
  RawStep step{kind->string(), entry};
  step.params.erase("step");
  return step;
}

std::vector<BatchStep> normalize_steps(const std::vector<RawStep>& raw) {
  static const std::regex kName("^[A-Za-z0-9][A-Za-z0-9_-]*$");
  std::vector<BatchStep> steps;
  for (size_t index = 0; index < raw.size(); ++index) {
    JValue params = raw[index].params;
    const std::string kind = raw[index].kind;
    std::string name = kind;
    if (const JValue* n = params.find("name")) {
      if (n->kind() != JValue::Kind::String) fail(label(index, kind) + ": name must be a string");
      name = n->string();
      params.erase("name");
    }
    auto spec = std::find_if(step_specs().begin(), step_specs().end(), [&](const StepSpec& s) { return kind == s.kind; });
    if (spec == step_specs().end())
      fail("pipeline step " + std::to_string(index) + " is '" + kind +
           "': not a step name (degree, triangle, matrix, window_degree, modules)");
    for (const auto& [key, value] : params.members()) {
      if (std::count(spec->required.begin(), spec->required.end(), key) +
              std::count(spec->optional.begin(), spec->optional.end(), key) ==
          0) {
        std::string takes;
        for (const auto* list : {&spec->required, &spec->optional})
          for (const std::string& p : *list) takes += (takes.empty() ? "" : ", ") + p;
        fail(label(index, kind) + " has no parameter '" + key + "'; it takes " + (takes.empty() ? "none" : takes));
      }
    }
    for (const std::string& p : spec->required)
      if (!params.find(p)) fail(label(index, kind) + " needs " + p + "=");
    if (spec->needs_rule) {
      int rules = 0;
      for (const char* r : kRules) rules += present(params, r);
      if (rules != 1) fail(label(index, kind) + " needs one edge rule: threshold=, density= or topk=");
      edge_rule(params, label(index, kind));
    }
    if (kind == "window_degree") {
      whole_param(params, "width", 0, 2, label(index, kind));
      whole_param(params, "step", 1, 1, label(index, kind));
      const JValue* taper = params.find("taper");
      if (taper && taper->kind() != JValue::Kind::Null &&
          !(taper->kind() == JValue::Kind::String && taper->string() == "rectangular"))
        fail(label(index, kind) + ": taper must be \"rectangular\" (the Gaussian taper needs python3 -m fastconn.cohort)");
    }
    if (kind == "triangle" && params.find("order")) {
      const JValue* order = params.find("order");
      if (order->kind() != JValue::Kind::String || (order->string() != "row" && order->string() != "col"))
        fail(label(index, kind) + ": order must be \"row\" or \"col\"");
    }
    if (kind == "modules") modularity_options(params, label(index, kind));
    if (!std::regex_match(name, kName))
      fail("pipeline step " + std::to_string(index) + ": output name '" + name + "' must be letters, digits, _ or -");
    for (const BatchStep& s : steps)
      if (s.name == name)
        fail("pipeline step " + std::to_string(index) + ": output name '" + name + "' is used twice; give one name=...");
    steps.push_back({name, kind, params});
  }
  if (steps.empty()) fail("no pipeline: give --step NAME[:KEY=VALUE,...] or --pipeline FILE (see: fastconn batch --help)");
  return steps;
}

JValue pipeline_json(const std::vector<BatchStep>& steps) {
  JValue list = JValue::array();
  for (const BatchStep& s : steps) {
    JValue entry = JValue::object();
    entry.set("name", s.name);
    entry.set("step", s.kind);
    entry.set("params", s.params);
    list.push(entry);
  }
  return list;
}

std::vector<StepArray> compute_step(fc_context* ctx, const fc_series* series, int64_t n, int64_t n_time,
                                    const BatchStep& step, bool fp64) {
  const std::string where = "step '" + step.name + "'";
  std::vector<StepArray> arrays;
  if (step.kind == "degree" || step.kind == "window_degree") {
    const Rule rule = edge_rule(step.params, where);
    std::vector<int64_t> shape = {n};
    int64_t width = 0, stride = 1;
    if (step.kind == "window_degree") {
      width = whole_param(step.params, "width", 0, 2, where);
      stride = whole_param(step.params, "step", 1, 1, where);
      const int64_t windows = fc_window_count(n_time, width, stride);
      if (windows < 1)
        fail("window width " + std::to_string(width) + " is longer than the scan's " + std::to_string(n_time) +
             " time points");
      shape = {windows, n};
    }
    arrays.push_back(make_array<int64_t>("degree", "<i8", shape));
    arrays.push_back(make_array<double>("strength", "<f8", shape));
    int64_t* degree = data_of<int64_t>(arrays[0]);
    double* strength = data_of<double>(arrays[1]);
    if (step.kind == "degree")
      check(fc_pcc_degree(ctx, series, rule.rule, rule.param, degree, strength), "fc_pcc_degree");
    else
      check(fc_dfc_degree(ctx, series, width, stride, FC_TAPER_RECTANGULAR, 0.0, rule.rule, rule.param, degree, strength),
            "fc_dfc_degree");
  } else if (step.kind == "triangle") {
    const JValue* order = step.params.find("order");
    const fc_triu_order o = order && order->string() == "col" ? FC_TRIU_COL : FC_TRIU_ROW;
    const int64_t size = fc_triu_size(n);
    if (fp64) {
      arrays.push_back(make_array<double>("r", "<f8", {size}));
      check(fc_pcc_triu_f64(ctx, series, o, data_of<double>(arrays[0]), size), "fc_pcc_triu_f64");
    } else {
      arrays.push_back(make_array<float>("r", "<f4", {size}));
      check(fc_pcc_triu(ctx, series, o, data_of<float>(arrays[0]), size), "fc_pcc_triu");
    }
  } else if (step.kind == "modules") {
    // cohort_pipeline: ctx.network(weights, rule) then ctx.modularity(...): labels and Q
    const Rule rule = edge_rule(step.params, where);
    const fc_modularity_options options = modularity_options(step.params, where);
    fc_graph* g = nullptr;
    check(fc_pcc_graph(ctx, series, rule.rule, rule.param, graph_weights(step.params, where), &g), "fc_pcc_graph");
    GraphPtr graph(g);
    fc_modules* m = nullptr;
    check(fc_modularity(ctx, graph.get(), &options, &m), "fc_modularity");
    ModulesPtr modules(m);
    arrays.push_back(make_array<int64_t>("labels", "<i8", {n}));
    arrays.push_back(make_array<double>("q", "<f8", {}));
    check(fc_modules_labels(modules.get(), data_of<int64_t>(arrays[0]), n), "fc_modules_labels");
    check(fc_modules_info(modules.get(), nullptr, nullptr, data_of<double>(arrays[1]), nullptr), "fc_modules_info");
  } else if (step.kind == "matrix") {
    if (fp64) {
      arrays.push_back(make_array<double>("r", "<f8", {n, n}));
      check(fc_pcc_dense_f64(ctx, series, data_of<double>(arrays[0]), n), "fc_pcc_dense_f64");
    } else {
      arrays.push_back(make_array<float>("r", "<f4", {n, n}));
      check(fc_pcc_dense(ctx, series, data_of<float>(arrays[0]), n), "fc_pcc_dense");
    }
  }
  return arrays;
}

}  // namespace fcli
