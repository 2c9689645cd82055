// The compiler's one call from plain data: requests survive JSON, errors carry their kind,
// and a measured kernel's outputs are the interpreter's.
#include <gtest/gtest.h>
#include <chrono>
#include <thread>

#include "Compiler.h"
#include "kernel/Measure.h"
#include "loopnest/Accesses.h"
#include "runtime/RandomInputs.h"
#include "targets/Target.h"

namespace tcs {
namespace {

const char* kMatmul = "# sizes: M=16 N=24 K=8\ndef matmul(float(M,K) A, float(K,N) B) -> (C) {\n  C(m,n) +=! A(m,k) * B(k,n)\n}\n";

CompileRequest matmul_request() {
  CompileRequest r;
  r.file_name = "matmul.tc";
  r.source = kMatmul;
  r.sizes = {{"N", 32}};
  r.options.json = R"({"tile": [8, 16]})";
  r.text_kinds = {"c", "llvm"};
  r.build_kernel = true;
  return r;
}

TEST(CompileRequest, RoundTripsThroughJson) {
  CompileRequest r = matmul_request();
  auto back = compile_request_from_json(compile_request_to_json(r));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->source, r.source);
  EXPECT_EQ(back->sizes.at("N"), 32);
  EXPECT_EQ(back->text_kinds, r.text_kinds);
  EXPECT_TRUE(back->build_kernel);
  EXPECT_FALSE(back->symbolic_sizes);
  r.symbolic_sizes = true;
  auto symbolic = compile_request_from_json(compile_request_to_json(r));
  ASSERT_TRUE(symbolic) << symbolic.error();
  EXPECT_TRUE(symbolic->symbolic_sizes);
  auto o1 = mapping_options_from_json(r.options.json), o2 = mapping_options_from_json(back->options.json);
  ASSERT_TRUE(o1 && o2);
  EXPECT_EQ(*o1, *o2);
  auto bad = compile_request_from_json(R"({"sizes": {"N": "big"}})");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error_kind(), ErrorKind::InputFile);
  EXPECT_NE(bad.error().find("sizes.N"), std::string::npos);
  auto not_bool = compile_request_from_json(R"({"symbolic_sizes": 1})");
  ASSERT_FALSE(not_bool);
  EXPECT_NE(not_bool.error().find("'symbolic_sizes' must be true or false"), std::string::npos);
}

// Sizes as arguments: the C takes them first and checks them; a kernel whose ranges are
// not affine in its sizes cannot keep them symbolic and says why.
TEST(CompileRequest, SymbolicSizesBecomeArguments) {
  CompileRequest r = matmul_request();
  r.symbolic_sizes = true;
  r.build_kernel = false;
  auto c = compile(r);
  ASSERT_TRUE(c) << c.error();
  const std::string& text = c->text("c").text;
  EXPECT_NE(text.find("int matmul(int64_t M, int64_t K, int64_t N,"), std::string::npos) << text;
  EXPECT_NE(text.find("if (M < 1) return 1;"), std::string::npos) << text;
  EXPECT_EQ(text.find("<= 31"), std::string::npos) << text;  // no bound specialised to N = 32

  CompileRequest product;
  product.source = "# sizes: N=4 M=3\ndef f(float(N, M) A) -> (O) {\n  O(i) = A(0, 0) * 2.0 where i in 0:N*M\n}\n";
  product.symbolic_sizes = true;
  auto refused = compile(product);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error_kind(), ErrorKind::Sizes);
  EXPECT_NE(refused.error().find("cannot stay symbolic"), std::string::npos) << refused.error();
}

TEST(CompileRequest, CompilesFromPlainData) {
  auto r = compile(matmul_request());
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->target, "cpu");
  EXPECT_EQ(r->setup.shapes.sizes.at("N"), 32);  // explicit size over the header's 24
  EXPECT_EQ(r->setup.shapes.sizes.at("M"), 16);  // the header's
  EXPECT_NE(r->text("c").text.find("void matmul"), std::string::npos);
  EXPECT_FALSE(r->text("llvm").text.empty());
  EXPECT_TRUE(r->text("asm").text.empty());  // not asked for
  ASSERT_TRUE(r->kernel);
  EXPECT_EQ(r->kernel->target(), "cpu");
  // The passes run are the target's: no pass of another target appears.
  std::vector<std::string> names;
  for (const PassSnapshot& p : r->lowering.passes) names.push_back(p.pass);
  EXPECT_EQ(names, compile_pass_names("cpu"));
  // Loops are named when the AST is built; earlier trees name band members by position
  // (they said "L-1" once).
  for (const PassSnapshot& p : r->lowering.passes)
    EXPECT_EQ(schedule_tree_to_string(p.tree).find("L-1"), std::string::npos) << p.pass;
  EXPECT_NE(schedule_tree_to_string(r->lowering.passes.front().tree).find("dim 0: "), std::string::npos);
  EXPECT_NE(schedule_tree_to_string(r->lowering.passes.back().tree).find("L0: "), std::string::npos);
}

TEST(CompileRequest, ErrorsCarryTheirKind) {
  CompileRequest r = matmul_request();
  r.source = "def f(float(N) A) -> (O) { O(i) = A(i) * Bx(i) }\n";
  EXPECT_EQ(compile(r).error_kind(), ErrorKind::Source);
  r = matmul_request();
  r.entry = "nope";
  EXPECT_EQ(compile(r).error_kind(), ErrorKind::Source);
  r = matmul_request();
  r.sizes = {{"K", 0}};
  EXPECT_EQ(compile(r).error_kind(), ErrorKind::Sizes);
  r = matmul_request();
  r.options.json = R"({"tile": [0]})";
  EXPECT_EQ(compile(r).error_kind(), ErrorKind::Options);
  r = matmul_request();
  r.options = {"fastest", ""};
  EXPECT_EQ(compile(r).error_kind(), ErrorKind::Options);
  r = matmul_request();
  r.target = "tpu";
  auto t = compile(r);
  EXPECT_EQ(t.error_kind(), ErrorKind::Options);
  EXPECT_NE(t.error().find("known targets: cpu"), std::string::npos);
  r = matmul_request();
  r.text_kinds = {"ptx"};
  EXPECT_EQ(compile(r).error_kind(), ErrorKind::Options);
  std::atomic<bool> cancel{true};
  EXPECT_EQ(compile(matmul_request(), CompileHooks{&cancel, {}}).error_kind(), ErrorKind::Cancelled);
}

TEST(Measure, TimesTheKernelAndChecksItsFirstRun) {
  auto r = compile(matmul_request());
  ASSERT_TRUE(r) << r.error();
  auto inputs = random_inputs(*r->setup.def, r->setup.shapes, 3);
  ASSERT_TRUE(inputs);
  MeasureRequest m;
  m.plan = TimingPlan{.warmup_calls = 1, .min_calls = 5, .max_calls = 5};
  m.check = true;
  for (bool cold : {false, true}) {
    m.cold_caches = cold;
    auto got = measure_kernel(*r->kernel, *inputs, m);
    ASSERT_TRUE(got) << got.error();
    EXPECT_EQ(got->timing.ms.size(), 5u);
    EXPECT_TRUE(got->checked && got->check_ok);
    EXPECT_GT(got->gflops, 0);
    EXPECT_DOUBLE_EQ(got->flops, 2.0 * 16 * 32 * 8);
    EXPECT_EQ(got->outputs.at("C").shape, (std::vector<int64_t>{16, 32}));
  }
  // The interpreter is a Kernel too.
  auto interp = interpreter_kernel(*r->setup.def, r->setup.shapes);
  auto same = measure_kernel(*interp, *inputs, MeasureRequest{});
  ASSERT_TRUE(same) << same.error();
  EXPECT_TRUE(same->timing.ms.empty());
  // A missing input is a Sizes error naming it.
  TensorMap partial = *inputs;
  partial.erase("B");
  auto missing = measure_kernel(*r->kernel, partial, m);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("'B'"), std::string::npos);
}

TEST(Timing, MedianAndCancel) {
  EXPECT_DOUBLE_EQ(median_of({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median_of({4, 1, 3, 2}), 2.5);
  int calls = 0;
  auto t = time_calls([&](size_t) { ++calls; return success(); }, TimingPlan{.warmup_calls = 2, .min_warmup_ms = 0, .min_calls = 4});
  ASSERT_TRUE(t);
  EXPECT_EQ(calls, 6);
  EXPECT_EQ(t->ms.size(), 4u);
  // The warm-up lasts min_warmup_ms as well as warmup_calls: the first timed call starts
  // 20 ms or more after the timing began (however long each call takes on a loaded
  // machine), and a call of 1 ms or more leaves room for at most 21 warm-up calls.
  using Clock = std::chrono::steady_clock;
  std::vector<Clock::time_point> starts;
  auto began = Clock::now();
  auto settled = time_calls([&](size_t) {
    starts.push_back(Clock::now());
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return success();
  }, TimingPlan{.warmup_calls = 1, .min_warmup_ms = 20, .min_calls = 2});
  ASSERT_TRUE(settled);
  ASSERT_EQ(settled->ms.size(), 2u);
  ASSERT_GE(starts.size(), 3u);
  double first_timed_ms = std::chrono::duration<double, std::milli>(starts[starts.size() - 2] - began).count();
  EXPECT_GE(first_timed_ms, 20.0);
  EXPECT_LE(starts.size(), 2u + 21);
  // Rotation: the warm-up visits every copy, and each call gets one of them.
  std::vector<int> visits(5, 0);
  auto rotated = time_rotating([&](size_t copy) -> Status {
    if (copy >= visits.size()) return Error{ErrorKind::Internal, "copy out of range"};
    ++visits[copy];
    return success();
  }, visits.size(), TimingPlan{.warmup_calls = 1, .min_warmup_ms = 0, .min_calls = 3});
  ASSERT_TRUE(rotated) << rotated.error();
  EXPECT_EQ(rotated->ms.size(), 3u);
  EXPECT_EQ(visits, (std::vector<int>{2, 2, 2, 1, 1}));
  EXPECT_EQ(cold_copies(size_t(64) << 20), 2u);
  EXPECT_EQ(cold_copies(size_t(8) << 20), 9u);
  std::atomic<bool> cancel{true};
  EXPECT_EQ(time_calls([&](size_t) { return success(); }, TimingPlan{.cancel = &cancel}).error_kind(), ErrorKind::Cancelled);
  auto failing = time_calls([&](size_t i) -> Status {
    if (i == 2) return Error{ErrorKind::RuntimeFault, "boom"};
    return success();
  }, TimingPlan{.warmup_calls = 0, .min_warmup_ms = 0, .min_calls = 5});
  EXPECT_EQ(failing.error_kind(), ErrorKind::RuntimeFault);
}

}  // namespace
}  // namespace tcs

namespace tcs {
namespace {

// The plain-data access view: strides per enclosing loop, as the tuner's features read them.
TEST(Accesses, StridesPerLoopOfAMatrixProduct) {
  CompileRequest r = matmul_request();  // M=16, N=32, K=8
  r.options = {"naive", ""};
  r.build_kernel = false;
  auto c = compile(r);
  ASSERT_TRUE(c) << c.error();
  auto view = loop_nest_accesses(*c->setup.def, c->setup.shapes, c->lowering.nest);
  ASSERT_EQ(view.size(), 2u);  // C = 0, then C += A * B
  const StatementAccesses& s = view[1];
  ASSERT_EQ(s.loops.size(), 3u);
  ASSERT_EQ(s.accesses.size(), 3u);  // write C, read A, read B
  const SemaDef& def = *c->setup.def;
  auto stride = [&](const TensorAccess& a, int loop) { return a.strides[size_t(loop)].elements; };
  EXPECT_TRUE(s.accesses[0].write);
  EXPECT_EQ(def.tensors[size_t(s.accesses[0].tensor)].name, "C");
  EXPECT_EQ(def.tensors[size_t(s.accesses[1].tensor)].name, "A");
  EXPECT_EQ(def.tensors[size_t(s.accesses[2].tensor)].name, "B");
  // Whatever the loop order, each loop moves C, A and B by what its index does.
  for (int l = 0; l < 3; ++l) {
    auto cs = stride(s.accesses[0], l), as = stride(s.accesses[1], l), bs = stride(s.accesses[2], l);
    ASSERT_TRUE(cs && as && bs);
    if (*cs == 32) EXPECT_TRUE(*as == 8 && *bs == 0) << "m";       // m: C row, A row
    else if (*cs == 1) EXPECT_TRUE(*as == 0 && *bs == 1) << "n";   // n: C column, B column
    else EXPECT_TRUE(*cs == 0 && *as == 1 && *bs == 32) << "k";    // k: A column, B row
  }
  EXPECT_EQ(s.accesses[1].subscripts.size(), 2u);
  EXPECT_TRUE(s.accesses[1].subscripts[0].affine);
}

}  // namespace
}  // namespace tcs
