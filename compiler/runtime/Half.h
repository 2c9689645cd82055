#pragma once
// IEEE 754 binary16 <-> binary32 conversion, bit-exact, round to nearest even.
#include <cstdint>

namespace tcs {

float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
// Rounds once, straight from double: going through float first would round twice and
// can land on the wrong side of a halfway point.
uint16_t double_to_half(double d);

}  // namespace tcs
