#pragma once
// Plain-data snapshots of the polyhedral model and of the schedule tree after each pass:
// what the CLI prints, the IDE's pass list draws and the golden tests compare. Sets and
// maps are kept in isl's text syntax so tests can compare them with isl equality.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/Expected.h"

namespace tcs {

struct ModelStatement {
  std::string name;       // "S0", "S0_init"
  int source_stmt = -1;   // index into SemaDef::stmts
  bool is_init = false;
  std::string domain;     // isl set
  std::vector<std::string> reads, writes;  // isl maps, one per access
};

struct PolyModelInfo {
  std::string context;  // isl set over the size parameters
  std::vector<ModelStatement> statements;
  // isl union maps between statement instances.
  std::string flow, anti, output;
  std::string reduction;  // the reductions' self-dependences (part of flow/anti/output)
  std::string initial_schedule;  // textual order
  std::vector<std::string> notes;  // approximations made while modelling
};

struct BandMember {
  int loop_id = -1;       // stable node id of the loop this member becomes
  std::string schedule;   // isl multi_union_pw_aff text of this member
  bool coincident = false;
  bool parallel = false;  // mapped to threads
  int vector_width = 0;   // vectorised
  int unroll = 0;
};

// What a band's loops are: as the scheduler made them, the tile loops of a tiled band, the
// point loops inside the tiles, or the point loops of the register tile inside those.
enum class LoopRole { Scheduled, Tile, Point, RegisterPoint };
std::string_view loop_role_name(LoopRole role);  // "scheduled", "tile", "point", "register point"

struct ScheduleNode {
  enum class Kind { Domain, Context, Band, Sequence, Set, Filter, Mark, Leaf, Extension, Guard, Expansion };
  Kind kind = Kind::Leaf;
  std::string text;   // Domain/Filter/Context: the isl set; Mark: its name
  LoopRole role = LoopRole::Scheduled;  // Band
  bool permutable = false;
  std::vector<BandMember> members;
  std::vector<int64_t> tile_sizes;  // Band produced by tiling: the size per member (0: not tiled)
  std::vector<std::string> statements;  // statements below this node
  std::vector<ScheduleNode> children;
};

std::string_view schedule_node_kind_name(ScheduleNode::Kind k);
// One line of the printed tree: a node, or one member of a band (member >= 0).
struct ScheduleLine {
  const ScheduleNode* node = nullptr;
  int member = -1;
};

// Indented text: a line per node and one more per band member ("L3: ..." with its flags).
// `lines`, when given, receives what each printed line shows, for the IDE's line links.
std::string schedule_tree_to_string(const ScheduleNode& root, std::vector<ScheduleLine>* lines = nullptr);

struct PassSnapshot {
  std::string pass;       // "schedule", "tile", ...
  double milliseconds = 0;
  ScheduleNode tree;
  std::string isl_schedule;  // the whole schedule in isl's YAML-like text (for isl equality)
};

// Whether two schedules (isl_schedule text, as in PassSnapshot::isl_schedule) run the
// same statement instances in the same order: their schedule maps are equal in isl. Two
// trees of different shape can be equivalent. An error names the text isl cannot read.
Expected<bool> schedules_equivalent(std::string_view a, std::string_view b);

}  // namespace tcs
