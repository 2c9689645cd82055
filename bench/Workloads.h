#pragma once
// The kernels bench_cpu measures, each described the same way: its comprehension and
// sizes, its tensors, what one call is worth (flops or bytes), a float64 reference, the
// peers that compute the same thing, and a small grid of option sets for ours.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "Peers.h"

namespace bench {

struct TensorSpec {
  std::string name;  // the comprehension's name for it (scratch peers share with ours too)
  int64_t numel = 0;
  bool input = false;  // inputs are drawn uniform in [-1, 1]; the rest are written by a call
};

struct PeerSpec {
  std::string name;
  bool naive = false;  // naive loops: measured at one thread only, never "best library"
  std::vector<int> args;  // workload tensor indices, in the order the peer's Run takes them
  // Creates the peer (outside the timing); slot 0's buffers, for peers that prepare
  // constant data (oneDNN's reordered convolution weights).
  std::function<peers::Run(float* const* slot0)> make;
};

struct Workload {
  std::string name, dir, file;  // dir: where the .tc file lives
  std::map<std::string, int64_t> sizes;
  std::vector<TensorSpec> tensors;
  int checked = 0;     // the final output: the one tensor compared with the reference
  bool bytes = false;  // figure in GB/s of `amount` bytes; otherwise GFLOP/s of `amount` flops
  double amount = 0;
  // The checked tensor in float64, from the float inputs (indexed like `tensors`).
  std::function<std::vector<double>(const std::vector<const float*>&)> reference;
  std::vector<PeerSpec> peers;
  std::vector<std::string> grid;  // option sets for ours, hand-picked
  // The target: ours (grid best) / `baseline` >= goal; baseline "" is the best library.
  std::string baseline;
  double goal = 1.0;
  // With --tuned: the tuner's best (the cache's record) / the same baseline >= tuned_goal.
  double tuned_goal = 1.0;
  // > 0 (bytes workloads): ours (grid best) in GB/s / the machine's STREAM triad at the
  // same thread count >= this.
  double stream_goal = 0;
};

std::vector<Workload> workloads();

}  // namespace bench
