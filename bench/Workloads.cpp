// The kernels of PEERS.md at its sizes, each as a comprehension, with references, peers
// and the grids of option sets that bench_cpu searches for ours.
#include "Workloads.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "support/HostCpu.h"

namespace bench {
namespace {

using In = std::vector<const float*>;
using std::to_string;

// Float lanes of the host's widest vector register: register tiles are multiples of it.
int lanes() { return std::max(4, tcs::host_vector_bytes() / 4); }

std::string list(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + to_string(v[i]);
  return s + "]";
}

// A contraction's options: cache tile, register tile, point-loop order, packed tensors
// ("W^T": W's copy transposed, for a matrix stored (out, in)).
std::string contraction(const std::vector<int>& tile, const std::vector<int>& reg, const std::vector<int>& order,
                        const std::vector<std::string>& pack = {}, int width = 0) {
  std::string p = "[";
  for (size_t i = 0; i < pack.size(); ++i) {
    bool transposed = pack[i].ends_with("^T");
    p += (i ? ", " : "") + std::string(R"({"tensor": ")") + pack[i].substr(0, pack[i].size() - (transposed ? 2 : 0)) +
         R"(", "depth": )" + to_string(tile.size()) + (transposed ? R"(, "order": [1, 0]})" : "}");
  }
  return R"({"outerScheduleFusionStrategy": "Min", "tile": )" + list(tile) + R"(, "registerTile": )" + list(reg) +
         R"(, "cpu": {"vectorWidth": )" + to_string(width ? width : lanes()) + R"(, "pointLoopOrder": )" + list(order) +
         R"(, "registerAccumulate": true, "pack": )" + p + "]}}";
}

// A memory-bound kernel's options: fusion strategies and vector width, no tiling; with
// `stream`, outputs stored past the caches (cpu.streamStores).
std::string streaming(const char* outer, const char* intra, int width, bool stream = false) {
  return std::string(R"({"outerScheduleFusionStrategy": ")") + outer + R"(", "intraTileScheduleFusionStrategy": ")" + intra +
         R"(", "cpu": {"vectorWidth": )" + to_string(width) + (stream ? R"(, "streamStores": true)" : "") + "}}";
}

std::vector<std::string> streaming_grid() {
  std::vector<std::string> g;
  for (int w : {lanes(), 8, 4})
    for (const char* outer : {"Max", "Min"}) g.push_back(streaming(outer, "Min", w));
  g.push_back(streaming("Preserve3Coincident", "Min", lanes()));
  g.push_back(streaming("Max", "Max", lanes()));
  // Stored past the caches: a row of a width the vectors fill (layernorm's 1024), or of 8
  // lanes where they do not (softmax's 1000).
  for (int w : {lanes(), 8}) g.push_back(streaming("Preserve3Coincident", "Min", w, true));
  g.push_back(streaming("Max", "Max", lanes(), true));
  std::sort(g.begin(), g.end()), g.erase(std::unique(g.begin(), g.end()), g.end());
  return g;
}

// C = A . B (B(n, k) when transposed), batch-major, in float64.
std::vector<double> ref_gemm(const peers::Gemm& g, const float* a, const float* b) {
  std::vector<double> c(size_t(g.batch) * g.m * g.n, 0.0);
  for (long i = 0; i < g.batch; ++i)
    for (long m = 0; m < g.m; ++m)
      for (long k = 0; k < g.k; ++k) {
        double x = a[(i * g.m + m) * g.k + k];
        double* out = &c[(i * g.m + m) * g.n];
        for (long n = 0; n < g.n; ++n) out[n] += x * b[g.trans_b ? (i * g.n + n) * g.k + k : (i * g.k + k) * g.n + n];
      }
  return c;
}

Workload gemm(const std::string& name, const std::string& file, peers::Gemm g, std::map<std::string, int64_t> sizes,
              std::vector<std::string> names, double goal) {
  Workload w{name, TCS_EXAMPLES_DIR, file, sizes, {}, 2, false, 2.0 * g.batch * g.m * g.n * g.k, nullptr, {}, {}, "", goal};
  w.tensors = {{names[0], int64_t(g.batch) * g.m * g.k, true}, {names[1], int64_t(g.batch) * g.k * g.n, true},
               {names[2], int64_t(g.batch) * g.m * g.n, false}};
  w.reference = [g](const In& t) { return ref_gemm(g, t[0], t[1]); };
  w.peers = {{"OpenBLAS", false, {0, 1, 2}, [g](float* const*) { return peers::openblas_gemm(g); }},
             {"oneDNN", false, {0, 1, 2}, [g](float* const*) { return peers::onednn_matmul(g); }},
             {"naive g++", true, {0, 1, 2}, [g](float* const*) { return peers::naive_gemm(g); }}};
  if (!g.trans_b) w.peers.push_back({"naive g++ mkn", true, {0, 1, 2}, [g](float* const*) { return peers::naive_gemm_mkn(g); }});
  return w;
}

// Grids for a plain matrix product m, n, k: rows x (vectors of columns) register tiles in
// cache tiles of `tiles`, the shared operand packed (as the default preset does). A cache
// tile's rows are rounded up to whole register tiles: 12 rows in tiles of 128 straddle
// them and ran 5x slower.
std::vector<std::string> matmul_grid(const std::vector<std::vector<int>>& tiles, const std::vector<std::string>& pack) {
  const int L = lanes();
  std::vector<std::string> g;
  for (const auto& reg : std::vector<std::vector<int>>{{8, 2 * L}, {6, 2 * L}, {4, 4 * L}, {12, 2 * L}})
    for (std::vector<int> tile : tiles) {
      tile[0] = (tile[0] + reg[0] - 1) / reg[0] * reg[0];
      g.push_back(contraction(tile, reg, {2, 0, 1}, pack));
    }
  g.insert(g.begin() + 2, contraction(tiles[0], {8, 2 * L}, {2, 0, 1}));  // unpacked
  return g;
}

}  // namespace

std::vector<Workload> workloads() {
  const int L = lanes();
  std::vector<Workload> out;

  // Matrix products.
  {
    Workload w = gemm("sgemm 1024^3", "matmul.tc", {1, 1024, 1024, 1024}, {{"M", 1024}, {"N", 1024}, {"K", 1024}},
                      {"A", "B", "C"}, 0.9);
    w.grid = matmul_grid({{128, 512, 256}, {96, 256, 128}, {512, 512, 256}}, {"B"});
    out.push_back(w);
  }
  {
    Workload w = gemm("fc 128x1024x1024", "matmul.tc", {1, 128, 1024, 1024}, {{"M", 128}, {"N", 1024}, {"K", 1024}},
                      {"A", "B", "C"}, 0.9);
    w.grid = matmul_grid({{64, 512, 256}, {128, 256, 256}}, {"B"});
    out.push_back(w);
  }
  {
    peers::Gemm g{1, 128, 1024, 256, true};
    Workload w = gemm("tmm 128x256x1024", "matmul_transposed_b.tc", g, {{"M", 128}, {"N", 1024}, {"K", 256}}, {"A", "B", "C"}, 0.9);
    w.grid = matmul_grid({{128, 256, 256}, {64, 512, 256}}, {"B^T"});
    out.push_back(w);
  }
  {
    Workload w = gemm("bmm 500x26x72x26", "batched_matmul.tc", {500, 26, 26, 72},
                      {{"B", 500}, {"M", 26}, {"N", 26}, {"K", 72}}, {"X", "Y", "Z"}, 1.0);
    std::vector<std::vector<int>> regs = {{1, 4, 2 * L}, {1, 6, 2 * L}, {1, 2, 2 * L}, {1, 8, 2 * L}, {1, 6, L}};
    if (L >= 16) regs.push_back({1, 12, 2 * L});  // 24 accumulators: AVX-512's 32 registers, not AVX2's 16
    for (const auto& reg : regs)
      for (int width : {L, L / 2}) w.grid.push_back(contraction({1, 96, 512, 256}, reg, {0, 3, 1, 2}, {}, width));
    out.push_back(w);
  }

  // Three fully connected layers with bias and ReLU; L1, L2 are scratch for every contender.
  {
    peers::Mlp3 s{128, 1024, 1024, 1024, 1024};
    Workload w{"mlp3 128x1024", TCS_EXAMPLES_DIR, "mlp3.tc",
               {{"B", s.b}, {"I", s.i}, {"H1", s.h1}, {"H2", s.h2}, {"O", s.o}}, {}, 9, false,
               2.0 * s.b * (double(s.i) * s.h1 + double(s.h1) * s.h2 + double(s.h2) * s.o), nullptr, {}, {}, "", 1.0};
    w.tensors = {{"X", s.b * s.i, true},   {"W1", s.h1 * s.i, true},   {"B1", s.h1, true},     {"W2", s.h2 * s.h1, true},
                 {"B2", s.h2, true},       {"W3", s.o * s.h2, true},   {"B3", s.o, true},      {"L1", s.b * s.h1, false},
                 {"L2", s.b * s.h2, false}, {"Y", s.b * s.o, false}};
    w.reference = [s](const In& t) {
      std::vector<double> x(t[0], t[0] + s.b * s.i);
      const int in[3] = {s.i, s.h1, s.h2}, outs[3] = {s.h1, s.h2, s.o};
      for (int l = 0; l < 3; ++l) {
        std::vector<double> y(size_t(s.b) * outs[l]);
        for (long b = 0; b < s.b; ++b)
          for (long o = 0; o < outs[l]; ++o) {
            double acc = t[2 + 2 * l][o];
            for (long i = 0; i < in[l]; ++i) acc += x[b * in[l] + i] * t[1 + 2 * l][o * in[l] + i];
            y[b * outs[l] + o] = std::max(acc, 0.0);
          }
        x.swap(y);
      }
      return x;
    };
    std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    w.peers = {{"OpenBLAS + loops", false, all, [s](float* const*) { return peers::openblas_mlp3(s); }},
               {"oneDNN post-ops", false, all, [s](float* const*) { return peers::onednn_mlp3(s); }},
               {"naive g++", true, all, [s](float* const*) { return peers::naive_mlp3(s); }}};
    w.grid = matmul_grid({{128, 256, 256}, {64, 512, 256}}, {"W1^T", "W2^T", "W3^T"});
    out.push_back(w);
  }

  // Convolutions with bias: NCHW, no padding, stride 1.
  for (bool grouped : {false, true}) {
    peers::Conv s = grouped ? peers::Conv{32, 32, 16, 16, 16, 16, 3, 3} : peers::Conv{32, 1, 4, 16, 58, 58, 3, 3};
    const int64_t oh = s.h - s.kh + 1, ow = s.w - s.kw + 1;
    std::map<std::string, int64_t> sizes = {{"N", s.n}, {"C", s.c}, {"F", s.f}, {"H", s.h}, {"W", s.w}, {"KH", s.kh}, {"KW", s.kw}};
    if (grouped) sizes["G"] = s.groups;
    Workload w{grouped ? "gconv 32x32x16x14^2" : "conv 32x4x56^2->16", TCS_EXAMPLES_DIR, grouped ? "group_conv.tc" : "conv2d.tc",
               sizes, {}, 3, false, 2.0 * s.n * s.groups * s.f * oh * ow * s.c * s.kh * s.kw, nullptr, {}, {},
               grouped ? "" : "oneDNN", grouped ? 1.0 : 0.8};
    w.tensors = {{"I", int64_t(s.n) * s.groups * s.c * s.h * s.w, true},
                 {"Wt", int64_t(s.groups) * s.f * s.c * s.kh * s.kw, true},
                 {"Bias", int64_t(s.groups) * s.f, true},
                 {"O", int64_t(s.n) * s.groups * s.f * oh * ow, false}};
    w.reference = [s, oh, ow](const In& t) {
      std::vector<double> o(size_t(s.n) * s.groups * s.f * oh * ow);
      for (long n = 0; n < s.n; ++n)
        for (long g = 0; g < s.groups; ++g)
          for (long f = 0; f < s.f; ++f)
            for (long h = 0; h < oh; ++h)
              for (long x = 0; x < ow; ++x) {
                double acc = t[2][g * s.f + f];
                for (long c = 0; c < s.c; ++c)
                  for (long kh = 0; kh < s.kh; ++kh)
                    for (long kw = 0; kw < s.kw; ++kw)
                      acc += double(t[0][((n * s.groups + g) * s.c + c) * s.h * s.w + (h + kh) * s.w + x + kw]) *
                             t[1][(((g * s.f + f) * s.c + c) * s.kh + kh) * s.kw + kw];
                o[(((n * s.groups + g) * s.f + f) * oh + h) * ow + x] = acc;
              }
      return o;
    };
    w.peers = {{"oneDNN", false, {0, 1, 2, 3}, [s](float* const* slot0) { return peers::onednn_conv(s, slot0[1]); }},
               {"naive g++", true, {0, 1, 2, 3}, [s](float* const*) { return peers::naive_conv(s); }}};
    if (!grouped) {
      // n, f, h, w, c, kh, kw: filters x columns in registers, the summed loops around them.
      for (const auto& [tile, reg] : std::vector<std::pair<std::vector<int>, std::vector<int>>>{
               {{1, 16, 1, 64, 4, 3, 3}, {1, 4, 1, 4 * L}},
               {{1, 16, 1, 64, 4, 3, 3}, {1, 2, 1, 4 * L}},
               {{1, 16, 1, 64, 4, 3, 3}, {1, 8, 1, 2 * L}},
               {{1, 16, 2, 64, 4, 3, 3}, {1, 4, 2, 2 * L}},
               {{1, 16, 1, 64, 4, 3, 3}, {1, 16, 1, L}},
               {{1, 16, 2, 64, 4, 3, 3}, {1, 2, 2, 4 * L}}})
        w.grid.push_back(contraction(tile, reg, {0, 2, 4, 5, 6, 1, 3}));
    } else {
      // n, g, f, h, w, c, kh, kw: a 14-wide row is one vector (AVX-512) or two.
      for (const auto& reg : std::vector<std::vector<int>>{
               {1, 1, 4, 2, 16}, {1, 1, 8, 1, 16}, {1, 1, 2, 4, 16}, {1, 1, 4, 4, 16}, {1, 1, 8, 2, 16}, {1, 1, 16, 1, 16}})
        w.grid.push_back(contraction({1, 1, 16, 14, 16, 16, 3, 3}, reg, {0, 1, 5, 6, 7, 2, 3, 4}, {}, std::min(16, L)));
    }
    out.push_back(w);
  }

  // KRU3: three chained contractions; XW2, XW1 are scratch for every contender.
  {
    peers::Kru3 s{256, 32, 32, 32, 16, 16, 16};
    const int64_t d12 = s.d1 * s.d2;
    Workload w{"kru3 256x32^3->16^3", TCS_EXAMPLES_DIR, "kru3.tc",
               {{"M", s.m}, {"N0", s.n0}, {"N1", s.n1}, {"N2", s.n2}, {"D0", s.d0}, {"D1", s.d1}, {"D2", s.d2}}, {}, 6, false,
               2.0 * s.m * (double(s.n0) * s.n1 * s.n2 * s.d2 + double(s.n0) * s.n1 * s.d1 * s.d2 + double(s.n0) * s.d0 * d12),
               nullptr, {}, {}, "", 1.0};
    w.tensors = {{"W0", s.d0 * s.n0, true},
                 {"W1", s.d1 * s.n1, true},
                 {"W2", s.d2 * s.n2, true},
                 {"X", int64_t(s.m) * s.n0 * s.n1 * s.n2, true},
                 {"XW2", int64_t(s.m) * s.n0 * s.n1 * s.d2, false},
                 {"XW1", int64_t(s.m) * s.n0 * d12, false},
                 {"Y", int64_t(s.m) * s.d0 * d12, false}};
    w.reference = [s, d12](const In& t) {
      std::vector<double> xw2(size_t(s.m) * s.n0 * s.n1 * s.d2, 0.0), xw1(size_t(s.m) * s.n0 * d12, 0.0),
          y(size_t(s.m) * s.d0 * d12, 0.0);
      for (long a = 0; a < long(s.m) * s.n0 * s.n1; ++a)
        for (long d2 = 0; d2 < s.d2; ++d2)
          for (long n2 = 0; n2 < s.n2; ++n2) xw2[a * s.d2 + d2] += double(t[3][a * s.n2 + n2]) * t[2][d2 * s.n2 + n2];
      for (long b = 0; b < long(s.m) * s.n0; ++b)
        for (long d1 = 0; d1 < s.d1; ++d1)
          for (long n1 = 0; n1 < s.n1; ++n1)
            for (long d2 = 0; d2 < s.d2; ++d2)
              xw1[(b * s.d1 + d1) * s.d2 + d2] += xw2[(b * s.n1 + n1) * s.d2 + d2] * t[1][d1 * s.n1 + n1];
      for (long m = 0; m < s.m; ++m)
        for (long d0 = 0; d0 < s.d0; ++d0)
          for (long n0 = 0; n0 < s.n0; ++n0)
            for (long e = 0; e < d12; ++e) y[(m * s.d0 + d0) * d12 + e] += xw1[(m * s.n0 + n0) * d12 + e] * t[0][d0 * s.n0 + n0];
      return y;
    };
    std::vector<int> all = {0, 1, 2, 3, 4, 5, 6};
    w.peers = {{"OpenBLAS", false, all, [s](float* const*) { return peers::openblas_kru3(s); }},
               {"oneDNN", false, all, [s](float* const*) { return peers::onednn_kru3(s); }},
               {"naive g++", true, all, [s](float* const*) { return peers::naive_kru3(s); }}};
    // The first contraction's loops m, n0, n1, d2, n2: rows of n1 by the 16 d2 columns.
    for (const auto& [tile, reg] : std::vector<std::pair<std::vector<int>, std::vector<int>>>{
             {{1, 1, 32, 16, 32}, {1, 1, 4, 16}},
             {{1, 1, 32, 16, 32}, {1, 1, 8, 16}},
             {{1, 4, 32, 16, 32}, {1, 1, 8, 16}},
             {{1, 1, 32, 16, 32}, {1, 1, 2, 16}},
             {{1, 2, 32, 16, 32}, {1, 2, 4, 16}}})
      w.grid.push_back(contraction(tile, reg, {0, 1, 4, 2, 3}, {}, std::min(16, L)));
    // W2(d2, n2) transposed once outside the loops, so the first contraction's d2 vectors
    // load contiguously; the last contraction (rows d0, not d1) with tiles of its own.
    for (int rows : {4, 8})
      for (int last_rows : {8, 16})
        w.grid.push_back(R"({"outerScheduleFusionStrategy": "Min", "tile": [1, 1, 32, 16, 32], "registerTile": [1, 1, )" +
                         to_string(rows) + R"(, 16], "cpu": {"vectorWidth": )" + to_string(std::min(16, L)) +
                         R"(, "pointLoopOrder": [0, 1, 4, 2, 3], "registerAccumulate": true, "pack": [{"tensor": "W2", "depth": 0, "order": [1, 0]}]},
             "statements": {"S2": {"tile": [1, 16, 1, 16, 32], "registerTile": [1, )" + to_string(last_rows) +
                         R"(, 1, 16], "cpu": {"pointLoopOrder": [0, 2, 4, 1, 3]}}}})");
    out.push_back(w);
  }

  // Memory-bound kernels, in GB/s of input + output bytes.
  {
    peers::Pool s = peers::kMaxpoolSize;
    const int64_t in = int64_t(s.n) * s.c * s.h * s.w, o = in / 4;
    Workload w{"maxpool 32x64x112^2", TCS_EXAMPLES_DIR, "maxpool.tc", {{"N", s.n}, {"C", s.c}, {"H", s.h}, {"W", s.w}}, {}, 1,
               true, 4.0 * (in + o), nullptr, {}, {}, "naive g++", 1.0};
    w.tensors = {{"I", in, true}, {"O", o, false}};
    w.reference = [s, o](const In& t) {
      std::vector<double> r(o);
      for (long p = 0; p < long(s.n) * s.c; ++p)
        for (long h = 0; h < s.h / 2; ++h)
          for (long x = 0; x < s.w / 2; ++x) {
            const float* a = t[0] + p * s.h * s.w + 2 * h * s.w + 2 * x;
            r[(p * (s.h / 2) + h) * (s.w / 2) + x] = std::max(std::max(a[0], a[1]), std::max(a[s.w], a[s.w + 1]));
          }
      return r;
    };
    w.peers = {{"oneDNN", false, {0, 1}, [s](float* const*) { return peers::onednn_maxpool(s); }},
               {"naive g++", true, {0, 1}, [s](float* const*) { return peers::naive_maxpool(s); }}};
    w.grid = streaming_grid();
    w.stream_goal = 0.7;  // 128 MB a call: cold by its size alone
    out.push_back(w);
  }
  {
    peers::Rows s{128, 1000};
    Workload w{"softmax 128x1000", TCS_EXAMPLES_DIR, "softmax.tc", {{"N", s.n}, {"D", s.d}}, {}, 1, true, 8.0 * s.n * s.d,
               nullptr, {}, {}, "", 1.0};
    w.tensors = {{"X", s.n * s.d, true}, {"Y", s.n * s.d, false}};
    w.reference = [s](const In& t) {
      std::vector<double> y(size_t(s.n) * s.d);
      for (long n = 0; n < s.n; ++n) {
        double mx = -INFINITY, sum = 0;
        for (long d = 0; d < s.d; ++d) mx = std::max(mx, double(t[0][n * s.d + d]));
        for (long d = 0; d < s.d; ++d) sum += y[n * s.d + d] = std::exp(t[0][n * s.d + d] - mx);
        for (long d = 0; d < s.d; ++d) y[n * s.d + d] /= sum;
      }
      return y;
    };
    w.peers = {{"oneDNN", false, {0, 1}, [s](float* const*) { return peers::onednn_softmax(s); }},
               {"naive g++", true, {0, 1}, [s](float* const*) { return peers::naive_softmax(s); }}};
    w.grid = streaming_grid();
    out.push_back(w);
  }
  {
    peers::Rows s{128, 1024};
    Workload w{"layernorm 128x1024", TCS_EXAMPLES_DIR, "layernorm.tc", {{"N", s.n}, {"D", s.d}}, {}, 3, true, 8.0 * s.n * s.d,
               nullptr, {}, {}, "", 1.0};
    w.tensors = {{"X", s.n * s.d, true}, {"Gamma", s.d, true}, {"Beta", s.d, true}, {"Y", s.n * s.d, false}};
    w.reference = [s](const In& t) {
      std::vector<double> y(size_t(s.n) * s.d);
      for (long n = 0; n < s.n; ++n) {
        double mean = 0, var = 0;
        for (long d = 0; d < s.d; ++d) mean += t[0][n * s.d + d];
        mean /= s.d;
        for (long d = 0; d < s.d; ++d) var += (t[0][n * s.d + d] - mean) * (t[0][n * s.d + d] - mean);
        double inv = 1.0 / std::sqrt(var / s.d + 1e-5);
        for (long d = 0; d < s.d; ++d) y[n * s.d + d] = (t[0][n * s.d + d] - mean) * inv * t[1][d] + t[2][d];
      }
      return y;
    };
    w.peers = {{"oneDNN", false, {0, 1, 2, 3}, [s](float* const*) { return peers::onednn_layernorm(s); }},
               {"naive g++", true, {0, 1, 2, 3}, [s](float* const*) { return peers::naive_layernorm(s); }}};
    w.grid = streaming_grid();
    out.push_back(w);
  }
  // The tuner's targets (issue 13): well above the libraries where TC and Ansor beat
  // them (small specialised sizes), near them on the big products.
  for (Workload& w : out) {
    if (w.name.starts_with("bmm") || w.name.starts_with("gconv") || w.name.starts_with("kru3")) w.tuned_goal = 1.2;
    else if (w.name.starts_with("sgemm") || w.name.starts_with("fc") || w.name.starts_with("tmm") || w.name.starts_with("conv"))
      w.tuned_goal = 0.9;
    else w.tuned_goal = w.goal;
  }
  return out;
}

}  // namespace bench
