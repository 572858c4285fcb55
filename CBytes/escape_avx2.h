// JSON string escaping (see escape.h) with AVX2, 32 bytes a step and no branch per escape, for
// the x86 CPUs without AVX-512 (most rented AMD EPYC and older Xeons). HTML has an escape every
// ~20 bytes (quoted attributes, newlines), so a loop per escape, as the SSSE3 kernel runs, spends
// its time on mispredicted branches; here each 8 bytes are spread over up to 16 by one shuffle
// from a 256-entry table indexed by the 8 bits of their escape mask, with a backslash before every
// escaped byte. Blocks with a byte written as \u00xx (rare controls, DEL) go byte by byte. UTF-8 is
// validated with escape.h's lookup algorithm, 32 bytes at a time.
#ifndef CBYTES_ESCAPE_AVX2_H
#define CBYTES_ESCAPE_AVX2_H

#if defined(__x86_64__)

#include "escape_spread.h"

#define CBYTES_ESCAPE_AVX2 __attribute__((target("avx2,popcnt")))

typedef struct {
    __m256i error;
    __m256i previous;
    __m256i incomplete;
} cbytes_utf8_state32;

/// The 32 bytes before each byte of `input` by `n` (1 to 3, a constant), with `previous` the block
/// before it: the low lane borrows the previous block's high lane.
#define CBYTES_PREV32(input, previous, n) \
    _mm256_alignr_epi8((input), _mm256_permute2x128_si256((previous), (input), 0x21), 16 - (n))

/// cbytes_utf8_block on 32 bytes.
CBYTES_ESCAPE_AVX2 static inline void cbytes_utf8_block32(cbytes_utf8_state32 *state, __m256i input) {
    const __m256i byte1_high = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)cbytes_utf8_byte1_high));
    const __m256i byte1_low = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)cbytes_utf8_byte1_low));
    const __m256i byte2_high = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)cbytes_utf8_byte2_high));
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    __m256i prev1 = CBYTES_PREV32(input, state->previous, 1);
    __m256i special = _mm256_and_si256(
        _mm256_and_si256(_mm256_shuffle_epi8(byte1_high, _mm256_and_si256(_mm256_srli_epi16(prev1, 4), nibble)),
                         _mm256_shuffle_epi8(byte1_low, _mm256_and_si256(prev1, nibble))),
        _mm256_shuffle_epi8(byte2_high, _mm256_and_si256(_mm256_srli_epi16(input, 4), nibble)));
    __m256i prev2 = CBYTES_PREV32(input, state->previous, 2);
    __m256i prev3 = CBYTES_PREV32(input, state->previous, 3);
    __m256i third = _mm256_subs_epu8(prev2, _mm256_set1_epi8((char)(0xE0 - 0x80)));
    __m256i fourth = _mm256_subs_epu8(prev3, _mm256_set1_epi8((char)(0xF0 - 0x80)));
    __m256i must23 = _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8((char)0x80));
    state->error = _mm256_or_si256(state->error, _mm256_xor_si256(must23, special));
    const __m256i last_max = _mm256_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, //
                                              -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                              (char)(0xF0 - 1), (char)(0xE0 - 1), (char)(0xC0 - 1));
    state->incomplete = _mm256_subs_epu8(input, last_max);
    state->previous = input;
}

/// Spreads the 8 bytes in the low half of `group` (its high half all backslashes) by their escape
/// bits `bits` into `o` with one 16-byte store; returns how many of the bytes stored are output.
CBYTES_ESCAPE_AVX2 static inline size_t cbytes_escape_spread8(__m128i group, unsigned bits, uint8_t *o) {
    __m128i order = _mm_loadu_si128((const __m128i *)cbytes_escape_spread_table[bits]);
    _mm_storeu_si128((__m128i *)o, _mm_shuffle_epi8(group, order));
    return 8 + (size_t)__builtin_popcount(bits);
}

/// The escape masks of the 32 bytes of `v`: all that need escaping, and \t \n \r (whose letters
/// `letters` holds at their low nibbles) and '"' '\\', the two-byte escapes.
CBYTES_ESCAPE_AVX2 static inline unsigned cbytes_escape_masks32(__m256i v, unsigned *two_byte, __m256i *named,
                                                               __m256i *letter) {
    const __m256i letters =
        _mm256_broadcastsi128_si256(_mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 't', 'n', 0, 0, 'r', 0, 0));
    __m256i controls = _mm256_cmpeq_epi8(_mm256_subs_epu8(v, _mm256_set1_epi8(0x1F)), _mm256_setzero_si256());
    __m256i marks =
        _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"')), _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\')));
    __m256i dels = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0x7F));
    *letter = _mm256_shuffle_epi8(letters, v);
    // \t \n \r: controls below 0x10 whose letter is not 0 (0x10-0x1F look up their low nibble too).
    *named = _mm256_andnot_si256(_mm256_cmpeq_epi8(*letter, _mm256_setzero_si256()),
                                 _mm256_and_si256(controls, _mm256_cmpgt_epi8(_mm256_set1_epi8(0x10), v)));
    *two_byte = (unsigned)_mm256_movemask_epi8(_mm256_or_si256(marks, *named));
    return (unsigned)_mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(controls, marks), dels));
}

/// Escapes the 32 bytes of `v` (at `p`) into `*o`, validating their UTF-8, with no branch on
/// where or how many escapes there are: HTML has one every ~20 bytes, so a branch on them
/// mispredicts. Needs 64 bytes of room at `*o`. Returns 0 when too little room was left for a
/// block written byte by byte (one with a \u00xx escape), else 1.
CBYTES_ESCAPE_AVX2 static inline int cbytes_escape_block32(cbytes_utf8_state32 *utf8, __m256i v, const uint8_t *p,
                                                           uint8_t **o, const uint8_t *limit) {
    const __m128i backslashes = _mm_set1_epi8('\\');
    cbytes_utf8_block32(utf8, v);
    unsigned two_byte;
    __m256i named, letter;
    unsigned escapes = cbytes_escape_masks32(v, &two_byte, &named, &letter);
    if (escapes != two_byte) return cbytes_escape_bytes(p, p + 32, o, limit);
    __m256i text = _mm256_blendv_epi8(v, letter, named);
    __m128i low = _mm256_castsi256_si128(text), high = _mm256_extracti128_si256(text, 1);
    uint8_t *at = *o;
    at += cbytes_escape_spread8(_mm_unpacklo_epi64(low, backslashes), escapes & 0xFF, at);
    at += cbytes_escape_spread8(_mm_unpackhi_epi64(low, backslashes), (escapes >> 8) & 0xFF, at);
    at += cbytes_escape_spread8(_mm_unpacklo_epi64(high, backslashes), (escapes >> 16) & 0xFF, at);
    at += cbytes_escape_spread8(_mm_unpackhi_epi64(high, backslashes), escapes >> 24, at);
    *o = at;
    return 1;
}

CBYTES_ESCAPE_AVX2 static inline int cbytes_escape_json_avx2(const uint8_t *in, size_t count, uint8_t *out,
                                                             size_t capacity, size_t *written) {
    const uint8_t *end = in + count;
    const uint8_t *p = in;
    cbytes_utf8_state32 utf8 = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
    uint8_t *o = out;
    uint8_t *limit = out + capacity;
    // 64 bytes a step: stored whole when all ASCII with nothing to escape (plain text takes this
    // branch nearly always, HTML nearly never, so it predicts well either way), else 32 at a time
    // without branches. A 32-byte block writes at most 64 bytes (16-byte stores at up to 48).
    while (p + 64 <= end) {
        if ((size_t)(limit - o) < 128) return 0;
        cbytes_prefetch(p);
        __m256i v0 = _mm256_loadu_si256((const __m256i *)p);
        __m256i v1 = _mm256_loadu_si256((const __m256i *)(p + 32));
        unsigned two_byte0, two_byte1;
        __m256i named, letter;
        unsigned escapes = cbytes_escape_masks32(v0, &two_byte0, &named, &letter) |
                           cbytes_escape_masks32(v1, &two_byte1, &named, &letter);
        if ((escapes | (unsigned)_mm256_movemask_epi8(_mm256_or_si256(v0, v1))) == 0) {
            // ASCII: only a sequence left open by the block before can be wrong.
            utf8.error = _mm256_or_si256(utf8.error, utf8.incomplete);
            utf8.incomplete = _mm256_setzero_si256();
            utf8.previous = v1;
            _mm256_storeu_si256((__m256i *)o, v0);
            _mm256_storeu_si256((__m256i *)(o + 32), v1);
            o += 64;
        } else {
            if (!cbytes_escape_block32(&utf8, v0, p, &o, limit)) return 0;
            if ((size_t)(limit - o) < 64 || !cbytes_escape_block32(&utf8, v1, p + 32, &o, limit)) return 0;
        }
        p += 64;
    }
    if (p + 32 <= end) {
        if ((size_t)(limit - o) < 64) return 0;
        if (!cbytes_escape_block32(&utf8, _mm256_loadu_si256((const __m256i *)p), p, &o, limit)) return 0;
        p += 32;
    }
    // The last 0 to 31 bytes: validated as one zero-padded block (zeros are ASCII), escaped one
    // byte at a time.
    if (p < end) {
        uint8_t tail[32] = {0};
        memcpy(tail, p, (size_t)(end - p));
        cbytes_utf8_block32(&utf8, _mm256_loadu_si256((const __m256i *)tail));
    }
    utf8.error = _mm256_or_si256(utf8.error, utf8.incomplete);
    if (!_mm256_testz_si256(utf8.error, utf8.error)) return -1;
    if (!cbytes_escape_bytes(p, end, &o, limit)) return 0;
    *written = (size_t)(o - out);
    return 1;
}

#endif

#endif
