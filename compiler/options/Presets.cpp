// Presets: options chosen from the kernel's class and the host's vector registers.
#include "options/MappingOptions.h"

#include <algorithm>

#include "lang/Sema.h"
#include "support/HostCpu.h"

namespace tcs {

std::string_view fusion_strategy_name(FusionStrategy f) {
  switch (f) {
    case FusionStrategy::Max: return "Max";
    case FusionStrategy::Preserve3Coincident: return "Preserve3Coincident";
    case FusionStrategy::Min: return "Min";
  }
  return "?";
}

std::string_view kernel_class_name(KernelClass k) {
  switch (k) {
    case KernelClass::Contraction: return "contraction";
    case KernelClass::Reduction: return "reduction";
    case KernelClass::Elementwise: return "elementwise";
  }
  return "?";
}

KernelClass classify_kernel(const SemaDef& def) {
  bool reduction = false;
  for (const SemaStmt& s : def.stmts) {
    const ast::Stmt& a = *s.ast;
    if (a.reduce == ast::ReduceOp::None || int(s.indices.size()) == s.lhs_rank) continue;
    reduction = true;
    const ast::Expr& r = *a.rhs;
    bool product_of_reads = a.reduce == ast::ReduceOp::Sum && r.kind == ast::ExprKind::Binary &&
                            r.op == TokenKind::Star && r.args[0]->kind == ast::ExprKind::Access &&
                            r.args[1]->kind == ast::ExprKind::Access;
    if (product_of_reads) return KernelClass::Contraction;
  }
  return reduction ? KernelClass::Reduction : KernelClass::Elementwise;
}

std::vector<std::string> mapping_preset_names() { return {"naive", "default", "contraction", "reduction", "elementwise"}; }

namespace {

// The statement a contraction preset shapes the schedule around: a sum of products whose
// left-hand side has at least two indices (matmul and its transposed and batched forms,
// convolutions). Its last two left-hand indices become the register tile's rows and
// vector columns; indices before them are batch loops; the summed ones run around the
// register tile.
const SemaStmt* contraction_stmt(const SemaDef& def) {
  for (const SemaStmt& s : def.stmts)
    if (s.ast->reduce == ast::ReduceOp::Sum && s.lhs_rank >= 2 && int(s.indices.size()) > s.lhs_rank) return &s;
  return nullptr;
}

// The read of the product `s` whose subscripts do not use index `idx`, if one does not.
const ast::Expr* operand_without(const SemaStmt& s, int idx) {
  const ast::Expr& r = *s.ast->rhs;
  if (r.kind != ast::ExprKind::Binary || r.op != TokenKind::Star) return nullptr;
  for (const auto& operand : r.args) {
    if (operand->kind != ast::ExprKind::Access || operand->ref != ast::NameRef::Tensor) continue;
    bool uses = false;
    for (const AccessConstraint& c : s.constraints)
      for (const auto& sub : operand->args)
        if (c.subscript == sub.get())
          for (int i : c.indices) uses = uses || i == idx;
    if (!uses) return operand.get();
  }
  return nullptr;
}

MappingOptions contraction_preset(const SemaStmt& s) {
  // Register tiles sized for the host's vector registers: 8 rows of two 16-wide vectors
  // with AVX-512 (16 of its 32 registers), 6 rows of two 8-wide vectors with AVX2 (12 of
  // 16). Cache tiles are multiples of them, so no register tile straddles two.
  bool wide = host_vector_bytes() >= 64;
  int64_t rows = wide ? 8 : 6, cols = wide ? 32 : 16, cache_cols = wide ? 512 : 256, cache_k = wide ? 256 : 128;
  int L = s.lhs_rank, n = int(s.indices.size());
  MappingOptions o;
  o.outer_fusion = FusionStrategy::Min;  // the initialisation in a nest of its own
  for (int i = 0; i < n; ++i) {
    bool batch = i < L - 2, reduced = i >= L;
    o.tile.push_back(batch ? 1 : i == L - 2 ? 96 : i == L - 1 ? cache_cols : i == n - 1 ? cache_k : 1);
    if (!reduced) o.register_tile.push_back(batch ? 1 : i == L - 2 ? rows : cols);
  }
  // Point loops: batch, then the summed ones, then the register tile's rows and columns.
  for (int i = 0; i < L - 2; ++i) o.cpu.point_loop_order.push_back(i);
  for (int i = L; i < n; ++i) o.cpu.point_loop_order.push_back(i);
  o.cpu.point_loop_order.push_back(L - 2);
  o.cpu.point_loop_order.push_back(L - 1);
  o.cpu.vector_width = int(host_vector_bytes() / 4);
  o.cpu.register_accumulate = true;
  // A plain matrix product packs the operand the rows share (B of C = A * B): its cache
  // tile is read once per row tile, and the copy turns its rows 4 KiB apart into a dense
  // block. Batched products re-pack per batch entry for little reuse, so they do not.
  if (L == 2)
    if (const ast::Expr* shared = operand_without(s, L - 2)) o.cpu.pack.push_back({shared->name, int(o.tile.size())});
  return o;
}

}  // namespace

Expected<MappingOptions> mapping_preset(std::string_view name, const SemaDef& def) {
  MappingOptions o;
  o.cpu.vector_width = std::max(4, host_vector_bytes() / 4);  // float lanes of the widest register
  if (name == "naive") {
    o.outer_fusion = FusionStrategy::Min;
    o.cpu.parallel = false;
    o.cpu.vectorize = false;
    return o;
  }
  const SemaStmt* contraction = contraction_stmt(def);
  if (name == "contraction" && !contraction)
    return Error{ErrorKind::Options, "preset 'contraction' needs a sum of products with at least two left-hand indices and a summed "
                 "one; '" + def.name + "' has none"};
  if (name == "contraction" || (name == "default" && classify_kernel(def) == KernelClass::Contraction && contraction)) {
    MappingOptions c = contraction_preset(*contraction);
    c.best_effort = true;
    return c;
  }
  if (name == "default" || name == "reduction" || name == "elementwise") {
    // Other kernels: statements apart, the outer parallel loop on threads, the inner
    // parallel loop vectorised; no tiling until the tuner finds better.
    o.outer_fusion = FusionStrategy::Min;
    return o;
  }
  std::string known;
  for (const std::string& n : mapping_preset_names()) known += (known.empty() ? "" : ", ") + n;
  return Error{ErrorKind::Options, "unknown preset '" + std::string(name) + "' (known presets: " + known + ")"};
}

}  // namespace tcs
