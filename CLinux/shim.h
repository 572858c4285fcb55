// CLinux: Linux and glibc calls that Swift's Glibc module does not expose.
//
// Why this shim exists: mallopt and its M_* parameters live in <malloc.h>, which the Glibc module
// does not include; sync_file_range needs _GNU_SOURCE, which it does not define; O_TMPFILE is a
// macro of two others, which Swift does not import; pthread_setname_np and memrchr need _GNU_SOURCE. The functions below are `static inline` and
// prefixed `clinux_`, so the header adds no symbols of its own. Where the C library lacks a call,
// its function does nothing.
#ifndef CLINUX_SHIM_H
#define CLINUX_SHIM_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#if defined(__GLIBC__) || defined(__linux__)
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#endif
#include <stddef.h>
#include <string.h>

/// Keeps freed memory in the heap for reuse: returns the top of a heap to the kernel only past
/// `trim_bytes` free, and serves allocations below `mmap_bytes` from the heap instead of their own
/// mappings. Returns 1 when both settings were accepted.
static inline int clinux_keep_freed_memory(int trim_bytes, int mmap_bytes) {
#if defined(M_TRIM_THRESHOLD) && defined(M_MMAP_THRESHOLD)
    return mallopt(M_TRIM_THRESHOLD, trim_bytes) == 1 && mallopt(M_MMAP_THRESHOLD, mmap_bytes) == 1;
#else
    (void)trim_bytes;
    (void)mmap_bytes;
    return 0;
#endif
}

/// Opens an unnamed file in the directory `directory` for writing and reading (`O_TMPFILE`): it
/// has no name until `linkat` gives it one, and vanishes when closed without one. Returns the
/// descriptor, or -1 with errno set (EOPNOTSUPP, EISDIR or EINVAL where the file system or kernel
/// lacks it).
static inline int clinux_open_unnamed(int directory, unsigned int mode) {
#if defined(O_TMPFILE)
    return openat(directory, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
#else
    (void)directory;
    (void)mode;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

/// Starts writing the file's dirty pages to disk without waiting for them
/// (`sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE)`), so a later fsync has little left to do.
/// Returns 0, or -1 with errno set (ESPIPE for a pipe); does nothing and returns 0 where the call
/// does not exist.
static inline int clinux_start_writeback(int fd) {
#if defined(SYNC_FILE_RANGE_WRITE)
    return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd;
    return 0;
#endif
}

/// The last `byte` among the `count` bytes at `bytes`, or NULL: glibc's memrchr, for reading a
/// block of lines from its end (a loop where the C library lacks it).
static inline const void *clinux_memrchr(const void *bytes, int byte, size_t count) {
#if defined(__GLIBC__)
    return memrchr(bytes, byte, count);
#else
    const unsigned char *start = bytes;
    while (count > 0) {
        count -= 1;
        if (start[count] == (unsigned char)byte) {
            return start + count;
        }
    }
    return NULL;
#endif
}

/// Names the calling thread (`comm`: the first 15 bytes), as `top -H`, perf and gdb show it.
/// Returns 0, or an errno value.
static inline int clinux_name_thread(const char *name) {
#if defined(__GLIBC__)
    return pthread_setname_np(pthread_self(), name);
#else
    (void)name;
    return 0;
#endif
}

#endif
