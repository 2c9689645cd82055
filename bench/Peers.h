#pragma once
// The peers the CPU benchmark measures our kernels against, in the same process and run:
// OpenBLAS (cblas_sgemm; a batch is a loop of calls), oneDNN 2.6 primitives and naive
// loops compiled by g++ -O3 -march=native. Every tensor is dense and row-major, laid out
// as the comprehension declares it.
//
// Each factory returns a Run: the work of one call on the buffers it is given, in the
// order the factory lists. Whatever a peer needs besides (a primitive, a reordered
// weights buffer) is created by the factory, outside the timed calls.
#include <functional>

namespace peers {

using Run = std::function<void(float* const* bufs)>;

// C(m,n) = A(m,k) * B(k,n), or B(n,k) when trans_b; batch-major when batched.
struct Gemm {
  int batch = 1, m = 0, n = 0, k = 0;
  bool trans_b = false;
};
Run openblas_gemm(const Gemm& g);                // A, B, C
Run onednn_matmul(const Gemm& g);                // A, B, C
Run naive_gemm(const Gemm& g);                   // A, B, C: m, n, then the summed k innermost
Run naive_gemm_mkn(const Gemm& g);               // A, B, C: m, k, n (unit-stride B; not trans_b)

// Three layers Y = relu(X W^T + bias), weights W(out, in).
struct Mlp3 {
  int b = 0, i = 0, h1 = 0, h2 = 0, o = 0;
};
Run openblas_mlp3(const Mlp3& s);  // X, W1, B1, W2, B2, W3, B3, L1, L2, Y (L1, L2: scratch)
Run onednn_mlp3(const Mlp3& s);    // the same: three matmuls with bias and a ReLU post-op
Run naive_mlp3(const Mlp3& s);     // the same

// O(n, g*F+f, h, w) = sum I(n, g*C+c, h+kh, w+kw) * W(g, f, c, kh, kw) + Bias(g, f): no
// padding, stride 1; groups = 1 is a plain convolution. Input h x w, output (h-kh+1)^2.
struct Conv {
  int n = 0, groups = 1, c = 0, f = 0, h = 0, w = 0, kh = 0, kw = 0;
};
// I, W, Bias, O. oneDNN picks the weights' layout (format_tag::any); `weights` (slot 0's,
// equal in every slot) are reordered into it once here, and every call reads that copy.
Run onednn_conv(const Conv& s, const float* weights);
Run naive_conv(const Conv& s);  // I, W, Bias, O

// KRU3: XW2 = X . W2^T over n2, XW1 = W1 . XW2 over n1, Y = W0 . XW1 over n0.
struct Kru3 {
  int m = 0, n0 = 0, n1 = 0, n2 = 0, d0 = 0, d1 = 0, d2 = 0;
};
Run openblas_kru3(const Kru3& s);  // W0, W1, W2, X, XW2, XW1, Y (XW2, XW1: scratch)
Run onednn_kru3(const Kru3& s);    // the same, three (batched) matmul primitives
Run naive_kru3(const Kru3& s);     // the same

// 2x2 max pooling, stride 2, over n x c planes of h x w (h, w even).
struct Pool {
  int n = 0, c = 0, h = 0, w = 0;
  bool operator==(const Pool&) const = default;
};
// The benchmark's maxpool (input sizes); the naive peer is built with them as constants.
constexpr Pool kMaxpoolSize{32, 64, 112, 112};
Run onednn_maxpool(const Pool& s);  // I, O
Run naive_maxpool(const Pool& s);   // I, O

// Row-wise operations on an n x d matrix.
struct Rows {
  int n = 0, d = 0;
};
Run onednn_softmax(const Rows& s);    // X, Y
Run naive_softmax(const Rows& s);     // X, Y: max, exp and sum, divide (three passes)
Run onednn_layernorm(const Rows& s);  // X, Gamma, Beta, Y (eps 1e-5)
Run naive_layernorm(const Rows& s);   // X, Gamma, Beta, Y

// STREAM's triad, a(i) = b(i) + q c(i), over [begin, end): the machine's memory bandwidth
// that a memory-bound kernel is held against, compiled like the naive peers.
void stream_triad(float* a, const float* b, const float* c, float q, long begin, long end);

}  // namespace peers
