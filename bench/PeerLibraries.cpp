// OpenBLAS and oneDNN behind Peers.h. Their thread counts come from the environment
// (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS), which bench_cpu sets per child process.
#include <cblas.h>

#include <dnnl.hpp>

#include "Peers.h"

namespace peers {

void openblas_gemm(const Gemm& g, const float* a, const float* b, float* c) {
  const long sa = long(g.m) * g.k, sb = long(g.k) * g.n, sc = long(g.m) * g.n;
  for (int i = 0; i < g.batch; ++i)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, g.m, g.n, g.k, 1.0f, a + i * sa, g.k, b + i * sb, g.n, 0.0f,
                c + i * sc, g.n);
}

struct OneDnnGemm::Impl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::memory a, b, c;
  dnnl::matmul prim;
};

OneDnnGemm::OneDnnGemm(const Gemm& g) : impl_(std::make_unique<Impl>()) {
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  dnnl::memory::desc a_md({g.batch, g.m, g.k}, dt::f32, tag::abc);
  dnnl::memory::desc b_md({g.batch, g.k, g.n}, dt::f32, tag::abc);
  dnnl::memory::desc c_md({g.batch, g.m, g.n}, dt::f32, tag::abc);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), impl_->engine);
  impl_->prim = dnnl::matmul(pd);
  impl_->a = dnnl::memory(a_md, impl_->engine, nullptr);
  impl_->b = dnnl::memory(b_md, impl_->engine, nullptr);
  impl_->c = dnnl::memory(c_md, impl_->engine, nullptr);
}

OneDnnGemm::~OneDnnGemm() = default;

void OneDnnGemm::run(const float* a, const float* b, float* c) {
  impl_->a.set_data_handle(const_cast<float*>(a));
  impl_->b.set_data_handle(const_cast<float*>(b));
  impl_->c.set_data_handle(c);
  impl_->prim.execute(impl_->stream, {{DNNL_ARG_SRC, impl_->a}, {DNNL_ARG_WEIGHTS, impl_->b}, {DNNL_ARG_DST, impl_->c}});
  impl_->stream.wait();
}

}  // namespace peers
