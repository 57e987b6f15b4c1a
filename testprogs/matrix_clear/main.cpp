// matrix_clear - valhalla/valhalla#5978: "fix(matrix): construct new reached
// maps in CostMatrix::Clear()" (https://github.com/valhalla/valhalla/pull/5978,
// merged March 2026; the cause, it says, of the memory reports #5172 and
// #3556).
//
// The real bug: valhalla's CostMatrix (src/thor/costmatrix.cpp), the
// many-to-many algorithm behind the sources_to_targets (matrix) action, is a
// member of each thor worker and serves request after request. Its Clear(),
// called after each one, shrinks the edge-label vectors back to a
// reservation (max_reserved_labels_count, valhalla/valhalla#4075: "it
// cleared way too much, impeding performance. Now it's reserving ...") but
// only calls clear() on the reached maps, "So if valhalla is hit with a
// single large matrix request, the map will retain this peak capacity
// forever". The PR is about the memory; the time is the same bucket array:
// clear() on a hash map is linear in its bucket count, not in its size (the
// standard says size, libstdc++ and libc++ memset every bucket: cpprefjp/
// site#1449; valhalla's ReachedMap is an ankerl::unordered_dense map, whose
// clear_buckets "memsets all buckets to 0", martinus/unordered_dense#155), so
// every small request after the big one clears the big one's buckets. The
// fix: construct new maps in Clear(). Here the maps are std::unordered_map.
//
// Here (C++: a class with this-> fields, std::shared_ptr<std::unordered_map>
// members, std::vector of vectors, a std::priority_queue per search, a
// worker class above): a matrix service over a 512 x 512 street grid serves
// 30,000 dispatch requests (1-3 vans and 1-3 jobs near each other, 20 s
// limit). The slow run is the same binary and the same 30,000 requests, with
// one fleet-planning request among them (the 13th: 200 x 200 depots and
// stops over the whole city, 80 s): its two reached maps grow to about
// 110,000 edges each (172,933 buckets), and every request after it clears
// their buckets (2.8 MB of memset) for searches that reached a few dozen
// edges. The fleet request's own searches cost about a fifth of the slow
// run's extra time; the rest is the bug ("retain this peak capacity
// forever": the requests after the spike, as many as the service serves).
//
// Root cause: valhalla::thor::CostMatrix::Clear() (costmatrix.cpp), its loop
// over the reached maps (ROOT CAUSE): the constraint the label vectors get
// (their size against the reservation) is missing for the maps. The time is
// in libc's memset under std::unordered_map::clear() (libstdc++'s
// _Hashtable::clear, a template instance out of line), called by Clear().
// Key variables: reached (the map whose bucket count is the anomaly) and
// labels.size() (what the vectors are held to and the maps are not), in
// Clear. Pattern: missing constraint.
//
// Files, as in valhalla's src/: costmatrix.cpp and costmatrix.h (thor: the
// root cause), matrix_action.cpp and worker.h (thor: the action and the
// worker's cleanup), graphreader.cpp and graphreader.h (baldr: the graph);
// main.cpp (this driver: the service's request stream).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "worker.h"

using namespace valhalla;

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return uint32_t(rng % n);
}

static constexpr uint32_t kGrid = 512;
static constexpr int kRequests = 30000;
static constexpr int kFleetRequestAt = 12;

// A location near (x, y): an edge of the node there.
static baldr::GraphId Near(uint32_t x, uint32_t y, uint32_t spread) {
  uint32_t nx = (x + kGrid + rnd(2 * spread + 1) - spread) % kGrid;
  uint32_t ny = (y + kGrid + rnd(2 * spread + 1) - spread) % kGrid;
  return baldr::GraphId(ny * kGrid + nx) * 4 + rnd(2);
}

static int Usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s normal|buggy\n"
               "  A routing engine's matrix service (valhalla/valhalla#5978).\n"
               "  normal: %d dispatch requests; buggy: the same with one 200 x 200 fleet\n"
               "  request among them (request %d).\n",
               argv0, kRequests, kFleetRequestAt);
  return 2;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    return Usage(argv[0]);
  }
  bool fleet;
  if (std::strcmp(argv[1], "normal") == 0) {
    fleet = false;
  } else if (std::strcmp(argv[1], "buggy") == 0) {
    fleet = true;
  } else {
    return Usage(argv[0]);
  }

  baldr::GraphReader reader(kGrid, kGrid);
  const thor::MatrixConfig config{4096, 64, false, true};
  thor::thor_worker_t worker(config, reader);

  // The request stream: dispatchers asking which of a few vans is closest to
  // a few jobs. The fleet-planning request is drawn from its own generator,
  // so that the dispatch requests are the same in both runs.
  std::vector<thor::MatrixRequest> requests;
  for (int i = 0; i < kRequests; i++) {
    thor::MatrixRequest r;
    uint32_t x = rnd(kGrid), y = rnd(kGrid);
    uint32_t ns = 1 + rnd(3), nt = 1 + rnd(3);
    for (uint32_t s = 0; s < ns; s++) r.sources.push_back(Near(x, y, 6));
    for (uint32_t t = 0; t < nt; t++) r.targets.push_back(Near(x, y, 6));
    r.max_matrix_time = 20.0f;
    requests.push_back(std::move(r));
  }
  if (fleet) {
    uint64_t saved = rng;
    rng = 0xD1B54A32D192ED03ull;
    thor::MatrixRequest r;
    for (uint32_t s = 0; s < 200; s++) r.sources.push_back(Near(rnd(kGrid), rnd(kGrid), 0));
    for (uint32_t t = 0; t < 200; t++) r.targets.push_back(Near(rnd(kGrid), rnd(kGrid), 0));
    r.max_matrix_time = 80.0f;
    requests.insert(requests.begin() + kFleetRequestAt, std::move(r));
    rng = saved;
  }

  uint64_t hash = 0xcbf29ce484222325ull;
  size_t bytes = 0;
  for (const auto& r : requests) {
    std::string json = worker.matrix(r);
    for (unsigned char c : json) hash = (hash ^ c) * 0x100000001b3ull;
    bytes += json.size();
    worker.cleanup();
  }
  std::printf("matrix_clear %s: requests=%llu bytes=%zu tiles=%llu checksum=%016llx\n", argv[1],
              (unsigned long long)worker.requests(), bytes, (unsigned long long)reader.tiles_read(),
              (unsigned long long)hash);
  return 0;
}
