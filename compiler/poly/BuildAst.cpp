// Pass 7: isl's AST generator, then the plain LoopNest. Before generating, band members
// that scan a single value are dropped (a tile loop over a span shorter than its tile, a
// point loop whose tile has size 1): isl would find each of them degenerate and emit no
// loop, but only after paying for it in every set it handles, which on conv2d's three
// tiling levels was a third of the compile. Then every band is split into one-member
// bands, each under a mark with its loop id, so each generated `for` can be traced to
// exactly one band member even when isl drops degenerate loops.

#include "poly/PolyJob.h"

namespace tcs::poly {
namespace {

// `mark` sits above a band; returns the node at its position: the band without the
// members that scan one value (under a mark listing the ids left), or the node below when
// none is left.
isl::schedule_node drop_single_valued(PolyJob& job, isl::schedule_node mark, bool& dropped_all) {
  isl::schedule_node_band band = mark.child(0).as<isl::schedule_node_band>();
  std::vector<int> ids = band_mark_ids(mark_name(mark)), kept;
  auto mupa = isl::manage(isl_schedule_node_band_get_partial_schedule(band.get()));
  for (int i = int(ids.size()) - 1; i >= 0; --i) {
    if (job.loops[ids[size_t(i)]].fixed || loop_span(job, band, i, ids[size_t(i)]) == 1)
      mupa = isl::manage(isl_multi_union_pw_aff_drop_dims(mupa.release(), isl_dim_set, unsigned(i), 1));
    else
      kept.insert(kept.begin(), ids[size_t(i)]);
  }
  dropped_all = kept.empty();
  if (kept.size() == ids.size()) return mark;
  isl::schedule_node below = node_delete(node_delete(mark));
  if (kept.empty()) return below;
  return below.insert_partial_schedule(mupa).insert_mark(band_mark_name(kept));
}

isl::schedule_node drop_single_valued(PolyJob& job, isl::schedule_node node) {
  if (node.isa<isl::schedule_node_mark>() && node.child(0).isa<isl::schedule_node_band>() &&
      !band_mark_ids(mark_name(node)).empty()) {
    bool dropped_all = false;
    node = drop_single_valued(job, node, dropped_all);
    if (dropped_all) return drop_single_valued(job, node);  // what is now here is not visited yet
  }
  for (unsigned i = 0, n = node.n_children(); i < n; ++i) node = drop_single_valued(job, node.child(int(i))).parent();
  return node;
}

isl::schedule_node split_bands(isl::schedule_node node) {
  if (node.isa<isl::schedule_node_mark>() && node.child(0).isa<isl::schedule_node_band>()) {
    std::vector<int> ids = band_mark_ids(mark_name(node));
    if (ids.size() > 1) {
      isl::schedule_node band = node_delete(node);
      band = band.insert_mark("L" + std::to_string(ids[0])).child(0);
      for (size_t j = 1; j < ids.size(); ++j) {
        band = band.as<isl::schedule_node_band>().split(1).child(0);
        band = band.insert_mark("L" + std::to_string(ids[j])).child(0);
      }
      for (unsigned i = 0, n = band.n_children(); i < n; ++i) band = split_bands(band.child(int(i))).parent();
      for (size_t k = 0; k < 2 * ids.size() - 1; ++k) band = band.parent();
      return band;
    }
  }
  for (unsigned i = 0, n = node.n_children(); i < n; ++i) node = split_bands(node.child(int(i))).parent();
  return node;
}

class AstConverter {
 public:
  AstConverter(PolyJob& job, LoopNest& nest) : job_(job), nest_(nest) {}

  // `loop_id`: the band member a mark just above names. isl may generate it as a block or
  // a guard around its loop (a loop with the statements that share only its first or last
  // value beside it, as a reduction's finishing statement); the loop keeps the id.
  LoopNode node(const isl::ast_node& n, int loop_id = -1) {
    LoopNode r;
    switch (isl_ast_node_get_type(n.get())) {
      case isl_ast_node_for: {
        r.kind = LoopNode::Kind::For;
        isl::ast_expr it = isl::manage(isl_ast_node_for_get_iterator(n.get()));
        r.iter = iter_number(id_name(it));
        r.init = expr(isl::manage(isl_ast_node_for_get_init(n.get())));
        isl::ast_expr inc = isl::manage(isl_ast_node_for_get_inc(n.get()));
        LExpr step = expr(inc);
        if (!step.is_int() || step.value < 1) throw std::runtime_error("isl produced a loop with a non-constant step");
        r.stride = step.value;
        r.upper = upper_bound(isl::manage(isl_ast_node_for_get_cond(n.get())), r.iter);
        r.loop_id = loop_id;
        if (auto it2 = job_.loops.find(loop_id); it2 != job_.loops.end()) {
          const LoopInfo& li = it2->second;
          r.annot.parallel = li.parallel;
          r.annot.vector_width = li.vector_width;
          r.annot.reduction = li.reduction;
          r.annot.unroll = li.unroll;
          r.annot.register_tile = li.register_tile;
          r.annot.accumulate_in_registers = li.accumulate;
        }
        append(r.children, node(isl::manage(isl_ast_node_for_get_body(n.get()))));
        break;
      }
      case isl_ast_node_if: {
        r.kind = LoopNode::Kind::If;
        r.cond = expr(isl::manage(isl_ast_node_if_get_cond(n.get())));
        append(r.children, node(isl::manage(isl_ast_node_if_get_then_node(n.get())), loop_id));
        if (isl_ast_node_if_has_else_node(n.get()) == isl_bool_true)
          append(r.else_children, node(isl::manage(isl_ast_node_if_get_else_node(n.get())), loop_id));
        break;
      }
      case isl_ast_node_block: {
        r.kind = LoopNode::Kind::Block;
        auto list = isl::manage(isl_ast_node_block_get_children(n.get()));
        for (int i = 0, k = int(isl_ast_node_list_n_ast_node(list.get())); i < k; ++i)
          append(r.children, node(isl::manage(isl_ast_node_list_get_at(list.get(), i)), loop_id));
        break;
      }
      case isl_ast_node_mark: {
        std::string name = isl::manage(isl_ast_node_mark_get_id(n.get())).name();
        if (auto note = manage_maybe(isl_ast_node_get_annotation(n.get())); !note.is_null()) {  // a pack site (PackBoxes)
          std::string site = note.name();
          return pack(site, isl::manage(isl_ast_node_mark_get_node(n.get())));
        }
        std::vector<int> ids = band_mark_ids(name);
        return node(isl::manage(isl_ast_node_mark_get_node(n.get())), ids.size() == 1 ? ids[0] : -1);
      }
      case isl_ast_node_user: {
        r.kind = LoopNode::Kind::Call;
        isl::ast_expr call = isl::manage(isl_ast_node_user_get_expr(n.get()));
        isl::ast_expr callee = isl::manage(isl_ast_expr_op_get_arg(call.get(), 0));
        r.stmt = job_.stmt_index(id_name(callee));
        for (int i = 1, k = int(isl_ast_expr_op_get_n_arg(call.get())); i < k; ++i)
          r.args.push_back(expr(isl::manage(isl_ast_expr_op_get_arg(call.get(), i))));
        break;
      }
      default: throw std::runtime_error("unexpected isl AST node");
    }
    return r;
  }

 private:
  // A pack site whose box the mark callback computed (see PackBoxes below).
  LoopNode pack(const std::string& mark, const isl::ast_node& body);

  // Blocks nested in blocks are flattened.
  static void append(std::vector<LoopNode>& out, LoopNode n) {
    if (n.kind == LoopNode::Kind::Block) {
      for (LoopNode& c : n.children) out.push_back(std::move(c));
    } else {
      out.push_back(std::move(n));
    }
  }

  static std::string id_name(const isl::ast_expr& e) {
    return isl::manage(isl_ast_expr_id_get_id(e.get())).name();
  }

  int iter_number(const std::string& name) {
    for (size_t i = 0; i < nest_.iter_names.size(); ++i)
      if (nest_.iter_names[i] == name) return int(i);
    nest_.iter_names.push_back(name);
    return int(nest_.iter_names.size() - 1);
  }

  LExpr upper_bound(const isl::ast_expr& cond, int iter) {
    LExpr c = expr(cond);
    bool ok = (c.op == LExpr::Op::Le || c.op == LExpr::Op::Lt) && c.args[0].op == LExpr::Op::Iter && c.args[0].value == iter;
    if (!ok) throw std::runtime_error("isl produced a loop condition that is not an upper bound");
    if (c.op == LExpr::Op::Le) return c.args[1];
    return LExpr::make(LExpr::Op::Sub, {c.args[1], LExpr::integer(1)});
  }

  LExpr expr(const isl::ast_expr& e) {
    switch (isl_ast_expr_get_type(e.get())) {
      case isl_ast_expr_int: {
        return LExpr::integer(isl_val_get_num_si(isl::manage(isl_ast_expr_int_get_val(e.get())).get()));
      }
      case isl_ast_expr_id: {
        std::string n = id_name(e);
        for (size_t i = 0; i < job_.params.size(); ++i)
          if (job_.params[i] == n) return LExpr{LExpr::Op::Param, int64_t(i), {}};
        return LExpr::iter(iter_number(n));
      }
      case isl_ast_expr_op: break;
      default: throw std::runtime_error("unexpected isl AST expression");
    }
    std::vector<LExpr> args;
    for (int i = 0, k = int(isl_ast_expr_op_get_n_arg(e.get())); i < k; ++i)
      args.push_back(expr(isl::manage(isl_ast_expr_op_get_arg(e.get(), i))));
    using Op = LExpr::Op;
    auto fold = [&](Op op) {  // n-ary min/max/and/or into binary
      LExpr r = args[0];
      for (size_t i = 1; i < args.size(); ++i) r = LExpr::make(op, {r, args[i]});
      return r;
    };
    switch (isl_ast_expr_op_get_type(e.get())) {
      case isl_ast_expr_op_add: return LExpr::make(Op::Add, args);
      case isl_ast_expr_op_sub: return LExpr::make(Op::Sub, args);
      case isl_ast_expr_op_mul: return LExpr::make(Op::Mul, args);
      case isl_ast_expr_op_minus: return LExpr::make(Op::Neg, args);
      case isl_ast_expr_op_div: return LExpr::make(Op::ExactDiv, args);
      case isl_ast_expr_op_fdiv_q:
      case isl_ast_expr_op_pdiv_q: return LExpr::make(Op::FloorDiv, args);
      case isl_ast_expr_op_pdiv_r:
      case isl_ast_expr_op_zdiv_r: return LExpr::make(Op::Rem, args);
      case isl_ast_expr_op_min: return fold(Op::Min);
      case isl_ast_expr_op_max: return fold(Op::Max);
      case isl_ast_expr_op_select:
      case isl_ast_expr_op_cond: return LExpr::make(Op::Select, args);
      case isl_ast_expr_op_eq: return LExpr::make(Op::Eq, args);
      case isl_ast_expr_op_le: return LExpr::make(Op::Le, args);
      case isl_ast_expr_op_lt: return LExpr::make(Op::Lt, args);
      case isl_ast_expr_op_ge: return LExpr::make(Op::Ge, args);
      case isl_ast_expr_op_gt: return LExpr::make(Op::Gt, args);
      case isl_ast_expr_op_and:
      case isl_ast_expr_op_and_then: return fold(Op::And);
      case isl_ast_expr_op_or:
      case isl_ast_expr_op_or_else: return fold(Op::Or);
      default: throw std::runtime_error("unexpected isl AST operation");
    }
  }

  PolyJob& job_;
  LoopNest& nest_;

 public:
  std::vector<std::pair<int, PackBox>> boxes;  // by site: request and box
};

LoopNode AstConverter::pack(const std::string& mark, const isl::ast_node& body) {
  int site = std::stoi(mark.substr(5));
  const auto& [request, box] = boxes.at(size_t(site));
  LoopNode inner = node(body);
  if (box.size.empty()) return inner;  // nothing below reads the tensor
  const std::string& tensor = job_.packs[size_t(request)].request.tensor;
  PackSite p;
  p.tensor = job_.def.find_tensor(tensor);
  p.name = tensor;
  p.size = box.size;
  p.order = job_.packs[size_t(request)].request.order;
  p.local = job_.packs[size_t(request)].local;
  const int64_t bytes = scalar_type_bytes(job_.def.tensors[size_t(p.tensor)].type);
  p.copy_block = std::max<int64_t>(1, 64 / bytes);
  // A transposing copy's stores go a buffer row apart. Where a row is an even number of
  // cache lines they share few L1 sets (1 KiB rows: 4 of 64) and evict each other; one
  // line more makes the count odd and spreads a block's lines over as many sets as it has.
  // A 256 x 256 box of mlp3's weights from L2: 0.20 -> 0.10 ms per 4 MiB copied.
  if (!p.local && p.transposes() && p.size[size_t(p.order.back())] * bytes % 128 == 0) p.row_pad = p.copy_block;
  for (const isl::ast_expr& e : box.offset) p.offset.push_back(expr(e));
  LoopNode r;
  r.kind = LoopNode::Kind::Pack;
  r.pack = int(nest_.packs.size());
  nest_.packs.push_back(std::move(p));
  append(r.children, std::move(inner));
  return r;
}

// isl calls this after generating each mark, with the build that knows the loops around
// it: where a pack mark's box is computed. Each visit becomes its own site ("pack#<n>"),
// since isl may generate a subtree more than once. Errors wait until isl returns.
struct PackBoxes {
  PolyJob& job;
  AstConverter& converter;
  std::optional<OptionError> error;

  static isl_ast_node* after_mark(isl_ast_node* node, isl_ast_build* build, void* user) {
    auto& self = *static_cast<PackBoxes*>(user);
    int request = pack_request_of(isl::manage(isl_ast_node_mark_get_id(node)).name());
    if (request < 0 || self.error) return node;
    try {
      self.converter.boxes.emplace_back(request, pack_box(self.job, request, build));
    } catch (const OptionError& e) {
      self.error = e;
      return node;
    }
    std::string site = "pack#" + std::to_string(self.converter.boxes.size() - 1);
    return isl_ast_node_set_annotation(node, isl_id_alloc(isl_ast_node_get_ctx(node), site.c_str(), nullptr));
  }
};

}  // namespace

LoopNest build_loop_nest(PolyJob& job) {
  LoopNest nest;
  nest.stmts = job.stmts;
  nest.params = job.def.size_params;
  nest.fed_temporaries = job.fed_temporaries;
  isl::schedule s = split_bands(drop_single_valued(job, job.schedule.root())).schedule();
  AstConverter converter(job, nest);
  PackBoxes packs{job, converter, std::nullopt};
  isl::ast_build build = isl::ast_build::from_context(job.context);
  build = isl::manage(isl_ast_build_set_after_each_mark(build.release(), &PackBoxes::after_mark, &packs));
  isl::ast_node ast = build.node_from(s);
  if (packs.error) throw *packs.error;

  LoopNode root = converter.node(ast);
  if (root.kind != LoopNode::Kind::Block) {
    LoopNode block;
    block.children.push_back(std::move(root));
    root = std::move(block);
  }
  nest.root = std::move(root);
  return nest;
}

}  // namespace tcs::poly
