// Base64 (RFC 4648, standard alphabet, padded) of a body, for records that carry binary bodies
// inline: three bytes in, four characters out, one table lookup each, no branch per byte.
#ifndef CBYTES_BASE64_H
#define CBYTES_BASE64_H

#include <stddef.h>
#include <stdint.h>

/// The length of the base64 text of `count` bytes.
static inline size_t cbytes_base64_length(size_t count) {
    return (count + 2) / 3 * 4;
}

/// Writes the base64 text of `count` bytes at `in` to `out`, which has room for
/// cbytes_base64_length(count) bytes.
static inline void cbytes_base64_encode(const uint8_t *in, size_t count, uint8_t *out) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t i = 0;
    for (; i + 3 <= count; i += 3) {
        uint32_t word = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[0] = (uint8_t)alphabet[word >> 18];
        out[1] = (uint8_t)alphabet[(word >> 12) & 63];
        out[2] = (uint8_t)alphabet[(word >> 6) & 63];
        out[3] = (uint8_t)alphabet[word & 63];
        out += 4;
    }
    if (i < count) {
        uint32_t word = (uint32_t)in[i] << 16 | (i + 1 < count ? (uint32_t)in[i + 1] << 8 : 0);
        out[0] = (uint8_t)alphabet[word >> 18];
        out[1] = (uint8_t)alphabet[(word >> 12) & 63];
        out[2] = i + 1 < count ? (uint8_t)alphabet[(word >> 6) & 63] : '=';
        out[3] = '=';
    }
}

#endif
