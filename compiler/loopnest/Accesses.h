#pragma once
// A plain-data view of what every statement of a loop nest reads and writes, for the
// tuner's features and the schedule explorers' footprints: per statement instance in the
// nest, its enclosing loops and, per access, the tensor, each subscript as an affine form
// of the statement's indices (when it is one), and how many elements the accessed address
// moves when each enclosing loop advances by one.
#include <cstdint>
#include <optional>
#include <vector>

#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "loopnest/LoopNest.h"

namespace tcs {

struct SubscriptForm {
  bool affine = false;  // false: data-dependent or not affine (strides are then unknown)
  std::vector<std::pair<int, int64_t>> coefs;  // (statement index, coefficient)
  SymExpr rest;  // the part over sizes: subscript = sum coef * index + rest
};

struct LoopStride {
  int loop_id = -1;
  std::optional<int64_t> elements;  // nullopt: the address does not move affinely with it
};

struct TensorAccess {
  int tensor = -1;  // SemaDef::tensors index
  bool write = false;
  std::vector<SubscriptForm> subscripts;  // one per dimension
  std::vector<LoopStride> strides;        // one per enclosing loop, outer first
};

struct StatementAccesses {
  int stmt = -1;         // LoopNest::stmts index
  int source_stmt = -1;  // SemaDef::stmts index
  std::vector<int> loops;  // loop ids of the enclosing loops, outer first
  std::vector<TensorAccess> accesses;  // the write first, then reads in source order
};

// What polyhedral statement `ps` writes and reads (an initialisation: writes only), in
// the order of StatementAccesses::accesses, without strides.
std::vector<TensorAccess> statement_accesses(const SemaDef& def, const PolyStmt& ps);

// One entry per statement call in the nest, in the nest's order.
std::vector<StatementAccesses> loop_nest_accesses(const SemaDef& def, const DefShapes& shapes, const LoopNest& nest);

}  // namespace tcs
