// matrix_clear - valhalla/valhalla#5978: the thor worker (thor/worker.h), which
// keeps one CostMatrix for all the requests it serves.
#pragma once

#include <string>
#include <vector>

#include "costmatrix.h"

namespace valhalla {
namespace thor {

struct MatrixRequest {
  std::vector<GraphId> sources;
  std::vector<GraphId> targets;
  float max_matrix_time; // seconds
};

class thor_worker_t {
public:
  thor_worker_t(const MatrixConfig& config, baldr::GraphReader& reader);
  // The sources_to_targets action: the matrix as JSON.
  std::string matrix(const MatrixRequest& request);
  // Called after every request (valhalla's service worker cleanup).
  void cleanup();
  uint64_t requests() const { return requests_; }

private:
  baldr::GraphReader& reader_;
  CostMatrix costmatrix_;
  uint64_t requests_ = 0;
};

} // namespace thor
} // namespace valhalla
