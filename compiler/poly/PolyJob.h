#pragma once
// Private to compiler/poly: the state one lowering job carries from pass to pass. This is
// the only header that includes isl's C++ bindings; each pass is a function of a PolyJob
// in its own .cpp file, and Lowering.cpp calls them in order.
#include <isl/cpp.h>
#include <isl/options.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "loopnest/LoopNest.h"
#include "options/MappingOptions.h"
#include "poly/Passes.h"
#include "poly/ScheduleTree.h"

namespace tcs::poly {

// Owns the isl context; declared first in PolyJob so it is destroyed after every isl
// object of the job.
struct IslContext {
  isl_ctx* ctx;
  IslContext() : ctx(isl_ctx_alloc()) { isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE); }
  ~IslContext() { isl_ctx_free(ctx); }
  IslContext(const IslContext&) = delete;
  IslContext& operator=(const IslContext&) = delete;
};

// What the passes decided about one loop (one band member), keyed by its stable id.
struct LoopInfo {
  LoopRole role = LoopRole::Scheduled;
  int64_t tile_size = 0;
  bool coincident = false;
  bool parallel = false;
  int vector_width = 0;
  bool reduction = false;  // vectorised as a reduction (not coincident)
  int unroll = 0;
  bool register_tile = false;
  bool accumulate = false;  // the reduction loop around a register tile kept in registers
  bool fixed = false;       // takes one value inside the enclosing tile (tiled by size 1)
  int64_t span = -1;        // values it takes over the band's instances (loop_span); -1: not asked yet
};

// An error in the user's options that only shows once the kernel is known.
struct OptionError {
  std::string message;
};
// Sizes asked to stay symbolic where the kernel needs numbers (a range or subscript that
// is not affine in the sizes).
struct SizesError {
  std::string message;
};

struct PolyJob {
  IslContext owner;
  isl::ctx ctx{owner.ctx};
  const SemaDef& def;
  const DefShapes& shapes;
  const MappingOptions& options;
  // The loop nest keeps the sizes as parameters, valid for every size that satisfies
  // size_conditions (export with symbolic sizes); `shapes` then only guide choices.
  bool symbolic_sizes = false;

  std::vector<PolyStmt> stmts;       // S<k> and S<k>_init, in textual order
  std::vector<std::string> params;   // the size parameters' names in isl text, in def order; empty
                                     // when sizes are fixed before scheduling (sets hold numbers)
  isl::set context;                  // what the AST may assume of the size parameters: their values,
                                     // the universe without parameters, or size_conditions (symbolic)
  isl::union_set domain;
  isl::union_map reads, writes;
  isl::union_map flow, anti, output, reduction;
  isl::schedule initial;             // textual order
  isl::schedule schedule;            // the current schedule tree
  std::map<int, LoopInfo> loops;
  int next_loop_id = 0;
  PolyModelInfo info;

  // Every pack request in force, numbered as the "pack<k>" marks name them: the kernel's
  // cpu.pack and each statement's own list, then the temporaries kept local; `owner` is
  // the options (options_for) whose loops it applies to, `field` how messages name it
  // ("statements.S2.cpu.pack[0]").
  struct Pack {
    PackRequest request;
    std::string field;
    const MappingOptions* owner = nullptr;
    bool local = false;  // a temporary kept in the buffer alone (poly/LocalTemporaries.cpp)
  };
  std::vector<Pack> packs;
  // The temporaries every read of which finds an element written before it, in textual
  // order (poly/LocalTemporaries.cpp): a buffer that starts with anything may hold them.
  std::vector<int> fed_temporaries;
  // Per source statement, the options its loops take: `options`, or with its own fields
  // from options.statements (validated before the job starts).
  std::vector<MappingOptions> statement_options;

  PolyJob(const SemaDef& d, const DefShapes& s, const MappingOptions& o) : def(d), shapes(s), options(o) {
    for (size_t k = 0; k < d.stmts.size(); ++k) statement_options.push_back(*mapping_options_for_statement(o, "S" + std::to_string(k)));
  }
  int stmt_index(const std::string& name) const;
  // The options of the loops over the statements below `n`: those of the first statement
  // with options of its own (a note when another with different ones shares the loops),
  // else the kernel's.
  const MappingOptions& options_for(const isl::schedule_node& n);
  void note(const std::string& n);  // an approximation or fallback, once per text
};

// Part of the schedule pass: sibling loop nests whose outermost loops scan the same rows,
// fused along them (poly/OuterFusion.cpp).
isl::schedule fuse_outer_loops(const PolyJob& job, const isl::schedule& s);
// Whether `f` changes by nothing negative (`zero`: by nothing at all) from the source to
// the sink of every dependence in `deps` among the instances below `node` that the loops
// above it do not already separate: a member that keeps a band permutable (coincident),
// or rows that fusion along `f` keeps apart (OuterFusion.cpp).
bool distances_hold(const isl::schedule_node& node, const isl::union_map& deps, const isl::union_pw_aff& f, bool zero);
// Part of the schedule pass: band members that decrease along a statement's iterators,
// run forwards where the dependences allow (poly/ForwardLoops.cpp).
isl::schedule turn_loops_forward(const PolyJob& job, const isl::schedule& s);
// Part of the schedule pass: per reduction, the summed-index values where the schedule
// reaches each left-hand element first, when it can tell (stmts' reduction_first;
// poly/ReductionStarts.cpp).
void find_reduction_starts(PolyJob& job);

// The last pass: the schedule tree becomes a LoopNest (the other passes are in Passes.h).
LoopNest build_loop_nest(PolyJob& job);

// Packing, as the AST pass sees it: the request a "pack<k>" mark stands for (-1 for
// other marks), and the box of the requested tensor that the loops below the mark read,
// its offset as AST expressions over the loops above.
struct PackBox {
  std::vector<isl::ast_expr> offset;
  std::vector<int64_t> size;  // empty: nothing below reads the tensor
};
int pack_request_of(const std::string& mark);
PackBox pack_box(const PolyJob& job, int request, isl_ast_build* build);

// Shared helpers for the passes.
// The accesses among `all` (reads or writes) to tensor `tensor`.
isl::union_map accesses_of(const isl::union_map& all, const std::string& tensor);
// Puts a mark with this name above `node`; returns the mark.
isl::schedule_node insert_named_mark(isl::schedule_node node, const std::string& name);
// Puts a mark naming fresh loop ids directly above `band`; returns the band below it.
isl::schedule_node_band mark_band(PolyJob& job, isl::schedule_node_band band, LoopRole role,
                                  const std::vector<int64_t>& tile_sizes = {});
// The loop ids a band mark names ("L3_4_5" -> {3, 4, 5}); empty when it is not ours.
std::vector<int> band_mark_ids(const std::string& mark_name);
// The mark naming these loop ids, in order ({3, 4, 5} -> "L3_4_5").
std::string band_mark_name(const std::vector<int>& ids);
ScheduleNode snapshot_schedule(const PolyJob& job);

// What the C++ bindings of isl 0.25 lack.
template <class T>
std::string isl_text(const T& x) {
  std::ostringstream os;
  os << x;
  return os.str();
}
inline isl::union_set node_domain(const isl::schedule_node& n) {
  return isl::manage(isl_schedule_node_get_domain(n.get()));
}
inline isl::schedule_node node_delete(const isl::schedule_node& n) {
  return isl::manage(isl_schedule_node_delete(n.copy()));
}
// The statements below a node, for messages: "S0_init, S0".
inline std::string statement_list(const isl::schedule_node& n) {
  std::string r;
  node_domain(n).foreach_set([&](isl::set s) { r += (r.empty() ? "" : ", ") + std::string(isl_set_get_tuple_name(s.get())); });
  return r;
}
// isl::manage refuses NULL, which some isl getters return for "none" (no annotation, no
// fixed box) or on an error: those go through this, giving a null object instead.
template <class T>
auto manage_maybe(T* p) -> decltype(isl::manage(p)) {
  return p ? isl::manage(p) : decltype(isl::manage(p))();
}

inline std::string mark_name(const isl::schedule_node& n) {
  auto id = manage_maybe(isl_schedule_node_mark_get_id(n.get()));
  return id.is_null() || !isl_id_get_name(id.get()) ? std::string() : std::string(isl_id_get_name(id.get()));
}
// The number of values band member `i` takes over the instances reaching the band: 0 when
// it is not a known constant (symbolic sizes), else max - min + 1 in schedule units.
// With `context`, under the sizes it fixes (those left symbolic while scheduling).
int64_t band_member_span(const isl::schedule_node_band& band, int i, const isl::set* context = nullptr);
// band_member_span of member `i`, whose loop id is `id`, computed once per job.
int64_t loop_span(PolyJob& job, const isl::schedule_node_band& band, int i, int id);

}  // namespace tcs::poly
