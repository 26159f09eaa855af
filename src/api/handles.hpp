// Definitions of the public opaque handles. Each holds shared ownership of its state, so a
// series or iterator keeps its backend alive after the context that made it is destroyed.
#pragma once

#include <memory>

#include "context/context.hpp"
#include "dfc/dfc.hpp"
#include "graph/graph.hpp"
#include "modules/modularity.hpp"
#include "modules/multilayer.hpp"
#include "pcc/pcc.hpp"
#include "pcc/series.hpp"

struct fc_context {
  std::shared_ptr<fc::ContextState> state;
};

struct fc_series {
  std::shared_ptr<fc::SeriesData> data;
};

struct fc_blocks {
  std::unique_ptr<fc::BlockIterator> iterator;
};

struct fc_dfc {
  std::unique_ptr<fc::DfcIterator> iterator;
};

struct fc_graph {
  std::shared_ptr<const fc::GraphData> data;
};

struct fc_modules {
  fc::Modules result;
};

struct fc_multilayer {
  fc::Multilayer result;
};
