// JSON string escaping of UTF-8 text by runs, with the text's UTF-8 checked in the same pass.
//
// A body that becomes a JSON string (an HTML page in a record) is mostly bytes that stay as they
// are: 16 bytes at a time, four compares and a movemask find the next byte that needs escaping (a
// control, '"', '\\' or DEL); the 16 bytes are stored whole and the output advances to that byte.
// UTF-8 is validated block by block alongside (the "lookup" algorithm of Keiser and Lemire,
// "Validating UTF-8 in less than one instruction per byte", 2021, as simdjson and simdutf use it),
// with an ASCII block costing one movemask. Escapes are written as JSONBytes.string(_:) writes
// them: \" \\ \n \r \t, other controls and DEL as \u00xx (lower-case hex). Wider loops live beside
// it (escape_avx2.h, escape_avx512.h); cbytes_escape_json_at picks one by SIMD level (simd_level.h).
#ifndef CBYTES_ESCAPE_H
#define CBYTES_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "prefetch.h"
#include "simd_level.h"
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/// The most output bytes one input byte can need (`\u00xx`).
#define CBYTES_ESCAPE_MAX_EXPANSION 6
/// Output room needed beyond the escaped text: whole 16-byte blocks are stored past its end.
#define CBYTES_ESCAPE_SLACK 32

static inline int cbytes_needs_escape(uint8_t byte) {
    return byte < 0x20 || byte == '"' || byte == '\\' || byte == 0x7F;
}

/// Writes the escape of one byte that needs one; returns its length.
static inline size_t cbytes_write_escape(uint8_t byte, uint8_t *out) {
    static const char hex[] = "0123456789abcdef";
    out[0] = '\\';
    switch (byte) {
    case '"': out[1] = '"'; return 2;
    case '\\': out[1] = '\\'; return 2;
    case '\n': out[1] = 'n'; return 2;
    case '\r': out[1] = 'r'; return 2;
    case '\t': out[1] = 't'; return 2;
    default:
        out[1] = 'u';
        out[2] = '0';
        out[3] = '0';
        out[4] = (uint8_t)hex[byte >> 4];
        out[5] = (uint8_t)hex[byte & 0x0F];
        return 6;
    }
}

/// The length of the well-formed UTF-8 sequence starting at `p` (lead byte >= 0x80), or 0 when it
/// is ill-formed or truncated (Unicode, table 3-7: no overlongs, no surrogates, <= U+10FFFF).
static inline size_t cbytes_utf8_sequence(const uint8_t *p, const uint8_t *end) {
    uint8_t lead = p[0];
    size_t left = (size_t)(end - p);
    if (lead >= 0xC2 && lead <= 0xDF) {
        return left >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
    }
    if (lead >= 0xE0 && lead <= 0xEF) {
        if (left < 3 || (p[2] & 0xC0) != 0x80) return 0;
        uint8_t lo = lead == 0xE0 ? 0xA0 : 0x80, hi = lead == 0xED ? 0x9F : 0xBF;
        return p[1] >= lo && p[1] <= hi ? 3 : 0;
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        if (left < 4 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
        uint8_t lo = lead == 0xF0 ? 0x90 : 0x80, hi = lead == 0xF4 ? 0x8F : 0xBF;
        return p[1] >= lo && p[1] <= hi ? 4 : 0;
    }
    return 0;
}

/// Whether `count` bytes at `p` are well-formed UTF-8, one sequence at a time.
static inline int cbytes_utf8_valid_scalar(const uint8_t *p, size_t count) {
    const uint8_t *end = p + count;
    while (p < end) {
        if (*p < 0x80) {
            p++;
            continue;
        }
        size_t length = cbytes_utf8_sequence(p, end);
        if (length == 0) return 0;
        p += length;
    }
    return 1;
}

/// Escapes `count` bytes at `in` into `out` (room for `capacity` bytes), without quotes, one byte at a
/// time: the fallback where no vector unit is known. Same contract as cbytes_escape_json.
static inline int cbytes_escape_json_scalar(const uint8_t *in, size_t count, uint8_t *out, size_t capacity,
                                            size_t *written) {
    if (!cbytes_utf8_valid_scalar(in, count)) return -1;
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        if (capacity - used < CBYTES_ESCAPE_MAX_EXPANSION) return 0;
        if (cbytes_needs_escape(in[i])) {
            used += cbytes_write_escape(in[i], out + used);
        } else {
            out[used++] = in[i];
        }
    }
    *written = used;
    return 1;
}

/// What each byte pair can say is wrong, by the high and low nibble of its first byte and the high
/// nibble of its second (the lookup algorithm's three tables).
enum {
    CBYTES_U8_TOO_SHORT = 1 << 0, CBYTES_U8_TOO_LONG = 1 << 1, CBYTES_U8_OVERLONG_3 = 1 << 2,
    CBYTES_U8_TOO_LARGE = 1 << 3, CBYTES_U8_SURROGATE = 1 << 4, CBYTES_U8_OVERLONG_2 = 1 << 5,
    CBYTES_U8_TOO_LARGE_1000 = 1 << 6, CBYTES_U8_OVERLONG_4 = 1 << 6, CBYTES_U8_TWO_CONTS = 1 << 7,
    CBYTES_U8_CARRY = CBYTES_U8_TOO_SHORT | CBYTES_U8_TOO_LONG | CBYTES_U8_TWO_CONTS,
};
static const uint8_t cbytes_utf8_byte1_high[16] = {
    CBYTES_U8_TOO_LONG, CBYTES_U8_TOO_LONG, CBYTES_U8_TOO_LONG, CBYTES_U8_TOO_LONG, CBYTES_U8_TOO_LONG,
    CBYTES_U8_TOO_LONG, CBYTES_U8_TOO_LONG, CBYTES_U8_TOO_LONG, CBYTES_U8_TWO_CONTS, CBYTES_U8_TWO_CONTS,
    CBYTES_U8_TWO_CONTS, CBYTES_U8_TWO_CONTS, CBYTES_U8_TOO_SHORT | CBYTES_U8_OVERLONG_2,
    CBYTES_U8_TOO_SHORT, CBYTES_U8_TOO_SHORT | CBYTES_U8_OVERLONG_3 | CBYTES_U8_SURROGATE,
    CBYTES_U8_TOO_SHORT | CBYTES_U8_TOO_LARGE | CBYTES_U8_TOO_LARGE_1000 | CBYTES_U8_OVERLONG_4,
};
static const uint8_t cbytes_utf8_byte1_low[16] = {
    CBYTES_U8_CARRY | CBYTES_U8_OVERLONG_3 | CBYTES_U8_OVERLONG_2 | CBYTES_U8_OVERLONG_4,
    CBYTES_U8_CARRY | CBYTES_U8_OVERLONG_2, CBYTES_U8_CARRY, CBYTES_U8_CARRY,
    CBYTES_U8_CARRY | CBYTES_U8_TOO_LARGE, CBYTES_U8_CARRY | CBYTES_U8_TOO_LARGE | CBYTES_U8_TOO_LARGE_1000,
    CBYTES_U8_CARRY | CBYTES_U8_TOO_LARGE | CBYTES_U8_TOO_LARGE_1000,
    CBYTES_U8_CARRY | CBYTES_U8_TOO_LARGE | CBYTES_U8_TOO_LARGE_1000,
    CBYTES_U8_CARRY | CBYTES_U8_TOO_LARGE | CBYTES_U8_TOO_LARGE_1000,
    CBYTES_U8_CARRY | CBYTES_U8_TOO_LARGE | CBYTES_U8_TOO_LARGE_1000,
    CBYTES_U8_CARRY | CBYTES_U8_TOO_LARGE | CBYTES_U8_TOO_LARGE_1000,
    CBYTES_U8_CARRY | CBYTES_U8_TOO_LARGE | CBYTES_U8_TOO_LARGE_1000,
    CBYTES_U8_CARRY | CBYTES_U8_TOO_LARGE | CBYTES_U8_TOO_LARGE_1000,
    CBYTES_U8_CARRY | CBYTES_U8_TOO_LARGE | CBYTES_U8_TOO_LARGE_1000 | CBYTES_U8_SURROGATE,
    CBYTES_U8_CARRY | CBYTES_U8_TOO_LARGE | CBYTES_U8_TOO_LARGE_1000,
    CBYTES_U8_CARRY | CBYTES_U8_TOO_LARGE | CBYTES_U8_TOO_LARGE_1000,
};
static const uint8_t cbytes_utf8_byte2_high[16] = {
    CBYTES_U8_TOO_SHORT, CBYTES_U8_TOO_SHORT, CBYTES_U8_TOO_SHORT, CBYTES_U8_TOO_SHORT, CBYTES_U8_TOO_SHORT,
    CBYTES_U8_TOO_SHORT, CBYTES_U8_TOO_SHORT, CBYTES_U8_TOO_SHORT,
    CBYTES_U8_TOO_LONG | CBYTES_U8_OVERLONG_2 | CBYTES_U8_TWO_CONTS | CBYTES_U8_OVERLONG_3 | CBYTES_U8_TOO_LARGE_1000 | CBYTES_U8_OVERLONG_4,
    CBYTES_U8_TOO_LONG | CBYTES_U8_OVERLONG_2 | CBYTES_U8_TWO_CONTS | CBYTES_U8_OVERLONG_3 | CBYTES_U8_TOO_LARGE,
    CBYTES_U8_TOO_LONG | CBYTES_U8_OVERLONG_2 | CBYTES_U8_TWO_CONTS | CBYTES_U8_SURROGATE | CBYTES_U8_TOO_LARGE,
    CBYTES_U8_TOO_LONG | CBYTES_U8_OVERLONG_2 | CBYTES_U8_TWO_CONTS | CBYTES_U8_SURROGATE | CBYTES_U8_TOO_LARGE,
    CBYTES_U8_TOO_SHORT, CBYTES_U8_TOO_SHORT, CBYTES_U8_TOO_SHORT, CBYTES_U8_TOO_SHORT,
};

/// Writes the escape of a byte that needs one as one 8-byte store, without a branch on which
/// escape it is (the output has room: see CBYTES_ESCAPE_SLACK); returns its length.
static inline size_t cbytes_store_escape(uint8_t byte, uint8_t *out) {
    // The second byte of the two-byte escapes, 0 for those written as \u00xx.
    static const uint8_t short_form[128] = {
        ['"'] = '"', ['\\'] = '\\', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't',
    };
    static const char hex[] = "0123456789abcdef";
    uint8_t code = short_form[byte & 0x7F];
    uint64_t two = (uint64_t)'\\' | (uint64_t)code << 8;
    uint64_t six = (uint64_t)'\\' | (uint64_t)'u' << 8 | (uint64_t)'0' << 16 | (uint64_t)'0' << 24 |
                   (uint64_t)(uint8_t)hex[byte >> 4] << 32 | (uint64_t)(uint8_t)hex[byte & 0x0F] << 40;
    uint64_t word = code ? two : six;
    memcpy(out, &word, 8);
    return code ? 2 : 6;
}

/// Escapes the bytes from `p` to `end` one at a time into `*o`, each with one 8-byte store (room
/// for 8 bytes is checked before each). Returns 0 when `limit` leaves too little room, else 1.
static inline int cbytes_escape_bytes(const uint8_t *p, const uint8_t *end, uint8_t **o, const uint8_t *limit) {
    uint8_t *at = *o;
    for (; p < end; p++) {
        if (limit - at < 8) return 0;
        if (cbytes_needs_escape(*p)) {
            at += cbytes_store_escape(*p, at);
        } else {
            *at++ = *p;
        }
    }
    *o = at;
    return 1;
}

#if defined(__x86_64__)

#define CBYTES_SSSE3 __attribute__((target("ssse3")))

/// UTF-8 validation state across 16-byte blocks.
typedef struct {
    __m128i error;
    __m128i previous;
    __m128i incomplete;
} cbytes_utf8_state;

CBYTES_SSSE3 static inline __m128i cbytes_lookup16(__m128i index, const uint8_t table[16]) {
    return _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)table), index);
}

/// Checks one 16-byte block, given the block before it (the lookup algorithm: each byte with the
/// one or three before it classifies every ill-formed case, with no branch per byte).
CBYTES_SSSE3 static inline void cbytes_utf8_block(cbytes_utf8_state *state, __m128i input) {
    const __m128i nibble = _mm_set1_epi8(0x0F);
    __m128i prev1 = _mm_alignr_epi8(input, state->previous, 15);
    __m128i special = _mm_and_si128(
        _mm_and_si128(cbytes_lookup16(_mm_and_si128(_mm_srli_epi16(prev1, 4), nibble), cbytes_utf8_byte1_high),
                      cbytes_lookup16(_mm_and_si128(prev1, nibble), cbytes_utf8_byte1_low)),
        cbytes_lookup16(_mm_and_si128(_mm_srli_epi16(input, 4), nibble), cbytes_utf8_byte2_high));
    __m128i prev2 = _mm_alignr_epi8(input, state->previous, 14);
    __m128i prev3 = _mm_alignr_epi8(input, state->previous, 13);
    // 0x80 where a byte must be a second or third continuation (after 111_____ or 1111____).
    __m128i third = _mm_subs_epu8(prev2, _mm_set1_epi8((char)(0xE0 - 0x80)));
    __m128i fourth = _mm_subs_epu8(prev3, _mm_set1_epi8((char)(0xF0 - 0x80)));
    __m128i must23 = _mm_and_si128(_mm_or_si128(third, fourth), _mm_set1_epi8((char)0x80));
    state->error = _mm_or_si128(state->error, _mm_xor_si128(must23, special));
    // A lead byte in the last three that its sequence cannot complete within the block.
    static const uint8_t last_max[16] = {
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0xF0 - 1, 0xE0 - 1, 0xC0 - 1,
    };
    state->incomplete = _mm_subs_epu8(input, _mm_loadu_si128((const __m128i *)last_max));
    state->previous = input;
}

/// The 16 bytes at `p` as a bit mask of those that need escaping.
static inline unsigned cbytes_escape_mask16(__m128i v) {
    __m128i controls = _mm_cmpeq_epi8(_mm_subs_epu8(v, _mm_set1_epi8(0x1F)), _mm_setzero_si128());
    __m128i marks = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    __m128i dels = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7F));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(controls, _mm_or_si128(marks, dels)));
}

/// Copies a run of fewer than 64 bytes from `from` to `to` as four 16-byte stores, whatever its
/// length (a branch on it mispredicts): both sides must have room for 64 bytes.
static inline void cbytes_copy_run(uint8_t *to, const uint8_t *from) {
    _mm_storeu_si128((__m128i *)to, _mm_loadu_si128((const __m128i *)from));
    _mm_storeu_si128((__m128i *)(to + 16), _mm_loadu_si128((const __m128i *)(from + 16)));
    _mm_storeu_si128((__m128i *)(to + 32), _mm_loadu_si128((const __m128i *)(from + 32)));
    _mm_storeu_si128((__m128i *)(to + 48), _mm_loadu_si128((const __m128i *)(from + 48)));
}

CBYTES_SSSE3 static inline int cbytes_escape_json_ssse3(const uint8_t *in, size_t count, uint8_t *out,
                                                        size_t capacity, size_t *written) {
    const uint8_t *end = in + count;
    const uint8_t *p = in;
    cbytes_utf8_state utf8 = {_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128()};
    uint8_t *o = out;
    uint8_t *limit = out + capacity;
    // 64 bytes at a time: a 64-bit mask of the bytes to escape, then each escape in turn, the clean
    // run before it copied in whole stores. Two chunks of room are kept before the end, so a run's
    // stores never read past the input.
    while (p + 128 <= end) {
        if ((size_t)(limit - o) < 64 * CBYTES_ESCAPE_MAX_EXPANSION + 64) return 0;
        cbytes_prefetch(p);
        __m128i v0 = _mm_loadu_si128((const __m128i *)p);
        __m128i v1 = _mm_loadu_si128((const __m128i *)(p + 16));
        __m128i v2 = _mm_loadu_si128((const __m128i *)(p + 32));
        __m128i v3 = _mm_loadu_si128((const __m128i *)(p + 48));
        if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(v0, v1), _mm_or_si128(v2, v3))) == 0) {
            // ASCII: only a sequence left open by the chunk before can be wrong.
            utf8.error = _mm_or_si128(utf8.error, utf8.incomplete);
            utf8.incomplete = _mm_setzero_si128();
            utf8.previous = v3;
        } else {
            cbytes_utf8_block(&utf8, v0);
            cbytes_utf8_block(&utf8, v1);
            cbytes_utf8_block(&utf8, v2);
            cbytes_utf8_block(&utf8, v3);
        }
        uint64_t mask = (uint64_t)cbytes_escape_mask16(v0) | (uint64_t)cbytes_escape_mask16(v1) << 16 |
                        (uint64_t)cbytes_escape_mask16(v2) << 32 | (uint64_t)cbytes_escape_mask16(v3) << 48;
        const uint8_t *run = p;
        while (mask) {
            const uint8_t *at = p + __builtin_ctzll(mask);
            mask &= mask - 1;
            size_t length = (size_t)(at - run);
            cbytes_copy_run(o, run);
            o += length;
            o += cbytes_store_escape(*at, o);
            run = at + 1;
        }
        cbytes_copy_run(o, run);
        o += p + 64 - run;
        p += 64;
    }
    // The last 64 to 127 bytes: validated in 16-byte blocks (the last zero-padded: zeros are
    // ASCII), escaped one byte at a time.
    const uint8_t *validated = p;
    for (; validated + 16 <= end; validated += 16) {
        cbytes_utf8_block(&utf8, _mm_loadu_si128((const __m128i *)validated));
    }
    if (validated < end) {
        uint8_t tail[16] = {0};
        memcpy(tail, validated, (size_t)(end - validated));
        cbytes_utf8_block(&utf8, _mm_loadu_si128((const __m128i *)tail));
    }
    utf8.error = _mm_or_si128(utf8.error, utf8.incomplete);
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(utf8.error, _mm_setzero_si128())) != 0xFFFF) return -1;
    if (!cbytes_escape_bytes(p, end, &o, limit)) return 0;
    *written = (size_t)(o - out);
    return 1;
}

#include "escape_avx2.h"
#include "escape_avx512.h"

#endif

#if defined(__aarch64__)
#include "escape_neon.h"
#endif

/// Whether this CPU runs cbytes_escape_json_avx512 (BW, VBMI, VBMI2, BMI2: Intel since Ice Lake,
/// AMD since Zen 4); at the AVX-512 level a CPU without them escapes with AVX2.
static inline int cbytes_escape_avx512_supported(void) {
#if defined(__x86_64__)
    static int supported = -1;
    if (supported < 0) {
        supported = __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi") &&
                    __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("bmi2");
    }
    return supported;
#else
    return 0;
#endif
}

/// cbytes_escape_json with the loop of SIMD level `level` (CBYTES_SIMD_*), which this CPU must run
/// (cbytes_simd_available): scalar and SSE2 byte by byte, SSSE3, AVX2, AVX-512, NEON. Tests
/// compare the levels with this.
static inline int cbytes_escape_json_at(int level, const uint8_t *in, size_t count, uint8_t *out, size_t capacity,
                                        size_t *written) {
#if defined(__x86_64__)
    if (level == CBYTES_SIMD_AVX512 && cbytes_escape_avx512_supported()) {
        return cbytes_escape_json_avx512(in, count, out, capacity, written);
    }
    if (level == CBYTES_SIMD_AVX512 || level == CBYTES_SIMD_AVX2) {
        return cbytes_escape_json_avx2(in, count, out, capacity, written);
    }
    if (level == CBYTES_SIMD_SSSE3) return cbytes_escape_json_ssse3(in, count, out, capacity, written);
#elif defined(__aarch64__)
    if (level == CBYTES_SIMD_NEON) return cbytes_escape_json_neon(in, count, out, capacity, written);
#endif
    return cbytes_escape_json_scalar(in, count, out, capacity, written);
}

/// Escapes `count` bytes of UTF-8 text at `in` into `out` (room for `capacity` bytes), without the
/// surrounding quotes. Returns 1 with `*written` set when done, 0 when `out` had too little room
/// (call again with more: `count * CBYTES_ESCAPE_MAX_EXPANSION + CBYTES_ESCAPE_SLACK` is always
/// enough), and -1 when the text is not well-formed UTF-8 (what `out` holds is then meaningless).
static inline int cbytes_escape_json(const uint8_t *in, size_t count, uint8_t *out, size_t capacity, size_t *written) {
    return cbytes_escape_json_at(cbytes_simd_level(), in, count, out, capacity, written);
}

#endif
