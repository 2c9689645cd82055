// Presets: options chosen from the kernel's class and the host's vector registers.
#include "options/MappingOptions.h"

#include <algorithm>
#include <optional>
#include <set>

#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "options/OptionsSchema.h"
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

namespace {

// The tensor read `e` is, through any conversions around it (a quantised product's
// int32(A(m, k))), or none.
const ast::Expr* read_in(const ast::Expr& e) {
  const ast::Expr* x = &e;
  while (x->kind == ast::ExprKind::Cast && !x->args.empty()) x = x->args[0].get();
  return x->kind == ast::ExprKind::Access && x->ref == ast::NameRef::Tensor ? x : nullptr;
}

}  // namespace

KernelClass classify_kernel(const SemaDef& def) {
  bool reduction = false;
  for (const SemaStmt& s : def.stmts) {
    const ast::Stmt& a = *s.ast;
    if (a.reduce == ast::ReduceOp::None || int(s.indices.size()) == s.lhs_rank) continue;
    reduction = true;
    const ast::Expr& r = s.value();
    bool product_of_reads = a.reduce == ast::ReduceOp::Sum && r.kind == ast::ExprKind::Binary &&
                            r.op == TokenKind::Star && read_in(*r.args[0]) && read_in(*r.args[1]);
    if (product_of_reads) return KernelClass::Contraction;
  }
  return reduction ? KernelClass::Reduction : KernelClass::Elementwise;
}

std::vector<std::string> mapping_preset_names() { return {"naive", "default", "contraction", "reduction", "elementwise"}; }

namespace {

// How many values an index takes.
int64_t values_of(const IndexRange& r) { return r.hi - r.lo + 1; }

// How many instances a statement over these index ranges runs.
int64_t instances_of(const std::vector<IndexRange>& ranges) {
  int64_t points = 1;
  for (const IndexRange& r : ranges) points *= std::max<int64_t>(0, values_of(r));
  return points;
}

// A contraction of up to kOneThreadMacs multiply-adds (about 10 us on one core) that packs
// kSharedPackBytes or more stays on one thread: see mapping_preset.
constexpr int64_t kOneThreadMacs = int64_t(1) << 20;
constexpr int64_t kSharedPackBytes = int64_t(16) << 10;
// A kernel that is no contraction, of at most this many statement instances, runs on one
// thread (see mapping_preset).
constexpr int64_t kOneThreadInstances = 8192;
// A shared operand in the vector loop's order up to this size is read in place (see
// mapping_preset).
constexpr int64_t kInPlaceBytes = int64_t(64) << 10;

// Whether `operand` (a read in statement `s`) uses index `idx` in its subscripts.
bool operand_uses(const SemaStmt& s, const ast::Expr& operand, int idx) {
  for (const AccessConstraint& c : s.constraints)
    for (const auto& sub : operand.args)
      if (c.subscript == sub.get())
        for (int i : c.indices)
          if (i == idx) return true;
  return false;
}

// Whether the operand's last subscript, the one along its contiguous dimension, uses idx.
bool operand_runs_along(const SemaStmt& s, const ast::Expr& operand, int idx) {
  if (operand.args.empty()) return false;
  for (const AccessConstraint& c : s.constraints)
    if (c.subscript == operand.args.back().get() && std::find(c.indices.begin(), c.indices.end(), idx) != c.indices.end())
      return true;
  return false;
}

// The reads of the product `s`, converted or not (none when it is not a product of two
// tensor reads).
std::vector<const ast::Expr*> product_operands(const SemaStmt& s) {
  const ast::Expr& r = s.value();
  if (r.kind != ast::ExprKind::Binary || r.op != TokenKind::Star) return {};
  std::vector<const ast::Expr*> out;
  for (const auto& operand : r.args)
    if (const ast::Expr* read = read_in(*operand)) out.push_back(read);
  return out;
}

// Whether `s` sums products of two float32 reads into float32, one fused multiply-add a
// product: no conversion and no integer multiply between the reads and the sum.
bool float_products(const SemaDef& def, const SemaStmt& s) {
  const ast::Expr& r = s.value();
  auto float32 = [&](int t) { return t >= 0 && def.tensors[size_t(t)].type == ScalarType::Float32; };
  if (r.kind != ast::ExprKind::Binary || r.op != TokenKind::Star || !float32(s.lhs_tensor)) return false;
  return std::all_of(r.args.begin(), r.args.end(), [&](const auto& a) {
    return a->kind == ast::ExprKind::Access && a->ref == ast::NameRef::Tensor && float32(a->ref_id);
  });
}

// The read of the product `s` whose subscripts do not use index `idx`, if one does not.
const ast::Expr* operand_without(const SemaStmt& s, int idx) {
  for (const ast::Expr* operand : product_operands(s))
    if (!operand_uses(s, *operand, idx)) return operand;
  return nullptr;
}

// The register tile's rows: a left-hand index (not the vector one) that the operand read
// along the vector does not use, so one vector load serves every row. For a matrix
// product that is m; for a convolution O(n, f, h, w) it is f (the input uses h).
// `v` is the vector loop's index (vector_index); the last left-hand one when -1.
int register_rows_index(const SemaStmt& s, int v = -1) {
  int L = s.lhs_rank;
  if (v < 0) v = L - 1;
  std::vector<const ast::Expr*> ops = product_operands(s);
  for (int i = L - 2 + (v < L - 1); i >= 0; --i) {
    if (i == v) continue;
    bool shared = true;
    for (const ast::Expr* op : ops)
      if (operand_uses(s, *op, v) && operand_uses(s, *op, i)) shared = false;
    if (shared) return i;
  }
  return L - 2;
}

// The statement a contraction preset shapes the schedule around: a sum of products whose
// left-hand side has at least two indices (matmul and its transposed and batched forms,
// convolutions). Its last left-hand index (or an earlier one, vector_index) becomes the
// register tile's vector columns and another its rows (register_rows_index); other
// left-hand indices are batch loops; the summed ones run around the register tile. A
// plain sum (an attention's row sums of P) is none: tiled as one, its summed loop ran
// outside the threads' loop, one parallel region per summed value. Nor is a product whose
// operands both move with the register tile's rows (a batched matrix-vector product,
// y(b, i) +=! A(b, i, j) * x(b, j)): no vector load would serve several rows, and its
// vectors ran down A's columns, one row apart per lane (64 x 256 x 256: 4.85 ms against
// 0.3 summing A's rows in vectors).
bool is_contraction(const SemaStmt& s) {
  return s.ast->reduce == ast::ReduceOp::Sum && s.lhs_rank >= 2 && int(s.indices.size()) > s.lhs_rank &&
         product_operands(s).size() == 2 && operand_without(s, register_rows_index(s));
}

// A reduction over summed indices that is no contraction (a row sum, a column maximum).
bool is_plain_reduction(const SemaStmt& s) {
  return s.ast->reduce != ast::ReduceOp::None && int(s.indices.size()) > s.lhs_rank && !is_contraction(s);
}

const SemaStmt* contraction_stmt(const SemaDef& def) {
  for (const SemaStmt& s : def.stmts)
    if (is_contraction(s)) return &s;
  return nullptr;
}

// The cache tile along a matrix product's rows: the largest that works, since each row
// tile copies the shared operand's cache tile again, and only a register tile's rows of
// the other operand need stay in a cache while the copy is swept. All of them up to 128,
// or up to about 512 where the columns make four cache tiles or more (the parallel loop
// then runs over column tiles, each thread packing only its own): 256 x 1024 x 1024 on
// one Intel core (AVX-512) ran 186 GFLOP/s in one tile against 170 in two of 132; 132
// rows 176 against 152 in 72 + 60; on two cores 376 against 357 and 365 against 306.
// Else a multiple of the register tile's `rows` from 48 to about 512 that splits them into
// tiles two threads share evenly, so neither waits on a lone tile: 516 x 2 for 1024 rows
// of 12, not 96 x 11. sgemm 1024^3 on that core: 165 GFLOP/s with tiles of 128 rows, 186
// with 264, 197 with 516; on two, 335, 377 and 412.
int64_t row_tile(int64_t extent, int64_t rows, bool columns_share) {
  if (extent <= 0) return 96;
  const int64_t first = rows * ((48 + rows - 1) / rows), last = rows * ((512 + rows - 1) / rows);
  if (extent <= 128 || (columns_share && extent <= last)) return (extent + rows - 1) / rows * rows;
  auto load = [&](int64_t t) { return (extent + 2 * t - 1) / (2 * t) * t; };  // one thread's rows
  int64_t least = extent;
  for (int64_t t = first; t <= last; t += rows) least = std::min(least, load(t));
  int64_t best = first;  // the largest tile within 3 % of the least load
  for (int64_t t = first; t <= last; t += rows)
    if (load(t) * 100 <= least * 103) best = t;
  return best;
}

// An index that takes one value (a batch of 1) is no loop: isl's scheduler makes no band
// member of it once the sizes are fixed, and options' sizes apply to members in order.
// Left in, every size after it landed one loop early: conv 64x30x30 -> 64 with N=1 ran
// at 1.8 GFLOP/s, its 8 register rows on h and 32 columns on c. Drops the tile, register
// tile and point order entries of the indices whose `extents` are 1.
void leave_out_single_values(MappingOptions& o, const std::vector<int64_t>& extents) {
  std::vector<int> member(extents.size(), -1);
  int members = 0;
  for (size_t i = 0; i < extents.size(); ++i)
    if (extents[i] != 1) member[i] = members++;
  if (size_t(members) == extents.size()) return;
  auto keep = [&](std::vector<int64_t>& sizes) {
    std::vector<int64_t> kept;
    for (size_t i = 0; i < sizes.size(); ++i)
      if (member[i] >= 0) kept.push_back(sizes[i]);
    sizes = std::move(kept);
  };
  keep(o.tile);
  keep(o.register_tile);
  std::vector<int> order;
  for (int i : o.cpu.point_loop_order)
    if (member[size_t(i)] >= 0) order.push_back(member[size_t(i)]);
  o.cpu.point_loop_order = std::move(order);
}

// The left-hand index along the vector's lanes: the last one, unless it fills less than
// half a vector and an earlier one fills whole vectors and is read by one operand only,
// the other then serving the register tile's rows and not reading the last index (a
// weight gradient's dW(k, c, r, s): along c, with I(n, c, h + r, w + s) in vectors and
// dO(n, k, h, w) broadcast per row k; along s, 3 of 16 lanes ran, 28.7 GFLOP/s at
// 32x64x28² -> 64 on one Zen 4 core, against 101 along c). The latest such index is
// taken. A batched product of three columns keeps its tile: its other operand reads them,
// and along its rows it measured no faster (memory-bound either way).
int vector_index(const SemaDef& def, const SemaStmt& s, const std::vector<IndexRange>* ranges, int lanes) {
  int L = s.lhs_rank;
  auto extent = [&](int i) -> int64_t { return ranges && size_t(i) < ranges->size() ? values_of((*ranges)[size_t(i)]) : 0; };
  if (extent(L - 1) <= 1 || 2 * extent(L - 1) >= lanes) return L - 1;  // one value: no loop
  std::vector<const ast::Expr*> ops = product_operands(s);
  if (ops.size() != 2) return L - 1;
  for (int i = L - 2; i >= 0; --i) {
    if (extent(i) < lanes || operand_uses(s, *ops[0], i) == operand_uses(s, *ops[1], i)) continue;
    bool first = operand_uses(s, *ops[0], i);
    const ast::Expr *vectors = first ? ops[0] : ops[1], *broadcast = first ? ops[1] : ops[0];
    // The vector operand is packed: not a tensor the kernel writes (KRU3's XW2, which
    // the loops around the copy would still be writing).
    if (std::any_of(def.stmts.begin(), def.stmts.end(), [&](const SemaStmt& w) { return w.lhs_tensor == vectors->ref_id; }))
      continue;
    int r = register_rows_index(s, i);
    if (r != i && operand_without(s, r) != broadcast && operand_uses(s, *broadcast, r) &&
        !operand_uses(s, *broadcast, L - 1))
      return i;
  }
  return L - 1;
}

std::optional<PackRequest> shared_operand_pack(const SemaStmt& s, int v, int depth, int64_t whole_bytes);

// `columns_per_thread`: rows that fit one cache tile leave the columns to the threads,
// even where they would fit one tile (see mapping_preset).
MappingOptions contraction_preset(const SemaDef& def, const SemaStmt& s, const std::vector<IndexRange>* ranges,
                                  bool columns_per_thread) {
  // Register tiles sized for the host's vector registers: 8 rows of two 16-wide vectors
  // with AVX-512 (16 of its 32 registers; 24 for a matrix product, below), 6 rows of two
  // 8-wide vectors with AVX2 (12 of 16). Cache tiles are multiples of them, so no
  // register tile straddles two (one that did, 12 rows in tiles of 128, ran sgemm 1024^3
  // at 38 GFLOP/s).
  bool wide = host_vector_bytes() >= 64;
  int lanes = int(host_vector_bytes() / 4);
  int64_t rows = wide ? 8 : 6, cols = wide ? 32 : 16, cache_cols = wide ? 512 : 256, cache_k = wide ? 256 : 128;
  int L = s.lhs_rank, n = int(s.indices.size());
  int v = vector_index(def, s, ranges, lanes), r = register_rows_index(s, v);
  auto extent = [&](int i) -> int64_t {
    if (!ranges || size_t(i) >= ranges->size()) return 0;
    return values_of((*ranges)[size_t(i)]);
  };
  int h = -1;  // a second register-tile row index, in front of the vector one
  MappingOptions o;
  o.outer_fusion = FusionStrategy::Min;  // the initialisation in a nest of its own
  if (v != L - 1) {
    // Vectors along an earlier index: the shared operand, packed with that index last,
    // is copied inside the outermost summed loop (one value of it a tile where others
    // follow: a weight gradient's n), or once outside every loop when it is small
    // (shared_operand_pack); the rows run in one tile up to 64 (each copy serves every
    // row tile), and the other left-hand indices whole around the register tile, one
    // value at a time.
    // With one tile of vectors, the rows split in two tiles for the threads.
    int64_t er = extent(r);
    if (er > 0) rows = std::min(rows, er);
    int64_t row_tile = std::max(rows, std::min<int64_t>(64, er) / rows * rows);
    if (extent(v) <= cols && er > rows) row_tile = std::min(row_tile, ((er + 1) / 2 + rows - 1) / rows * rows);
    for (int i = 0; i < n; ++i) {
      int64_t e = extent(i);
      int64_t whole = e > 0 && e <= 256 ? e : 64;
      int64_t point = i == r ? rows : i == v ? cols : 1;
      o.tile.push_back(i == L && n > L + 1 ? 1 : i == r ? row_tile : i == v ? cols : whole);
      if (i < L) o.register_tile.push_back(point);
    }
  } else if (r == L - 2) {
    // A product of float reads takes 12 rows with AVX-512, 24 accumulators: fc 128 x 1024
    // x 1024 on one Intel core 174 GFLOP/s against 166 with 8. Other products keep 8: an
    // int32 product is a multiply and an add, a converted operand a conversion, whose
    // results take registers too (int8_matmul ran 0.75x with 12).
    if (wide && float_products(def, s)) rows = 12;
    // Columns that fit one vector (KRU3's 16 d2): a register tile one vector wide, of four
    // rows (measured faster than eight on an earlier host, whose kind the record does not
    // name; the rows' broadcasts bound it) with AVX2, where it was not measured again.
    // With AVX-512, eight where one vector load serves every row: two 16-lane FMA pipes
    // need eight sums in flight (KRU3's first two products on one Intel core 122-125
    // GFLOP/s against 107-113 with four) and the vector is at least half full. A depthwise
    // convolution loads a vector per row and per tap, and its 16 x 16 rows ran 1.5x
    // slower with eight; a batched product of three columns is bound by memory.
    if (int64_t ev = extent(v); ev > 0 && ev <= lanes) {
      std::vector<const ast::Expr*> ops = product_operands(s);
      bool one_load = std::any_of(ops.begin(), ops.end(), [&](const ast::Expr* op) {
        return operand_uses(s, *op, v) && !operand_uses(s, *op, r);
      });
      cols = lanes;
      rows = wide && one_load && 2 * ev >= lanes ? 8 : 4;
    }
    // A shared operand stored columns first (a linear layer's W(out, in)) is copied
    // transposed, reading its rows along the summed index: a tile of up to 1024 of it (a
    // 4 KiB page of floats) gives the prefetcher long runs, and 128 columns keep the copy
    // at 512 KiB. On one Intel core (AVX-512), cold: W(out, in) of 64 x 1024 x 1024 ran
    // 150-154 GFLOP/s against 140-145 in tiles of 256 x 256, 512 x 512 x 2048 189-190
    // against 169-170 (two cores 384 against 341), 1024^3 200-203 against 188-190. A sum
    // of 256 keeps its tiles: 128 columns ran 128 x 1024 x 256 at 0.9x. So does a product
    // whose rows' operand is read across the sum too (A(k, m): each row tile's 1024 lines
    // of it spilled from L1, 0.52x at 512 x 768 x 1024). Not measured with AVX2, which
    // keeps its tiles.
    bool long_copy = false;
    const ast::Expr* rows_operand = operand_without(s, v);
    if (auto p = shared_operand_pack(s, v, 0, 0); wide && p && !p->order.empty() && extent(n - 1) > cache_k &&
                                                 rows_operand && operand_runs_along(s, *rows_operand, n - 1))
      long_copy = true, cache_cols = 128, cache_k = 1024;
    // Rows in one tile leave the columns to share among threads: four tiles or more (of
    // 128 columns, four or more too: 3 made 384 columns of 256 x 384 x 512 run 0.82x on two).
    int64_t row = row_tile(extent(L - 2), rows, extent(L - 1) >= (long_copy ? 4 : 2) * cache_cols);
    if (row >= extent(L - 2) && extent(L - 1) >= 2 * cache_cols && !long_copy) cache_cols /= 2;
    // Asked to, columns of one tile split into two halves of whole register tiles. Three
    // register tiles of columns split two to one; the rows then split instead where two
    // tiles of whole register tiles share them evenly (neither 60 % or more), each thread
    // copying the whole shared operand for its half: the bundled 64 x 128 x 96
    // matmul_transposed_b took 9.7 us on two threads so against 8.3 (14.4 and 15.2 on
    // one), 128 x 512 x 96 75 against 60 (112 and 119). Rows of 16 + 1 would have left one
    // thread nearly all the work and a whole copy besides.
    else if (columns_per_thread && row >= extent(L - 2) && extent(L - 1) >= 2 * cols && extent(L - 1) <= cache_cols) {
      int64_t half = (extent(L - 2) + 2 * rows - 1) / (2 * rows) * rows;
      if ((extent(L - 1) + cols - 1) / cols == 3 && half < extent(L - 2) && half * 5 < extent(L - 2) * 3)
        row = half;
      else
        cache_cols = (extent(L - 1) + 2 * cols - 1) / (2 * cols) * cols;
    }
    // The summed loops share one cache tile of cache_k values, the last filled first:
    // a matrix product's k takes 256 of 1024; a depthwise convolution's kh and kw run
    // whole inside each tile, carrying the accumulators (a kh tiled by 1 ran outside the
    // register tile, which stored and reloaded them per kh: 2.7 us for the bundled one
    // against 1.5).
    std::vector<int64_t> summed(size_t(n), 1);
    for (int64_t i = n - 1, left = cache_k; i >= L; --i) {
      int64_t e = extent(int(i));
      summed[size_t(i)] = i == n - 1 ? cache_k : e > 0 && e <= left ? e : 1;
      left /= std::max<int64_t>(1, e > 0 ? std::min(e, left) : left);
    }
    for (int i = 0; i < n; ++i) {
      bool batch = i < L - 2, reduced = i >= L;
      o.tile.push_back(batch ? 1 : i == L - 2 ? row : i == L - 1 ? cache_cols : summed[size_t(i)]);
      if (!reduced) o.register_tile.push_back(batch ? 1 : i == L - 2 ? rows : cols);
    }
  } else {
    // Rows that are not next to the vector loop (a convolution's output channels): the
    // whole output row in vectors (up to four; a masked vector ends it), and as many
    // channels as keep the accumulators within 16 registers (12 with AVX2). The summed
    // loops (c, kh, kw) run whole inside, carrying the accumulators.
    int64_t ev = extent(v), er = extent(r);
    int64_t vectors = ev > 0 ? std::min<int64_t>((ev + lanes - 1) / lanes, 4) : 2;
    cols = vectors * lanes;
    rows = std::max<int64_t>(1, (wide ? 16 : 12) / vectors);
    // An output row of one vector (a group convolution's 14 columns) gives each weight
    // broadcast one FMA per channel row: 16 channels x 1 vector measured 43 GFLOP/s where
    // 4 channels x 2 output rows x 1 vector (fewer accumulators, half the loads per FMA)
    // measured 55. The second output row comes from the index in front of the vector one.
    int64_t hrows = 1;
    if (vectors == 1 && extent(L - 2) >= 2) h = L - 2, hrows = 2, rows = std::min<int64_t>(rows, 4);
    if (er > 0) rows = std::min(rows, er);
    for (int i = 0; i < n; ++i) {
      bool reduced = i >= L;
      int64_t e = extent(i);
      int64_t point = i == r ? rows : i == v ? cols : i == h ? hrows : 1;
      o.tile.push_back(reduced ? (e > 0 && e <= 256 ? e : 64) : point);
      if (!reduced) o.register_tile.push_back(point);
    }
  }
  // Point loops: batch, then the summed ones, then the register tile's rows and columns.
  for (int i = 0; i < L; ++i)
    if (i != r && i != h && i != v) o.cpu.point_loop_order.push_back(i);
  for (int i = L; i < n; ++i) o.cpu.point_loop_order.push_back(i);
  o.cpu.point_loop_order.push_back(r);
  if (h >= 0) o.cpu.point_loop_order.push_back(h);
  o.cpu.point_loop_order.push_back(v);
  o.cpu.vector_width = lanes;
  o.cpu.register_accumulate = true;
  std::vector<int64_t> extents;
  for (int i = 0; i < n; ++i) extents.push_back(extent(i));
  leave_out_single_values(o, extents);
  return o;
}

// The pack request for the operand the register tile's rows share in the product `s`
// (B of C = A * B), or none. A plain matrix product packs it per cache tile (`depth`):
// each tile is read once per row tile, and the copy turns its rows 4 KiB apart into a
// dense block. Any product whose shared operand is stored with the vector index first
// (B(n, k), a linear layer's W(out, in), KRU3's W2(d2, n2)) packs it transposed, so the
// vector loads along the columns stay contiguous: outside every loop when it is small
// (`whole_bytes`, known with the sizes), else per cache tile.
// `v` is the vector loop's index (vector_index).
std::optional<PackRequest> shared_operand_pack(const SemaStmt& s, int v, int depth, int64_t whole_bytes) {
  const ast::Expr* shared = operand_without(s, register_rows_index(s, v));
  if (!shared) return std::nullopt;
  PackRequest p{shared->name, depth, {}};
  int rank = int(shared->args.size()), vdim = -1;
  for (int d = 0; d < rank; ++d)
    for (const AccessConstraint& c : s.constraints)
      if (c.subscript == shared->args[size_t(d)].get() && std::find(c.indices.begin(), c.indices.end(), v) != c.indices.end())
        vdim = d;
  if (vdim >= 0 && vdim != rank - 1) {
    for (int d = 0; d < rank; ++d)
      if (d != vdim) p.order.push_back(d);
    p.order.push_back(vdim);
  }
  bool plain_product = s.lhs_rank == 2 && s.indices.size() == 3;
  if (!plain_product && p.order.empty()) return std::nullopt;
  if (whole_bytes > 0 && whole_bytes <= (64 << 10)) p.depth = 0;
  return p;
}

// Whether a statement reads through windows: a subscript that moves with an output index
// and a summed one (a pooling's 2*h + kh).
bool reads_windows(const SemaDef& def) {
  for (const SemaStmt& s : def.stmts)
    for (const AccessConstraint& c : s.constraints) {
      bool output = false, summed = false;
      for (auto [index, coef] : c.coefs)
        if (coef) (index < s.lhs_rank ? output : summed) = true;
      if (c.subscript && c.affine && output && summed) return true;
    }
  return false;
}

// A kernel of one statement that copies a tensor in another order (a transpose: O(j, i) =
// I(i, j)) reads it a row apart per vector lane. Tiles of one cache line of the read's rows
// (16 floats) by up to kTransposeColumns output columns, the read packed in the output's
// order, turn that into whole lines transposed in vector registers (LlvmPack.cpp) and a
// copy along rows: a 1024 x 1024 transpose took 3.5 ms on one Zen 4 core so and 0.30,
// 1.6 and 0.16 on two; the bundled 160 x 96 one 5.4 and 2.0 us.
constexpr int64_t kTransposeColumns = 512;

void pack_transposed_read(const SemaDef& def, const DefShapes& shapes, MappingOptions& o) {
  if (def.stmts.size() != 1) return;
  const SemaStmt& s = def.stmts[0];
  int L = s.lhs_rank;
  if (L < 2 || int(s.indices.size()) != L) return;
  // Each read: its tensor and its left-hand index per dimension, when every subscript is
  // one of them (a read's subscripts come in order, from dimension 0).
  std::vector<std::pair<int, std::vector<int>>> reads;
  for (const AccessConstraint& c : s.constraints) {
    if (!c.subscript) continue;
    if (c.dim == 0 || reads.empty() || reads.back().first != c.tensor) reads.push_back({c.tensor, {}});
    std::vector<int>& dims = reads.back().second;
    dims.resize(size_t(std::max<int>(int(dims.size()), c.dim + 1)), -2);
    bool plain = c.affine && !c.checked_when_run() && c.coefs.size() == 1 && c.coefs[0].second == 1 && c.rest == SymExpr(0);
    dims[size_t(c.dim)] = plain ? c.coefs[0].first : -1;
  }
  for (const auto& [t, dims] : reads) {
    std::vector<int> sorted = dims;
    std::sort(sorted.begin(), sorted.end());
    bool permutation = int(dims.size()) == L;
    for (int i = 0; permutation && i < L; ++i) permutation = sorted[size_t(i)] == i;
    if (!permutation || t == s.lhs_tensor || dims.back() == L - 1) continue;
    auto extent = [&](int i) { return values_of(shapes.stmts[0][size_t(i)]); };
    if (extent(dims.back()) == 1 || extent(L - 1) == 1) continue;
    int64_t line = 64 / std::max<int64_t>(1, scalar_type_bytes(def.tensors[size_t(t)].type));
    // A tensor read in another order as well (Y(i, j) = X(i, j) + X(j, i)) cannot be one
    // copy in both orders: tiles of one cache line each way keep the lines the permuted
    // read gathers from in the first-level cache (1024^2: 3.4 ms so, 1.14 in tiles of 16
    // x 16, 3.2-3.4 in 16 x 64 to 16 x 512).
    bool read_twice = std::count_if(reads.begin(), reads.end(), [&](const auto& r) { return r.first == t; }) > 1;
    std::vector<int64_t> extents;
    o.tile.clear();
    for (int i = 0; i < L; ++i) {
      extents.push_back(extent(i));
      int64_t columns = read_twice ? line : std::min(extent(i), kTransposeColumns);
      o.tile.push_back(i == dims.back() ? line : i == L - 1 ? columns : 1);
    }
    // The copy's dimension of an index of one value stays where the tensor has it.
    leave_out_single_values(o, extents);
    if (read_twice) return;
    PackRequest pack{def.tensors[size_t(t)].name, int(o.tile.size()), {}};
    for (int i = 0; i < L; ++i)
      pack.order.push_back(int(std::find(dims.begin(), dims.end(), i) - dims.begin()));
    o.cpu.pack = {pack};
    return;
  }
}

// A reduction down columns (a sum over rows, S(j) +=! X(i, j); a mean over a sequence,
// M(b, d) +=! X(b, t, d)) reads its rows along a left-hand index. Summed innermost, as
// isl schedules it, each vector lane read a row apart: a column sum of 4096 x 1024 took
// 31.8 ms on one Zen 4 core. Its summed loops go outside the last left-hand index, which
// runs whole rows in vectors, 0.34-0.46 ms; with no left-hand index in front for the
// threads to share, the rows split in two column halves, fetched four rows ahead (the
// half rows restart the hardware prefetcher at every row: 1.0-1.3 ms on one thread
// without, 0.54-0.64 with; 0.25-0.35 on two).
struct ColumnSum {
  StatementOptions loops;  // its tiles and point order
  bool halves = false;     // its rows split in two column halves
};

std::optional<ColumnSum> column_sum(const SemaDef& def, const DefShapes& shapes, size_t k, int lanes) {
  const SemaStmt& s = def.stmts[k];
  int L = s.lhs_rank, n = int(s.indices.size()), v = L - 1;
  if (!is_plain_reduction(s) || L < 1) return std::nullopt;
  // The last dimension of every tensor read along v follows left-hand indices only, and
  // of one of them v itself; tensors read without v (matvect's x(i)) are one value per
  // vector.
  std::set<int> uses_v;
  for (const AccessConstraint& c : s.constraints)
    if (c.subscript && std::find(c.indices.begin(), c.indices.end(), v) != c.indices.end()) uses_v.insert(c.tensor);
  bool along_v = false, down_columns = true;
  for (const AccessConstraint& c : s.constraints) {
    if (!c.subscript || !uses_v.count(c.tensor) || c.dim + 1 != int(shapes.tensors[size_t(c.tensor)].extent.size())) continue;
    for (int i : c.indices) down_columns = down_columns && i < L;
    along_v = along_v || (c.affine && c.coefs.size() == 1 && c.coefs[0] == std::pair<int, int64_t>{v, 1});
  }
  if (!along_v || !down_columns) return std::nullopt;
  auto extent = [&](int i) { return values_of(shapes.stmts[k][size_t(i)]); };
  int64_t outer = 1;
  for (int i = 0; i < v; ++i) outer *= extent(i);
  ColumnSum sum{{"S" + std::to_string(k), {}}, outer < 2 && extent(v) >= 2 * lanes};
  int64_t chunk = sum.halves ? (extent(v) + 2 * lanes - 1) / (2 * lanes) * lanes : extent(v);
  MappingOptions own;
  std::vector<int64_t> extents;
  for (int i = 0; i < n; ++i) {
    extents.push_back(extent(i));
    own.tile.push_back(i < v ? 1 : i == v ? chunk : extent(i));
    if (i != v) own.cpu.point_loop_order.push_back(i);
  }
  own.cpu.point_loop_order.push_back(v);
  leave_out_single_values(own, extents);
  for (const char* f : {"tile", "cpu.pointLoopOrder"}) sum.loops.fields[f] = option_get(own, *find_option_field(f));
  return sum;
}

// Every reduction down columns summed along rows (column_sum), its initialisation in a
// nest of its own so that its band is tiled alone.
void sum_columns_along_rows(const SemaDef& def, const DefShapes& shapes, MappingOptions& o) {
  for (size_t k = 0; k < def.stmts.size(); ++k)
    if (std::optional<ColumnSum> sum = column_sum(def, shapes, k, o.cpu.vector_width)) {
      o.statements.push_back(sum->loops);
      o.outer_fusion = FusionStrategy::Min;
      if (sum->halves) o.cpu.fetch_ahead = 4;
    }
}

// Whether the threads' loop runs around a copy made `depth` loops into the tiled band of
// options `o`, so that each thread packs its own tiles: a left-hand index above the copy
// has two tiles or more (cpu-marks hands the threads the outermost such loop). With one
// tile of every left-hand index the threads' loop lies inside the copy, which one core
// makes while the other waits.
bool threads_around_copy(const MappingOptions& o, const std::vector<IndexRange>& ranges, int lhs_rank, int depth) {
  for (int i = 0, member = 0; i < lhs_rank && size_t(i) < ranges.size() && member < depth; ++i) {
    int64_t values = values_of(ranges[size_t(i)]);
    if (values == 1) continue;  // no loop is made (leave_out_single_values)
    if (size_t(member) < o.tile.size() && o.tile[size_t(member)] > 0 && o.tile[size_t(member)] < values) return true;
    ++member;
  }
  return false;
}

// The bytes of packed copies that every thread reads: made once a call, outside every
// loop, or again for each cache tile of the loops around the threads' loop (while the
// other threads wait).
struct SharedPacks {
  int64_t once = 0, per_tile = 0;
  int64_t all() const { return once + per_tile; }
};

// The options of a kernel whose statement `contraction` is a sum of products: its preset,
// per-statement options for its other statements that need them, and a pack of each
// product's shared operand. `packed` counts the packed bytes every thread reads.
MappingOptions contraction_kernel_options(const SemaDef& def, const DefShapes* shapes, const SemaStmt& contraction,
                                          bool columns_per_thread, SharedPacks& packed) {
  auto ranges_of = [&](const SemaStmt& s) { return shapes ? &shapes->stmts[size_t(&s - def.stmts.data())] : nullptr; };
  MappingOptions c = contraction_preset(def, contraction, ranges_of(contraction), columns_per_thread);
  for (size_t k = 0; k < def.stmts.size(); ++k) {
    const SemaStmt& s = def.stmts[k];
    // A reduction that is no product (an attention's row maximum and row sum) sums
    // its rows in vectors: the products' register tile would put its rows on the
    // vector lanes, or leave it scalar. One down columns sums along its rows (not
    // fetched ahead, which the products' loops do not want).
    if (is_plain_reduction(s)) {
      StatementOptions so{"S" + std::to_string(k), {{"registerTile", "[]"}, {"cpu.registerAccumulate", "false"}, {"cpu.pointLoopOrder", "[]"}}};
      if (shapes)
        if (std::optional<ColumnSum> sum = column_sum(def, *shapes, k, c.cpu.vector_width))
          for (const auto& [field, value] : sum->loops.fields) so.fields[field] = value;
      c.statements.push_back(so);
      continue;
    }
    if (!is_contraction(s)) continue;
    MappingOptions own = contraction_preset(def, s, ranges_of(s), columns_per_thread);
    // Its columns split, each thread packs the half it reads.
    bool own_columns = columns_per_thread && own != contraction_preset(def, s, ranges_of(s), false);
    // Every other contraction (KRU3's chain, an attention's two products) is tiled for
    // its own shape where that differs from the first's: per-statement options.
    if (&s != &contraction) {
      StatementOptions so{"S" + std::to_string(k), {}};
      for (const char* f : {"tile", "registerTile", "cpu.pointLoopOrder"})
        if (std::string v = option_get(own, *find_option_field(f)); v != option_get(c, *find_option_field(f))) so.fields[f] = v;
      if (!so.fields.empty()) c.statements.push_back(so);
    }
    // Its shared operand packed, each tensor once. Batched products re-pack per batch
    // entry for little reuse, so they do not unless the copy transposes.
    int64_t bytes = 0, row_bytes = 0;
    int v = vector_index(def, s, ranges_of(s), c.cpu.vector_width);
    const ast::Expr* shared = operand_without(s, register_rows_index(s, v));
    if (shapes && shared) {
      int t = def.find_tensor(shared->name);
      int64_t element = scalar_type_bytes(def.tensors[size_t(t)].type);
      bytes = shapes->tensors[size_t(t)].numel() * element;
      if (!shapes->tensors[size_t(t)].extent.empty()) row_bytes = shapes->tensors[size_t(t)].extent.back() * element;
    }
    // A small operand already in the vector loop's order whose rows do not fall on one
    // cache set (a pitch not a multiple of 2 KiB) is read in place: a copy of it per
    // call cost more than it saved and, read by both threads, kept the product on one.
    // The bundled 64 x 128 x 96 matmul took 0.0143 ms packed on one or two threads,
    // 0.0135 in place on one and 0.0071 on two.
    bool in_place = bytes > 0 && bytes <= kInPlaceBytes && row_bytes % 2048 != 0;
    // Vectors along an earlier index (known only with the sizes) copy the operand inside
    // the outermost summed loop: the band's loops up to it, less those of indices of one
    // value (no loop is made).
    int depth = int(c.tile.size());
    if (v != s.lhs_rank - 1)
      depth = int(std::count_if(ranges_of(s)->begin(), ranges_of(s)->begin() + s.lhs_rank + 1,
                                [](const IndexRange& r) { return values_of(r) != 1; }));
    if (auto p = shared_operand_pack(s, v, depth, own_columns ? 0 : bytes);
        p && !(in_place && p->order.empty()) && std::none_of(c.cpu.pack.begin(), c.cpu.pack.end(), [&](const PackRequest& q) { return q.tensor == p->tensor; })) {
      // One that follows the outermost index (an attention's K(b, s, d)) is copied inside
      // its loop, which the threads split: each copies its own entries. Copied once in
      // front of the loops, one core made the whole copy while the other waited, and the
      // copy kept the loops on either side of it apart (loopnest/JoinParallelLoops.h): the
      // bundled attention took 5.5 us on two threads so and 4.1 inside (7.3 on one).
      if (p->depth == 0 && shapes && operand_uses(s, *shared, 0) && values_of((*ranges_of(s))[0]) >= 2) p->depth = 1;
      c.cpu.pack.push_back(*p);
      // Read by every thread unless it follows the outermost index, which they split
      // (an attention's K(b, s, d) over the batch b), or each thread packs its own tiles.
      if (!operand_uses(s, *shared, 0) && !(shapes && threads_around_copy(own, *ranges_of(s), s.lhs_rank, p->depth)))
        (p->depth == 0 ? packed.once : packed.per_tile) += bytes;
    }
  }
  return c;
}

}  // namespace

Expected<MappingOptions> mapping_preset(std::string_view name, const SemaDef& def, const DefShapes* shapes) {
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
  // A product of fewer than four rows whose shared operand is stored with the vector index
  // first (a linear layer's W(out, in) at batch 1) is dot products along W's rows: the
  // default's plain loops read them in order. Packed transposed for a register tile, the
  // whole of W was copied per call for a row or two of use: a 1024 x 1024 layer at batch 1
  // took 0.164 ms so and 0.045 as dot products (batch 2: 0.181 and 0.090; at 4 the tile
  // wins by 1.17x, at 8 by 1.33x). A plain B(k, n) keeps its tile (0.13 ms at M=1, 3.5 as
  // dot products down B's columns).
  auto dot_products = [&] {
    if (!contraction || !shapes) return false;
    const std::vector<IndexRange>& ranges = shapes->stmts[size_t(contraction - def.stmts.data())];
    const IndexRange& rows = ranges[size_t(register_rows_index(*contraction))];
    auto pack = shared_operand_pack(*contraction, contraction->lhs_rank - 1, 0, 0);
    return values_of(rows) < 4 && pack && !pack->order.empty();
  };
  if (name == "contraction" ||
      (name == "default" && classify_kernel(def) == KernelClass::Contraction && contraction && !dot_products())) {
    SharedPacks shared;
    MappingOptions c = contraction_kernel_options(def, shapes, *contraction, false, shared);
    // A product whose packed copy every thread reads (its rows and columns each in one
    // cache tile: the threads' loop runs inside the copy) splits its columns between the
    // threads, each packing its own half inside the column loop; a small one that cannot
    // runs on one thread. With one copy, made by one core while the other waits, then
    // read by both, a 512-input linear layer of 64 rows and 256 outputs took 0.137-0.157
    // ms on two threads against 0.155 on one, and 0.083 with the columns split; at 256
    // inputs and 128 outputs 0.033 against 0.038, split 0.021. For a small product on a
    // shared 2-core host the one copy was a gamble per process: mlp2 (786 k
    // multiply-adds, 216 KiB packed) took 0.018 ms on one thread and 0.018, 0.038 or 0.13
    // on two. With the columns split a 256-input linear layer of 32 rows took 0.0122 ms on
    // two threads against 0.0205 on one; the bundled matmul_transposed_b 0.0097-0.0101
    // against 0.0144, swiglu_ffn 0.0064-0.0072 against 0.0092. A chain of products (mlp2,
    // mlp3) reads each layer's rows from both threads' halves, and reads 1-2x faster by
    // process. Small products that pack nothing (batched ones, convolutions), little
    // (KRU3's 512-byte W2) or per thread (attention) gain 1.3-2x on two as they are. A
    // larger product keeps a copy made once outside every loop: split, each thread would
    // copy its half again for every tile (KRU3 at 128 x 128^3 -> 64^3: 0.76 s on one
    // thread so, 0.83 split).
    if (shapes && shared.all() >= kSharedPackBytes) {
      int64_t macs = 0;
      for (size_t k = 0; k < def.stmts.size(); ++k)
        if (is_contraction(def.stmts[k])) macs += instances_of(shapes->stmts[k]);
      bool small = macs <= kOneThreadMacs;
      if (small || shared.per_tile >= kSharedPackBytes) {
        SharedPacks left;
        MappingOptions split = contraction_kernel_options(def, shapes, *contraction, true, left);
        if (left.all() < kSharedPackBytes) c = split;
        else if (small) c.cpu.parallel = false;
      }
    }
    c.best_effort = true;
    return c;
  }
  if (name == "default" || name == "reduction" || name == "elementwise") {
    // Other kernels: statements fused while three outer loops stay parallel (a pooling's
    // initialisation and its max in one pass over the output: 3x faster than apart), the
    // outer parallel loop on threads, the inner loop vectorised; no tiling until the tuner
    // finds better.
    o.outer_fusion = FusionStrategy::Preserve3Coincident;
    // Reads through windows (a subscript that moves with an output index and a summed
    // one): a pooling reads short runs of several rows per output row, which the hardware
    // prefetcher does not follow: 2x2 max pooling of 32x64x112^2 ran 1.15-1.5x faster on
    // one core with its rows fetched four output rows ahead (no change on two cores,
    // where memory is the limit either way; none either for softmax or layernorm, whose
    // rows are long).
    if (reads_windows(def)) o.cpu.fetch_ahead = 4;
    if (shapes) pack_transposed_read(def, *shapes, o);
    if (shapes) sum_columns_along_rows(def, *shapes, o);
    // A kernel of a few thousand statement instances runs on one thread: its work is a
    // fraction of a microsecond, less than handing half of it to another core costs.
    // The bundled 2x2 poolings (5-6 k instances) took 0.22-0.24 us on one thread and
    // 0.36-0.41 on two; embedding (2 k) 0.11 and 0.30; rmsnorm and kronecker (8 k, 6 k)
    // 0.49 and 0.44 against 0.53 and 0.54. From 12 k (argmin, layernorm) two gain.
    if (shapes) {
      int64_t instances = 0;
      for (const std::vector<IndexRange>& ranges : shapes->stmts) instances += instances_of(ranges);
      if (instances <= kOneThreadInstances) o.cpu.parallel = false;
    }
    // Outputs that cannot stay in the last-level cache leave it whatever the stores do:
    // stored past it they are not read in from memory first. That is so when the inputs
    // and outputs together exceed it, since the reads evict what was written (a layernorm
    // of 16384 x 1024, 64 MiB each way, on a Zen 4 with 32 MiB: 5.1-5.4 ms against 7.7-7.8
    // on one thread, 2.9-3.1 against 6.3-6.5 on two; a 2x2 max pooling of 32x64x112^2,
    // 98 MiB in and 24.5 out: 4.5-4.9 ms against 4.8-5.4 on one, 3.5-3.8 against 3.7-4.0
    // on two). A kernel that fits stays in it: a layernorm of 2048 x 1024 (8 MiB each
    // way), warm, ran on two Zen 4 threads in 0.17 ms through the cache and 0.32-0.35
    // streaming (docs/PERFORMANCE.md, 2026-11-29).
    if (int64_t llc = host_caches().l3_bytes; shapes && llc > 0) {
      int64_t bytes = 0;
      for (size_t t = 0; t < def.tensors.size(); ++t)
        if (def.tensors[t].role != TensorRole::Temporary)
          bytes += shapes->tensors[t].numel() * scalar_type_bytes(def.tensors[t].type);
      o.cpu.stream_stores = bytes > llc;
    }
    return o;
  }
  std::string known;
  for (const std::string& n : mapping_preset_names()) known += (known.empty() ? "" : ", ") + n;
  return Error{ErrorKind::Options, "unknown preset '" + std::string(name) + "' (known presets: " + known + ")"};
}

}  // namespace tcs
