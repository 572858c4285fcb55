// CMalloc: glibc's malloc tuning, for the batchfetch command only.
//
// Why this shim exists: mallopt and its M_* parameters live in <malloc.h>, which Swift's Glibc
// module does not include. The one function below is `static inline` and prefixed `cmalloc_`, so the
// header adds no symbols of its own. On a C library without mallopt it does nothing.
#ifndef CMALLOC_SHIM_H
#define CMALLOC_SHIM_H

#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
#endif

/// Keeps freed memory in the heap for reuse: returns the top of a heap to the kernel only past
/// `trim_bytes` free, and serves allocations below `mmap_bytes` from the heap instead of their own
/// mappings. Returns 1 when both settings were accepted.
static inline int cmalloc_keep_freed_memory(int trim_bytes, int mmap_bytes) {
#if defined(M_TRIM_THRESHOLD) && defined(M_MMAP_THRESHOLD)
    return mallopt(M_TRIM_THRESHOLD, trim_bytes) == 1 && mallopt(M_MMAP_THRESHOLD, mmap_bytes) == 1;
#else
    (void)trim_bytes;
    (void)mmap_bytes;
    return 0;
#endif
}

#endif
