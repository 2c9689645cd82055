#pragma once
// Private to compiler/codegen: the emitter behind emit_llvm_module. Its parts live in
// LlvmEmitter.cpp (functions, loops, parallel outlining, memory), LlvmExpressions.cpp
// (statements and scalar expressions), LlvmRegisterTile.cpp (the register-tile
// micro-kernel), LlvmReduction.cpp (min and max reductions) and LlvmPack.cpp (packed
// copies, and the prefetches that fetch data ahead). Only these files include LLVM's IR headers.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "codegen/Layout.h"
#include "codegen/LlvmEmitter.h"
#include "codegen/StmtSemantics.h"

namespace tcs::llvm_emit {

using ast::Expr;
using ast::ExprKind;
using ast::NameRef;

class Emitter {
 public:
  Emitter(llvm::LLVMContext& c, const LlvmEmitRequest& r)
      : C(c), req_(r), def_(*r.def), shapes_(*r.shapes), nest_(*r.nest),
        layout_(kernel_layout(*r.def, *r.shapes, r.symbolic_sizes)), module_(std::make_unique<llvm::Module>("tcs_" + r.def->name, c)), B(c), dib_(*module_) {}

  std::unique_ptr<llvm::Module> run();
  // fold_initialisations' decision as plain data, nothing emitted.
  FoldedInitialisations folds();

 private:
  struct Env {
    llvm::Function* fn = nullptr;
    llvm::DISubprogram* sp = nullptr;
    std::vector<llvm::Value*> tensors;
    llvm::Value* err = nullptr;
    llvm::Value* pool = nullptr;
    llvm::Value* sizes = nullptr;  // symbolic sizes: the i64 array of the entry's `sizes`
    std::vector<llvm::Value*> iters;  // by iterator number; null where not in scope
    std::vector<llvm::Value*> iter_last;  // a sequential loop's last value, by iterator number
    bool in_parallel = false;
    std::vector<llvm::Value*> stmt_args;  // the current statement's index values (i64)
  };

  // A function taking (tensors..., err, pool, [sizes,] extra i64..., pointers...) with
  // noalias tensors; `sizes` only when the sizes are symbolic.
  Env make_impl(const std::string& name, const std::vector<std::string>& extra,
                const std::vector<std::string>& pointers = {});

  void locate(const LoopNode& n, const Env& env);

  void emit_children(const std::vector<LoopNode>& nodes, Env& env);

  void emit(const LoopNode& n, Env& env);

  // ---- loop control (LlvmEmitter.cpp) -------------------------------------------------

  // The pointer arguments every function takes before its own: err, pool and, with
  // symbolic sizes, sizes.
  size_t common_args() const { return layout_.symbolic ? 3 : 2; }
  // A size expression (Layout.h): a constant, or built from the sizes array.
  llvm::Value* sym(const SymExpr& e, Env& env);

  llvm::Value* lx(const LExpr& e, Env& env);
  llvm::Value* as_int(llvm::Value* v) { return v->getType()->isIntegerTy(1) ? B.CreateZExt(v, i64_) : v; }
  llvm::Value* as_bool(llvm::Value* v) { return v->getType()->isIntegerTy(1) ? v : B.CreateICmpNE(v, B.getInt64(0)); }

  // A stride-1 vector loop of a known trip count, longer than a group of four vectors and
  // not a whole number of groups, runs in two parts (emit_for): the groups, then the rest
  // as masked vectors.
  enum class LoopPart { Whole, Groups, Rest };
  llvm::MDNode* loop_metadata(const LoopNode& n, LoopPart part = LoopPart::Whole);

  std::string loop_name(const LoopNode& n) { return "L" + std::to_string(n.loop_id); }

  // for (iter = lo; iter <= hi; iter += stride), rotated: a guard, then a do-while.
  void emit_loop(const LoopNode& n, Env& env, llvm::Value* lo, llvm::Value* hi,
                 const std::function<void(llvm::Value*)>& body, LoopPart part = LoopPart::Whole);

  void emit_for(const LoopNode& n, Env& env);

  // The loop's iterations become [0, count) for the thread pool; the outlined function
  // receives the tensors, every iterator in scope, the first value and the stride.
  void emit_parallel_for(const LoopNode& n, Env& env);

  // A parallel loop over a total's parts (LoopAnnotation::partial_totals): the statement
  // below it, the slot its output lives in, and the caller's array of the parts' copies.
  struct PartialTotals {
    StmtSemantics sem;
    int slot = -1;
    llvm::Type* type = nullptr;  // the element's type in memory
    llvm::Constant* start = nullptr;  // where a part's copy starts (copy_start_f)
    int64_t numel = 1;  // the output's elements, each part's copy of it
    llvm::Value* parts = nullptr;  // parts x numel
  };
  PartialTotals partial_totals_of(const LoopNode& n, Env& env);
  void combine_partial_totals(const LoopNode& n, const PartialTotals& t, llvm::Value* count, Env& env);

  void emit_if(const LoopNode& n, Env& env);

  // ---- register tiles (LlvmRegisterTile.cpp) ---------------------------------------

  // d(flat offset)/d(iterator) of a read; nullopt when it is not a constant.
  std::optional<int64_t> read_stride(const Expr& e, const std::vector<std::optional<int64_t>>& darg);

  // The right-hand sides the vector form handles: +, -, * and / over reads and float
  // literals, all in the left-hand type; every read broadcast or contiguous along lanes.
  bool vectorisable(const Expr& e, ScalarType t, const std::vector<std::optional<int64_t>>& dv);

  llvm::Value* vexpr(const Expr& e, Env& env, int lanes, const std::vector<std::optional<int64_t>>& dv);

  // A register tile's shape, found before anything of it is emitted.
  struct TilePoint {
    std::vector<int64_t> at;  // offsets from the register loops' first values
    int lanes = 1;   // the vector's width ...
    int active = 1;  // ... and how many of its lanes run (fewer at the end of a constant trip)
  };
  struct RegisterTile {
    std::vector<const LoopNode*> reds;   // the reduction loops carrying the accumulators
    std::vector<const LoopNode*> chain;  // the register loops inside them, outer first
    std::vector<int64_t> trips;
    std::vector<bool> clamped;  // a partial tile's loop: points past the edge redo its last
    const LoopNode* call = nullptr;
    StmtSemantics sem;
    const LoopNode* vloop = nullptr;  // the register loop along the vector's lanes
    std::vector<std::optional<int64_t>> dv;  // the statement's index values along the lanes
    int lanes = 1;
    int64_t lhs_stride = 1;  // elements between the accumulators' lanes in the left-hand side
    std::vector<TilePoint> points;
    // Each register loop's bounds, as the tile sees them: the loop's own, or, where they
    // move with a reduction loop or start inside the tile (a padded convolution's x from
    // max(32 c, 1 - s) to min(32 c + 31, W - s), from its domain guard), the tile it runs
    // within (tile_within); the rest of its bounds are tested in every reduction step,
    // per lane: `from` and `to` (LLVM hoists the tests that do not move).
    std::vector<LExpr> init, upper;
    std::vector<std::vector<LExpr>> from, to;  // per register loop
    bool moving() const {
      for (size_t i = 0; i < from.size(); ++i)
        if (!from[i].empty() || !to[i].empty()) return true;
      return false;
    }
    // The vector loop runs past its edge: its lanes there are masked off, not clamped.
    bool masked() const { return vloop && lanes > 1 && clamped.back(); }
  };
  // The tile below reduction loop `f`, or nullopt when the nest does not have that shape.
  // Sets stmt_ to the tile's statement. Its answer depends on the packs in force (pack_of_).
  std::optional<RegisterTile> plan_register_tile(const LoopNode& f);
  // t.points from its loops, trips and lanes.
  void tile_points(RegisterTile& t);
  // The tile below `f`; false (nothing emitted) when plan_register_tile finds none.
  bool emit_register_tile(const LoopNode& f, Env& env);
  // One tile whose register loops start at `first` (clamped ones end at `last`): its
  // accumulators loaded (or started from the identity), carried through the reduction
  // loops, stored.
  void emit_tile(const RegisterTile& t, const std::vector<llvm::Value*>& first, const std::vector<llvm::Value*>& last,
                 Env& env);

  // Whether every read of a tile with moving bounds reads nothing outside its tensor at
  // the points the bounds leave out.
  bool reads_stay_inside(const RegisterTile& t);
  // Which of the `lanes` lanes of the tile's current vector lie inside its moving bounds
  // (bools), or null when its bounds do not move; with `fixed_only`, inside those of its
  // bounds that do not move with the reduction loops.
  llvm::Value* lanes_inside(const RegisterTile& t, int lanes, Env& env, bool fixed_only = false);
  // first, first + step, ... over `lanes` lanes.
  llvm::Value* lane_values(llvm::Value* first, int lanes, int64_t step);
  // mask &= c, where a null mask or c takes every lane.
  void both(llvm::Value*& mask, llvm::Value* c);
  // v behind an empty assembly statement that nothing folds through (kHeldValueConstraints).
  llvm::Value* hold(llvm::Value* v);

  // Reductions whose register tiles start their accumulators from the identity where the
  // reduction begins (PolyStmt::reduction_first), so their initialisation's own nest is
  // not emitted: sets folds_.
  void fold_initialisations();
  // Whether every call of statement `s` below `n` runs in a register tile that can start
  // from the identity (its summed indices do not move with the register loops).
  bool register_tiles_hold(const LoopNode& n, int s);

  // ---- min and max reductions (LlvmReduction.cpp) -------------------------------------

  // A reduction loop around one min or max statement, written with several vector
  // accumulators; false (nothing emitted) when the loop does not have that shape.
  bool emit_vector_reduction(const LoopNode& f, Env& env);

  // Emits reds[level] and the reduction loops inside it, their PHIs carrying `in`; the
  // innermost body is `step` (accumulators in, updated accumulators out). Returns the
  // accumulators' values after the outermost loop.
  using AccumulatorStep = std::function<std::vector<llvm::Value*>(const std::vector<llvm::Value*>&)>;
  std::vector<llvm::Value*> carry_accumulators(const std::vector<const LoopNode*>& reds, size_t level,
                                               const std::vector<llvm::Value*>& in, Env& env, const AccumulatorStep& step);

  // ---- memory (LlvmEmitter.cpp) -------------------------------------------------------

  llvm::Type* reg_type(ScalarType t);
  llvm::Type* mem_type(ScalarType t) { return t == ScalarType::Bool ? B.getInt8Ty() : reg_type(t); }

  // Slots: the def's tensors, then one local buffer per pack site (LoopNest::packs).
  // Every function takes them all, so outlined parallel loops see the buffers too.
  size_t slots() const { return def_.tensors.size() + nest_.packs.size(); }
  int slot_tensor(int slot) const;  // the tensor a slot holds (a copy of)
  std::string slot_name(int slot) const;
  // Where reads of tensor t go: its own slot, or the buffer of the innermost pack of it.
  int read_slot(int t) const;
  // The strides reads of tensor t use (its own, or its pack buffer's) where they are known
  // when the code is generated (always with fixed sizes); nullopt where they are not.
  std::vector<std::optional<int64_t>> read_strides(int t) const;
  // ---- packs (LlvmPack.cpp) ------------------------------------------------------------

  llvm::Value* read_offset_of(int t, const std::vector<llvm::Value*>& coords, Env& env);
  void emit_pack(const LoopNode& n, Env& env);
  // The copy of a pack site's box into its buffer (not for a local site).
  void copy_into_buffer(const LoopNode& n, Env& env);
  // A pack fetching its next box ahead (PackSite::ahead_iter) while its tiles run.
  struct FetchAhead {
    const PackSite* site = nullptr;
    llvm::Value* origin = nullptr;  // the next box's first element in the tensor; < 0: none
    llvm::Value* tiles_run = nullptr;  // i64 slot: register tiles run since the copy
    int64_t lines = 0, lines_per_row = 0, per_tile = 0;
  };
  // The fetch for pack p where it has one (PackSite::ahead_iter, a sequential loop in
  // scope); its origin is -1 where that loop has no next step or the next box would not
  // lie inside the tensor.
  std::optional<FetchAhead> plan_fetch_ahead(const PackSite& p, Env& env);
  // The next few lines of the innermost pack's next box, at the start of a register tile.
  void fetch_ahead(Env& env);
  // At the start of an iteration of loop n with LoopAnnotation::fetch_ahead: for each
  // tensor the statements below read, the lines one iteration of n moves its first read
  // by, that many iterations on.
  void stream_ahead(const LoopNode& n, Env& env);

  // ---- memory (LlvmEmitter.cpp) -------------------------------------------------------


  llvm::Value* element_ptr(int slot, llvm::Value* offset, Env& env);
  llvm::Value* load(int slot, llvm::Value* offset, Env& env);
  void store(int slot, llvm::Value* offset, llvm::Value* v, Env& env);

  // Row-major offset from per-dimension coordinates (i64).
  llvm::Value* offset(int t, const std::vector<llvm::Value*>& coords, Env& env);

  // ---- statements and expressions (LlvmExpressions.cpp) -------------------------------

  void set_error(int bit, llvm::Value* when, Env& env);

  void emit_call(const LoopNode& n, Env& env);

  llvm::Value* combine(const StmtSemantics& s, llvm::Value* acc, llvm::Value* v);

  llvm::Value* convert(llvm::Value* v, ScalarType from, ScalarType to);
  llvm::Value* float_to_int(llvm::Value* v, ScalarType to);

  llvm::Value* expr(const Expr& e, Env& env);

  llvm::Value* as_bool_value(llvm::Value* v, ScalarType t) { return convert(v, t, ScalarType::Bool); }

  llvm::Value* less(llvm::Value* a, llvm::Value* b, ScalarType t);

  llvm::Value* read(const Expr& e, Env& env) { return load(read_slot(e.ref_id), read_offset(e, env), env); }

  llvm::Value* read_offset(const Expr& e, Env& env);

  llvm::Value* call_builtin(const Expr& e, Env& env);
  // A double (or vector of them) as float rounded to odd: rounded to half afterwards, the
  // result is the double rounded to half once.
  llvm::Value* round_to_odd_float(llvm::Value* d);

  llvm::Value* binary(const Expr& e, Env& env);

  llvm::LLVMContext& C;
  const LlvmEmitRequest& req_;
  const SemaDef& def_;
  const DefShapes& shapes_;
  const LoopNest& nest_;
  KernelLayout layout_;
  std::unique_ptr<llvm::Module> module_;
  llvm::IRBuilder<> B;
  llvm::DIBuilder dib_;
  llvm::DIFile* file_ = nullptr;
  llvm::DICompileUnit* cu_ = nullptr;
  llvm::PointerType* ptr_ = nullptr;
  llvm::IntegerType* i64_ = nullptr;
  llvm::IntegerType* i32_ = nullptr;
  llvm::Function* parallel_for_ = nullptr;
  std::vector<llvm::Function*> impls_;  // every function make_impl made: tensors first, by slot
  const SemaStmt* stmt_ = nullptr;
  std::vector<int> pack_of_;  // per tensor: the pack site its reads use, or -1
  std::vector<FetchAhead> ahead_;  // the packs around the code being emitted that fetch ahead
  llvm::Value* lane_mask_ = nullptr;  // register tile at an edge: the lanes that run (vexpr's loads)
  FoldedInitialisations folds_;  // fold_initialisations' decision, or the request's
};

}  // namespace tcs::llvm_emit
