#pragma once
// Integer division rounded towards minus and plus infinity, for any signs (C++ rounds
// towards zero): the bounds of iterators and subscripts are often negative.
#include <cstdint>

namespace tcs {

inline int64_t floor_div(int64_t n, int64_t d) { return n / d - ((n % d != 0) && ((n < 0) != (d < 0))); }
inline int64_t ceil_div(int64_t n, int64_t d) { return -floor_div(-n, d); }

}  // namespace tcs
