// main.cpp - `fastconn`, the command-line program: dispatches to a subcommand and turns every
// failure into one line on stderr and an exit code (0 ok, 1 bad input or usage, 2 library
// failure, 130 cancelled). Links only the public C API (fastconn/fastconn.h) and libnifti2.
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include <fastconn/fastconn.h>
#include <nifti2_io.h>

#include "commands.hpp"
#include "errors.hpp"
#include "progress.hpp"

namespace {

struct Command {
  const char* name;
  int (*run)(int, char**, int);
};

const Command kCommands[] = {{"degree", fcli::run_degree}, {"seed", fcli::run_seed},         {"graph", fcli::run_graph},
                             {"dfc", fcli::run_dfc},       {"modules", fcli::run_modules}, {"triangle", fcli::run_triangle},
                             {"ecm", fcli::run_ecm}, {"lfcd", fcli::run_lfcd}, {"batch", fcli::run_batch}};

int print_version() {
  int major = 0, minor = 0, patch = 0;
  fc_version(&major, &minor, &patch);
  std::printf("fastconn %d.%d.%d (library %d.%d.%d, CUDA backend %s)\n", FASTCONN_VERSION_MAJOR,
              FASTCONN_VERSION_MINOR, FASTCONN_VERSION_PATCH, major, minor, patch,
              fc_has_cuda() ? "built in" : "not built in");
  std::printf("CPU: %s\n", fc_cpu_info());
  return fcli::kExitOk;
}

int dispatch(int argc, char** argv) {
  if (argc < 2) {
    fcli::print_main_help(true);
    return fcli::kExitBadInput;
  }
  const std::string first = argv[1];
  if (first == "-h" || first == "--help" || first == "-help" || first == "help") {
    if (first == "help" && argc > 2) {
      for (const Command& c : kCommands)
        if (std::strcmp(c.name, argv[2]) == 0) {
          fcli::print_command_help(c.name);
          return fcli::kExitOk;
        }
    }
    fcli::print_main_help(false);
    return fcli::kExitOk;
  }
  if (first == "--version" || first == "-version" || first == "-V") return print_version();
  for (const Command& c : kCommands)
    if (first == c.name) return c.run(argc, argv, 2);
  fcli::fail("unknown command '" + first + "' (commands: degree, seed, graph, dfc, modules, triangle, ecm, lfcd, batch; see fastconn --help)");
}

}  // namespace

int main(int argc, char** argv) {
  nifti_set_debug_level(0);  // libnifti2 would print its own errors; fastconn prints one line
  fcli::install_cancel_handler();
  try {
    return dispatch(argc, argv);
  } catch (const fcli::Error& e) {
    std::fprintf(stderr, "fastconn: error: %s\n", e.what());
    return e.code();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "fastconn: error: out of host memory\n");
    return fcli::kExitLibrary;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fastconn: error: %s\n", e.what());
    return fcli::kExitLibrary;
  }
}
