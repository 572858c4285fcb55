// JSON string escaping (see escape.h) with AVX-512 (BW, VBMI, VBMI2), 64 bytes a step and no
// branch per escape: one table lookup (vpermi2b) tells which bytes need escaping and how, and
// vpexpandb spreads each 32 bytes over up to 64 with a backslash before every escaped byte. UTF-8
// is validated with the same lookup algorithm as escape.h's, 64 bytes at a time. Chosen at run
// time where the CPU has it (escape.h's cbytes_escape_json).
#ifndef CBYTES_ESCAPE_AVX512_H
#define CBYTES_ESCAPE_AVX512_H

#if defined(__x86_64__)

#define CBYTES_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi,bmi2,popcnt")))

typedef struct {
    __m512i error;
    __m512i previous;
    __m512i incomplete;
} cbytes_utf8_state64;

/// The 64 bytes before each byte of `input` by `n` (1 to 3), with `previous` the block before it.
CBYTES_AVX512 static inline __m512i cbytes_prev64(__m512i input, __m512i previous, __m512i lanes, int n) {
    __m512i shifted = _mm512_permutex2var_epi64(input, lanes, previous);
    switch (n) {
    case 1: return _mm512_alignr_epi8(input, shifted, 15);
    case 2: return _mm512_alignr_epi8(input, shifted, 14);
    default: return _mm512_alignr_epi8(input, shifted, 13);
    }
}

/// cbytes_utf8_block on 64 bytes.
CBYTES_AVX512 static inline void cbytes_utf8_block64(cbytes_utf8_state64 *state, __m512i input) {
    const __m512i byte1_high = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)cbytes_utf8_byte1_high));
    const __m512i byte1_low = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)cbytes_utf8_byte1_low));
    const __m512i byte2_high = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)cbytes_utf8_byte2_high));
    const __m512i nibble = _mm512_set1_epi8(0x0F);
    // 128-bit lanes [previous.3, input.0, input.1, input.2], for the byte-wise shifts across lanes.
    const __m512i lanes = _mm512_set_epi64(5, 4, 3, 2, 1, 0, 15, 14);
    __m512i prev1 = cbytes_prev64(input, state->previous, lanes, 1);
    __m512i special = _mm512_and_si512(
        _mm512_and_si512(
            _mm512_shuffle_epi8(byte1_high, _mm512_and_si512(_mm512_srli_epi16(prev1, 4), nibble)),
            _mm512_shuffle_epi8(byte1_low, _mm512_and_si512(prev1, nibble))),
        _mm512_shuffle_epi8(byte2_high, _mm512_and_si512(_mm512_srli_epi16(input, 4), nibble)));
    __m512i prev2 = cbytes_prev64(input, state->previous, lanes, 2);
    __m512i prev3 = cbytes_prev64(input, state->previous, lanes, 3);
    __m512i third = _mm512_subs_epu8(prev2, _mm512_set1_epi8((char)(0xE0 - 0x80)));
    __m512i fourth = _mm512_subs_epu8(prev3, _mm512_set1_epi8((char)(0xF0 - 0x80)));
    __m512i must23 = _mm512_and_si512(_mm512_or_si512(third, fourth), _mm512_set1_epi8((char)0x80));
    state->error = _mm512_ternarylogic_epi32(state->error, must23, special, 0xF6);  // error | (must23 ^ special)
    const __m512i last_max = _mm512_set_epi8(
        (char)(0xC0 - 1), (char)(0xE0 - 1), (char)(0xF0 - 1), -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    state->incomplete = _mm512_subs_epu8(input, last_max);
    state->previous = input;
}

/// For each ASCII byte, what escaping it takes: 0 none, 1 a \u00xx escape, else the letter of its
/// two-byte escape (\" \\ \n \r \t).
static const uint8_t cbytes_escape_codes[128] __attribute__((aligned(64))) = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 't', 'n', 1, 1, 'r', 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ['"'] = '"', ['\\'] = '\\', [0x7F] = 1,
};

/// Escapes the bytes of `v` that `valid` selects (the first n) into `o`, writing up to 128 bytes
/// there; returns the output length, or sets `*slow` and writes nothing when a byte needs a
/// \u00xx escape.
CBYTES_AVX512 static inline size_t cbytes_escape_block64(__m512i v, uint64_t valid, uint64_t ascii, uint8_t *o,
                                                         int *slow) {
    __m512i code = _mm512_permutex2var_epi8(_mm512_load_si512((const void *)cbytes_escape_codes), v,
                                            _mm512_load_si512((const void *)(cbytes_escape_codes + 64)));
    uint64_t escapes = _mm512_test_epi8_mask(code, code) & ascii & valid;
    if (_mm512_cmpeq_epi8_mask(code, _mm512_set1_epi8(1)) & ascii & valid) {
        *slow = 1;
        return 0;
    }
    __m512i text = _mm512_mask_mov_epi8(v, escapes, code);
    // Where the output's backslashes go: each input byte is a slot pair (backslash if escaped,
    // then the byte) and the kept slots close up.
    const uint64_t evens = 0x5555555555555555ULL, odds = 0xAAAAAAAAAAAAAAAAULL;
    uint64_t keep_low = _pdep_u64(escapes, evens) | _pdep_u64(valid, odds);
    uint64_t keep_high = _pdep_u64(escapes >> 32, evens) | _pdep_u64(valid >> 32, odds);
    uint64_t slash_low = _pext_u64(evens, keep_low), slash_high = _pext_u64(evens, keep_high);
    const __m512i backslash = _mm512_set1_epi8('\\');
    _mm512_storeu_si512(o, _mm512_mask_expand_epi8(backslash, ~slash_low, text));
    size_t n = (size_t)__builtin_popcountll(keep_low);
    __m512i upper = _mm512_shuffle_i64x2(text, text, 0xEE);
    _mm512_storeu_si512(o + n, _mm512_mask_expand_epi8(backslash, ~slash_high, upper));
    return n + (size_t)__builtin_popcountll(keep_high);
}

CBYTES_AVX512 static inline int cbytes_escape_json_avx512(const uint8_t *in, size_t count, uint8_t *out,
                                                          size_t capacity, size_t *written) {
    const uint8_t *end = in + count;
    const uint8_t *p = in;
    cbytes_utf8_state64 utf8 = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
    uint8_t *o = out;
    uint8_t *limit = out + capacity;
    while (p < end) {
        size_t left = (size_t)(end - p);
        uint64_t valid = left >= 64 ? ~0ULL : (1ULL << left) - 1;
        // Bytes past the end read as zeros: ASCII for the UTF-8 check, masked off for escaping.
        cbytes_prefetch(p);
        __m512i v = _mm512_maskz_loadu_epi8(valid, p);
        uint64_t ascii = ~_mm512_movepi8_mask(v);
        if (ascii == ~0ULL) {
            utf8.error = _mm512_or_si512(utf8.error, utf8.incomplete);
            utf8.incomplete = _mm512_setzero_si512();
            utf8.previous = v;
        } else {
            cbytes_utf8_block64(&utf8, v);
        }
        int slow = 0;
        if ((size_t)(limit - o) >= 128) {
            o += cbytes_escape_block64(v, valid, ascii, o, &slow);
        } else {
            slow = 1;
        }
        if (slow) {
            // Controls written as \u00xx (or too little room left for whole-block stores): byte by byte.
            if (!cbytes_escape_bytes(p, p + (left >= 64 ? 64 : left), &o, limit)) return 0;
        }
        p += left >= 64 ? 64 : left;
    }
    utf8.error = _mm512_or_si512(utf8.error, utf8.incomplete);
    if (_mm512_test_epi8_mask(utf8.error, utf8.error) != 0) return -1;
    *written = (size_t)(o - out);
    return 1;
}

#endif

#endif
