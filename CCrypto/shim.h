// CCrypto: SHA-256 and SHA-1 from OpenSSL's libcrypto, the library libcurl (OpenSSL flavour) already
// loads. SHA-1 only for WARC digests (BatchFetchWARC), whose readers and dedup tools expect it.
//
// Why this shim exists: saved bodies are named and checked by their SHA-256, at download speed;
// libcrypto's implementation uses the CPU's SHA extensions where they exist (several GB/s), which
// a hand-written one would not. `static inline` functions, prefixed `ccrypto_`: the SHA*_Init,
// _Update, _Final context calls, on the stack for a body in memory, in a caller's struct for a body
// hashed as it streams to a file. OpenSSL 3 deprecates those calls, but they run the same block
// function as EVP without its per-digest method lookup, locks and allocation (a few µs a call:
// WARC hashes two small blocks per record); the deprecation warnings are silenced here only. `crypto.h` for
// `OPENSSL_thread_stop`, which the engine thread calls before it ends (CurlGlobal.swift says why).
#ifndef CCRYPTO_SHIM_H
#define CCRYPTO_SHIM_H

#ifndef OPENSSL_SUPPRESS_DEPRECATED
#define OPENSSL_SUPPRESS_DEPRECATED
#endif

#include <stddef.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

/// Writes the SHA-256 of `count` bytes at `data` into `digest` (32 bytes). Returns 1, or 0 when
/// libcrypto failed (out of memory).
static inline int ccrypto_sha256(const void *data, size_t count, unsigned char *digest) {
    SHA256_CTX state;
    return SHA256_Init(&state) == 1 && SHA256_Update(&state, data, count) == 1 && SHA256_Final(digest, &state) == 1;
}

/// Writes the SHA-1 of `count` bytes at `data` into `digest` (20 bytes). Returns 1, or 0 when
/// libcrypto failed (out of memory).
static inline int ccrypto_sha1(const void *data, size_t count, unsigned char *digest) {
    SHA_CTX state;
    return SHA1_Init(&state) == 1 && SHA1_Update(&state, data, count) == 1 && SHA1_Final(digest, &state) == 1;
}

/// The state of a SHA-256 in progress, owned by the caller.
typedef SHA256_CTX ccrypto_sha256_state;

/// Starts a SHA-256 in `state`. Returns 1.
static inline int ccrypto_sha256_start(ccrypto_sha256_state *state) {
    return SHA256_Init(state);
}

/// Adds `count` bytes at `data` to the SHA-256 in `state`. Returns 1.
static inline int ccrypto_sha256_add(ccrypto_sha256_state *state, const void *data, size_t count) {
    return SHA256_Update(state, data, count);
}

/// Finishes the SHA-256 in `state` into `digest` (32 bytes). Returns 1.
static inline int ccrypto_sha256_finish(ccrypto_sha256_state *state, unsigned char *digest) {
    return SHA256_Final(digest, state);
}

/// The state of a SHA-1 in progress, owned by the caller.
typedef SHA_CTX ccrypto_sha1_state;

/// Starts a SHA-1 in `state`. Returns 1.
static inline int ccrypto_sha1_start(ccrypto_sha1_state *state) {
    return SHA1_Init(state);
}

/// Adds `count` bytes at `data` to the SHA-1 in `state`. Returns 1.
static inline int ccrypto_sha1_add(ccrypto_sha1_state *state, const void *data, size_t count) {
    return SHA1_Update(state, data, count);
}

/// Finishes the SHA-1 in `state` into `digest` (20 bytes). Returns 1.
static inline int ccrypto_sha1_finish(ccrypto_sha1_state *state, unsigned char *digest) {
    return SHA1_Final(digest, state);
}

/// Initialises OpenSSL without its atexit handler (`OPENSSL_cleanup`), which frees globals that
/// threads still running as the process exits may use. Must come before any other OpenSSL
/// initialisation (libcurl's). Returns 1 on success.
static inline int ccrypto_init_without_atexit(void) {
    return OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

#endif
