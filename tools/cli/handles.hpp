// handles.hpp - owning pointers for the library's opaque handles, so that every exit path (an
// error thrown half-way through a subcommand included) destroys what was created: no leaks.
#pragma once

#include <memory>

#include <fastconn/fastconn.h>

namespace fcli {

struct ContextFree {
  void operator()(fc_context* p) const { fc_context_destroy(p); }
};
struct SeriesFree {
  void operator()(fc_series* p) const { fc_series_destroy(p); }
};
struct GraphFree {
  void operator()(fc_graph* p) const { fc_graph_destroy(p); }
};
struct ModulesFree {
  void operator()(fc_modules* p) const { fc_modules_destroy(p); }
};
struct DfcFree {
  void operator()(fc_dfc* p) const { fc_dfc_destroy(p); }
};
struct MultilayerFree {
  void operator()(fc_multilayer* p) const { fc_multilayer_destroy(p); }
};
struct BlocksFree {
  void operator()(fc_blocks* p) const { fc_blocks_destroy(p); }
};

using ContextPtr = std::unique_ptr<fc_context, ContextFree>;
using SeriesPtr = std::unique_ptr<fc_series, SeriesFree>;
using GraphPtr = std::unique_ptr<fc_graph, GraphFree>;
using ModulesPtr = std::unique_ptr<fc_modules, ModulesFree>;
using DfcPtr = std::unique_ptr<fc_dfc, DfcFree>;
using MultilayerPtr = std::unique_ptr<fc_multilayer, MultilayerFree>;
using BlocksPtr = std::unique_ptr<fc_blocks, BlocksFree>;

}  // namespace fcli
