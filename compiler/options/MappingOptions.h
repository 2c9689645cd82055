#pragma once
// How a kernel is scheduled and mapped: a plain struct, read and written as JSON, that the
// passes, the tuner's search space and the IDE's options panel all share. Validation
// names the field at fault; checks that need the kernel (a tensor to pack, the number of
// loops in a band) happen when the options are applied, with the same kind of message.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "support/Expected.h"

namespace tcs {

struct SemaDef;
struct DefShapes;

// Which statements the isl scheduler may fuse (TC's strategies): Max fuses whatever it
// can, Preserve3Coincident fuses only while three outer loops stay parallel, Min keeps
// statements apart unless fusing them is required.
enum class FusionStrategy { Max, Preserve3Coincident, Min };
std::string_view fusion_strategy_name(FusionStrategy f);

struct PackRequest {
  std::string tensor;  // copy this tensor's tile into a contiguous local buffer ...
  int depth = 0;       // ... inside this many loops of the tiled band (0 = outside it),
  // ... its dimensions in this order, outermost first ([] = the tensor's own; [1, 0]
  // transposes a matrix, so a column the kernel walks becomes a contiguous row)
  std::vector<int> order = {};
  friend bool operator==(const PackRequest&, const PackRequest&) = default;
};

struct CpuMapping {
  bool parallel = true;            // the outermost parallel loop runs across threads
  bool vectorize = true;           // the innermost loop is vectorised ...
  int vector_width = 8;            // ... this many lanes wide (8 floats: one AVX2 register)
  std::vector<int> point_loop_order;  // permutation of the point loops; empty: as scheduled
  std::vector<PackRequest> pack;
  bool register_accumulate = false;  // keep the register tile's accumulators in registers
  // > 0: the loop around each innermost long loop fetches, at the start of an iteration,
  // the lines its reads will touch this many iterations on (LoopAnnotation::fetch_ahead).
  int fetch_ahead = 0;
  // Outputs the kernel writes and never reads are stored past the caches (non-temporal
  // stores) where their tensors start on a cache line (LoopNest::stream_outputs).
  bool stream_stores = false;
  friend bool operator==(const CpuMapping&, const CpuMapping&) = default;
};

// Options of one statement in a kernel with several (the layers of an MLP, KRU3's three
// contractions): the fields given replace the kernel-wide ones for the loops over that
// statement and its initialisation; every other field stays as the kernel sets it. Only
// the fields that shape a statement's own loops may be given (OptionField::per_statement).
struct StatementOptions {
  std::string statement;                      // "S2": numbered as the model and the code panes show
  std::map<std::string, std::string> fields;  // option name ("tile", "cpu.pack") -> its JSON value
  friend bool operator==(const StatementOptions&, const StatementOptions&) = default;
};

struct MappingOptions {
  FusionStrategy outer_fusion = FusionStrategy::Preserve3Coincident;
  FusionStrategy intra_tile_fusion = FusionStrategy::Min;
  bool fix_parameters_before_scheduling = true;
  std::vector<int64_t> tile;           // cache level, outer loop first; empty: no tiling
  std::vector<int64_t> register_tile;  // second level, inside the cache tiles
  bool tile_imperfectly_nested = false;  // also tile bands that do not reach every statement
  int unroll = 1;                        // unroll factor of the innermost loop
  CpuMapping cpu;
  std::vector<StatementOptions> statements;  // each statement at most once
  // Set by presets, never read from or written to JSON: a preset is chosen from the def
  // alone, before the scheduler has shaped its bands, so the parts of it that do not fit
  // this kernel's schedule (a point-loop order or a pack depth for a band the scheduler
  // made smaller) are skipped with a note in the model instead of refused. Options a user
  // writes are strict: every mismatch is an error naming the field.
  bool best_effort = false;
  friend bool operator==(const MappingOptions&, const MappingOptions&) = default;
};

// Parses and validates; errors name the field ("tile[1] must be a positive integer, got 0")
// and, for JSON syntax, the line and column.
Expected<MappingOptions> mapping_options_from_json(std::string_view text);
// Reads each field as the table allows it but skips the checks between fields (registerTile
// within tile, ...): what an editor shows while the user is midway through a change.
Expected<MappingOptions> mapping_options_read_json(std::string_view text);
std::string mapping_options_to_json(const MappingOptions& o);  // pretty, stable key order
// The same JSON on one line, keys as written ("# options:" lines in a .tc file); an error
// when `text` is not JSON at all.
Expected<std::string> options_json_line(std::string_view text);
Status mapping_options_validate(const MappingOptions& o);
// The options the loops over statement `statement` ("S2") take: `o` with that statement's
// fields in place of the kernel-wide ones (and no statements of its own); `o` itself
// when the statement has none. Errors name the statement's field ("statements.S2.tile[0] ...").
Expected<MappingOptions> mapping_options_for_statement(const MappingOptions& o, std::string_view statement);

// "naive" (textual order, no tiling, no threads, no vectors), "default" (chosen from the
// kernel's class), and the class presets "contraction", "reduction", "elementwise".
std::vector<std::string> mapping_preset_names();
// With `shapes`, the presets also read the kernel's sizes (how wide a register tile a
// convolution's output rows take); without, they choose from the def alone.
Expected<MappingOptions> mapping_preset(std::string_view name, const SemaDef& def, const DefShapes* shapes = nullptr);

// What kind of kernel a def is, for picking a default: a sum of products with a reduction
// (matmul, convolution), another reduction, or neither.
enum class KernelClass { Contraction, Reduction, Elementwise };
KernelClass classify_kernel(const SemaDef& def);
std::string_view kernel_class_name(KernelClass k);

}  // namespace tcs
