// CCrypto: SHA-256 from OpenSSL's libcrypto, the library libcurl (OpenSSL flavour) already loads.
//
// Why this shim exists: saved bodies are named and checked by their SHA-256, at download speed;
// libcrypto's implementation uses the CPU's SHA extensions where they exist (several GB/s), which
// a hand-written one would not. One `static inline` function, prefixed `ccrypto_`, over the EVP
// one-shot digest (OpenSSL 3 deprecates the SHA256_* calls).
#ifndef CCRYPTO_SHIM_H
#define CCRYPTO_SHIM_H

#include <stddef.h>
#include <openssl/evp.h>

/// Writes the SHA-256 of `count` bytes at `data` into `digest` (32 bytes). Returns 1, or 0 when
/// libcrypto failed (out of memory).
static inline int ccrypto_sha256(const void *data, size_t count, unsigned char *digest) {
    unsigned int length = 0;
    return EVP_Digest(data, count, digest, &length, EVP_sha256(), NULL) == 1 && length == 32;
}

#endif
