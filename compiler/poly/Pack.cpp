// Pass 6: packing (cpu.pack), the CPU counterpart of shared-memory promotion. For each
// request, every outermost band whose statements read the tensor gets a "pack" mark
// `depth` loops into its tiled band (splitting the band there). The AST pass computes,
// at each mark, the box of the tensor that the loops below read (isl's fixed-size box
// hull of the footprint, its offset a function of the loops above) and the LoopNest
// copies that box into a local buffer there; the reads below use the buffer.
#include <map>

#include "poly/PolyJob.h"

namespace tcs::poly {

isl::union_map accesses_of(const isl::union_map& all, const std::string& tensor) {
  isl::union_map r = isl::union_map(all.ctx(), "{ }");
  all.foreach_map([&](isl::map m) {
    const char* name = isl_map_get_tuple_name(m.get(), isl_dim_out);
    if (name && tensor == name) r = r.unite(isl::union_map(m));
  });
  return r;
}

isl::schedule_node insert_named_mark(isl::schedule_node node, const std::string& name) {
  isl_id* id = isl_id_alloc(node.ctx().get(), name.c_str(), nullptr);
  return isl::manage(isl_schedule_node_insert_mark(node.release(), id));
}

namespace {

constexpr int64_t kMaxPackBytes = int64_t(2) << 20;

class Packer {
 public:
  Packer(PolyJob& job, int request)
      : job_(job), request_(request), req_(job.packs[size_t(request)].request), field_(job.packs[size_t(request)].field) {
    reads_ = accesses_of(job.reads, req_.tensor);
  }

  isl::schedule_node visit(isl::schedule_node node) {
    if (node.isa<isl::schedule_node_mark>() && node.child(0).isa<isl::schedule_node_band>() &&
        !band_mark_ids(mark_name(node)).empty())
      return place(node);
    for (unsigned i = 0, n = node.n_children(); i < n; ++i) node = visit(node.child(int(i))).parent();
    return node;
  }

  int placed = 0;

 private:
  const std::string& field() const { return field_; }

  // `mark` sits above an outermost band; returns the node at the mark's position.
  isl::schedule_node place(isl::schedule_node mark) {
    if (reads_.intersect_domain(node_domain(mark)).is_empty()) return mark;
    if (&job_.options_for(mark) != job_.packs[size_t(request_)].owner) return mark;  // these loops take other options
    std::vector<int> ids = band_mark_ids(mark_name(mark));
    std::string name = "pack" + std::to_string(request_);
    ++placed;
    if (req_.depth == 0) return insert_named_mark(mark, name);
    if (job_.loops[ids[0]].role != LoopRole::Tile && job_.options.best_effort) {
      job_.note("the preset's " + field() + " needs tiled loops over " + statement_list(mark) + " and was skipped there");
      --placed;
      return mark;
    }
    if (job_.loops[ids[0]].role != LoopRole::Tile)
      throw OptionError{field() + ".depth is " + std::to_string(req_.depth) + ", but the loops over " +
                        statement_list(mark) + " are not tiled; use depth 0 or set tile"};
    if (size_t(req_.depth) > ids.size() && job_.options.best_effort) {
      job_.note("the preset's " + field() + " does not fit the band over " + statement_list(mark) + " (" +
                std::to_string(ids.size()) + " tile loops) and was skipped there");
      --placed;
      return mark;
    }
    if (size_t(req_.depth) > ids.size())
      throw OptionError{field() + ".depth is " + std::to_string(req_.depth) + ", but the tiled band over " +
                        statement_list(mark) + " has " + std::to_string(ids.size()) + " tile loops"};
    isl::schedule_node band = mark.child(0);
    if (size_t(req_.depth) == ids.size()) return insert_named_mark(band.child(0), name).parent().parent();
    // Split the band after `depth` members, each part under a mark with its own ids.
    band = node_delete(mark);
    band = band.as<isl::schedule_node_band>().split(req_.depth);
    auto split = ids.begin() + req_.depth;
    band = insert_named_mark(band, band_mark_name({ids.begin(), split})).child(0);
    isl::schedule_node inner = insert_named_mark(band.child(0), band_mark_name({split, ids.end()}));
    inner = insert_named_mark(inner, name);
    return inner.parent().parent();
  }

  PolyJob& job_;
  int request_;
  const PackRequest& req_;
  std::string field_;
  isl::union_map reads_;
};

}  // namespace

void pack_tensors(PolyJob& job) {
  // The lists in force: the kernel's, and each statement's with options of its own (its
  // own list, or the kernel's it inherits, applied to its loops).
  std::vector<const MappingOptions*> owners = {&job.options};
  std::vector<std::string> prefixes = {""};
  for (const StatementOptions& s : job.options.statements) {
    int k = std::stoi(s.statement.substr(1));
    if (k < 0 || size_t(k) >= job.statement_options.size()) continue;
    owners.push_back(&job.statement_options[size_t(k)]);
    prefixes.push_back(s.fields.count("cpu.pack") ? "statements." + s.statement + "." : "");
  }
  for (size_t i = 0; i < owners.size(); ++i)
    for (size_t r = 0; r < owners[i]->cpu.pack.size(); ++r)
      job.packs.push_back({owners[i]->cpu.pack[r], prefixes[i] + "cpu.pack[" + std::to_string(r) + "]", owners[i]});
  std::map<std::string, int> placed;  // by field: a list inherited by a statement counts once
  for (size_t k = 0; k < job.packs.size(); ++k) {
    const PolyJob::Pack& p = job.packs[k];
    if (int t = job.def.find_tensor(p.request.tensor); t >= 0 && !p.request.order.empty() &&
        int(p.request.order.size()) != job.def.tensors[size_t(t)].rank())
      throw OptionError{p.field + ".order has " + std::to_string(p.request.order.size()) + " entries, but '" +
                        p.request.tensor + "' has " + std::to_string(job.def.tensors[size_t(t)].rank()) + " dimensions"};
    Packer packer(job, int(k));
    job.schedule = packer.visit(job.schedule.root()).schedule();
    placed[p.field] += packer.placed;
  }
  for (const PolyJob::Pack& p : job.packs)
    if (placed[p.field] == 0 && !job.options.best_effort)
      throw OptionError{p.field + ".tensor: no statement of '" + job.def.name + "'" +
                        (job.options.statements.empty() ? "" : " that takes these options") + " reads '" + p.request.tensor + "'"};
}

int pack_request_of(const std::string& mark) {
  if (mark.rfind("pack", 0) != 0 || mark.size() == 4) return -1;
  for (size_t i = 4; i < mark.size(); ++i)
    if (mark[i] < '0' || mark[i] > '9') return -1;
  return std::stoi(mark.substr(4));
}

PackBox pack_box(const PolyJob& job, int request, isl_ast_build* build) {
  const std::string& tensor = job.packs[size_t(request)].request.tensor;
  const std::string& field = job.packs[size_t(request)].field;
  bool local = job.packs[size_t(request)].local;  // the buffer holds every access below
  isl::union_map schedule = isl::manage(isl_ast_build_get_schedule(build));
  isl::union_set here = schedule.domain();
  isl::union_map writes = accesses_of(job.writes, tensor);
  if (!local && !writes.intersect_domain(here).is_empty())
    throw OptionError{field + ": '" + tensor + "' is written inside the loops that would read the packed copy; only "
                      "tensors that are only read there can be packed"};
  isl::union_map accessed = local ? accesses_of(job.reads, tensor).unite(writes) : accesses_of(job.reads, tensor);
  isl::union_map footprint = schedule.reverse().apply_range(accessed);
  PackBox box;
  if (footprint.is_empty()) return box;
  isl::map fp = isl::manage(isl_map_from_union_map(footprint.copy()));
  auto hull = manage_maybe(isl_map_get_range_simple_fixed_box_hull(fp.get()));
  bool valid = !hull.is_null() && isl_fixed_box_is_valid(hull.get()) == isl_bool_true;
  if (valid) {
    auto offset = isl::manage(isl_fixed_box_get_offset(hull.get()));
    auto size = isl::manage(isl_fixed_box_get_size(hull.get()));
    for (int d = 0, n = int(isl_multi_val_size(size.get())); d < n; ++d) {
      box.size.push_back(isl_val_get_num_si(isl::manage(isl_multi_val_get_at(size.get(), d)).get()));
      isl_pw_aff* pa = isl_pw_aff_from_aff(isl_multi_aff_get_at(offset.get(), d));  // taken by the next call
      box.offset.push_back(isl::manage(isl_ast_build_expr_from_pw_aff(build, pa)));
    }
  }
  if (!valid)
    throw OptionError{field + ": the part of '" + tensor + "' read inside the packed loops has no fixed-size box; "
                      "pack it deeper or not at all"};
  // The copy lives on the stack of the thread running the loops.
  int t = job.def.find_tensor(tensor);
  int64_t bytes = int64_t(scalar_type_bytes(job.def.tensors[size_t(t)].type));
  std::string dims;
  bool grows = false;  // symbolic sizes: a box larger than the tensor at the given sizes
  bool saturated = false;
  for (size_t d = 0; d < box.size.size(); ++d) {
    int64_t s = box.size[d];
    int64_t product;
    saturated = saturated || __builtin_mul_overflow(bytes, s, &product);
    bytes = saturated ? INT64_MAX : product;
    dims += (dims.empty() ? "" : " x ") + std::to_string(s);
    grows = grows || (job.symbolic_sizes && s > job.shapes.tensors[size_t(t)].extent[d]);
  }
  if (grows && bytes > kMaxPackBytes)
    throw OptionError{field + ": the part of '" + tensor + "' read inside the packed loops grows with the sizes, "
                      "which are left symbolic; pack it deeper (inside a tile) or not at all"};
  if (bytes > kMaxPackBytes)
    throw OptionError{field + ": the tile of '" + tensor + "' read inside the packed loops is " + dims + " (" +
                      (saturated ? "over " : "") + std::to_string(bytes >> 10) + " KiB); a packed tile may take at most " +
                      std::to_string(kMaxPackBytes >> 10) + " KiB: pack it deeper"};
  return box;
}

}  // namespace tcs::poly
