// matrix_clear - valhalla/valhalla#5978: the many-to-many cost matrix
// algorithm (thor/costmatrix.h), a long-lived member of each worker.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "graphreader.h"

namespace valhalla {
namespace thor {

using baldr::GraphId;

enum MatrixExpansionType { MATRIX_FORW = 0, MATRIX_REV = 1 };

struct BDEdgeLabel {
  GraphId edgeid;
  uint32_t predecessor;
  float cost;
  uint32_t path_distance;
};

// A location's search reached an edge at this cost.
struct Reached {
  uint32_t loc;
  float cost;
  uint32_t distance;
};

// Edge -> the locations whose searches reached it (valhalla's ReachedMap).
using ReachedMap = std::unordered_map<GraphId, std::vector<Reached>>;

struct LocationCost {
  float time;
  uint32_t distance;
};

struct MatrixConfig {
  uint32_t max_reserved_labels_count;
  uint32_t max_reserved_locations_count;
  bool clear_reserved_memory;
  bool check_reverse_connection;
};

class CostMatrix {
public:
  explicit CostMatrix(const MatrixConfig& config);
  // The best time and distance from every source to every target, as
  // sources x targets, row by row.
  std::vector<LocationCost> SourceToTarget(const std::vector<GraphId>& sources,
                                           const std::vector<GraphId>& targets,
                                           baldr::GraphReader& reader, float max_matrix_time);
  // Clear the temporary information generated during the matrix
  // construction, keeping some memory for the next request.
  void Clear();

private:
  void Expand(MatrixExpansionType dir, uint32_t loc, GraphId origin, baldr::GraphReader& reader,
              float max_time);

  uint32_t max_reserved_labels_count_;
  uint32_t max_reserved_locations_count_;
  bool clear_reserved_memory_;
  bool check_reverse_connections_;
  uint32_t locs_count_[2];
  uint32_t ntargets_;
  std::vector<std::vector<BDEdgeLabel>> edgelabel_[2];
  std::shared_ptr<ReachedMap> targets_;
  std::shared_ptr<ReachedMap> sources_;
  std::vector<LocationCost> best_connection_;
};

} // namespace thor
} // namespace valhalla
