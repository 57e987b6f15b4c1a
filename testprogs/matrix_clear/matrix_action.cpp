// matrix_clear - valhalla/valhalla#5978: thor/matrix_action.cpp and the
// worker's cleanup (thor/worker.cc).
#include <cstdio>
#include <limits>

#include "worker.h"

namespace valhalla {
namespace thor {

thor_worker_t::thor_worker_t(const MatrixConfig& config, baldr::GraphReader& reader)
    : reader_(reader), costmatrix_(config) {
}

std::string thor_worker_t::matrix(const MatrixRequest& request) {
  requests_++;
  std::vector<LocationCost> costs =
      costmatrix_.SourceToTarget(request.sources, request.targets, reader_, request.max_matrix_time);
  std::string json = "{\"sources_to_targets\":[";
  char buf[96];
  for (size_t s = 0; s < request.sources.size(); s++) {
    json += s ? ",[" : "[";
    for (size_t t = 0; t < request.targets.size(); t++) {
      const LocationCost& c = costs[s * request.targets.size() + t];
      int n;
      if (c.time == std::numeric_limits<float>::max()) {
        n = std::snprintf(buf, sizeof buf, "%s{\"time\":null,\"distance\":null}", t ? "," : "");
      } else {
        n = std::snprintf(buf, sizeof buf, "%s{\"time\":%.0f,\"distance\":%.3f}", t ? "," : "",
                          double(c.time), c.distance / 1000.0);
      }
      json.append(buf, size_t(n));
    }
    json += "]";
  }
  json += "],\"units\":\"kilometers\"}";
  return json;
}

void thor_worker_t::cleanup() {
  costmatrix_.Clear();
}

} // namespace thor
} // namespace valhalla
