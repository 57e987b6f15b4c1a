// matrix_clear - valhalla/valhalla#5978: thor/costmatrix.cpp, the expansions
// and Clear(), the root cause (valhalla: src/thor/costmatrix.cc).
#include "costmatrix.h"

#include <limits>
#include <queue>

namespace valhalla {
namespace thor {

CostMatrix::CostMatrix(const MatrixConfig& config)
    : max_reserved_labels_count_(config.max_reserved_labels_count),
      max_reserved_locations_count_(config.max_reserved_locations_count),
      clear_reserved_memory_(config.clear_reserved_memory),
      check_reverse_connections_(config.check_reverse_connection), locs_count_{0, 0}, ntargets_(0),
      targets_(new ReachedMap), sources_(new ReachedMap) {
}

// A Dijkstra search from (forward) or towards (reverse) one location, up to
// max_time seconds; every edge it settles is recorded in the reached maps,
// and a forward search meeting an edge a target's search reached is a
// connection.
void CostMatrix::Expand(MatrixExpansionType dir, uint32_t loc, GraphId origin,
                        baldr::GraphReader& reader, float max_time) {
  auto& labels = edgelabel_[dir][loc];
  std::unordered_map<GraphId, uint32_t> status; // edge -> label index
  using Entry = std::pair<float, uint32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> adjacency;
  labels.push_back(BDEdgeLabel{origin, ~0u, 0.0f, 0});
  status.emplace(origin, 0);
  adjacency.push({0.0f, 0});
  baldr::DirectedEdge edges[4];
  while (!adjacency.empty()) {
    auto [cost, idx] = adjacency.top();
    adjacency.pop();
    const BDEdgeLabel pred = labels[idx];
    if (cost > pred.cost) {
      continue; // a stale entry: the edge was reached cheaper since
    }
    if (dir == MATRIX_REV) {
      (*targets_)[pred.edgeid].push_back(Reached{loc, pred.cost, pred.path_distance});
    } else {
      auto it = targets_->find(pred.edgeid);
      if (it != targets_->end()) {
        for (const Reached& r : it->second) {
          LocationCost& best = best_connection_[size_t(loc) * ntargets_ + r.loc];
          float t = pred.cost + r.cost;
          if (t < best.time) {
            best.time = t;
            best.distance = pred.path_distance + r.distance;
          }
        }
      }
      if (check_reverse_connections_) {
        (*sources_)[pred.edgeid].push_back(Reached{loc, pred.cost, pred.path_distance});
      }
    }
    int n = dir == MATRIX_FORW ? reader.GetOutbound(pred.edgeid, edges)
                               : reader.GetInbound(pred.edgeid, edges);
    for (int i = 0; i < n; i++) {
      const baldr::DirectedEdge& e = edges[i];
      float t = pred.cost + float(e.length) * 3.6f / float(e.speed);
      if (t > max_time) {
        continue;
      }
      auto [st, fresh] = status.emplace(e.id, uint32_t(labels.size()));
      if (!fresh) {
        BDEdgeLabel& old = labels[st->second];
        if (t < old.cost) {
          old.cost = t;
          old.predecessor = idx;
          old.path_distance = pred.path_distance + e.length;
          adjacency.push({t, st->second});
        }
        continue;
      }
      labels.push_back(BDEdgeLabel{e.id, idx, t, pred.path_distance + e.length});
      adjacency.push({t, uint32_t(labels.size() - 1)});
    }
  }
}

std::vector<LocationCost> CostMatrix::SourceToTarget(const std::vector<GraphId>& sources,
                                                     const std::vector<GraphId>& targets,
                                                     baldr::GraphReader& reader,
                                                     float max_matrix_time) {
  locs_count_[MATRIX_FORW] = uint32_t(sources.size());
  locs_count_[MATRIX_REV] = uint32_t(targets.size());
  ntargets_ = uint32_t(targets.size());
  for (const auto dir : {MATRIX_FORW, MATRIX_REV}) {
    if (edgelabel_[dir].size() < locs_count_[dir]) {
      edgelabel_[dir].resize(locs_count_[dir]);
    }
  }
  best_connection_.assign(sources.size() * targets.size(),
                          LocationCost{std::numeric_limits<float>::max(), 0});
  for (uint32_t t = 0; t < targets.size(); t++) {
    Expand(MATRIX_REV, t, targets[t], reader, max_matrix_time);
  }
  for (uint32_t s = 0; s < sources.size(); s++) {
    Expand(MATRIX_FORW, s, sources[s], reader, max_matrix_time);
  }
  return best_connection_;
}

void CostMatrix::Clear() {
  // Resize and shrink_to_fit what grew over the reservation, so that one big
  // request does not keep its memory (valhalla/valhalla#4075).
  const uint32_t label_reservation = clear_reserved_memory_ ? 0 : max_reserved_labels_count_;
  const uint32_t locs_reservation = clear_reserved_memory_ ? 0 : max_reserved_locations_count_;
  for (const auto exp_dir : {MATRIX_FORW, MATRIX_REV}) {
    if (edgelabel_[exp_dir].size() > locs_reservation) {
      edgelabel_[exp_dir].resize(locs_reservation);
      edgelabel_[exp_dir].shrink_to_fit();
    }
    for (auto& labels : edgelabel_[exp_dir]) {
      if (labels.size() > label_reservation) {
        labels.resize(label_reservation);
        labels.shrink_to_fit();
      }
      labels.clear();
    }
    locs_count_[exp_dir] = 0;
  }
  best_connection_.clear();
  // The reached maps get no such check: clear() frees their entries but
  // keeps the bucket array the biggest request grew, and clears all of it
  // (a memset) at every request from then on; the fix (#5978) constructs
  // new maps here instead. ROOT CAUSE
  for (ReachedMap* reached : {targets_.get(), sources_.get()}) {
    reached->clear();
  }
}

} // namespace thor
} // namespace valhalla
