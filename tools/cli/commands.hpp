// commands.hpp - the subcommands. Each parses its options from argv[first..], runs, and returns
// the exit code (errors are thrown as fcli::Error and turned into exit codes by main()).
#pragma once

namespace fcli {

int run_degree(int argc, char** argv, int first);
int run_seed(int argc, char** argv, int first);
int run_graph(int argc, char** argv, int first);
int run_modules(int argc, char** argv, int first);
int run_dfc(int argc, char** argv, int first);
int run_triangle(int argc, char** argv, int first);
int run_ecm(int argc, char** argv, int first);
int run_lfcd(int argc, char** argv, int first);
int run_batch(int argc, char** argv, int first);  // cmd_batch.cpp

// help.cpp: the usage texts (AFNI/FSL style: usage line, what it does, options, examples).
void print_main_help(bool to_stderr);
void print_command_help(const char* command);

}  // namespace fcli
