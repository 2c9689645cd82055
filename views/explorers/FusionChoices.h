#pragma once
// The fusion explorer's data: the kernel compiled once per outer-fusion strategy (Max,
// Preserve3Coincident, Min) with every other option as the user has them, each shown as
// its statement graph and loop structure and, when asked, timed briefly with the
// compiler's one measurement routine. Plain data, computed off the GUI thread.
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loopnest/StatementGraph.h"
#include "options/MappingOptions.h"
#include "views/explorers/QuickTime.h"

namespace tcs {

struct CompileOutcome;

struct FusionVariant {
  FusionStrategy strategy = FusionStrategy::Max;
  MappingOptions options;  // the kernel's options with this outer fusion
  std::vector<std::string> dropped;  // option fields that fit no band of this fusion, left out
  std::optional<StatementGraph> graph;
  std::string schedule;  // the final isl schedule: two variants with equal text run the same loops
  std::vector<std::string> statement_text;  // per graph node: its source statement, for labels
  double compile_ms = 0;
  QuickTime time;     // when asked for
  std::string error;  // why there is no graph
};

inline constexpr FusionStrategy kFusionStrategies[] = {FusionStrategy::Max, FusionStrategy::Preserve3Coincident,
                                                       FusionStrategy::Min};

// Compiles `outcome`'s kernel with `strategy` (and, with `time`, builds it and times it
// with quick_time).
FusionVariant fusion_variant(const CompileOutcome& outcome, FusionStrategy strategy, bool time,
                             const std::atomic<bool>* cancel = nullptr);

// What identifies the kernel a set of variants was made for, fusion aside: the source,
// entry, sizes and every option but outer_fusion. Equal keys, the same three variants.
std::string fusion_key(const CompileOutcome& outcome);

}  // namespace tcs
