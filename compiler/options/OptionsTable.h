#pragma once
// Private to compiler/options: the table's rows on nlohmann-json values, shared by the
// schema (OptionsSchema.cpp) and the JSON reader and writer (OptionsJson.cpp). Only these
// .cpp files include nlohmann-json's large header.
#include <nlohmann/json.hpp>

#include "options/OptionsSchema.h"

namespace tcs::options_table {

using json = nlohmann::ordered_json;

// Whether `value` is allowed for the field (the message names the field and the range).
Status check(const OptionField& field, const json& value);
// Checks `value` against the field's row and, when it passes, stores it in `options`.
Status set(MappingOptions& options, const OptionField& field, const json& value);
json get(const MappingOptions& options, const OptionField& field);

// One line, with a space after each comma and colon: [32, 8], {"tensor": "B", "depth": 3}.
std::string inline_text(const json& value);

// "a number", "an array", ... for messages.
std::string kind_of(const json& value);

}  // namespace tcs::options_table
