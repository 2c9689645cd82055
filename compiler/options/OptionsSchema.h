#pragma once
// The mapping options described once. Each field of MappingOptions has one row in the
// table (OptionsSchema.cpp): its JSON name, type, allowed values, target group and a
// one-line meaning; its default is what a default-constructed MappingOptions holds. The
// JSON reader and writer, the validation messages, the IDE's options panel, the generated
// docs/OPTIONS.md and the random options of the tuner and the differential test all read
// this table. A target's fields live in a group of their own ("cpu.*"; "cuda.*" next).
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "options/MappingOptions.h"
#include "support/Expected.h"

namespace tcs {

enum class OptionType {
  Bool,
  Int,          // min..max; power_of_two when set
  Choice,       // one of `choices`
  Sizes,        // up to max_entries integers, each min..max (tile sizes)
  Permutation,  // a permutation of 0..n-1, n up to max_entries
  PackList,     // [{"tensor": NAME, "depth": min..max}, ...], each tensor once
};

struct OptionField {
  std::string name;   // the JSON path: "tile", "cpu.vectorWidth"
  std::string group;  // "" for every target, else the target's name ("cpu")
  OptionType type = OptionType::Bool;
  int64_t min = 0, max = 0;
  bool power_of_two = false;
  int max_entries = 0;
  std::vector<std::string> choices;
  std::vector<int64_t> samples;  // values random options draw from (Sizes)
  std::string meaning;           // one line
  bool per_statement = false;    // may be given per statement (it shapes that statement's loops)
};

// Every field, in the order JSON is written and the panel and docs list them.
const std::vector<OptionField>& option_fields();
const OptionField* find_option_field(std::string_view name);

// "boolean", "integer 1..64, a power of two", "\"Max\", \"Preserve3Coincident\" or \"Min\"", ...
std::string option_allowed(const OptionField& field);

// A field's value as JSON text ("[32, 32]", "true", "\"Max\"").
std::string option_get(const MappingOptions& options, const OptionField& field);
// Sets a field from JSON text; the error names the field and what it allows. Only this
// field is checked: rules between fields are mapping_options_validate's.
Status option_set(MappingOptions& options, const OptionField& field, std::string_view json_value);

// The fields whose values differ, in the table's order: "tile: [32, 32] → [8, 8]", then
// those a statement's loops see differently: "statements.S2.tile: [32] → [16]".
std::vector<std::string> option_differences(const MappingOptions& a, const MappingOptions& b);

// Options drawn at random, each field from its allowed values, then made consistent (a
// register tile inside the cache tile, packs only of the def's inputs and only with
// tiles): always valid by mapping_options_validate. Deterministic for a given generator.
// pointLoopOrder stays empty: its length depends on the kernel's schedule. In a kernel with
// several statements, half the draws give one of them per-statement fields of its own.
MappingOptions random_mapping_options(std::mt19937_64& rng, const SemaDef& def);

// docs/OPTIONS.md: every field with its type, allowed values, default and meaning.
std::string options_markdown();

}  // namespace tcs
