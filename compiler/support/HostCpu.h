#pragma once
// What the machine running the compiler offers generated code: the widest vector
// register. Presets size vector loops and register tiles from it; the JIT targets the
// same host, so the two agree.

namespace tcs {

// Bytes in the widest vector register the host CPU supports: 64 (AVX-512), 32 (AVX2),
// 16 otherwise.
int host_vector_bytes();

}  // namespace tcs
