// The lowering pipeline, read top to bottom: each step is one pass in its own file, timed,
// followed by a snapshot of the schedule tree.
#include "poly/Lowering.h"

#include <chrono>
#include <cstdlib>
#include <memory>

#include "loopnest/CollapseRows.h"
#include "loopnest/EdgeGuards.h"
#include "loopnest/FetchAhead.h"
#include "loopnest/FullTiles.h"
#include "loopnest/ShortRows.h"
#include "loopnest/SplitTotals.h"
#include "poly/PolyJob.h"

namespace tcs {

std::vector<std::string> lowering_pass_names(const std::vector<MappingPass>& mapping) {
  std::vector<std::string> names = {"model", "dependences", "schedule", "tile"};
  for (const MappingPass& p : mapping) names.push_back(p.name);
  names.push_back("ast");
  return names;
}

namespace {

Status check_against_kernel(const SemaDef& def, const MappingOptions& o) {
  auto check_packs = [&](const MappingOptions& opts, const std::string& prefix) -> Status {
    for (size_t i = 0; i < opts.cpu.pack.size(); ++i)
      if (const std::string& t = opts.cpu.pack[i].tensor; def.find_tensor(t) < 0)
        return Error{ErrorKind::Options, prefix + "cpu.pack[" + std::to_string(i) + "].tensor: '" + def.name +
                                             "' has no tensor named '" + t + "'"};
    return success();
  };
  if (Status s = check_packs(o, ""); !s) return s;
  for (const StatementOptions& s : o.statements) {
    bool exists = false;
    for (size_t k = 0; k < def.stmts.size(); ++k) exists |= s.statement == "S" + std::to_string(k);
    if (!exists)
      return Error{ErrorKind::Options, "statements: '" + def.name + "' has no statement " + s.statement + "; its statements are S0" +
                                           (def.stmts.size() > 1 ? " to S" + std::to_string(def.stmts.size() - 1) : "")};
    if (s.fields.count("cpu.pack"))
      if (Status st = check_packs(*mapping_options_for_statement(o, s.statement), "statements." + s.statement + "."); !st) return st;
  }
  return success();
}

}  // namespace

Expected<LoweringResult> lower_to_loop_nest(const SemaDef& def, const DefShapes& shapes,
                                            const MappingOptions& options, const std::vector<MappingPass>& mapping,
                                            const std::atomic<bool>* cancel, bool symbolic_sizes) {
  if (!def.ok) return Error{ErrorKind::Source, "'" + def.name + "' has errors; fix them before compiling it"};
  if (Status s = mapping_options_validate(options); !s) return Error{ErrorKind::Options, "options: " + s.error()};
  if (Status s = check_against_kernel(def, options); !s) return Error{ErrorKind::Options, "options: " + s.error()};

  LoweringResult result;
  poly::PolyJob job(def, shapes, options);
  job.symbolic_sizes = symbolic_sizes;
  auto step = [&](const char* name, auto&& pass) -> bool {
    if (cancel && cancel->load()) return false;
    auto t0 = std::chrono::steady_clock::now();
    pass();
    auto t1 = std::chrono::steady_clock::now();
    PassSnapshot snap;
    snap.pass = name;
    snap.milliseconds = std::chrono::duration<double, std::milli>(t1 - t0).count();
    snap.tree = poly::snapshot_schedule(job);
    std::unique_ptr<char, decltype(&free)> text(isl_schedule_to_str(job.schedule.get()), &free);
    if (text) snap.isl_schedule = text.get();
    result.passes.push_back(std::move(snap));
    return true;
  };
  try {
    bool done = step("model", [&] { poly::build_model(job); job.schedule = job.initial; }) &&
                step("dependences", [&] { poly::compute_dependences(job); }) &&
                step("schedule", [&] { poly::compute_schedule(job); poly::find_reduction_starts(job); }) &&
                step("tile", [&] { poly::tile_bands(job); });
    for (const MappingPass& p : mapping) done = done && step(p.name, [&] { p.run(job); });
    done = done && step("ast", [&] {
             result.nest = poly::build_loop_nest(job);
             hoist_edge_guards(def, shapes, result.nest);
             separate_full_register_tiles(result.nest);
             collapse_rows(def, shapes, result.nest, options.cpu.vector_width);
             unroll_short_rows(def, result.nest);
             plan_fetch_ahead(result.nest);
             plan_stream_ahead(result.nest, options.cpu.fetch_ahead);
             split_totals(def, shapes, symbolic_sizes, result.nest, options);
             result.nest.stream_outputs = options.cpu.stream_stores;
           });
    if (!done) return Error{ErrorKind::Cancelled, "compilation cancelled"};
  } catch (const poly::OptionError& e) {
    return Error{ErrorKind::Options, "options: " + e.message};
  } catch (const poly::SizesError& e) {
    return Error{ErrorKind::Sizes, e.message};
  } catch (const std::exception& e) {
    return Error{ErrorKind::Internal, std::string("internal error in the polyhedral pipeline: ") + e.what()};
  }
  result.model = std::move(job.info);
  return result;
}

}  // namespace tcs
