/* fastconn_mex.h - what the MEX gateway's files share: fastconn_mex.c (mexFunction, options,
 * errors, the correlation and network commands), fastconn_mex_dfc.c (the window, low-rank and
 * module commands) and fastconn_mex_api.c (the rest of the C API: version, CUDA, triangle
 * indices, graph files, one window, streamed windows).
 * Only the public header <fastconn/fastconn.h> and MEX calls common to MATLAB and Octave. */
#ifndef FASTCONN_MEX_H
#define FASTCONN_MEX_H

#include <stdint.h>

#include "mex.h"

#include <fastconn/fastconn.h>

/* The options struct of every command (see fastconn_mex.c's header comment). */
typedef struct options {
  fc_backend backend;
  fc_precision precision;
  int threads;
  int64_t memory_limit;
  fc_constant_policy constant;
  fc_triu_order order;
  int order_given;
  int weights_given;
  fc_graph_weights weights;
  int spearman; /* method 'spearman': series of ranks (fc_series_create_ranked_*) */
  int values;   /* 'triu' only: 0 (float values), or an fc_value_format (compact values) */
  /* options.devices (backend 'cuda'): -1 one device; 0 every visible one; else the count of ids */
  int n_devices;
  int devices[64];
} options;

/* Handles and scratch buffers of one call, released before any error is raised: mexErrMsg*
 * does not return, and MATLAB frees only memory it allocated itself. */
typedef struct call_state {
  fc_series* x;
  fc_series* y;
  fc_graph* graph;
  void* scratch;
  fc_dfc* dfc;
  fc_modules* modules;
  void* scratch2;
  fc_graph** layers; /* 'multilayer': n_layers graphs (mxCalloc), each destroyed with the call */
  int64_t n_layers;
  fc_multilayer* multilayer;
} call_state;

typedef struct window_spec {
  int64_t width;
  int64_t step;
  int taper;
  double sigma;
} window_spec;

void release_call(call_state* call);
/* Release the call, then raise fastconn:usage with the message (does not return). */
void usage_error(call_state* call, const char* format, ...);
/* Any status >= 100 raises fastconn:<status name> with fc_last_error() (does not return). */
void check(fc_status status, call_state* call, const char* what);
void lowercase_copy(char* out, size_t size, const mxArray* text);
const char* number_text(double v, char* buf, size_t size);
options parse_options(const mxArray* s, call_state* call);
/* The cached context, configured with every option of this call. */
fc_context* context_for(const options* opt, call_state* call);
/* Grows by one each time the cached context is created anew (an iterator remembers it). */
extern int g_context_generation;
void require_matrix(const mxArray* a, const char* name, call_state* call);
fc_series* upload(fc_context* ctx, const mxArray* a, const char* name, const options* opt, call_state* call);
int64_t integer_arg(const mxArray* a, const char* name, call_state* call);
double real_arg(const mxArray* a, const char* name, call_state* call);
int parse_taper(int nrhs, const mxArray* prhs[], int first, window_spec* w, call_state* call);
/* An edge rule and its parameter, checked as the R package checks them. */
fc_edge_rule parse_rule(const mxArray* rule, const mxArray* param, double* value, call_state* call);
mxArray* sparse_of_graph(call_state* call);
void graph_of_matrix(const mxArray* g, call_state* call);
/* One warning (fastconn:constant) naming the columns of `series` that have zero variance, so
 * that their correlations are NaN; `what` says where ("of X", "of X in window 3"). Nothing when
 * there are none or the policy is zero. */
void warn_constant(const fc_series* series, const char* what, const options* opt, call_state* call);

/* fastconn_mex_dfc.c: returns 1 when `command` is one of its commands (and has run). */
int dfc_module_command(const char* command, int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[]);
/* fastconn_mex_dfc.c's module helpers, shared with fastconn_mex_modules.c: labels (1-based), Q
 * and (tree_out, when nlhs > 2) the division tree of call->modules; N labels >= 0 of an mxArray
 * (`name` in messages) into labels. */
void modules_outputs(call_state* call, int nlhs, mxArray** labels_out, mxArray** q_out, mxArray** tree_out);
void read_labels(const mxArray* labels_arg, int64_t n, const char* name, int64_t* labels, call_state* call);
/* fastconn_mex_modules.c ('leiden', 'multilayer'): returns 1 when `command` is one of its commands
 * (and has run). */
int modules_command(const char* command, int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[]);
/* fastconn_mex_centrality.c ('ecm', 'eigen_centrality', 'fisher_z'): returns 1 when `command` is
 * one of its commands (and has run). */
int centrality_command(const char* command, int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[]);
/* fastconn_mex_lfcd.c ('lfcd'): returns 1 when `command` is 'lfcd' (and it has run). */
int lfcd_command(const char* command, int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[]);
/* fastconn_mex_api.c: returns 1 when `command` is one of its commands (and has run). */
int api_command(const char* command, int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[]);
/* Frees the streamed-window iterators (mexAtExit). */
void release_window_streams(void);

#endif
