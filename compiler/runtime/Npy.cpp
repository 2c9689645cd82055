#include "runtime/Npy.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/PyLiteral.h"

// Layout of a .npy file (numpy/lib/format.py documents it):
//   "\x93NUMPY", major, minor,
//   header length: uint16 little-endian for version 1, uint32 for versions 2 and 3,
//   header: a Python dict literal, e.g. {'descr': '<f4', 'fortran_order': False,
//           'shape': (2, 3), } padded with spaces and a final '\n',
//   raw element data in the order and byte order the header describes.
// Version 3 only changes the header encoding from latin-1 to utf-8, which does not
// matter here: every string we accept is ASCII.

namespace tcs {

// Tensors hold native-order elements and files hold little-endian ones ('<' and '='
// are both accepted as-is below), so the bytes are copied without swapping.
static_assert(std::endian::native == std::endian::little,
              "npy reading and writing assume a little-endian host");

namespace {

constexpr std::string_view kMagic("\x93NUMPY", 6);

Error npy_error(const std::string& name, const std::string& problem) {
  return Error{ErrorKind::InputFile, name + ": " + problem};
}

// ---------------------------------------------------------------------------------------
// Header fields.

struct DtypeCode {
  std::string_view code;
  ScalarType dtype;
};

constexpr DtypeCode kDtypeCodes[] = {
    {"b1", ScalarType::Bool},    {"u1", ScalarType::UInt8},   {"u2", ScalarType::UInt16},
    {"u4", ScalarType::UInt32},  {"u8", ScalarType::UInt64},  {"i1", ScalarType::Int8},
    {"i2", ScalarType::Int16},   {"i4", ScalarType::Int32},   {"i8", ScalarType::Int64},
    {"f2", ScalarType::Float16}, {"f4", ScalarType::Float32}, {"f8", ScalarType::Float64},
};

// The descr numpy itself writes: '|' for single bytes, where order is meaningless.
std::string descr_from_dtype(ScalarType dtype) {
  for (const DtypeCode& entry : kDtypeCodes)
    if (entry.dtype == dtype)
      return (scalar_type_bytes(dtype) == 1 ? "|" : "<") + std::string(entry.code);
  return "?";
}

Expected<ScalarType> dtype_from_descr(const PyValue& descr) {
  if (descr.kind == PyValue::Kind::List)
    return Error{ErrorKind::InputFile, 
        "structured (record) dtypes are not supported; save each field as its "
        "own array"};
  if (descr.kind != PyValue::Kind::String) return Error{ErrorKind::InputFile, "'descr' is not a string"};

  std::string_view text = descr.text;
  char order = '=';
  if (!text.empty() && std::string_view("<>|=").find(text[0]) != std::string_view::npos) {
    order = text[0];
    text.remove_prefix(1);
  }
  if (!text.empty() && text[0] == 'O')
    return Error{ErrorKind::InputFile, "object arrays (dtype '" + descr.text +
                 "') are not supported; save a numeric array"};
  for (const DtypeCode& entry : kDtypeCodes) {
    if (entry.code != text) continue;
    if (scalar_type_bytes(entry.dtype) == 1) return entry.dtype;  // any order mark
    if (order == '>')
      return Error{ErrorKind::InputFile, "big-endian data ('" + descr.text + "') is not supported; convert " +
                   "with arr.astype('<" + std::string(text) + "')"};
    if (order == '|')
      return Error{ErrorKind::InputFile, "dtype '" + descr.text + "' has no byte order but needs one"};
    return entry.dtype;
  }
  return Error{ErrorKind::InputFile, "unsupported dtype '" + descr.text +
               "' (supported: bool, int8-64, uint8-64, float16/32/64)"};
}

Expected<std::vector<int64_t>> shape_from_value(const PyValue& value) {
  if (value.kind != PyValue::Kind::Tuple) return Error{ErrorKind::InputFile, "'shape' is not a tuple"};
  std::vector<int64_t> shape;
  for (const PyValue& item : value.items) {
    if (item.kind != PyValue::Kind::Integer)
      return Error{ErrorKind::InputFile, "'shape' holds something other than integers"};
    std::string_view digits = item.text;
    if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
    int64_t extent = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), extent);
    if (ec == std::errc::result_out_of_range)
      return Error{ErrorKind::InputFile, "dimension " + item.text + " in 'shape' is too large"};
    if (ec != std::errc() || end != digits.data() + digits.size())
      return Error{ErrorKind::InputFile, "bad dimension '" + item.text + "' in 'shape'"};
    if (extent < 0) return Error{ErrorKind::InputFile, "negative dimension " + item.text + " in 'shape'"};
    shape.push_back(extent);
  }
  return shape;
}

struct NpyHeader {
  ScalarType dtype = ScalarType::Float32;
  std::vector<int64_t> shape;
  size_t data_offset = 0;  // where the element data starts in the file
  size_t data_bytes = 0;   // how many bytes of it the shape needs
};

// Where the header dict lies, from the fixed-size preamble. `start` may be any prefix of
// the file; what is missing is reported as truncation.
struct NpyPreamble {
  size_t header_offset = 0;
  size_t header_bytes = 0;
};

Expected<NpyPreamble> npy_preamble_parse(std::string_view start, const std::string& name) {
  if (start.substr(0, kMagic.size()) != kMagic)
    return npy_error(name, "not an npy file (it does not start with \"\\x93NUMPY\")");
  if (start.size() < 8) return npy_error(name, "truncated header (no format version)");
  int major = static_cast<unsigned char>(start[6]);
  int minor = static_cast<unsigned char>(start[7]);
  if (major < 1 || major > 3)
    return npy_error(name, "unsupported npy format version " + std::to_string(major) + "." +
                               std::to_string(minor));
  NpyPreamble preamble;
  size_t length_bytes = major == 1 ? 2 : 4;
  preamble.header_offset = 8 + length_bytes;
  if (start.size() < preamble.header_offset)
    return npy_error(name, "truncated header (no header length)");
  for (size_t i = 0; i < length_bytes; ++i)
    preamble.header_bytes |= size_t(static_cast<unsigned char>(start[8 + i])) << (8 * i);
  return preamble;
}

// Parses everything before the element data; `start` must hold at least the header.
Expected<NpyHeader> npy_header_parse(std::string_view start, const std::string& name) {
  Expected<NpyPreamble> preamble = npy_preamble_parse(start, name);
  if (!preamble) return preamble.failure();
  size_t available = start.size() - preamble->header_offset;
  if (available < preamble->header_bytes)
    return npy_error(name, "truncated header (the file ends " + std::to_string(available) +
                               " bytes into a " + std::to_string(preamble->header_bytes) +
                               "-byte header)");

  std::string_view text = start.substr(preamble->header_offset, preamble->header_bytes);
  Expected<PyValue> dict = py_literal_parse(text);
  if (!dict) return npy_error(name, dict.error());
  if (dict->kind != PyValue::Kind::Dict) return npy_error(name, "header is not a dict");

  // Keys other than the three are ignored, as a future numpy might add some.
  const PyValue* descr = nullptr;
  const PyValue* fortran_order = nullptr;
  const PyValue* shape_value = nullptr;
  for (size_t k = 0; k < dict->keys.size(); ++k) {
    const std::string& key = dict->keys[k];
    const PyValue& value = dict->items[k];
    const PyValue** slot = key == "descr"           ? &descr
                           : key == "fortran_order" ? &fortran_order
                           : key == "shape"         ? &shape_value
                                                    : nullptr;
    if (!slot) continue;
    if (*slot) return npy_error(name, "header repeats the key '" + key + "'");
    *slot = &value;
  }
  if (!descr) return npy_error(name, "header has no 'descr' key");
  if (!fortran_order) return npy_error(name, "header has no 'fortran_order' key");
  if (!shape_value) return npy_error(name, "header has no 'shape' key");

  NpyHeader header;
  Expected<ScalarType> dtype = dtype_from_descr(*descr);
  if (!dtype) return npy_error(name, dtype.error());
  header.dtype = *dtype;

  Expected<std::vector<int64_t>> shape = shape_from_value(*shape_value);
  if (!shape) return npy_error(name, shape.error());
  header.shape = std::move(*shape);

  if (fortran_order->kind != PyValue::Kind::Bool)
    return npy_error(name, "'fortran_order' is not True or False");
  // With at most one dimension both orders lay the elements out identically.
  if (fortran_order->flag && header.shape.size() > 1)
    return npy_error(name,
                     "Fortran-order arrays are not supported; save with "
                     "np.ascontiguousarray");

  Expected<size_t> bytes = tensor_bytes_checked(header.dtype, header.shape);
  if (!bytes) return npy_error(name, bytes.error());
  header.data_bytes = *bytes;
  header.data_offset = preamble->header_offset + preamble->header_bytes;
  return header;
}

// Refuses data that is shorter or longer than the shape says. Trailing bytes are refused
// rather than ignored: they mostly mean a wrong shape or several arrays np.save'd into
// one file, and reading only the first would hide that.
Status npy_data_check(const NpyHeader& header, size_t data_available,
                      const std::string& name) {
  std::string what = tensor_type_describe(header.dtype, header.shape);
  if (data_available < header.data_bytes)
    return npy_error(name, "truncated data: " + what + " needs " +
                               std::to_string(header.data_bytes) +
                               " bytes but the file has " + std::to_string(data_available) +
                               " after the header");
  if (data_available > header.data_bytes)
    return npy_error(name, "has " + std::to_string(data_available - header.data_bytes) +
                               " trailing bytes after the data of " + what +
                               " (several arrays saved into one file?)");
  return success();
}

std::string shape_as_python_tuple(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ',';
  return text + ")";
}

// Magic, version, length and the padded dict: everything before the data. Writes
// version 1.0 unless the header needs more than its 16-bit length field.
std::string npy_header_serialize(ScalarType dtype, const std::vector<int64_t>& shape) {
  std::string dict =
      "{'descr': '" + descr_from_dtype(dtype) +
      "', 'fortran_order': False, 'shape': " + shape_as_python_tuple(shape) + ", }";
  // Pad with spaces and a final newline so the data starts 64-byte aligned, as numpy
  // does; readers that memory-map the file rely on it.
  auto padded_length = [&](size_t preamble_bytes) {
    size_t unpadded = preamble_bytes + dict.size() + 1;
    return dict.size() + 1 + (64 - unpadded % 64) % 64;
  };
  int major = 1;
  size_t header_bytes = padded_length(10);
  if (header_bytes > 0xffff) {
    major = 2;
    header_bytes = padded_length(12);
  }

  std::string out(kMagic);
  out += char(major);
  out += char(0);
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i)
    out += char((header_bytes >> (8 * i)) & 0xff);
  out += dict;
  out.append(header_bytes - dict.size() - 1, ' ');
  out += '\n';
  return out;
}

// A tensor whose buffer does not match its shape would write a file that cannot be read.
Status tensor_consistency_check(const Tensor& t, const std::string& name) {
  Expected<size_t> bytes = tensor_bytes_checked(t.dtype, t.shape);
  if (!bytes) return npy_error(name, bytes.error());
  if (*bytes != t.data.size())
    return npy_error(name, "tensor " + tensor_describe(t) + " holds " +
                               std::to_string(t.data.size()) +
                               " bytes of data instead of " + std::to_string(*bytes));
  return success();
}

}  // namespace

Expected<Tensor> npy_parse(const std::string& bytes, const std::string& name_for_errors) {
  Expected<NpyHeader> header = npy_header_parse(bytes, name_for_errors);
  if (!header) return header.failure();
  Status fits =
      npy_data_check(*header, bytes.size() - header->data_offset, name_for_errors);
  if (!fits) return fits.failure();
  // The bytes already exist in memory, so no size limit beyond theirs applies.
  Expected<Tensor> t =
      Tensor::zeros(header->dtype, header->shape, std::numeric_limits<size_t>::max());
  if (!t) return npy_error(name_for_errors, t.error());
  if (header->data_bytes)
    std::memcpy(t->data.data(), bytes.data() + header->data_offset, header->data_bytes);
  return t;
}

std::string npy_descr(ScalarType dtype) { return descr_from_dtype(dtype); }

std::string npy_serialize(const Tensor& t) {
  assert(tensor_consistency_check(t, "").ok());
  std::string out = npy_header_serialize(t.dtype, t.shape);
  out.append(reinterpret_cast<const char*>(t.data.data()), t.data.size());
  return out;
}

// Not built on npy_parse: reading the data straight into the tensor keeps a large file
// from being held in memory twice.
Expected<Tensor> npy_read(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return npy_error(path, "is a directory");
  uintmax_t file_bytes = std::filesystem::file_size(path, ec);
  if (ec) return npy_error(path, "cannot read: " + ec.message());
  std::ifstream in(path, std::ios::binary);
  if (!in) return npy_error(path, std::string("cannot open: ") + std::strerror(errno));

  auto read_up_to = [&](std::string& buffer, size_t want) {
    size_t have = buffer.size();
    if (want <= have) return;
    buffer.resize(want);
    in.read(buffer.data() + have, std::streamsize(want - have));
    buffer.resize(have + size_t(in.gcount()));
  };
  std::string start;
  read_up_to(start, size_t(std::min<uintmax_t>(file_bytes, 12)));
  Expected<NpyPreamble> preamble = npy_preamble_parse(start, path);
  if (!preamble) return preamble.failure();
  uintmax_t header_end = preamble->header_offset + uintmax_t(preamble->header_bytes);
  read_up_to(start, size_t(std::min(file_bytes, header_end)));

  Expected<NpyHeader> header = npy_header_parse(start, path);
  if (!header) return header.failure();
  Status fits = npy_data_check(*header, size_t(file_bytes - header->data_offset), path);
  if (!fits) return fits.failure();

  // The default limit turns a file larger than memory can hold into a message.
  Expected<Tensor> t = Tensor::zeros(header->dtype, header->shape);
  if (!t) return npy_error(path, t.error());
  in.clear();
  in.seekg(std::streamoff(header->data_offset));
  in.read(reinterpret_cast<char*>(t->data.data()), std::streamsize(header->data_bytes));
  if (size_t(in.gcount()) != header->data_bytes)
    return npy_error(path, "read failed after " + std::to_string(in.gcount()) + " of " +
                               std::to_string(header->data_bytes) + " data bytes");
  return t;
}

Status npy_write(const std::string& path, const Tensor& t) {
  Status consistent = tensor_consistency_check(t, path);
  if (!consistent) return consistent;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return npy_error(path, std::string("cannot open for writing: ") + std::strerror(errno));
  std::string header = npy_header_serialize(t.dtype, t.shape);
  out.write(header.data(), std::streamsize(header.size()));
  out.write(reinterpret_cast<const char*>(t.data.data()), std::streamsize(t.data.size()));
  out.close();
  if (!out) return npy_error(path, "write failed (disk full?)");
  return success();
}

}  // namespace tcs
