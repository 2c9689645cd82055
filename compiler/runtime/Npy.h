#pragma once
// NumPy .npy files (format versions 1.0, 2.0 and 3.0), C order only.
// Every numeric dtype of the language and bool is read and written; Fortran order, object
// or structured arrays, non-native byte order, truncated or non-npy files are refused with
// a message that names the file and the problem. So are files with bytes after the data
// the shape needs: they mostly mean a wrong shape or several arrays saved into one file.
// Fortran order is accepted for 0-d and 1-d arrays, whose layout is the same either way;
// header keys other than 'descr', 'fortran_order' and 'shape' are ignored.
// Files are written as numpy 1.24's np.save writes them: version 1.0 (2.0 only when the
// header outgrows 64 KiB), data 64-byte aligned, '|' descr for one-byte types.
#include <string>

#include "runtime/Tensor.h"
#include "support/Expected.h"

namespace tcs {

// Reads the header first and then the data straight into the tensor; a header that
// claims more data than the file holds fails before anything is allocated.
Expected<Tensor> npy_read(const std::string& path);
Expected<Tensor> npy_parse(const std::string& bytes, const std::string& name_for_errors);
// Fails if the tensor's buffer size does not match its shape, or on I/O errors.
Status npy_write(const std::string& path, const Tensor& t);
// The tensor must be consistent (buffer size matching the shape).
std::string npy_serialize(const Tensor& t);

// The descr numpy writes for a type ("<f4", "|u1"); exported example code writes it.
std::string npy_descr(ScalarType dtype);

}  // namespace tcs
