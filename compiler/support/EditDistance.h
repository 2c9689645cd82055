#pragma once
// How far apart two names are (Levenshtein: insertions, deletions, substitutions), for
// "did you mean" in the front end's and the options reader's messages.
#include <cstddef>
#include <string_view>

namespace tcs {

size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace tcs
