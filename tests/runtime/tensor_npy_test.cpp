// Tensor, float16 conversion and .npy reading/writing. The .npy inputs are built byte by
// byte here, the way numpy lays them out, so the tests need neither Python nor data files.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "runtime/Half.h"
#include "runtime/Npy.h"
#include "runtime/Tensor.h"

namespace tcs {
namespace {

::testing::AssertionResult has_substr(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" lacks \"" << part << "\"";
}

::testing::AssertionResult starts_with(const std::string& text, const std::string& start) {
  if (text.compare(0, start.size(), start) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "\"" << text << "\" does not start with \"" << start << "\"";
}

// ----------------------------------------------------------------------------- helpers

// A complete .npy file: magic, version, little-endian header length, `dict` padded with
// spaces and a newline so the data starts at a multiple of `align`, then `data`.
std::string npy_bytes(const std::string& dict, const std::string& data = "", int major = 1,
                      size_t align = 64) {
  size_t preamble = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((preamble + header.size() + 1) % align != 0) header += ' ';
  header += '\n';
  std::string out = std::string("\x93NUMPY", 6) + char(major) + char(0);
  for (size_t i = 0; i < preamble - 8; ++i) out += char((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

template <class T>
std::string raw_bytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()),
                     values.size() * sizeof(T));
}

// Prefixed so that other programs' files in the shared temporary folder are left alone.
std::string temp_path(const std::string& file) {
  return (std::filesystem::path(::testing::TempDir()) / ("tcs_npy_test_" + file)).string();
}

void file_write(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

// Parses bytes that must be refused; returns the message.
std::string npy_refusal(const std::string& bytes, const std::string& name = "x.npy") {
  Expected<Tensor> t = npy_parse(bytes, name);
  EXPECT_FALSE(t.ok()) << "accepted " << tensor_describe(*t);
  if (t.ok()) return "";
  EXPECT_TRUE(starts_with(t.error(), name + ": "));
  return t.error();
}

bool tensors_identical(const Tensor& a, const Tensor& b) {
  return a.dtype == b.dtype && a.shape == b.shape && a.data == b.data;
}

// Any byte pattern is a valid element except for bool, whose bytes are 0 or 1.
Tensor tensor_patterned(ScalarType dtype, std::vector<int64_t> shape) {
  Tensor t = *Tensor::zeros(dtype, std::move(shape));
  for (size_t i = 0; i < t.data.size(); ++i)
    t.data[i] = dtype == ScalarType::Bool ? std::byte(i % 3 == 0) : std::byte(i * 37 + 11);
  return t;
}

const std::string kDict23 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
const std::vector<float> kValues23 = {1.5f, -2.f, 0.f, 3.25f, 1e30f, -0.f};

// ------------------------------------------------------------------------------ half

TEST(Half, DecodesSpecialValues) {
  EXPECT_EQ(std::bit_cast<uint32_t>(half_to_float(0x0000)), 0x00000000u);
  EXPECT_EQ(std::bit_cast<uint32_t>(half_to_float(0x8000)), 0x80000000u);  // -0
  EXPECT_EQ(half_to_float(0x3c00), 1.0f);
  EXPECT_EQ(half_to_float(0xc000), -2.0f);
  EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14));     // smallest normal
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));     // smallest subnormal
  EXPECT_EQ(half_to_float(0x03ff), std::ldexp(1023.0f, -24));  // largest subnormal
  EXPECT_EQ(half_to_float(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(half_to_float(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(half_to_float(0x7e00)));
  EXPECT_TRUE(std::isnan(half_to_float(0x7c01)));  // signalling nan stays a nan
}

TEST(Half, EncodesSpecialValues) {
  EXPECT_EQ(float_to_half(0.0f), 0x0000);
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(float_to_half(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(float_to_half(1e10f), 0x7c00);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -14)), 0x0400);
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(float_to_half(-std::numeric_limits<float>::denorm_min()), 0x8000);

  uint16_t nan = float_to_half(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
  // A float nan whose payload lies only in bits that half drops must stay a nan.
  uint16_t low_payload = float_to_half(std::bit_cast<float>(0x7f800001u));
  EXPECT_EQ(low_payload & 0x7c00, 0x7c00);
  EXPECT_NE(low_payload & 0x03ff, 0);
}

TEST(Half, RoundsToNearestEven) {
  // 65504 + 16 is halfway to 65536 (inf); 0x7bff is odd, so the tie goes up.
  EXPECT_EQ(float_to_half(65519.0f), 0x7bff);
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);
  // Ties between 1 and the next halves: 1 + 2^-11 goes down to even 0x3c00,
  // 1 + 3 * 2^-11 goes up to even 0x3c02.
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(3.0f, -11)), 0x3c02);
  // Subnormal ties: 2^-25 is halfway between 0 and 2^-24, 3 * 2^-25 between 1 and 2 units.
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(float_to_half(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  EXPECT_EQ(float_to_half(std::ldexp(3.0f, -25)), 0x0002);
  // Rounding the largest subnormal up carries into the smallest normal.
  EXPECT_EQ(float_to_half(std::ldexp(2047.0f, -25)), 0x0400);
}

TEST(Half, EveryHalfRoundTrips) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    float f = half_to_float(uint16_t(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(f)))) << h;
      continue;
    }
    ASSERT_EQ(float_to_half(f), h);
    ASSERT_EQ(double_to_half(double(f)), h);
  }
}

// Every midpoint between neighbouring finite halves is an exact tie that must go to the
// even one; the floats just beside it must go to the nearer neighbour.
TEST(Half, EveryMidpointRoundsCorrectly) {
  for (uint16_t h = 0; h < 0x7bff; ++h) {
    double lo = half_to_float(h), hi = half_to_float(uint16_t(h + 1));
    double mid = (lo + hi) / 2;
    uint16_t even = (h & 1) ? uint16_t(h + 1) : h;
    for (int sign = 0; sign < 2; ++sign) {
      uint16_t s = sign ? 0x8000 : 0;
      double m = sign ? -mid : mid;
      ASSERT_EQ(float_to_half(float(m)), even | s) << h;
      ASSERT_EQ(double_to_half(m), even | s) << h;
      // One float or double step away from zero, and one towards it.
      float inf = std::numeric_limits<float>::infinity();
      float away = std::nextafter(float(m), sign ? -inf : inf);
      float toward = std::nextafter(float(m), 0.0f);
      ASSERT_EQ(float_to_half(away), (h + 1) | s) << h;
      ASSERT_EQ(float_to_half(toward), h | s) << h;
      ASSERT_EQ(double_to_half(std::nextafter(m, double(sign ? -inf : inf))), (h + 1) | s)
          << h;
      ASSERT_EQ(double_to_half(std::nextafter(m, 0.0)), h | s) << h;
    }
  }
}

TEST(Half, DoubleRoundsOnce) {
  // Just above the tie between 0x3c00 and 0x3c01. Rounding to float first lands exactly
  // on the tie, which then goes to even 0x3c00; rounding once gives the nearer 0x3c01.
  double d = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(float_to_half(float(d)), 0x3c00);
  EXPECT_EQ(double_to_half(d), 0x3c01);
  EXPECT_EQ(double_to_half(1e300), 0x7c00);
  EXPECT_EQ(double_to_half(-1e-300), 0x8000);
  EXPECT_EQ(double_to_half(std::ldexp(1.0, -24)), 0x0001);
}

#if defined(__FLT16_MANT_DIG__)
// Where the compiler has _Float16, its conversion is an independent reference.
TEST(Half, MatchesCompilerFloat16) {
  uint32_t state = 12345;
  for (int i = 0; i < 200000; ++i) {
    state = state * 1664525u + 1013904223u;
    // Exponents around the half range, where all the interesting cases are.
    uint32_t bits = (state & 0x807fffffu) | ((100u + (state >> 8) % 50u) << 23);
    float f = std::bit_cast<float>(bits);
    _Float16 reference = static_cast<_Float16>(f);
    ASSERT_EQ(float_to_half(f), std::bit_cast<uint16_t>(reference)) << bits;
  }
}
#endif

// ---------------------------------------------------------------------------- tensor

// Kernels' vector loads and stores of a whole cache line must not straddle two: buffers
// start on a line, small ones and the large ones malloc would start 16 bytes into a page,
// and so do copies of them (the timing routine's rotation copies tensors).
TEST(Tensor, BuffersStartOnACacheLine) {
  for (int64_t n : {int64_t(1), int64_t(7), int64_t(1000), int64_t(1) << 20}) {
    Expected<Tensor> t = Tensor::zeros(ScalarType::Float32, {n});
    ASSERT_TRUE(t.ok()) << t.error();
    Tensor copy = *t;
    for (const Tensor* x : {&*t, &copy}) EXPECT_EQ(reinterpret_cast<uintptr_t>(x->data.data()) % 64, 0u) << n;
  }
}

TEST(Tensor, ZerosAllocatesZeroFilledBuffer) {
  Expected<Tensor> t = Tensor::zeros(ScalarType::Float32, {2, 3});
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(t->numel(), 6);
  EXPECT_EQ(t->data.size(), 24u);
  for (std::byte b : t->data) EXPECT_EQ(b, std::byte{0});

  Expected<Tensor> scalar = Tensor::zeros(ScalarType::Int64, {});
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->numel(), 1);
  EXPECT_EQ(scalar->data.size(), 8u);

  // A zero extent makes an empty tensor however large the other extents are.
  Expected<Tensor> empty =
      Tensor::zeros(ScalarType::Float64, {int64_t(1) << 40, int64_t(1) << 40, 0});
  ASSERT_TRUE(empty.ok()) << empty.error();
  EXPECT_EQ(empty->numel(), 0);
  EXPECT_TRUE(empty->data.empty());
}

TEST(Tensor, ZerosRefusesOverflowAndLimits) {
  Expected<Tensor> count =
      Tensor::zeros(ScalarType::UInt8, {int64_t(1) << 40, int64_t(1) << 40});
  ASSERT_FALSE(count.ok());
  EXPECT_TRUE(has_substr(count.error(), "element count overflows"));
  EXPECT_TRUE(has_substr(count.error(), "uint8[1099511627776, 1099511627776]"));

  Expected<Tensor> bytes = Tensor::zeros(ScalarType::Float64, {int64_t(1) << 62});
  ASSERT_FALSE(bytes.ok());
  EXPECT_TRUE(has_substr(bytes.error(), "byte size overflows"));

  Expected<Tensor> limit = Tensor::zeros(ScalarType::Float32, {1024, 1024}, 1000);
  ASSERT_FALSE(limit.ok());
  EXPECT_TRUE(
      has_substr(limit.error(), "needs 4194304 bytes, more than the limit of 1000"));

  Expected<Tensor> negative = Tensor::zeros(ScalarType::Float32, {3, -1});
  ASSERT_FALSE(negative.ok());
  EXPECT_TRUE(has_substr(negative.error(), "negative dimension -1"));

  // Exactly at the limit is allowed.
  EXPECT_TRUE(Tensor::zeros(ScalarType::Float32, {250}, 1000).ok());

  // Without a limit, a size no vector can hold still comes back as a message.
  Expected<Tensor> huge = Tensor::zeros(ScalarType::UInt16, {(int64_t(1) << 62) + 1},
                                        std::numeric_limits<size_t>::max());
  ASSERT_FALSE(huge.ok());
  EXPECT_TRUE(has_substr(huge.error(), "cannot allocate"));
}

TEST(Tensor, Describe) {
  EXPECT_EQ(tensor_describe(*Tensor::zeros(ScalarType::Float32, {128, 256})),
            "float32[128, 256]");
  EXPECT_EQ(tensor_describe(*Tensor::zeros(ScalarType::Int8, {})), "int8[]");
  EXPECT_EQ(tensor_type_describe(ScalarType::Bool, {7}), "bool[7]");
}

TEST(Tensor, DoubleConversions) {
  auto stored = [](ScalarType dtype, double v) {
    Tensor t = *Tensor::zeros(dtype, {1});
    t.set_from_double(0, v);
    return t.get_as_double(0);
  };
  EXPECT_EQ(stored(ScalarType::Int32, -2.7), -2);  // toward zero
  EXPECT_EQ(stored(ScalarType::Int32, 2.7), 2);
  EXPECT_EQ(stored(ScalarType::Int8, 300), 44);  // wraps modulo 256
  EXPECT_EQ(stored(ScalarType::UInt8, -1), 255);
  EXPECT_EQ(stored(ScalarType::Int64, std::nan("")), 0);
  EXPECT_EQ(stored(ScalarType::Int64, 1e300), 9223372036854775807.0);
  EXPECT_EQ(stored(ScalarType::UInt64, 1e19), 1e19);
  EXPECT_EQ(stored(ScalarType::UInt64, 1e30), 18446744073709551615.0);
  EXPECT_EQ(stored(ScalarType::Bool, 0.5), 1);
  EXPECT_EQ(stored(ScalarType::Bool, 0.0), 0);
  EXPECT_EQ(stored(ScalarType::Float16, 1.0 / 3), double(half_to_float(0x3555)));
  EXPECT_EQ(stored(ScalarType::Float16, 1e6), std::numeric_limits<double>::infinity());
  EXPECT_EQ(stored(ScalarType::Float32, 0.1), double(0.1f));
  EXPECT_EQ(stored(ScalarType::Float64, 0.1), 0.1);

  Tensor t = *Tensor::zeros(ScalarType::Int16, {3});
  t.as<int16_t>()[2] = -32768;
  EXPECT_EQ(t.get_as_double(2), -32768);
}

// ------------------------------------------------------------------- npy round trips

TEST(NpyRoundTrip, EveryDtypeThroughFiles) {
  for (ScalarType dtype : kAllScalarTypes) {
    SCOPED_TRACE(std::string(scalar_type_name(dtype)));
    for (std::vector<int64_t> shape :
         {std::vector<int64_t>{2, 3, 4}, std::vector<int64_t>{}, std::vector<int64_t>{5},
          std::vector<int64_t>{0, 3}}) {
      Tensor t = tensor_patterned(dtype, shape);
      std::string path = temp_path("round_trip.npy");
      Status written = npy_write(path, t);
      ASSERT_TRUE(written.ok()) << written.error();
      Expected<Tensor> back = npy_read(path);
      ASSERT_TRUE(back.ok()) << back.error();
      EXPECT_TRUE(tensors_identical(t, *back)) << tensor_describe(*back);
      std::filesystem::remove(path);
    }
  }
}

TEST(NpyRoundTrip, ExtremeValuesInMemory) {
  auto round_trip = [](const Tensor& t) {
    Expected<Tensor> back = npy_parse(npy_serialize(t), "mem.npy");
    EXPECT_TRUE(back.ok()) << back.error();
    return back.ok() ? *back : Tensor{};
  };
  Tensor i64 = *Tensor::zeros(ScalarType::Int64, {3});
  i64.as<int64_t>()[0] = std::numeric_limits<int64_t>::min();
  i64.as<int64_t>()[1] = std::numeric_limits<int64_t>::max();
  i64.as<int64_t>()[2] = -1;
  EXPECT_TRUE(tensors_identical(i64, round_trip(i64)));

  Tensor u64 = *Tensor::zeros(ScalarType::UInt64, {1});
  u64.as<uint64_t>()[0] = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(round_trip(u64).as<uint64_t>()[0], std::numeric_limits<uint64_t>::max());

  Tensor f32 = *Tensor::zeros(ScalarType::Float32, {2, 2});
  float values[] = {std::numeric_limits<float>::max(),
                    std::numeric_limits<float>::denorm_min(), -0.0f,
                    std::numeric_limits<float>::infinity()};
  std::memcpy(f32.data.data(), values, sizeof values);
  Tensor back = round_trip(f32);
  EXPECT_TRUE(tensors_identical(f32, back));
  EXPECT_TRUE(std::signbit(back.as<float>()[2]));

  Tensor scalar = *Tensor::zeros(ScalarType::Float64, {});
  scalar.set_from_double(0, 3.141592653589793);
  EXPECT_EQ(round_trip(scalar).get_as_double(0), 3.141592653589793);
}

TEST(NpyWrite, HeaderLooksLikeNumpys) {
  Tensor t = *Tensor::zeros(ScalarType::Float32, {2, 3});
  std::string bytes = npy_serialize(t);
  ASSERT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  size_t header_bytes = uint8_t(bytes[8]) | size_t(uint8_t(bytes[9])) << 8;
  size_t data_offset = 10 + header_bytes;
  EXPECT_EQ(data_offset % 64, 0u);
  EXPECT_EQ(bytes.size(), data_offset + 24);
  EXPECT_EQ(bytes.substr(10, kDict23.size()), kDict23);
  EXPECT_EQ(bytes[data_offset - 1], '\n');
  EXPECT_EQ(bytes, npy_bytes(kDict23, std::string(24, '\0')));

  auto dict_of = [](const Tensor& tensor) {
    std::string b = npy_serialize(tensor);
    return b.substr(10, b.find('}') - 9);
  };
  EXPECT_EQ(dict_of(*Tensor::zeros(ScalarType::Bool, {3})),
            "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }");
  EXPECT_EQ(dict_of(*Tensor::zeros(ScalarType::UInt8, {})),
            "{'descr': '|u1', 'fortran_order': False, 'shape': (), }");
  EXPECT_EQ(dict_of(*Tensor::zeros(ScalarType::Int8, {1})).substr(0, 16),
            "{'descr': '|i1',");
  EXPECT_EQ(dict_of(*Tensor::zeros(ScalarType::Float16, {1})).substr(0, 16),
            "{'descr': '<f2',");
  EXPECT_EQ(dict_of(*Tensor::zeros(ScalarType::UInt64, {1})).substr(0, 16),
            "{'descr': '<u8',");
}

TEST(NpyWrite, LongHeaderUsesVersion2) {
  // 25000 dimensions of 1 spell out a header longer than version 1's 16-bit length.
  Tensor t = *Tensor::zeros(ScalarType::Int32, std::vector<int64_t>(25000, 1));
  t.as<int32_t>()[0] = -7;
  std::string bytes = npy_serialize(t);
  EXPECT_EQ(bytes[6], 2);
  size_t header_bytes = 0;
  for (int i = 0; i < 4; ++i) header_bytes |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
  EXPECT_GT(header_bytes, 65535u);
  EXPECT_EQ((12 + header_bytes) % 64, 0u);
  Expected<Tensor> back = npy_parse(bytes, "long.npy");
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_TRUE(tensors_identical(t, *back));
}

TEST(NpyWrite, RefusesInconsistentTensorAndBadPath) {
  Tensor t = *Tensor::zeros(ScalarType::Float32, {2, 3});
  t.data.resize(20);
  Status s = npy_write(temp_path("bad.npy"), t);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(has_substr(s.error(), "holds 20 bytes of data instead of 24"));

  std::string path = temp_path("no_such_dir/x.npy");
  Status unopenable = npy_write(path, *Tensor::zeros(ScalarType::Float32, {1}));
  ASSERT_FALSE(unopenable.ok());
  EXPECT_TRUE(starts_with(unopenable.error(), path + ": cannot open for writing"));
}

// ------------------------------------------------------- npy files as numpy writes them

TEST(NpyRead, NumpyFloat32Header) {
  Expected<Tensor> t = npy_parse(npy_bytes(kDict23, raw_bytes(kValues23)), "a.npy");
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(t->dtype, ScalarType::Float32);
  EXPECT_EQ(t->shape, (std::vector<int64_t>{2, 3}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t->as<float>()[i], kValues23[size_t(i)]);
  EXPECT_TRUE(std::signbit(t->as<float>()[5]));
}

// Parses `dict` as the header of a file holding the data its shape needs.
void expect_header_parses(const std::string& dict, ScalarType dtype,
                          const std::vector<int64_t>& shape) {
  SCOPED_TRACE(dict);
  size_t bytes = size_t(scalar_type_bytes(dtype));
  for (int64_t extent : shape) bytes *= size_t(extent);
  Expected<Tensor> t = npy_parse(npy_bytes(dict, std::string(bytes, '\x01')), "v.npy");
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(t->dtype, dtype);
  EXPECT_EQ(t->shape, shape);
  EXPECT_EQ(t->data.size(), bytes);
}

TEST(NpyRead, HeaderSyntaxVariants) {
  expect_header_parses("{\"shape\": (3,), \"fortran_order\": False, \"descr\": \"<i8\"}",
                       ScalarType::Int64, {3});
  expect_header_parses("{ 'fortran_order' : False ,\t'shape':(3 ,),'descr':'<i8' }",
                       ScalarType::Int64, {3});
  expect_header_parses("{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                       ScalarType::Float64, {});
  expect_header_parses("{'descr': '=f8', 'fortran_order': False, 'shape': (1,), }",
                       ScalarType::Float64, {1});
  expect_header_parses("{'descr': '|u1', 'fortran_order': False, 'shape': (8,), }",
                       ScalarType::UInt8, {8});
  expect_header_parses("{'descr': '<u1', 'fortran_order': False, 'shape': (8,), }",
                       ScalarType::UInt8, {8});
  expect_header_parses("{'descr': '|b1', 'fortran_order': False, 'shape': (2, 4), }",
                       ScalarType::Bool, {2, 4});
  expect_header_parses("{'descr': '<f2', 'fortran_order': False, 'shape': (2, 2), }",
                       ScalarType::Float16, {2, 2});
  // Python 2 numpy wrote longs with an L suffix.
  expect_header_parses("{'descr': '<i4', 'fortran_order': False, 'shape': (1L, 2L), }",
                       ScalarType::Int32, {1, 2});
  // Both orders lay out a 1-d array identically.
  expect_header_parses("{'descr': '<i2', 'fortran_order': True, 'shape': (4,), }",
                       ScalarType::Int16, {4});
  // Keys a future numpy might add are ignored.
  expect_header_parses(
      "{'descr': '<u2', 'fortran_order': False, 'shape': (4,), 'extra': [1, (2,)]}",
      ScalarType::UInt16, {4});
}

TEST(NpyRead, FormatVersions2And3AndOldAlignment) {
  for (int major : {2, 3}) {
    Expected<Tensor> t =
        npy_parse(npy_bytes(kDict23, raw_bytes(kValues23), major), "v.npy");
    ASSERT_TRUE(t.ok()) << t.error();
    EXPECT_EQ(t->as<float>()[4], 1e30f);
  }
  // numpy before 1.14 aligned the data to 16 bytes only.
  Expected<Tensor> old =
      npy_parse(npy_bytes(kDict23, raw_bytes(kValues23), 1, 16), "v.npy");
  ASSERT_TRUE(old.ok()) << old.error();
  EXPECT_EQ(old->as<float>()[0], 1.5f);
}

// ----------------------------------------------------------------------- npy refusals

TEST(NpyRefuse, FortranOrder) {
  std::string msg = npy_refusal(npy_bytes(
      "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", raw_bytes(kValues23)));
  EXPECT_TRUE(has_substr(msg, "Fortran-order arrays are not supported"));
  EXPECT_TRUE(has_substr(msg, "np.ascontiguousarray"));
}

TEST(NpyRefuse, ObjectDtype) {
  std::string msg = npy_refusal(npy_bytes(
      "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", std::string(16, '\0')));
  EXPECT_TRUE(has_substr(msg, "object arrays"));
}

TEST(NpyRefuse, StructuredDtype) {
  std::string msg =
      npy_refusal(npy_bytes("{'descr': [('x', '<f4'), ('y', '<i4', (2,))], "
                            "'fortran_order': False, 'shape': (2,), }",
                            std::string(24, '\0')));
  EXPECT_TRUE(has_substr(msg, "structured (record) dtypes are not supported"));
}

TEST(NpyRefuse, BigEndian) {
  std::string msg = npy_refusal(npy_bytes(
      "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", raw_bytes(kValues23)));
  EXPECT_TRUE(has_substr(msg, "big-endian"));
  EXPECT_TRUE(has_substr(msg, "astype('<f4')"));
}

TEST(NpyRefuse, UnknownDtypes) {
  for (std::string descr : {"<c8", "<U5", "|S3", "<M8[ns]", "<f16", "|f4"}) {
    std::string msg = npy_refusal(
        npy_bytes("{'descr': '" + descr + "', 'fortran_order': False, 'shape': (1,), }",
                  std::string(16, '\0')));
    EXPECT_TRUE(has_substr(msg, "'" + descr + "'"));
  }
}

TEST(NpyRefuse, NotAnNpyFile) {
  EXPECT_TRUE(has_substr(npy_refusal("hello world, not numpy"), "not an npy file"));
  EXPECT_TRUE(
      has_substr(npy_refusal(std::string("\x89PNG\r\n\x1a\n", 8)), "not an npy file"));
  EXPECT_TRUE(has_substr(npy_refusal(""), "not an npy file"));
  EXPECT_TRUE(has_substr(npy_refusal(std::string("\x93NUMP", 5)), "not an npy file"));
}

TEST(NpyRefuse, UnsupportedVersion) {
  std::string bytes = npy_bytes(kDict23, raw_bytes(kValues23));
  bytes[6] = 4;
  EXPECT_TRUE(has_substr(npy_refusal(bytes), "unsupported npy format version 4.0"));
}

TEST(NpyRefuse, TruncatedHeader) {
  std::string bytes = npy_bytes(kDict23, raw_bytes(kValues23));
  for (size_t cut : {size_t(7), size_t(9), size_t(40), size_t(127)}) {
    SCOPED_TRACE(cut);
    EXPECT_TRUE(has_substr(npy_refusal(bytes.substr(0, cut)), "truncated header"));
  }
}

TEST(NpyRefuse, TruncatedData) {
  std::string bytes = npy_bytes(kDict23, raw_bytes(kValues23));
  std::string msg = npy_refusal(bytes.substr(0, bytes.size() - 4));
  EXPECT_TRUE(has_substr(msg, "truncated data"));
  EXPECT_TRUE(has_substr(msg, "float32[2, 3] needs 24 bytes but the file has 20"));
}

TEST(NpyRefuse, TrailingBytes) {
  std::string msg = npy_refusal(npy_bytes(kDict23, raw_bytes(kValues23) + "junk"));
  EXPECT_TRUE(has_substr(msg, "has 4 trailing bytes"));
}

TEST(NpyRefuse, BadShapes) {
  auto with_shape = [](const std::string& shape) {
    return npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }");
  };
  EXPECT_TRUE(has_substr(npy_refusal(with_shape("(-1, 3)")), "negative dimension -1"));
  EXPECT_TRUE(has_substr(npy_refusal(with_shape("(99999999999999999999,)")), "too large"));
  EXPECT_TRUE(has_substr(npy_refusal(with_shape("(4294967296, 4294967296)")),
                         "element count overflows"));
  EXPECT_TRUE(
      has_substr(npy_refusal(with_shape("(4611686018427387904,)")), "byte size overflows"));
  EXPECT_TRUE(has_substr(npy_refusal(with_shape("[2, 3]")), "'shape' is not a tuple"));
  EXPECT_TRUE(has_substr(npy_refusal(with_shape("(2, 'a')")), "other than integers"));
  // A header that claims terabytes of data is refused before anything is allocated.
  EXPECT_TRUE(has_substr(npy_refusal(with_shape("(1000000000000,)")), "truncated data"));
}

TEST(NpyRefuse, MalformedHeaders) {
  std::vector<std::pair<std::string, std::string>> cases = {
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)", "malformed header"},
      {"{'descr': '<f4' 'fortran_order': False}", "malformed header"},
      {"{'descr: '<f4'}", "malformed header"},
      {"['descr', '<f4']", "header is not a dict"},
      {"{'descr': '<f4', 'fortran_order': False, }", "no 'shape' key"},
      {"{'fortran_order': False, 'shape': (2, 3), }", "no 'descr' key"},
      {"{'descr': '<f4', 'shape': (2, 3), }", "no 'fortran_order' key"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}",
       "repeats the key 'descr'"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3)}", "'fortran_order' is not"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)} trailing", "malformed"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': " + std::string(1000, '(') +
           std::string(1000, ')') + "}",
       "nesting too deep"},
  };
  for (const auto& [dict, reason] : cases) {
    SCOPED_TRACE(dict.substr(0, 80));
    EXPECT_TRUE(has_substr(npy_refusal(npy_bytes(dict, raw_bytes(kValues23))), reason));
  }
}

TEST(NpyRefuse, FilesNameThePath) {
  std::string path = temp_path("truncated.npy");
  std::string bytes = npy_bytes(kDict23, raw_bytes(kValues23));
  file_write(path, bytes.substr(0, bytes.size() - 1));
  Expected<Tensor> t = npy_read(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error(), path +
                           ": truncated data: float32[2, 3] needs 24 bytes but the file "
                           "has 23 after the header");

  file_write(path, bytes.substr(0, 30));
  t = npy_read(path);
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(starts_with(t.error(), path + ": truncated header"));

  file_write(path, "");
  t = npy_read(path);
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(starts_with(t.error(), path + ": not an npy file"));

  std::string missing = temp_path("does_not_exist.npy");
  t = npy_read(missing);
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(starts_with(t.error(), missing + ": cannot read"));

  t = npy_read(::testing::TempDir());
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(has_substr(t.error(), "is a directory"));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tcs
