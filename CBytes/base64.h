// Base64 (RFC 4648, standard alphabet, padded) of a body, for records that carry binary bodies
// inline: 24 bytes a step with AVX2, 48 with NEON, else three bytes in, four characters out, one table lookup
// each, no branch per byte.
#ifndef CBYTES_BASE64_H
#define CBYTES_BASE64_H

#include <stddef.h>
#include <stdint.h>

#include "simd_level.h"

/// The length of the base64 text of `count` bytes.
static inline size_t cbytes_base64_length(size_t count) {
    return (count + 2) / 3 * 4;
}

/// Writes the base64 text of `count` bytes at `in` to `out`, which has room for
/// cbytes_base64_length(count) bytes: a byte at a time.
static inline void cbytes_base64_encode_scalar(const uint8_t *in, size_t count, uint8_t *out) {
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

#if defined(__x86_64__)
#include <immintrin.h>

/// 24 bytes in, 32 characters out (Muła's method, as aklomp/base64 and simdutf use it): each
/// 3-byte group spread over a 32-bit word, its four 6-bit values moved into place with two
/// multiplications, then offset into the alphabet by a 16-entry table per value range.
__attribute__((target("avx2"))) static inline void cbytes_base64_encode_avx2(const uint8_t *in, size_t count,
                                                                            uint8_t *out) {
    size_t i = 0;
    // Each load reads 32 bytes and uses 24: dwords 0-2 go to the low lane's bytes 4-15, dwords
    // 3-5 to the high lane's bytes 0-11, where the shuffle expects them.
    const __m256i spread = _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6);
    const __m256i shuffle = _mm256_set_epi8(10, 11, 9, 10, 7, 8, 6, 7, 4, 5, 3, 4, 1, 2, 0, 1, //
                                            14, 15, 13, 14, 11, 12, 10, 11, 8, 9, 7, 8, 5, 6, 4, 5);
    const __m256i offsets = _mm256_setr_epi8(65, 71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -19, -16, 0, 0, //
                                             65, 71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -19, -16, 0, 0);
    for (; i + 32 <= count; i += 24) {
        __m256i v = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(in + i)), spread);
        v = _mm256_shuffle_epi8(v, shuffle);
        __m256i high = _mm256_mulhi_epu16(_mm256_and_si256(v, _mm256_set1_epi32(0x0FC0FC00)),
                                          _mm256_set1_epi32(0x04000040));
        __m256i low = _mm256_mullo_epi16(_mm256_and_si256(v, _mm256_set1_epi32(0x003F03F0)),
                                         _mm256_set1_epi32(0x01000010));
        __m256i sextets = _mm256_or_si256(high, low);
        // Ranges: 0-25 'A', 26-51 'a', 52-61 '0', 62 '+', 63 '/'.
        __m256i range = _mm256_subs_epu8(sextets, _mm256_set1_epi8(51));
        range = _mm256_sub_epi8(range, _mm256_cmpgt_epi8(sextets, _mm256_set1_epi8(25)));
        __m256i text = _mm256_add_epi8(sextets, _mm256_shuffle_epi8(offsets, range));
        _mm256_storeu_si256((__m256i *)out, text);
        out += 32;
    }
    cbytes_base64_encode_scalar(in + i, count - i, out);
}
#endif

#if defined(__aarch64__)
#include "base64_neon.h"
#endif

/// cbytes_base64_encode with the loop of SIMD level `level` (CBYTES_SIMD_*), which this CPU must run
/// (cbytes_simd_available): AVX2 at the AVX2 and AVX-512 levels, NEON, else a byte at a time.
static inline void cbytes_base64_encode_at(int level, const uint8_t *in, size_t count, uint8_t *out) {
#if defined(__x86_64__)
    if (level == CBYTES_SIMD_AVX2 || level == CBYTES_SIMD_AVX512) {
        cbytes_base64_encode_avx2(in, count, out);
        return;
    }
#elif defined(__aarch64__)
    if (level == CBYTES_SIMD_NEON) {
        cbytes_base64_encode_neon(in, count, out);
        return;
    }
#endif
    cbytes_base64_encode_scalar(in, count, out);
}

/// Writes the base64 text of `count` bytes at `in` to `out`, which has room for
/// cbytes_base64_length(count) bytes, at the process's SIMD level (cbytes_simd_level).
static inline void cbytes_base64_encode(const uint8_t *in, size_t count, uint8_t *out) {
    cbytes_base64_encode_at(cbytes_simd_level(), in, count, out);
}

#endif
