// CBytes: byte-at-memory-speed loops over response bodies that Swift cannot express with vector
// compares and movemask (SSE2 to AVX-512 on x86_64, NEON on aarch64, a word-at-a-time fallback
// elsewhere), each at the level simd_level.h picks.
//
// Why this shim exists: escaping a 64 KB HTML page for a JSON string and validating a 64 KB JSON
// document must run at several GB/s on one core, which needs 16-byte compares and the position
// of the first match; Swift's SIMD types do not lower to `pmovmskb`. Header-only, every function
// `static inline` and prefixed `cbytes_`, so the module adds no symbols of its own.
#ifndef CBYTES_SHIM_H
#define CBYTES_SHIM_H

#include "base64.h"
#include "escape.h"
#include "json_validate.h"

#endif
