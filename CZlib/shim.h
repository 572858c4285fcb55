// CZlib: zlib's inflate, for HdrHistogram's compressed encoding as other tools write it.
//
// Why this shim exists: HdrHistogram's libraries (Java, Python, C) wrap a histogram's counts in a
// zlib stream of real compressed DEFLATE blocks; reading theirs needs an inflater, and zlib is on
// every machine that has libcurl. `inflateInit` is a macro (it passes zlib's version and the
// stream's size, so the library can refuse a mismatched header), which Swift cannot call: the
// `static inline` wrapper below, prefixed `czlib_`, does.
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

/// Prepares `stream` (zeroed by the caller) to inflate a zlib stream (RFC 1950). Returns Z_OK.
static inline int czlib_inflate_init(z_stream *stream) {
    return inflateInit(stream);
}

#endif
