#include "runtime/Half.h"

#include <bit>

// Done with integer arithmetic on the bit patterns rather than with a compiler's
// _Float16, so that the result is the same on every compiler and target and never
// depends on the current floating-point rounding mode.

namespace tcs {

namespace {

// Rounds `value >> shift` to nearest, ties to even. 1 <= shift < bits of UInt.
template <class UInt>
UInt shift_right_round_even(UInt value, int shift) {
  UInt kept = value >> shift;
  UInt rest = value & ((UInt(1) << shift) - 1);
  UInt half = UInt(1) << (shift - 1);
  if (rest > half || (rest == half && (kept & 1))) ++kept;
  return kept;
}

}  // namespace

float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;

  if (exponent == 0x1f)  // inf or nan; the payload (and the quiet bit) moves up as is
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0)  // normal: rebias 15 -> 127
    return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0) return std::bit_cast<float>(sign);  // +-0

  // Subnormal half (mantissa * 2^-24) is a normal float: shift the leading one up to
  // the implicit position, lowering the exponent once per shift.
  uint32_t float_exponent = 113;  // biased exponent of 2^-14
  while ((mantissa & 0x400) == 0) {
    mantissa <<= 1;
    --float_exponent;
  }
  mantissa &= 0x3ff;
  return std::bit_cast<float>(sign | (float_exponent << 23) | (mantissa << 13));
}

uint16_t float_to_half(float f) {
  uint32_t bits = std::bit_cast<uint32_t>(f);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  uint32_t magnitude = bits & 0x7fffffff;
  uint32_t exponent = magnitude >> 23;
  uint32_t mantissa = magnitude & 0x7fffff;

  if (exponent == 0xff) {
    if (mantissa == 0) return sign | 0x7c00;  // inf
    // nan: keep the top payload bits and force the quiet bit so the result stays a nan
    // even when only low payload bits were set.
    return uint16_t(sign | 0x7e00 | (mantissa >> 13));
  }
  if (exponent >= 143) return sign | 0x7c00;  // >= 2^16: overflows to inf

  if (exponent >= 113) {
    // Normal half range (2^-14 <= |f| < 2^16). Rounding may carry out of the mantissa
    // into the exponent, which is exactly the next binade (or inf after 65504).
    uint32_t biased = ((exponent - 112) << 23) | mantissa;
    return uint16_t(sign | shift_right_round_even(biased, 13));
  }

  // Subnormal half or zero: the result counts units of 2^-24. The float with the
  // implicit bit is (2^23 + mantissa) * 2^(exponent - 150), i.e. that significand
  // shifted right by 126 - exponent units. Rounding up from the largest subnormal
  // yields 0x400, which is the encoding of the smallest normal.
  if (exponent == 0) return sign;  // float subnormals are far below 2^-25
  int shift = 126 - int(exponent);
  if (shift > 24) return sign;  // below 2^-25 (the halfway point to 2^-24): zero
  return uint16_t(sign | shift_right_round_even(mantissa | 0x800000, shift));
}

// The same steps as float_to_half with binary64's field widths: 11 exponent bits
// (bias 1023) and 52 mantissa bits.
uint16_t double_to_half(double d) {
  uint64_t bits = std::bit_cast<uint64_t>(d);
  uint16_t sign = uint16_t((bits >> 48) & 0x8000);
  uint64_t magnitude = bits & 0x7fffffffffffffffull;
  uint64_t exponent = magnitude >> 52;
  uint64_t mantissa = magnitude & 0xfffffffffffffull;

  if (exponent == 0x7ff) {
    if (mantissa == 0) return sign | 0x7c00;
    return uint16_t(sign | 0x7e00 | (mantissa >> 42));
  }
  if (exponent >= 1039) return sign | 0x7c00;  // >= 2^16
  if (exponent >= 1009) {                      // >= 2^-14
    uint64_t biased = ((exponent - 1008) << 52) | mantissa;
    return uint16_t(sign | shift_right_round_even(biased, 42));
  }
  if (exponent == 0) return sign;
  int shift = 1051 - int(exponent);
  if (shift > 53) return sign;
  return uint16_t(sign | shift_right_round_even(mantissa | (uint64_t(1) << 52), shift));
}

}  // namespace tcs
