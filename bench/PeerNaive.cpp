// The naive peers: the comprehension's loops as a person would write them, compiled on
// their own with g++ -O3 -march=native (see CMakeLists.txt). Each nest is a plain
// function with __restrict__ pointers (PEERS.md: nests inside templates or lambdas lost
// speed); the Run returned only forwards to it. No threads: single-thread baselines.
#include <algorithm>
#include <cmath>

#include "Peers.h"

namespace peers {
namespace {

// m, n, then the summed k innermost: a dot product per element (the comprehension's order).
void gemm_mnk(const Gemm& g, const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c) {
  const long sn = g.trans_b ? g.k : 1, sk = g.trans_b ? 1 : g.n;
  for (int i = 0; i < g.batch; ++i) {
    const float* A = a + long(i) * g.m * g.k;
    const float* B = b + long(i) * g.k * g.n;
    float* C = c + long(i) * g.m * g.n;
    for (int m = 0; m < g.m; ++m)
      for (int n = 0; n < g.n; ++n) {
        float s = 0;
        for (int k = 0; k < g.k; ++k) s += A[long(m) * g.k + k] * B[n * sn + k * sk];
        C[long(m) * g.n + n] = s;
      }
  }
}

// m, k, n: unit-stride B, which g++ vectorises.
void gemm_mkn(const Gemm& g, const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c) {
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

// One layer: y(b, o) = max(sum_i x(b, i) * w(o, i) + bias(o), 0).
void layer(int nb, int ni, int no, const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ bias,
           float* __restrict__ y) {
  for (int b = 0; b < nb; ++b)
    for (int o = 0; o < no; ++o) {
      float s = 0;
      for (int i = 0; i < ni; ++i) s += x[long(b) * ni + i] * w[long(o) * ni + i];
      y[long(b) * no + o] = std::fmax(s + bias[o], 0.0f);
    }
}

void conv(const Conv& s, const float* __restrict__ in, const float* __restrict__ wt, const float* __restrict__ bias,
          float* __restrict__ out) {
  const int oh = s.h - s.kh + 1, ow = s.w - s.kw + 1;
  for (int n = 0; n < s.n; ++n)
    for (int g = 0; g < s.groups; ++g)
      for (int f = 0; f < s.f; ++f)
        for (int h = 0; h < oh; ++h)
          for (int w = 0; w < ow; ++w) {
            float acc = 0;
            for (int c = 0; c < s.c; ++c)
              for (int kh = 0; kh < s.kh; ++kh)
                for (int kw = 0; kw < s.kw; ++kw)
                  acc += in[((long(n) * s.groups + g) * s.c + c) * s.h * s.w + long(h + kh) * s.w + w + kw] *
                         wt[(((long(g) * s.f + f) * s.c + c) * s.kh + kh) * s.kw + kw];
            out[((long(n) * s.groups + g) * s.f + f) * oh * ow + long(h) * ow + w] = acc + bias[g * s.f + f];
          }
}

void kru3(const Kru3& s, const float* __restrict__ w0, const float* __restrict__ w1, const float* __restrict__ w2,
          const float* __restrict__ x, float* __restrict__ xw2, float* __restrict__ xw1, float* __restrict__ y) {
  for (int m = 0; m < s.m; ++m)  // XW2(m, n0, n1, d2) = sum_n2 X(m, n0, n1, n2) W2(d2, n2)
    for (int a = 0; a < s.n0 * s.n1; ++a)
      for (int d2 = 0; d2 < s.d2; ++d2) {
        float acc = 0;
        for (int n2 = 0; n2 < s.n2; ++n2) acc += x[(long(m) * s.n0 * s.n1 + a) * s.n2 + n2] * w2[d2 * s.n2 + n2];
        xw2[(long(m) * s.n0 * s.n1 + a) * s.d2 + d2] = acc;
      }
  for (int m = 0; m < s.m; ++m)  // XW1(m, n0, d1, d2) = sum_n1 XW2(m, n0, n1, d2) W1(d1, n1)
    for (int n0 = 0; n0 < s.n0; ++n0)
      for (int d1 = 0; d1 < s.d1; ++d1)
        for (int d2 = 0; d2 < s.d2; ++d2) {
          float acc = 0;
          for (int n1 = 0; n1 < s.n1; ++n1)
            acc += xw2[((long(m) * s.n0 + n0) * s.n1 + n1) * s.d2 + d2] * w1[d1 * s.n1 + n1];
          xw1[((long(m) * s.n0 + n0) * s.d1 + d1) * s.d2 + d2] = acc;
        }
  for (int m = 0; m < s.m; ++m)  // Y(m, d0, d1, d2) = sum_n0 XW1(m, n0, d1, d2) W0(d0, n0)
    for (int d0 = 0; d0 < s.d0; ++d0)
      for (int e = 0; e < s.d1 * s.d2; ++e) {
        float acc = 0;
        for (int n0 = 0; n0 < s.n0; ++n0) acc += xw1[(long(m) * s.n0 + n0) * s.d1 * s.d2 + e] * w0[d0 * s.n0 + n0];
        y[(long(m) * s.d0 + d0) * s.d1 * s.d2 + e] = acc;
      }
}

// The benchmark's size with the sizes known to the compiler. PEERS.md measured naive g++ at
// 46 GB/s cold; with the sizes as run-time values, g++ made this loop 1.5x slower (23 GB/s
// against 34-40 in a harness of its own on the AVX-512 host), a lower bar than that peer.
void maxpool_fixed(const float* __restrict__ in, float* __restrict__ out) {
  constexpr long planes = long(kMaxpoolSize.n) * kMaxpoolSize.c, h = kMaxpoolSize.h, w = kMaxpoolSize.w, oh = h / 2, ow = w / 2;
  for (long p = 0; p < planes; ++p)
    for (long y = 0; y < oh; ++y) {
      const float* r0 = in + (p * h + 2 * y) * w;
      const float* r1 = r0 + w;
      float* o = out + (p * oh + y) * ow;
      for (long x = 0; x < ow; ++x) o[x] = std::max(std::max(r0[2 * x], r0[2 * x + 1]), std::max(r1[2 * x], r1[2 * x + 1]));
    }
}

void maxpool(const Pool& s, const float* __restrict__ in, float* __restrict__ out) {
  const int oh = s.h / 2, ow = s.w / 2;
  for (long p = 0; p < long(s.n) * s.c; ++p)
    for (int h = 0; h < oh; ++h)
      for (int w = 0; w < ow; ++w) {
        const float* r0 = in + p * s.h * s.w + long(2 * h) * s.w + 2 * w;
        const float* r1 = r0 + s.w;
        out[p * oh * ow + long(h) * ow + w] = std::max(std::max(r0[0], r0[1]), std::max(r1[0], r1[1]));
      }
}

void softmax(const Rows& s, const float* __restrict__ x, float* __restrict__ y) {
  for (int n = 0; n < s.n; ++n) {
    const float* row = x + long(n) * s.d;
    float* out = y + long(n) * s.d;
    float mx = row[0];
    for (int d = 1; d < s.d; ++d) mx = std::max(mx, row[d]);
    float sum = 0;
    for (int d = 0; d < s.d; ++d) sum += out[d] = std::exp(row[d] - mx);
    for (int d = 0; d < s.d; ++d) out[d] /= sum;
  }
}

void layernorm(const Rows& s, const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
               float* __restrict__ y) {
  for (int n = 0; n < s.n; ++n) {
    const float* row = x + long(n) * s.d;
    float mean = 0, var = 0;
    for (int d = 0; d < s.d; ++d) mean += row[d];
    mean /= s.d;
    for (int d = 0; d < s.d; ++d) var += (row[d] - mean) * (row[d] - mean);
    float inv = 1.0f / std::sqrt(var / s.d + 1e-5f);
    for (int d = 0; d < s.d; ++d) y[long(n) * s.d + d] = (row[d] - mean) * inv * gamma[d] + beta[d];
  }
}

}  // namespace

Run naive_gemm(const Gemm& g) { return [g](float* const* b) { gemm_mnk(g, b[0], b[1], b[2]); }; }
Run naive_gemm_mkn(const Gemm& g) { return [g](float* const* b) { gemm_mkn(g, b[0], b[1], b[2]); }; }
Run naive_mlp3(const Mlp3& s) {
  return [s](float* const* b) {
    layer(s.b, s.i, s.h1, b[0], b[1], b[2], b[7]);
    layer(s.b, s.h1, s.h2, b[7], b[3], b[4], b[8]);
    layer(s.b, s.h2, s.o, b[8], b[5], b[6], b[9]);
  };
}
Run naive_conv(const Conv& s) { return [s](float* const* b) { conv(s, b[0], b[1], b[2], b[3]); }; }
Run naive_kru3(const Kru3& s) { return [s](float* const* b) { kru3(s, b[0], b[1], b[2], b[3], b[4], b[5], b[6]); }; }
Run naive_maxpool(const Pool& s) {
  if (s == kMaxpoolSize) return [](float* const* b) { maxpool_fixed(b[0], b[1]); };
  return [s](float* const* b) { maxpool(s, b[0], b[1]); };
}
Run naive_softmax(const Rows& s) { return [s](float* const* b) { softmax(s, b[0], b[1]); }; }
Run naive_layernorm(const Rows& s) { return [s](float* const* b) { layernorm(s, b[0], b[1], b[2], b[3]); }; }

void stream_triad(float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ c, float q, long begin, long end) {
  for (long i = begin; i < end; ++i) a[i] = b[i] + q * c[i];
}

}  // namespace peers
