// cmd_batch.cpp - `fastconn batch`: one pipeline (degree maps, window degree, triangles,
// matrices, modules) over many subjects' scans, serially in this process on one context, with the files
// of fastconn.cohort (batch_store.hpp): per-subject arrays written atomically, a done-marker per
// subject and OUT/manifest.json rewritten after each subject. A rerun skips complete subjects
// and redoes partial ones (a killed run's temporary files are removed), whichever runner made
// them; a subject's error is recorded and the others go on; Ctrl-C stops the run (exit 130).
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <regex>

#include "batch_pipeline.hpp"
#include "batch_scan.hpp"
#include "batch_store.hpp"
#include "commands.hpp"
#include "context_start.hpp"
#include "errors.hpp"
#include "options.hpp"
#include "progress.hpp"
#include "thread_split.hpp"

namespace fcli {
namespace {

struct Subject {
  std::string id, path;
};

struct Settings {
  std::string backend = "auto", precision = "fp32", constant = "nan";
  int threads = 0;
  int64_t memory_limit = 0;
};

double rounded(double seconds) { return std::round(seconds * 1e6) / 1e6; }

std::string local_time() {  // time.strftime("%Y-%m-%dT%H:%M:%S%z")
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S%z", &tm);
  return buf;
}

std::string process_name() {
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  return std::string(host) + ":" + std::to_string(getpid());
}

std::string format_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", s);
  return buf;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The subjects: SCAN arguments (ids from the file names without .nii.gz / .nii / .npy) and
// --list's lines (one scan a line, or ID<tab>PATH on every line); ids file-name safe and unique.
std::vector<Subject> read_subjects(const Args& args) {
  std::vector<std::string> scans = args.positional();
  std::vector<Subject> subjects;
  bool named = false;
  if (args.has("list")) {
    std::ifstream in(args.text("list"));
    if (!in) fail("cannot read the list " + args.text("list") + ": " + system_reason(errno));
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
      if (line.find_first_not_of(" \t\r") != std::string::npos && line[0] != '#') lines.push_back(line);
    named = !lines.empty();
    for (const std::string& line : lines) named = named && line.find('\t') != std::string::npos;
    if (named && !scans.empty())
      fail("give scans either as arguments or as ID<tab>PATH lines in --list, not both");
    for (const std::string& line : lines) {
      if (named) subjects.push_back({line.substr(0, line.find('\t')), line.substr(line.find('\t') + 1)});
      else scans.push_back(line);
    }
  }
  for (const std::string& scan : scans) {
    std::string name = scan.substr(scan.find_last_of('/') == std::string::npos ? 0 : scan.find_last_of('/') + 1);
    for (const char* ext : {".nii.gz", ".nii", ".npy"})
      if (ends_with(name, ext)) {
        name.resize(name.size() - std::string(ext).size());
        break;
      }
    subjects.push_back({name, scan});
  }
  if (subjects.empty()) fail("no scans given: give SCAN... or --list FILE (see: fastconn batch --help)");
  static const std::regex kId("^[A-Za-z0-9][A-Za-z0-9._-]*$");
  for (size_t k = 0; k < subjects.size(); ++k) {
    if (!std::regex_match(subjects[k].id, kId))
      fail("subject id '" + subjects[k].id + "' (" + subjects[k].path +
           ") must be letters, digits, '.', '_' or '-' (name subjects with ID<tab>PATH lines in --list)");
    for (size_t j = 0; j < k; ++j)
      if (subjects[j].id == subjects[k].id)
        fail("subject id '" + subjects[k].id + "' appears twice; name subjects with ID<tab>PATH lines in --list");
  }
  return subjects;
}

// The steps of --pipeline FILE (a JSON list of {"step": ..., params}) and then of each --step.
std::vector<BatchStep> read_pipeline(const Args& args, const std::vector<std::string>& step_texts) {
  std::vector<RawStep> raw;
  if (args.has("pipeline")) {
    const std::string path = args.text("pipeline");
    std::ifstream in(path);
    if (!in) fail("cannot read the pipeline " + path + ": " + system_reason(errno));
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    JValue list;
    try {
      list = JValue::parse(text);
    } catch (const std::exception& e) {
      fail("pipeline " + path + ": " + e.what());
    }
    if (list.kind() != JValue::Kind::Array) fail("pipeline " + path + ": not a JSON list of steps");
    for (const JValue& entry : list.items()) raw.push_back(step_from_json(entry, raw.size()));
  }
  for (const std::string& text : step_texts) raw.push_back(parse_step_text(text));
  return normalize_steps(raw);
}

// The context every subject runs on, made once: the settings of a fastconn.Context.
ContextPtr open_context(const Settings& s, Progress& progress) {
  const fc_backend backend = s.backend == "cpu" ? FC_BACKEND_CPU : s.backend == "cuda" ? FC_BACKEND_CUDA : FC_BACKEND_AUTO;
  ContextStart start(backend);
  ContextPtr ctx = start.join("cannot create a context on the " + s.backend + " backend");
  check(fc_context_set_threads(ctx.get(), s.threads), "--threads");
  check(fc_context_set_memory_limit(ctx.get(), s.memory_limit), "--memory-limit");
  check(fc_context_set_precision(ctx.get(), s.precision == "fp64"   ? FC_PRECISION_FP64
                                            : s.precision == "tf32" ? FC_PRECISION_TF32
                                                                    : FC_PRECISION_FP32),
        "--precision");
  check(fc_context_set_constant_policy(ctx.get(), s.constant == "zero" ? FC_CONSTANT_ZERO : FC_CONSTANT_NAN),
        "--constant");
  check(fc_context_set_progress(ctx.get(), &Progress::callback, &progress), "progress callback");
  return ctx;
}

struct Outcome {
  std::string status;  // done or failed
  JValue marker;
  std::string error;
  double seconds = 0;
};

// cohort.run_subject for a subject found incomplete: start it over (its leftovers removed) and
// write its outputs, then its done-marker. A subject's error is its outcome; Ctrl-C is the run's.
Outcome run_subject(const Subject& subject, const std::vector<BatchStep>& steps, const JValue& expected,
                    const std::string& out_dir, const Settings& settings, fc_context* ctx, Progress& progress,
                    const std::string& backend_used) {
  const std::string folder = out_dir + "/" + subject.id;
  const double started = now_seconds();
  std::string step_name;
  try {
    make_folder(folder);
    remove_temporary(folder);
    const JValue previous = read_json_file(folder + "/" + kMarkerName);
    ::unlink((folder + "/" + kMarkerName).c_str());  // from here on the subject is incomplete
    std::vector<int64_t> voxels;
    int64_t n_time = 0;
    SeriesPtr series = load_subject_series(ctx, subject.path, host_threads(settings.threads), voxels, n_time);
    const int64_t n = static_cast<int64_t>(voxels.size());
    JValue outputs = JValue::object(), seconds = JValue::object();
    outputs.set("voxels.npy", write_npy(folder, "voxels.npy", "<i8", {n}, voxels.data(), voxels.size() * sizeof(int64_t)));
    for (const BatchStep& step : steps) {
      check_cancel();
      step_name = step.name;
      const double begin = now_seconds();
      progress.begin(subject.id + " " + step.name);
      std::vector<StepArray> arrays = compute_step(ctx, series.get(), n, n_time, step, settings.precision == "fp64");
      progress.end();
      for (const StepArray& a : arrays) {
        const std::string file = step.name + "." + a.name + ".npy";
        outputs.set(file, write_npy(folder, file, a.descr, a.shape, a.bytes.data(), a.bytes.size()));
      }
      seconds.set(step.name, rounded(now_seconds() - begin));
    }
    step_name.clear();
    JValue marker = expected;
    marker.set("outputs", outputs);
    marker.set("step_seconds", seconds);
    marker.set("backend", backend_used);
    marker.set("seconds", rounded(now_seconds() - started));
    marker.set("worker", process_name());
    marker.set("finished", local_time());
    write_json_atomically(folder, kMarkerName, marker);
    sync_folder(folder);
    if (const JValue* old = previous.find("outputs"))  // an earlier pipeline's outputs
      for (const auto& [name, record] : old->members())
        if (!outputs.find(name)) ::unlink((folder + "/" + name).c_str());
    return {"done", marker, "", now_seconds() - started};
  } catch (const Error& e) {
    if (e.code() == kExitCancelled) throw;
    progress.end();
    return {"failed", JValue(), "subject '" + subject.id + "' (" + subject.path + ")" +
                                    (step_name.empty() ? "" : ", step '" + step_name + "'") + ": " + e.what(),
            now_seconds() - started};
  } catch (const std::exception& e) {
    progress.end();
    return {"failed", JValue(), "subject '" + subject.id + "' (" + subject.path + ")" +
                                    (step_name.empty() ? "" : ", step '" + step_name + "'") + ": " + e.what(),
            now_seconds() - started};
  }
}

JValue done_entry(const JValue& marker) {  // cohort._entry
  JValue e = JValue::object();
  e.set("status", "done");
  for (const char* key : {"input", "outputs", "seconds", "step_seconds", "backend", "worker", "finished"}) {
    const JValue* v = marker.find(key);
    e.set(key, v ? *v : JValue());
  }
  return e;
}

}  // namespace

int run_batch(int argc, char** argv, int first) {
  // --step repeats (one per pipeline step), which Args refuses for any option: taken out here.
  std::vector<std::string> step_texts;
  std::vector<char*> rest(argv, argv + first);
  for (int k = first; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--step" || a == "-step") {
      if (k + 1 >= argc) fail("--step needs a value NAME[:KEY=VALUE,...] (see: fastconn batch --help)");
      step_texts.push_back(argv[++k]);
    } else if (a.rfind("--step=", 0) == 0) {
      step_texts.push_back(a.substr(7));
    } else {
      rest.push_back(argv[k]);
    }
  }
  Args args(static_cast<int>(rest.size()), rest.data(), first,
            {{"output", 'o', "DIR"},         {"list", 0, "FILE"},        {"pipeline", 0, "FILE"},
             {"backend", 0, "auto|cpu|cuda"}, {"precision", 0, "fp32|fp64|tf32"}, {"constant", 0, "nan|zero"},
             {"threads", 0, "N"},            {"memory-limit", 0, "BYTES"}, {"verify", 0, "sha256|size"},
             {"force", 0, nullptr},          {"quiet", 'q', nullptr},    {"help", 'h', nullptr}},
            "batch");
  if (args.has("help")) {
    print_command_help("batch");
    return kExitOk;
  }
  if (!args.has("output")) fail("no output folder: give -o DIR (see: fastconn batch --help)");
  Settings settings;
  settings.backend = args.choice("backend", {"auto", "cpu", "cuda"}, "auto");
  settings.precision = args.choice("precision", {"fp32", "fp64", "tf32"}, "fp32");
  settings.constant = args.choice("constant", {"nan", "zero"}, "nan");
  if (args.has("threads")) settings.threads = static_cast<int>(args.integer("threads", 0, 1 << 20));
  if (args.has("memory-limit")) settings.memory_limit = args.bytes("memory-limit");
  const bool verify_sha256 = args.choice("verify", {"sha256", "size"}, "sha256") == "sha256";
  const bool resume = !args.has("force");
  const std::vector<BatchStep> steps = read_pipeline(args, step_texts);
  const std::vector<Subject> subjects = read_subjects(args);
  const std::string out_dir = absolute_path(args.text("output"));
  make_folder(out_dir);
  remove_temporary(out_dir);  // a manifest's, of a run killed while writing it

  Progress progress(args.has("quiet"));
  const double started = now_seconds();
  ContextPtr ctx = open_context(settings, progress);
  fc_backend chosen = FC_BACKEND_AUTO;
  check(fc_context_get_backend(ctx.get(), &chosen), "backend");
  const std::string backend_used = chosen == FC_BACKEND_CUDA ? "cuda" : "cpu";

  int major = 0, minor = 0, patch = 0;
  fc_version(&major, &minor, &patch);
  const std::string version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  JValue compared = JValue::object();  // the settings that change the bits (threads do not)
  compared.set("backend", settings.backend);
  compared.set("precision", settings.precision);
  compared.set("constant", settings.constant);
  const JValue pipeline = pipeline_json(steps);
  JValue manifest = JValue::object();
  manifest.set("fastconn", version);
  manifest.set("pipeline", pipeline);
  manifest.set("settings", compared);
  manifest.set("out_dir", out_dir);
  JValue run = JValue::object();
  run.set("where", "this process (fastconn batch)");
  run.set("threads", settings.threads);
  run.set("resume", resume);
  run.set("verify", verify_sha256 ? "sha256" : "size");
  run.set("started", local_time());
  manifest.set("run", run);
  JValue& entries = manifest.set("subjects", JValue::object());

  const size_t total = subjects.size();
  size_t done = 0, failed = 0, computed = 0, skipped = 0;
  std::vector<std::string> errors;
  auto report = [&](const std::string& id, const std::string& status, double seconds, const std::string& message) {
    (status == "failed" ? failed : done) += 1;
    const std::string line = "[" + std::to_string(done + failed) + "/" + std::to_string(total) + "] " + id + " " +
                             status + (status == "done" ? " in " + format_seconds(seconds) + " s" : "") +
                             (message.empty() ? "" : ": " + message);
    if (status == "failed") std::fprintf(stderr, "fastconn: %s\n", line.c_str());
    else progress.note(line);
  };

  std::vector<JValue> expected(total);
  std::vector<size_t> todo;
  for (size_t k = 0; k < total; ++k) {
    JValue& e = expected[k] = JValue::object();
    e.set("subject", subjects[k].id);
    e.set("input", scan_fingerprint(subjects[k].path));
    e.set("pipeline", pipeline);
    e.set("settings", compared);
    e.set("fastconn", version);
    Completeness c;
    if (resume) c = check_complete(out_dir + "/" + subjects[k].id, e, verify_sha256);
    else c.reason = "--force";
    if (c.complete) {
      entries.set(subjects[k].id, done_entry(c.marker));
      ++skipped;
      report(subjects[k].id, "skipped", 0, "");
    } else {
      JValue pending = JValue::object();
      pending.set("status", "pending");
      pending.set("input", *e.find("input"));
      pending.set("reason", c.reason);
      entries.set(subjects[k].id, pending);
      todo.push_back(k);
    }
  }
  write_json_atomically(out_dir, kManifestName, manifest);

  auto sweep_and_write = [&]() {
    for (const Subject& s : subjects) remove_temporary(out_dir + "/" + s.id);
    manifest.set("seconds", std::round((now_seconds() - started) * 1e3) / 1e3);
    write_json_atomically(out_dir, kManifestName, manifest);
  };
  try {
    for (size_t k : todo) {
      check_cancel();
      const Subject& s = subjects[k];
      const Outcome o = run_subject(s, steps, expected[k], out_dir, settings, ctx.get(), progress, backend_used);
      if (o.status == "failed") {
        JValue entry = JValue::object();
        entry.set("status", "failed");
        entry.set("input", *expected[k].find("input"));
        entry.set("error", o.error);
        entries.set(s.id, entry);
        errors.push_back(o.error);
        report(s.id, "failed", o.seconds, o.error);
      } else {
        entries.set(s.id, done_entry(o.marker));
        ++computed;
        report(s.id, "done", o.seconds, "");
      }
      write_json_atomically(out_dir, kManifestName, manifest);
    }
  } catch (...) {
    sweep_and_write();
    throw;
  }
  sweep_and_write();
  const std::string summary = std::to_string(computed) + " computed, " + std::to_string(skipped) + " skipped, " +
                              std::to_string(failed) + " failed in " + format_seconds(now_seconds() - started) +
                              " s; manifest: " + out_dir + "/" + kManifestName;
  if (errors.empty()) {
    progress.note(summary);
    return kExitOk;
  }
  std::fprintf(stderr, "fastconn: %s\n", summary.c_str());
  for (const std::string& e : errors) std::fprintf(stderr, "fastconn: failed: %s\n", e.c_str());
  throw Error(kExitBadInput, std::to_string(failed) + " of " + std::to_string(total) +
                                 " subjects failed (see " + out_dir + "/" + kManifestName + ")");
}

}  // namespace fcli
