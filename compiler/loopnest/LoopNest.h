#pragma once
// The loop tree every backend, the tuner's feature extractor and the views share: plain
// C++ built from isl's AST, so nothing downstream needs isl. Loops carry the id of the
// schedule-tree band member they came from and the mapping decisions (threads, vectors,
// unrolling); statement calls carry the polyhedral statement they execute.
#include <cstdint>
#include <string>
#include <vector>

namespace tcs {

// An integer expression over loop iterators and size parameters (isl's AST expressions:
// affine parts plus min/max/floor division/remainder and comparisons for guards).
struct LExpr {
  enum class Op {
    Int, Iter, Param,
    Add, Sub, Mul, Neg, FloorDiv, ExactDiv, Rem,  // Rem: remainder of a non-negative dividend
    Min, Max, Select,
    Eq, Le, Lt, Ge, Gt, And, Or,
  };
  Op op = Op::Int;
  int64_t value = 0;  // Int; Iter and Param: their number
  std::vector<LExpr> args;

  static LExpr integer(int64_t v) { return LExpr{Op::Int, v, {}}; }
  static LExpr iter(int i) { return LExpr{Op::Iter, i, {}}; }
  static LExpr make(Op op, std::vector<LExpr> args) { return LExpr{op, 0, std::move(args)}; }
  bool is_int() const { return op == Op::Int; }
};

struct LoopAnnotation {
  bool parallel = false;    // iterations run across the thread pool
  int vector_width = 0;     // > 0: vectorise this innermost loop with this many lanes
  bool reduction = false;   // ... a loop that sums (or takes the max of) into accumulators:
                            // vectorised with several partial results, reassociated
  int unroll = 0;           // > 0: unroll by this factor; -1: unroll fully
  bool register_tile = false;  // point loop of a register tile
  bool accumulate_in_registers = false;  // reduction loop whose accumulators stay in registers
  int fetch_ahead = 0;  // > 0: each iteration first fetches the lines the reads below it
                        // touch this many iterations on (loopnest/FetchAhead.cpp)
  // > 0: a parallel loop over the parts of a total (loopnest/SplitTotals.cpp). Each
  // iteration combines the one statement below into accumulators of its own, a copy of
  // its whole output (this many elements, laid out as the tensor) that starts at the
  // identity; after the loop the copies are combined into the output in iteration order.
  int64_t partial_totals = 0;
};

struct LoopNode {
  enum class Kind { For, If, Block, Call, Pack };
  Kind kind = Kind::Block;
  // For: for (iter = init; iter <= upper; iter += stride)
  int iter = -1;
  LExpr init, upper;
  int64_t stride = 1;
  int loop_id = -1;  // the schedule band member this loop scans; on a Block, a loop joined
                     // into the one around it, whose body the block is (JoinParallelLoops.h)
  LoopAnnotation annot;
  // If: the guard; `children` runs when it holds, `else_children` otherwise.
  LExpr cond;
  // Call: statement `stmt` at the index values `args` (one per statement index).
  int stmt = -1;
  std::vector<LExpr> args;
  // Pack: copy the box LoopNest::packs[pack] of a tensor into a local buffer, then run
  // `children`, whose reads of that tensor read the buffer.
  int pack = -1;

  std::vector<LoopNode> children;  // For and If bodies, Block members
  std::vector<LoopNode> else_children;
};

// A polyhedral statement: source statement `source_stmt`, or its reduction's
// initialisation ("S0_init") when `is_init`.
struct PolyStmt {
  std::string name;
  int source_stmt = -1;
  bool is_init = false;
  // A reduction whose schedule reaches every left-hand element first at these values of
  // the summed indices (one per summed index, in order), and reaches every element its
  // initialisation writes: a backend may start the element's accumulator from the
  // identity there instead of running the initialisation. Empty where that does not hold
  // or is not known (poly/ReductionStarts.cpp).
  std::vector<int64_t> reduction_first;
};

// The most bytes a local temporary's buffer takes (PackSite::local), and the most that
// the CPU target's private temporaries of one loop take together: each thread's stack
// holds them.
constexpr int64_t kMaxLocalBufferBytes = int64_t(1) << 20;

// A tensor tile copied into a contiguous local buffer (cpu.pack): the box of `size`
// elements starting at `offset` (one expression per dimension, over the iterators of the
// enclosing loops), laid out in the buffer with the dimensions in `order` (outermost
// first; empty: the tensor's order), each contiguous in the last of them. Elements outside
// the tensor are not copied; nothing reads them.
struct PackSite {
  int tensor = -1;  // SemaDef::tensors index
  std::string name;  // the tensor's name
  std::vector<LExpr> offset;
  std::vector<int64_t> size;
  std::vector<int> order;  // buffer dimensions, outermost first; empty: the tensor's order
  // A temporary's part that the loops below alone write and read: the buffer holds it
  // (nothing is copied in or out) and writes go to it too.
  bool local = false;
  // A transposing copy walks blocks of this many elements along the two dimensions it reads
  // and writes contiguously (a cache line each), so its strided side stays in a few lines.
  int64_t copy_block = 16;
  // Elements left unused after each row of the buffer's innermost dimension. A transposing
  // copy stores a block's lines a row apart; rows of 1 KiB would put all of them in four
  // of L1's 64 sets, and padding one line spreads them over sixteen (BuildAst.cpp).
  int64_t row_pad = 0;
  // Fetch ahead: while the register tiles below run, the next box (loop `ahead_iter` one
  // step of `ahead_step` on, where that step stays in the loop) is brought into the cache
  // a few lines per tile, spread over the `ahead_tiles` tiles a box runs, so its copy
  // reads the cache instead of memory (loopnest/FetchAhead.cpp). -1: not done.
  int ahead_iter = -1;
  int64_t ahead_step = 1;
  int64_t ahead_tiles = 0;
  // The buffer is contiguous along another dimension than the tensor: the copy transposes.
  bool transposes() const { return !order.empty() && size_t(order.back()) + 1 != size.size(); }
  // Elements the buffer takes, padding included.
  int64_t numel() const {
    int64_t n = 1;
    strides(&n);
    return n;
  }
  // Per tensor dimension, in elements of the buffer; `total` receives numel().
  std::vector<int64_t> strides(int64_t* total = nullptr) const {
    std::vector<int64_t> r(size.size(), 1);
    int64_t step = 1;
    for (size_t k = size.size(); k-- > 0;) {
      size_t d = order.empty() ? k : size_t(order[k]);
      r[d] = step;
      step *= size[d] + (k + 1 == size.size() ? row_pad : 0);
    }
    if (total) *total = step;
    return r;
  }
};

struct LoopNest {
  LoopNode root;                        // a Block
  std::vector<PackSite> packs;          // by LoopNode::pack
  std::vector<PolyStmt> stmts;
  std::vector<std::string> iter_names;  // c0, c1, ... by iterator number
  std::vector<std::string> params;      // size parameters that remain symbolic
  // cpu.streamStores: the def's outputs that the kernel only writes are stored with
  // non-temporal stores where a vector store is aligned to its width, when every such
  // output starts on a cache line (a second copy of the code runs otherwise).
  bool stream_outputs = false;
  // The temporaries (SemaDef::tensors indices) every read of which finds an element
  // written before it: a buffer of its own that starts with anything may hold one. Found
  // by the CPU target's local pass (poly/LocalTemporaries.cpp), from the def alone.
  std::vector<int> fed_temporaries;
};

// Pseudo-C, for --emit ast and tests. Everything code generation reads from the nest is
// in it, so two nests with equal text compile to the same code (the tuner measures each
// program once: tuner/Task.cpp).
std::string loop_nest_to_string(const LoopNest& nest);
// A short key of that text: options with equal keys make one program (the tuner's cache
// keeps it per candidate; bench_cpu times a tuned pick that is the grid's program once).
std::string program_key(const LoopNest& nest);
// The temporaries the nest keeps in local buffers (PackSite::local), each once, in the
// order their first site appears: their tensors are never touched.
std::vector<std::string> local_temporaries(const LoopNest& nest);
// The statements the calls below `n` run (LoopNode::stmt), in the nest's order, one entry
// per call.
std::vector<int> calls_below(const LoopNode& n);
// With `param_values`, size parameters print as those numbers, with `param_names` as those
// names (else as LoopNest::params); `c_macros` spells floor division, min and max as the
// tcs_floord/tcs_min/tcs_max macros of the generated C.
std::string lexpr_to_string(const LExpr& e, const LoopNest& nest, const std::vector<int64_t>* param_values = nullptr,
                            bool c_macros = false, const std::vector<std::string>* param_names = nullptr);

}  // namespace tcs
