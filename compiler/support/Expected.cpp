#include "support/Expected.h"

namespace tcs {

std::string_view error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Source: return "source";
    case ErrorKind::Sizes: return "sizes";
    case ErrorKind::Options: return "options";
    case ErrorKind::InputFile: return "input file";
    case ErrorKind::Cancelled: return "cancelled";
    case ErrorKind::RuntimeFault: return "runtime fault";
    case ErrorKind::Cache: return "cache";
    case ErrorKind::Internal: return "internal";
  }
  return "internal";
}

}  // namespace tcs
