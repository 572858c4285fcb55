// CZlib: zlib's inflate, for HdrHistogram's compressed encoding as other tools write it and for
// the gzip or deflate bodies `--warc` keeps as sent, and its
// deflate, for WARC files written as one gzip member per record (BatchFetchWARC).
//
// Why this shim exists: HdrHistogram's libraries (Java, Python, C) wrap a histogram's counts in a
// zlib stream of real compressed DEFLATE blocks; reading theirs needs an inflater, and zlib is on
// every machine that has libcurl. `inflateInit` is a macro (it passes zlib's version and the
// stream's size, so the library can refuse a mismatched header), which Swift cannot call: the
// `static inline` wrappers below, prefixed `czlib_`, do; `deflateInit2` likewise.
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

/// Prepares `stream` (zeroed by the caller) to inflate a zlib stream (RFC 1950). Returns Z_OK.
static inline int czlib_inflate_init(z_stream *stream) {
    return inflateInit(stream);
}

/// Prepares `stream` (zeroed by the caller) to inflate with `window_bits` as `inflateInit2` takes
/// them: 15 + 32 reads a gzip or zlib stream, -15 a raw deflate one. Returns Z_OK.
static inline int czlib_inflate_init2(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

/// Prepares `stream` (zeroed by the caller) to deflate into gzip members (RFC 1952: window bits
/// 15 + 16 ask zlib for the gzip header and trailer) at `level` (0-9, or Z_DEFAULT_COMPRESSION).
/// Returns Z_OK.
static inline int czlib_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

#endif
