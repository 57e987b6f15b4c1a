// matrix_clear - valhalla/valhalla#5978: the street grid (baldr/graphreader.cpp).
#include "graphreader.h"

namespace valhalla {
namespace baldr {

GraphReader::GraphReader(uint32_t width, uint32_t height)
    : width_(width), height_(height), speed_(size_t(width) * height) {
  uint64_t x = 0x2545F4914F6CDD1Dull;
  for (auto& s : speed_) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s = uint8_t(30 + (x % 6) * 10); // 30-80 km/h
  }
}

DirectedEdge GraphReader::Edge(uint32_t node, int dir) const {
  uint32_t x = node % width_, y = node / width_;
  uint32_t nx = x, ny = y;
  switch (dir) {
    case 0: nx = x + 1 < width_ ? x + 1 : x; break;
    case 1: ny = y + 1 < height_ ? y + 1 : y; break;
    case 2: nx = x > 0 ? x - 1 : x; break;
    default: ny = y > 0 ? y - 1 : y; break;
  }
  uint32_t end = ny * width_ + nx;
  uint32_t length = 80 + (((node * 2654435761u) >> 7) + dir * 37) % 120;
  return DirectedEdge{GraphId(node) * 4 + dir, end, length, speed_[node]};
}

int GraphReader::GetOutbound(GraphId id, DirectedEdge* out) const {
  uint32_t node = Edge(uint32_t(id / 4), int(id % 4)).endnode;
  tiles_read_++;
  int n = 0;
  for (int d = 0; d < 4; d++) {
    DirectedEdge e = Edge(node, d);
    if (e.endnode != node)
      out[n++] = e;
  }
  return n;
}

int GraphReader::GetInbound(GraphId id, DirectedEdge* out) const {
  uint32_t node = uint32_t(id / 4);
  uint32_t x = node % width_, y = node / width_;
  tiles_read_++;
  int n = 0;
  // The edge arriving from each neighbour: the neighbour's edge in the opposite direction.
  if (x + 1 < width_) out[n++] = Edge(node + 1, 2);
  if (y + 1 < height_) out[n++] = Edge(node + width_, 3);
  if (x > 0) out[n++] = Edge(node - 1, 0);
  if (y > 0) out[n++] = Edge(node - width_, 1);
  return n;
}

} // namespace baldr
} // namespace valhalla
