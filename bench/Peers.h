#pragma once
// The peers the CPU benchmark measures our kernels against, in the same process and run:
// OpenBLAS (cblas_sgemm; a batch is a loop of calls), oneDNN (its matmul primitive,
// batched natively) and naive loops compiled by g++ -O3 -march=native. Every matrix is
// dense and row-major: C(M,N) = A(M,K) * B(K,N), batch-major when batched.
#include <memory>

namespace peers {

struct Gemm {
  int batch = 1, m = 0, n = 0, k = 0;
};

void openblas_gemm(const Gemm& g, const float* a, const float* b, float* c);
void naive_gemm(const Gemm& g, const float* a, const float* b, float* c);      // m, n, k
void naive_gemm_mkn(const Gemm& g, const float* a, const float* b, float* c);  // m, k, n

// A oneDNN matmul primitive created once for the shape; run() binds the buffers.
class OneDnnGemm {
 public:
  explicit OneDnnGemm(const Gemm& g);
  ~OneDnnGemm();
  void run(const float* a, const float* b, float* c);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace peers
