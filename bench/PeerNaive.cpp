// The naive peers: the comprehension's loops as a person would write them, compiled on
// their own with g++ -O3 -march=native (see CMakeLists.txt), in the two orders people
// write: m, n, then the summed k innermost (the comprehension's order: a dot product
// per element, strided reads of B); and m, k, n (unit-stride B, which g++ vectorises).
// No threads: these are single-thread baselines.
#include "Peers.h"

namespace peers {

void naive_gemm(const Gemm& g, const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c) {
  for (int i = 0; i < g.batch; ++i) {
    const float* A = a + long(i) * g.m * g.k;
    const float* B = b + long(i) * g.k * g.n;
    float* C = c + long(i) * g.m * g.n;
    for (int m = 0; m < g.m; ++m)
      for (int n = 0; n < g.n; ++n) {
        float s = 0;
        for (int k = 0; k < g.k; ++k) s += A[long(m) * g.k + k] * B[long(k) * g.n + n];
        C[long(m) * g.n + n] = s;
      }
  }
}

void naive_gemm_mkn(const Gemm& g, const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c) {
  for (int i = 0; i < g.batch; ++i) {
    const float* A = a + long(i) * g.m * g.k;
    const float* B = b + long(i) * g.k * g.n;
    float* C = c + long(i) * g.m * g.n;
    for (int m = 0; m < g.m; ++m) {
      for (int n = 0; n < g.n; ++n) C[long(m) * g.n + n] = 0;
      for (int k = 0; k < g.k; ++k)
        for (int n = 0; n < g.n; ++n) C[long(m) * g.n + n] += A[long(m) * g.k + k] * B[long(k) * g.n + n];
    }
  }
}

}  // namespace peers
