// matrix_clear - valhalla/valhalla#5978: the routing graph (valhalla's baldr
// GraphReader over tiles; here one regular street grid, its edges numbered).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace valhalla {
namespace baldr {

// A directed edge: from node * 4 + direction (east, north, west, south).
using GraphId = uint64_t;

struct DirectedEdge {
  GraphId id;
  uint32_t endnode;
  uint32_t length; // metres
  uint8_t speed;   // km/h
};

class GraphReader {
public:
  GraphReader(uint32_t width, uint32_t height);
  // The edges leaving the end node of edge id (its successors).
  int GetOutbound(GraphId id, DirectedEdge* out) const;
  // The edges arriving at the start node of edge id (its predecessors).
  int GetInbound(GraphId id, DirectedEdge* out) const;
  uint32_t width() const { return width_; }
  uint32_t height() const { return height_; }
  uint64_t tiles_read() const { return tiles_read_; }

private:
  DirectedEdge Edge(uint32_t node, int dir) const;
  uint32_t width_, height_;
  std::vector<uint8_t> speed_; // per node: the speed class of its streets
  mutable uint64_t tiles_read_ = 0;
};

} // namespace baldr
} // namespace valhalla
