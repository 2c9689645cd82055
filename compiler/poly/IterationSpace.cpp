// The iteration space as the explorers draw it, read back from the texts a lowering left:
// the model's domains and dependences and the final isl schedule with its band marks.
// Every statement's points are enumerated once, together with their schedule time and the
// values of the loops that decide tile, thread and vector lane; dependences are reduced to
// the direct ones before they are enumerated.
#include "poly/IterationSpace.h"

#include <algorithm>
#include <bit>
#include <set>

#include "poly/PointFunction.h"
#include "poly/PolyJob.h"

namespace tcs {

std::string_view dependence_kind_name(DependenceKind k) {
  switch (k) {
    case DependenceKind::Flow: return "flow";
    case DependenceKind::Anti: return "anti";
    case DependenceKind::Output: return "output";
    case DependenceKind::Reduction: return "reduction";
  }
  return "?";
}

namespace {

using namespace poly;

struct Cancelled {};
struct BadSchedule {
  std::string message;
};
struct TooMany {
  size_t count;
};

// What the snapshot says about a loop id.
struct LoopFacts {
  LoopRole role = LoopRole::Scheduled;
  bool parallel = false;
  int vector_width = 0;
};

void collect_loops(const ScheduleNode& n, std::map<int, LoopFacts>& out) {
  for (const BandMember& m : n.members)
    if (m.loop_id >= 0) out[m.loop_id] = {n.role, m.parallel, m.vector_width};
  for (const ScheduleNode& c : n.children) collect_loops(c, out);
}

// One band member of the isl schedule with its loop id: its values over the instances
// reaching it.
struct BandLoop {
  int id = -1;
  isl::union_set domain;
  isl::union_pw_aff values;
  isl::schedule_node band;  // the band it is a member of
};

void collect_band_loops(const isl::schedule_node& n, const std::vector<int>& ids, std::vector<BandLoop>& out) {
  if (isl_schedule_node_get_type(n.get()) == isl_schedule_node_mark) {
    std::vector<int> mine = band_mark_ids(mark_name(n));
    if (!mine.empty() && n.child(0).isa<isl::schedule_node_band>()) return collect_band_loops(n.child(0), mine, out);
  }
  if (isl_schedule_node_get_type(n.get()) == isl_schedule_node_band && !ids.empty()) {
    isl::union_set dom = node_domain(n);
    auto partial = isl::manage(isl_schedule_node_band_get_partial_schedule(n.get()));
    unsigned members = unsigned(isl_multi_union_pw_aff_dim(partial.get(), isl_dim_set));
    for (unsigned i = 0; i < members && i < ids.size(); ++i) {
      BandLoop b;
      b.id = ids[i];
      b.domain = dom;
      b.values = isl::manage(isl_union_pw_aff_intersect_domain(isl_multi_union_pw_aff_get_union_pw_aff(partial.get(), int(i)), dom.copy()));
      b.band = n;
      out.push_back(b);
    }
  }
  for (unsigned i = 0, c = n.n_children(); i < c; ++i) collect_band_loops(n.child(int(i)), {}, out);
}

// The model's text with its size parameters fixed by the context and then dropped: plain
// numbers, as enumeration needs.
isl::union_map numeric(isl::union_map m, const isl::set& context) {
  m = m.intersect_params(context);
  return isl::manage(isl_union_map_project_out_all_params(m.release()));
}
isl::union_set numeric(isl::union_set s, const isl::set& context) {
  s = s.intersect_params(context);
  return isl::manage(isl_union_set_project_out_all_params(s.release()));
}

std::string tuple_name(const isl::map& m) { return isl_map_get_tuple_name(m.get(), isl_dim_in) ?: ""; }

isl::map map_of(const isl::union_map& um, const std::string& stmt) {
  isl::map found;
  um.foreach_map([&](isl::map m) {
    if (tuple_name(m) == stmt) found = m;
  });
  return found;
}

bool covers(const isl::union_set& s, const std::string& stmt) {
  bool found = false;
  s.foreach_set([&](isl::set x) { found |= std::string(isl_set_get_tuple_name(x.get()) ?: "") == stmt; });
  return found;
}

// The points of a bounded set in lexicographic order: the box around it scanned in plain
// C++, each point tested against the set unless the set is that box.
struct Scan {
  std::vector<int64_t> lo, hi;
  PointFunction inside;
  bool is_box = true;
};
Scan scan_of(const isl::set& s) {
  Scan r;
  for (int i = 0, n = int(isl_set_dim(s.get(), isl_dim_set)); i < n; ++i) {
    auto lo = isl::manage(isl_set_dim_min_val(s.copy(), i)), hi = isl::manage(isl_set_dim_max_val(s.copy(), i));
    if (!isl_val_is_int(lo.get()) || !isl_val_is_int(hi.get())) throw std::runtime_error("a statement's domain is unbounded");
    r.lo.push_back(isl_val_get_num_si(lo.get()));
    r.hi.push_back(isl_val_get_num_si(hi.get()));
  }
  isl::set box = isl::manage(isl_set_universe(s.get_space().release()));
  for (size_t i = 0; i < r.lo.size(); ++i) {
    box = isl::manage(isl_set_lower_bound_si(box.release(), isl_dim_set, unsigned(i), int(r.lo[i])));
    box = isl::manage(isl_set_upper_bound_si(box.release(), isl_dim_set, unsigned(i), int(r.hi[i])));
  }
  r.is_box = s.is_equal(box);
  if (!r.is_box) r.inside = PointFunction::membership(s, box);
  return r;
}
template <class Fn>
void for_each_point(const Scan& scan, const std::atomic<bool>* cancel, Fn fn) {
  size_t n = scan.lo.size();
  std::vector<int64_t> x = scan.lo;
  for (size_t visited = 0;; ++visited) {
    if (scan.lo.empty() || scan.is_box || scan.inside(x.data())) fn(x);
    if ((visited & 4095) == 0 && cancel && cancel->load()) throw Cancelled{};
    size_t d = n;
    while (d > 0 && x[d - 1] == scan.hi[d - 1]) x[d - 1] = scan.lo[d - 1], --d;
    if (d == 0) return;
    ++x[d - 1];
  }
}

// A map that is a function of a statement's points, evaluated member by member.
std::vector<PointFunction> functions_of(const isl::map& m, const isl::set& where, const std::string& what) {
  if (!m.is_single_valued()) throw BadSchedule{what + " gives some instance more than one value"};
  auto f = isl::manage(isl_pw_multi_aff_from_map(m.copy()));
  std::vector<PointFunction> r;
  for (int i = 0, n = int(isl_map_dim(m.get(), isl_dim_out)); i < n; ++i) r.push_back(PointFunction::member(f, i, where));
  return r;
}

// A value vector per point, stored flat.
struct Flat {
  size_t stride = 0;
  std::vector<int64_t> values;
  const int64_t* at(size_t point) const { return values.data() + point * stride; }
};

// Where the points of one statement sit, for looking dependences' ends up.
int64_t find_point(const StatementSpace& s, const std::vector<int64_t>& coords) {
  size_t n = s.dims.size(), lo = 0, hi = s.points.size();
  auto less = [&](size_t p) { return std::lexicographical_compare(s.coords_of(p), s.coords_of(p) + n, coords.begin(), coords.end()); };
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (less(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo < s.points.size() && std::equal(coords.begin(), coords.end(), s.coords_of(lo)) ? int64_t(lo) : -1;
}

struct Job {
  const LoweringResult& lowered;
  const SpaceQuery& query;
  IslContext owner;
  isl::ctx ctx{owner.ctx};
  isl::set context;
  std::map<int, LoopFacts> facts;
  isl::schedule compiled;
  std::vector<BandLoop> loops;
  isl::union_map schedule_map;  // statement instance -> time
  IterationSpace space;
  std::vector<Flat> times;  // per statement: each point's time
  // Each dependence kind's relation, numeric, a reduction's own taken out of the others.
  std::vector<std::pair<DependenceKind, isl::union_map>> dependences;
  size_t enumerated = 0;
  std::vector<isl::set> domains;  // per statement, numeric
  std::vector<Scan> scans;        // per statement: the box around its domain

  Job(const LoweringResult& l, const SpaceQuery& q) : lowered(l), query(q) {}

  Status read_schedule() {
    const std::string& text = lowered.passes.back().isl_schedule;
    compiled = manage_maybe(isl_schedule_read_from_str(ctx.get(), text.c_str()));
    if (compiled.is_null()) return Error{ErrorKind::Internal, "the compiled schedule is not isl schedule text"};
    collect_band_loops(compiled.root(), {}, loops);
    if (query.schedule.empty()) {
      schedule_map = numeric(compiled.get_map(), context);
      return success();
    }
    space.what_if = true;
    auto m = manage_maybe(isl_union_map_read_from_str(ctx.get(), query.schedule.c_str()));
    if (m.is_null())
      return Error{ErrorKind::Options, "schedule: isl cannot read '" + query.schedule +
                                           "'; write it as { S0[i, j] -> [j, i]; S1[i] -> [i, 1] }"};
    schedule_map = numeric(m, context);
    std::vector<std::string> missing;
    for (const ModelStatement& st : lowered.model.statements)
      if (map_of(schedule_map, st.name).is_null()) missing.push_back(st.name);
    if (!missing.empty()) {
      std::string names;
      for (const std::string& n : missing) names += (names.empty() ? "" : ", ") + n;
      return Error{ErrorKind::Options, "schedule: it gives no time to " + names + "; every statement needs one"};
    }
    return success();
  }

  // The loops over `stmt` whose values decide its tile, thread and lane, outermost first.
  struct Watched {
    std::vector<int> tile;
    int parallel = -1, vector = -1;
    std::vector<int> order;  // ids in the order their values follow the time in the joint map
  };
  // Per statement, the loops deciding its tile, thread and lane.
  std::vector<Watched> watched_loops;
  Watched watched(const std::string& stmt) const {
    Watched w;
    for (const BandLoop& b : loops) {
      if (!covers(b.domain, stmt)) continue;
      auto f = facts.find(b.id);
      if (f == facts.end()) continue;
      bool use = false;
      if (f->second.role == LoopRole::Tile) w.tile.push_back(b.id), use = true;
      if (f->second.parallel && w.parallel < 0) w.parallel = b.id, use = true;
      if (f->second.vector_width > 0 && w.vector < 0) w.vector = b.id, use = true;
      if (use) w.order.push_back(b.id);
    }
    return w;
  }

  const BandLoop& loop(int id) const {
    return *std::find_if(loops.begin(), loops.end(), [&](const BandLoop& b) { return b.id == id; });
  }

  void enumerate_statement(const ModelStatement& st, std::map<int, std::map<int64_t, int>>& loop_values,
                           Flat& values_of_points) {
    StatementSpace s;
    s.name = st.name;
    s.source_stmt = st.is_init ? -1 : st.source_stmt;
    isl::set domain(ctx, st.domain);
    domain = isl::manage(isl_set_project_out_all_params(domain.intersect_params(context).release()));
    for (unsigned i = 0, n = unsigned(isl_set_dim(domain.get(), isl_dim_set)); i < n; ++i) {
      const char* name = isl_set_get_dim_name(domain.get(), isl_dim_set, i);
      s.dims.push_back(name ? name : "i" + std::to_string(i));
    }
    domains.push_back(domain);
    const Watched& w = watched_loops.emplace_back(watched(st.name));
    if (w.vector >= 0) s.vector_width = facts.at(w.vector).vector_width;
    // The time, then the watched loops' values, as functions of the point.
    isl::map time = map_of(schedule_map, st.name);
    if (time.is_null()) throw BadSchedule{"the schedule gives no time to " + st.name};
    std::vector<PointFunction> fns = functions_of(time.intersect_domain(domain), domain, "the schedule of " + st.name);
    size_t time_dims = fns.size();
    for (int id : w.order) {
      isl::union_map um = isl::manage(isl_union_map_from_union_pw_aff(loop(id).values.copy()));
      for (PointFunction& f : functions_of(map_of(numeric(um, context), st.name).intersect_domain(domain), domain, "loop " + std::to_string(id)))
        fns.push_back(std::move(f));
    }
    Flat& t = times.emplace_back();
    t.stride = time_dims;
    values_of_points.stride = fns.size() - time_dims;
    std::vector<int64_t> v(fns.size());
    const Scan& scan = scans.emplace_back(scan_of(domain));
    if (scan.is_box) {  // the count is known: grow each array once
      size_t n = 1;
      for (size_t d = 0; d < scan.lo.size(); ++d) n *= size_t(scan.hi[d] - scan.lo[d] + 1);
      if (enumerated + n <= query.max_points) {
        s.points.reserve(n), s.coords.reserve(n * scan.lo.size());
        t.values.reserve(n * time_dims), values_of_points.values.reserve(n * (fns.size() - time_dims));
      }
    }
    for_each_point(scan, query.cancel, [&](const std::vector<int64_t>& x) {
      if (++enumerated > query.max_points) throw TooMany{enumerated};
      s.points.emplace_back();
      s.coords.insert(s.coords.end(), x.begin(), x.end());
      for (size_t i = 0; i < fns.size(); ++i) v[i] = fns[i](x.data());
      t.values.insert(t.values.end(), v.begin(), v.begin() + long(time_dims));
      values_of_points.values.insert(values_of_points.values.end(), v.begin() + long(time_dims), v.end());
    });
    for (size_t k = 0; k < w.order.size(); ++k) {
      std::map<int64_t, int>& seen = loop_values[w.order[k]];
      for (size_t pi = 0; pi < s.points.size(); ++pi)
        if (int64_t value = values_of_points.at(pi)[k]; pi == 0 || value != values_of_points.at(pi - 1)[k]) seen.emplace(value, 0);
    }
    space.statements.push_back(std::move(s));
  }
  // Tiles, threads and lanes from each point's loop values.
  void place_points(std::vector<Flat>& values, std::map<int, std::map<int64_t, int>>& loop_values) {
    for (auto& [id, vals] : loop_values) {
      int rank = 0;
      for (auto& [v, r] : vals) r = rank++;
    }
    for (size_t si = 0; si < space.statements.size(); ++si) {
      StatementSpace& s = space.statements[si];
      const Watched& w = watched_loops[si];
      std::map<std::vector<int64_t>, int> tile_of;
      std::vector<int64_t> first_time;
      std::vector<int64_t> tile, last_tile;
      int last_tile_index = -1;
      // The thread of a parallel loop's value: the pool's chunks of its values in order,
      // the first `extra` chunks one value longer.
      const std::map<int64_t, int>* parallel_values = w.parallel >= 0 ? &loop_values.at(w.parallel) : nullptr;
      auto thread_of = [&](int64_t value) {
        int64_t n = int64_t(parallel_values->size()), r = parallel_values->at(value);
        int64_t parts = std::min<int64_t>(space.threads, n), base = n / parts, extra = n % parts;
        return int(r < extra * (base + 1) ? r / (base + 1) : extra + (r - extra * (base + 1)) / base);
      };
      int64_t last_parallel_value = 0;
      int last_thread = -1;
      int64_t first_lane_value = w.vector >= 0 ? loop_values.at(w.vector).begin()->first : 0;
      int lanes = w.vector >= 0 ? facts.at(w.vector).vector_width : 1;
      for (size_t pi = 0; pi < s.points.size(); ++pi) {
        SpacePoint& p = s.points[pi];
        const int64_t* v = values[si].at(pi);
        tile.clear();
        for (size_t k = 0; k < w.order.size(); ++k) {
          int id = w.order[k];
          if (std::find(w.tile.begin(), w.tile.end(), id) != w.tile.end()) tile.push_back(v[k]);
          if (id == w.parallel) {
            if (last_thread < 0 || v[k] != last_parallel_value) last_thread = thread_of(v[k]), last_parallel_value = v[k];
            p.thread = last_thread;
          }
          if (id == w.vector) p.lane = int((v[k] - first_lane_value) % lanes);
        }
        if (!w.tile.empty()) {
          if (last_tile_index < 0 || tile != last_tile) {
            auto [it, fresh] = tile_of.emplace(tile, int(tile_of.size()));
            if (fresh) {
              s.tiles.push_back(tile);
              first_time.push_back(p.time);
            }
            last_tile = tile, last_tile_index = it->second;
          }
          p.tile = last_tile_index;
          first_time[size_t(p.tile)] = std::min(first_time[size_t(p.tile)], p.time);
        }
      }
      // Number tiles in the order they start.
      std::vector<int> order(s.tiles.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = int(i);
      std::sort(order.begin(), order.end(), [&](int a, int b) { return first_time[size_t(a)] < first_time[size_t(b)]; });
      std::vector<int> renumber(order.size());
      std::vector<std::vector<int64_t>> tiles(order.size());
      for (size_t i = 0; i < order.size(); ++i) renumber[size_t(order[i])] = int(i), tiles[i] = s.tiles[size_t(order[i])];
      s.tiles = std::move(tiles);
      for (SpacePoint& p : s.points)
        if (p.tile >= 0) p.tile = renumber[size_t(p.tile)];
    }
  }

  // Each point's rank in the order of schedule times. Schedules of different depth compare
  // as if padded with zeros, as isl pads them. The time vectors are packed into one wide
  // integer each (each dimension in the bits its range needs), so sorting compares numbers.
  void rank_times() {
    size_t dims = 0, total = 0;
    for (const Flat& t : times) dims = std::max(dims, t.stride), total += t.stride ? t.values.size() / t.stride : 0;
    std::vector<int64_t> lo(dims, 0), hi(dims, 0);  // padding counts as 0
    for (const Flat& t : times)
      for (size_t i = 0; i < t.values.size(); ++i) {
        size_t d = i % t.stride;
        lo[d] = std::min(lo[d], t.values[i]), hi[d] = std::max(hi[d], t.values[i]);
      }
    std::vector<int> bits(dims);
    int used = 0;
    for (size_t d = 0; d < dims; ++d) used += bits[d] = int(std::bit_width(uint64_t(hi[d] - lo[d])));
    if (used > 128) return rank_times_by_comparison();
    using Key = unsigned __int128;
    std::vector<std::pair<Key, SpacePoint*>> keys;
    keys.reserve(total);
    for (size_t si = 0; si < space.statements.size(); ++si)
      for (size_t pi = 0; pi < space.statements[si].points.size(); ++pi) {
        const int64_t* t = times[si].at(pi);
        Key k = 0;
        for (size_t d = 0; d < dims; ++d) k = (k << bits[d]) | Key(uint64_t((d < times[si].stride ? t[d] : 0) - lo[d]));
        keys.emplace_back(k, &space.statements[si].points[pi]);
      }
    std::sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    int64_t rank = -1;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (i == 0 || keys[i - 1].first != keys[i].first) ++rank;
      keys[i].second->time = rank;
    }
    space.times = rank + 1;
  }
  // The same for time ranges too wide to pack.
  void rank_times_by_comparison() {
    struct Ref {
      const int64_t* t;
      size_t n;
      SpacePoint* p;
    };
    std::vector<Ref> all;
    for (size_t si = 0; si < space.statements.size(); ++si)
      for (size_t pi = 0; pi < space.statements[si].points.size(); ++pi) all.push_back({times[si].at(pi), times[si].stride, &space.statements[si].points[pi]});
    auto less = [](const Ref& a, const Ref& b) {
      for (size_t i = 0, n = std::max(a.n, b.n); i < n; ++i) {
        int64_t x = i < a.n ? a.t[i] : 0, y = i < b.n ? b.t[i] : 0;
        if (x != y) return x < y;
      }
      return false;
    };
    std::sort(all.begin(), all.end(), less);
    int64_t rank = -1;
    for (size_t i = 0; i < all.size(); ++i) {
      if (i == 0 || less(all[i - 1], all[i])) ++rank;
      all[i].p->time = rank;
    }
    space.times = rank + 1;
  }

  int statement_index(const std::string& name) const {
    for (size_t i = 0; i < space.statements.size(); ++i)
      if (space.statements[i].name == name) return int(i);
    return -1;
  }

  // In the order a pair found under two kinds is listed: flow, output, anti, reduction.
  void read_dependences() {
    const PolyModelInfo& m = lowered.model;
    isl::union_map reduction = numeric(isl::union_map(ctx, m.reduction.empty() ? "{ }" : m.reduction), context);
    std::pair<DependenceKind, const std::string*> kinds[] = {{DependenceKind::Flow, &m.flow},
                                                             {DependenceKind::Output, &m.output},
                                                             {DependenceKind::Anti, &m.anti},
                                                             {DependenceKind::Reduction, &m.reduction}};
    for (auto [kind, text] : kinds) {
      if (text->empty()) continue;
      isl::union_map deps = numeric(isl::union_map(ctx, *text), context);
      dependences.emplace_back(kind, kind == DependenceKind::Reduction ? deps : deps.subtract(reduction));
    }
  }

  // A statement's point with these coordinates, -1 when there is none: by position in a
  // box domain, else by binary search (points are in lexicographic order).
  int64_t point_index(int stmt, const std::vector<int64_t>& coords) const {
    const Scan& box = scans[size_t(stmt)];
    if (!box.is_box) return find_point(space.statements[size_t(stmt)], coords);
    int64_t index = 0;
    for (size_t d = 0; d < coords.size(); ++d) {
      if (coords[d] < box.lo[d] || coords[d] > box.hi[d]) return -1;
      index = index * (box.hi[d] - box.lo[d] + 1) + (coords[d] - box.lo[d]);
    }
    return index;
  }

  void collect_dependences() {
    // A pair found under an earlier kind is listed once: per statement pair, each earlier
    // kind's sink of every source point.
    std::map<std::pair<int, int>, std::vector<std::vector<int>>> earlier;
    size_t left_out = 0;
    for (const auto& [kind, deps] : dependences) {
      // Direct dependences: each source to its nearest sink in each sink statement.
      deps.foreach_map([&](isl::map d) {
        int from = statement_index(tuple_name(d));
        int to = statement_index(isl_map_get_tuple_name(d.get(), isl_dim_out) ?: "");
        if (from < 0 || to < 0) return;
        const StatementSpace& src = space.statements[size_t(from)];
        isl::set where = domains[size_t(from)];
        isl::map nearest = d.intersect_domain(where).lexmin();
        isl::set sources = nearest.domain();
        if (sources.is_empty()) return;
        PointFunction has_sink = PointFunction::membership(sources, where);
        std::vector<PointFunction> sink = functions_of(nearest, sources, "a dependence");
        std::vector<int64_t> at(sink.size());
        std::vector<std::vector<int>>& before = earlier[{from, to}];
        std::vector<int> mine(src.points.size(), -1);
        for (size_t a = 0; a < src.points.size(); ++a) {
          const int64_t* x = src.coords_of(a);
          if (!has_sink(x)) continue;
          if (space.dependences.size() >= query.max_dependences) {
            ++left_out;
            continue;
          }
          for (size_t k = 0; k < sink.size(); ++k) at[k] = sink[k](x);
          int64_t b = point_index(to, at);
          if (b < 0 || std::any_of(before.begin(), before.end(), [&](const std::vector<int>& e) { return e[a] == int(b); })) continue;
          mine[a] = int(b);
          SpaceDependence dep;
          dep.kind = kind;
          dep.from_stmt = from, dep.from_point = int(a), dep.to_stmt = to, dep.to_point = int(b);
          const SpacePoint& pa = src.points[a];
          const SpacePoint& pb = space.statements[size_t(to)].points[size_t(b)];
          dep.crosses_tile = from == to ? pa.tile != pb.tile  // a statement's tiles are distinct
                                        : watched_loops[size_t(from)].tile != watched_loops[size_t(to)].tile ||
                                              (pa.tile >= 0 && space.statements[size_t(from)].tiles[size_t(pa.tile)] !=
                                                                   space.statements[size_t(to)].tiles[size_t(pb.tile)]);
          dep.violated = kind == DependenceKind::Reduction ? pa.time == pb.time : pb.time <= pa.time;
          space.violations += dep.violated;
          space.dependences.push_back(dep);
        }
        before.push_back(std::move(mine));
      });
    }
    if (left_out)
      space.notes.push_back(std::to_string(left_out) + " dependences left out beyond the first " +
                            std::to_string(query.max_dependences) + "; lower the view sizes to see them all");
  }

  // For each loop, the kinds of dependence it carries (at the compiled schedule): walking
  // down the tree, `same` holds each kind's pairs that every loop above keeps at one value,
  // so each member costs one comparison however deep it sits.
  void carried_dependences() {
    std::vector<isl::union_map> same;
    for (const auto& [kind, deps] : dependences) same.push_back(deps);
    carried_below(compiled.root(), {}, std::move(same));
  }
  void carried_below(const isl::schedule_node& n, const std::vector<int>& ids, std::vector<isl::union_map> same) {
    if (isl_schedule_node_get_type(n.get()) == isl_schedule_node_mark) {
      std::vector<int> mine = band_mark_ids(mark_name(n));
      if (!mine.empty() && n.child(0).isa<isl::schedule_node_band>()) return carried_below(n.child(0), mine, std::move(same));
    }
    if (isl_schedule_node_get_type(n.get()) == isl_schedule_node_band && !ids.empty()) {
      isl::union_set dom = numeric(node_domain(n), context);
      for (isl::union_map& m : same) m = m.intersect_domain(dom).intersect_range(dom);
      auto partial = isl::manage(isl_schedule_node_band_get_partial_schedule(n.get()));
      unsigned members = unsigned(isl_multi_union_pw_aff_dim(partial.get(), isl_dim_set));
      for (unsigned i = 0; i < members && i < ids.size(); ++i) {
        auto member = isl::manage(isl_multi_union_pw_aff_from_union_pw_aff(isl_multi_union_pw_aff_get_union_pw_aff(partial.get(), int(i))));
        member = isl::manage(isl_multi_union_pw_aff_intersect_params(member.release(), context.params().release()));
        std::vector<DependenceKind> kinds;
        for (size_t k = 0; k < same.size(); ++k) {
          auto stays = numeric(isl::manage(isl_union_map_eq_at_multi_union_pw_aff(same[k].copy(), member.copy())), context);
          if (!same[k].is_subset(stays)) kinds.push_back(dependences[k].first);
          same[k] = stays;
        }
        std::sort(kinds.begin(), kinds.end());
        if (!kinds.empty()) space.carried[ids[i]] = kinds;
      }
    }
    for (unsigned i = 0, c = n.n_children(); i < c; ++i) carried_below(n.child(int(i)), {}, same);
  }
};

}  // namespace

Expected<IterationSpace> iteration_space(const LoweringResult& lowered, const SpaceQuery& query) {
  if (lowered.passes.empty()) return Error{ErrorKind::Internal, "the kernel was not lowered"};
  Job job(lowered, query);
  job.space.threads = std::max(1, query.threads);
  collect_loops(lowered.passes.back().tree, job.facts);
  try {
    job.context = isl::set(job.ctx, lowered.model.context);
    if (Status s = job.read_schedule(); !s) return s.failure();
    std::vector<Flat> values;
    std::map<int, std::map<int64_t, int>> loop_values;
    for (const ModelStatement& st : lowered.model.statements) {
      values.emplace_back();
      job.enumerate_statement(st, loop_values, values.back());
    }
    job.rank_times();
    job.place_points(values, loop_values);
    job.read_dependences();
    job.collect_dependences();
    if (!query.schedule.empty()) job.space.notes.push_back("times, violations and order follow the what-if schedule; tiles and threads the compiled one");
    job.carried_dependences();
  } catch (const Cancelled&) {
    return Error{ErrorKind::Cancelled, "cancelled"};
  } catch (const BadSchedule& b) {
    return Error{ErrorKind::Options, "schedule: " + b.message};
  } catch (const TooMany& t) {
    return Error{ErrorKind::Sizes, "the view sizes give more than " + std::to_string(query.max_points) +
                                       " points; lower them to see the iteration space"};
  } catch (const std::exception& e) {
    return Error{ErrorKind::Internal, std::string("iteration space: ") + e.what()};
  }
  return std::move(job.space);
}

Expected<std::vector<TileFootprint>> tile_footprints(const LoweringResult& lowered) {
  if (lowered.passes.empty()) return Error{ErrorKind::Internal, "the kernel was not lowered"};
  std::vector<TileFootprint> out;
  try {
    IslContext owner;
    isl::ctx ctx(owner.ctx);
    isl::set context(ctx, lowered.model.context);
    std::map<int, LoopFacts> facts;
    collect_loops(lowered.passes.back().tree, facts);
    auto schedule = manage_maybe(isl_schedule_read_from_str(ctx.get(), lowered.passes.back().isl_schedule.c_str()));
    if (schedule.is_null()) return Error{ErrorKind::Internal, "the compiled schedule is not isl schedule text"};
    std::vector<BandLoop> loops;
    collect_band_loops(schedule.root(), {}, loops);
    for (const ModelStatement& st : lowered.model.statements) {
      // The innermost tile band over this statement: the last tile loop over it.
      const BandLoop* tile = nullptr;
      for (const BandLoop& b : loops)
        if (facts.count(b.id) && facts.at(b.id).role == LoopRole::Tile && covers(b.domain, st.name)) tile = &b;
      if (!tile) continue;
      // The schedule of the outer bands and the whole tile band: one value per tile.
      auto with_band = isl::manage(isl_schedule_node_get_prefix_schedule_union_map(tile->band.child(0).get()));
      isl::map prefix = map_of(numeric(with_band, context), st.name);
      std::map<std::string, int64_t> by_tensor;
      std::vector<std::string> accesses = st.reads;
      accesses.insert(accesses.end(), st.writes.begin(), st.writes.end());
      for (const std::string& a : accesses) {
        isl::map access = map_of(numeric(isl::union_map(ctx, a), context), st.name);
        if (access.is_null()) continue;
        std::string tensor = isl_map_get_tuple_name(access.get(), isl_dim_out) ?: "";
        isl::map per_tile = prefix.reverse().apply_range(access);
        int64_t elements = 0;
        auto box = manage_maybe(isl_map_get_range_simple_fixed_box_hull(per_tile.get()));
        if (!box.is_null() && isl_fixed_box_is_valid(box.get()) == isl_bool_true) {
          auto size = isl::manage(isl_fixed_box_get_size(box.get()));
          elements = 1;
          for (int i = 0, n = int(isl_multi_val_size(size.get())); i < n; ++i)
            elements *= isl_val_get_num_si(isl::manage(isl_multi_val_get_at(size.get(), i)).get());
        }
        by_tensor[tensor] = std::max(by_tensor[tensor], elements);
      }
      for (auto& [tensor, elements] : by_tensor) out.push_back({st.name, tensor, elements});
    }
  } catch (const std::exception& e) {
    return Error{ErrorKind::Internal, std::string("tile footprints: ") + e.what()};
  }
  return out;
}

}  // namespace tcs
