// OpenBLAS and oneDNN behind Peers.h. Their thread counts come from the environment
// (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS), which bench_cpu sets per child process.
// Primitives and their memory objects are created once per peer; a call only binds the
// slot's buffers (set_data_handle) and executes.
#include <cblas.h>

#include <cmath>
#include <dnnl.hpp>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "Peers.h"

namespace peers {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;
using dims = dnnl::memory::dims;

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// One primitive and the arguments bound per call: arg[i] takes the peer's buffer
// bufs[buf[i]]; `fixed` arguments (reordered weights) stay as they are.
struct Prim {
  dnnl::primitive prim;
  std::vector<int> arg, buf;
  std::vector<dnnl::memory> mem;
  std::unordered_map<int, dnnl::memory> fixed;

  Prim(dnnl::primitive p, const dnnl::primitive_desc_base& pd, std::vector<std::pair<int, int>> bindings) : prim(std::move(p)) {
    for (auto [a, b] : bindings) {
      arg.push_back(a), buf.push_back(b);
      mem.emplace_back(pd.query_md(dnnl::query::exec_arg_md, a), engine(), nullptr);
    }
  }
  void run(dnnl::stream& s, float* const* bufs) {
    std::unordered_map<int, dnnl::memory> args = fixed;
    for (size_t i = 0; i < arg.size(); ++i) {
      mem[i].set_data_handle(bufs[buf[i]]);
      args[arg[i]] = mem[i];
    }
    prim.execute(s, args);
  }
};

// A chain of primitives on one stream, waited for at the end of the call.
Run chain(std::vector<std::shared_ptr<Prim>> prims) {
  auto stream = std::make_shared<dnnl::stream>(engine());
  return [prims, stream](float* const* bufs) {
    for (auto& p : prims) p->run(*stream, bufs);
    stream->wait();
  };
}

// Row-major with an explicit stride per dimension (a transposed operand).
dnnl::memory::desc strided(const dims& d, const dims& strides) { return dnnl::memory::desc(d, dt::f32, strides); }
dnnl::memory::desc plain(const dims& d) {
  dims s(d.size(), 1);
  for (int i = int(d.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * d[i + 1];
  return strided(d, s);
}

// C(batch, m, n) = A . B (+ bias, ReLU): src/weights/dst descs given by the caller.
std::shared_ptr<Prim> matmul(const dnnl::memory::desc& a, const dnnl::memory::desc& b, const dnnl::memory::desc& c,
                             int ia, int ib, int ic, const dnnl::memory::desc* bias = nullptr, int ibias = -1) {
  dnnl::primitive_attr attr;
  if (bias) {
    dnnl::post_ops po;
    po.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(po);
  }
  auto d = bias ? dnnl::matmul::desc(a, b, *bias, c) : dnnl::matmul::desc(a, b, c);
  dnnl::matmul::primitive_desc pd(d, attr, engine());
  std::vector<std::pair<int, int>> binds = {{DNNL_ARG_SRC, ia}, {DNNL_ARG_WEIGHTS, ib}, {DNNL_ARG_DST, ic}};
  if (bias) binds.push_back({DNNL_ARG_BIAS, ibias});
  return std::make_shared<Prim>(dnnl::matmul(pd), pd, binds);
}

}  // namespace

Run openblas_gemm(const Gemm& g) {
  return [g](float* const* b) {
    const long sa = long(g.m) * g.k, sb = long(g.k) * g.n, sc = long(g.m) * g.n;
    for (int i = 0; i < g.batch; ++i)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, g.trans_b ? CblasTrans : CblasNoTrans, g.m, g.n, g.k, 1.0f, b[0] + i * sa, g.k,
                  b[1] + i * sb, g.trans_b ? g.k : g.n, 0.0f, b[2] + i * sc, g.n);
  };
}

Run onednn_matmul(const Gemm& g) {
  // B(n, k) is B^T's memory with strides {.., 1, K}: oneDNN reads it in place.
  auto b = g.trans_b ? strided({g.batch, g.k, g.n}, {long(g.n) * g.k, 1, g.k}) : plain({g.batch, g.k, g.n});
  return chain({matmul(plain({g.batch, g.m, g.k}), b, plain({g.batch, g.m, g.n}), 0, 1, 2)});
}

Run openblas_mlp3(const Mlp3& s) {
  return [s](float* const* b) {
    // X, W1, B1, W2, B2, W3, B3, L1, L2, Y: per layer one sgemm, then bias and ReLU.
    const int in[3] = {s.i, s.h1, s.h2}, out[3] = {s.h1, s.h2, s.o}, x[3] = {0, 7, 8}, y[3] = {7, 8, 9};
    for (int l = 0; l < 3; ++l) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, s.b, out[l], in[l], 1.0f, b[x[l]], in[l], b[1 + 2 * l], in[l], 0.0f,
                  b[y[l]], out[l]);
      float* Y = b[y[l]];
      const float* bias = b[2 + 2 * l];
      for (long r = 0; r < s.b; ++r)
        for (int o = 0; o < out[l]; ++o) Y[r * out[l] + o] = std::fmax(Y[r * out[l] + o] + bias[o], 0.0f);
    }
  };
}

Run onednn_mlp3(const Mlp3& s) {
  const int in[3] = {s.i, s.h1, s.h2}, out[3] = {s.h1, s.h2, s.o}, x[3] = {0, 7, 8}, y[3] = {7, 8, 9};
  std::vector<std::shared_ptr<Prim>> prims;
  for (int l = 0; l < 3; ++l) {
    auto bias = plain({1, out[l]});
    prims.push_back(matmul(plain({s.b, in[l]}), strided({in[l], out[l]}, {1, in[l]}), plain({s.b, out[l]}), x[l], 1 + 2 * l,
                           y[l], &bias, 2 + 2 * l));
  }
  return chain(prims);
}

Run onednn_conv(const Conv& s, const float* weights) {
  const long oh = s.h - s.kh + 1, ow = s.w - s.kw + 1;
  auto src = plain({s.n, long(s.groups) * s.c, s.h, s.w});
  auto dst = plain({s.n, long(s.groups) * s.f, oh, ow});
  dims wdims = s.groups > 1 ? dims{s.groups, s.f, s.c, s.kh, s.kw} : dims{s.f, s.c, s.kh, s.kw};
  auto user_w = plain(wdims);
  dnnl::memory::desc any_w(wdims, dt::f32, tag::any);
  dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src, any_w,
                                    plain({long(s.groups) * s.f}), dst, {1, 1}, {0, 0}, {0, 0});
  dnnl::convolution_forward::primitive_desc pd(d, engine());
  auto p = std::make_shared<Prim>(dnnl::convolution_forward(pd), pd, std::vector<std::pair<int, int>>{{DNNL_ARG_SRC, 0}, {DNNL_ARG_BIAS, 2}, {DNNL_ARG_DST, 3}});
  // The weights in oneDNN's layout, reordered once from slot 0's (every slot holds the same).
  dnnl::memory w(pd.weights_desc(), engine());
  dnnl::memory uw(user_w, engine(), const_cast<float*>(weights));
  dnnl::stream st(engine());
  dnnl::reorder(uw, w).execute(st, uw, w);
  st.wait();
  p->fixed[DNNL_ARG_WEIGHTS] = w;
  return chain({p});
}

Run openblas_kru3(const Kru3& s) {
  return [s](float* const* b) {
    // W0, W1, W2, X, XW2, XW1, Y
    const int d12 = s.d1 * s.d2;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, s.m * s.n0 * s.n1, s.d2, s.n2, 1.0f, b[3], s.n2, b[2], s.n2, 0.0f, b[4],
                s.d2);
    for (long i = 0; i < long(s.m) * s.n0; ++i)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.d1, s.d2, s.n1, 1.0f, b[1], s.n1, b[4] + i * s.n1 * s.d2, s.d2,
                  0.0f, b[5] + i * d12, s.d2);
    for (long i = 0; i < s.m; ++i)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.d0, d12, s.n0, 1.0f, b[0], s.n0, b[5] + i * s.n0 * d12, d12, 0.0f,
                  b[6] + i * s.d0 * d12, d12);
  };
}

Run onednn_kru3(const Kru3& s) {
  // XW2 = X(M*N0*N1, N2) . W2^T; XW1[b] = W1 . XW2[b] for b < M*N0 (W1 broadcast over the
  // batch); Y[m] = W0 . XW1[m] over (N0, D1*D2).
  const long rows = long(s.m) * s.n0 * s.n1, mb = long(s.m) * s.n0, d12 = long(s.d1) * s.d2;
  return chain({
      matmul(plain({rows, s.n2}), strided({s.n2, s.d2}, {1, s.n2}), plain({rows, s.d2}), 3, 2, 4),
      matmul(plain({1, s.d1, s.n1}), plain({mb, s.n1, s.d2}), plain({mb, s.d1, s.d2}), 1, 4, 5),
      matmul(plain({1, s.d0, s.n0}), plain({s.m, s.n0, d12}), plain({s.m, s.d0, d12}), 0, 5, 6),
  });
}

Run onednn_maxpool(const Pool& s) {
  dnnl::pooling_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max, plain({s.n, s.c, s.h, s.w}),
                                plain({s.n, s.c, s.h / 2, s.w / 2}), {2, 2}, {2, 2}, {0, 0}, {0, 0});
  dnnl::pooling_forward::primitive_desc pd(d, engine());
  return chain({std::make_shared<Prim>(dnnl::pooling_forward(pd), pd, std::vector<std::pair<int, int>>{{DNNL_ARG_SRC, 0}, {DNNL_ARG_DST, 1}})});
}

Run onednn_softmax(const Rows& s) {
  dnnl::softmax_forward::desc d(dnnl::prop_kind::forward_inference, plain({s.n, s.d}), 1);
  dnnl::softmax_forward::primitive_desc pd(d, engine());
  return chain({std::make_shared<Prim>(dnnl::softmax_forward(pd), pd, std::vector<std::pair<int, int>>{{DNNL_ARG_SRC, 0}, {DNNL_ARG_DST, 1}})});
}

Run onednn_layernorm(const Rows& s) {
  // oneDNN 2.6 takes scale and shift as two D-vectors with use_scale | use_shift (the
  // older use_scale_shift wants one 2 x D tensor, which Gamma and Beta are not).
  auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
  dnnl::layer_normalization_forward::desc d(dnnl::prop_kind::forward_inference, plain({s.n, s.d}), 1e-5f, flags);
  dnnl::layer_normalization_forward::primitive_desc pd(d, engine());
  auto p = std::make_shared<Prim>(dnnl::layer_normalization_forward(pd), pd, std::vector<std::pair<int, int>>{
                                          {DNNL_ARG_SRC, 0}, {DNNL_ARG_SCALE, 1}, {DNNL_ARG_SHIFT, 2}, {DNNL_ARG_DST, 3}});
  // Mean and variance, when the implementation wants them as arguments: scratch of its own.
  for (int a : {DNNL_ARG_MEAN, DNNL_ARG_VARIANCE})
    if (auto md = pd.query_md(dnnl::query::exec_arg_md, a); md.get_size() > 0) p->fixed[a] = dnnl::memory(md, engine());
  return chain({p});
}
}  // namespace peers
