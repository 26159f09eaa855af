// fc_graph_save / fc_graph_load: the graph file format.
//
// Little-endian, 8-byte aligned sections:
//   offset  0  char[8]  magic "FCGRAPH1"
//           8  uint32   format version (1)
//          12  uint32   reserved (0)
//          16  int64    n_nodes
//          24  int64    n_edges (undirected; each stored twice in the CSR arrays)
//          32  int64    row_offsets[n_nodes + 1]
//              int64    columns[2 * n_edges]
//              float32  weights[2 * n_edges]
// A load validates the arrays exactly as fc_graph_create_csr does.
#pragma once

#include <memory>
#include <string>

#include "graph/graph.hpp"

namespace fc {

// Writes to `path` through a temporary file renamed into place, so an existing file is never
// left half-written. FC_ERR_IO names the path and the system's reason.
void save_graph(const GraphData& g, const std::string& path);
std::shared_ptr<GraphData> load_graph(const std::string& path);

}  // namespace fc
