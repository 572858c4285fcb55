// JSON string escaping (see escape.h) with NEON on aarch64 (every ARM64 server has it: Graviton,
// Ampere, Apple silicon under Linux), 16 bytes a step: compares find the bytes to escape, a clean
// block is stored whole, and the escapes of the others are written in turn with the clean run
// before each copied as one 16-byte store, as the SSSE3 kernel does. UTF-8 is validated with the
// same lookup algorithm, `tbl` standing for `pshufb` and `ext` for `palignr`.
#ifndef CBYTES_ESCAPE_NEON_H
#define CBYTES_ESCAPE_NEON_H

#if defined(__aarch64__)
#include <arm_neon.h>

typedef struct {
    uint8x16_t error;
    uint8x16_t previous;
    uint8x16_t incomplete;
} cbytes_utf8_state_neon;

/// cbytes_utf8_block (escape.h) with NEON.
static inline void cbytes_utf8_block_neon(cbytes_utf8_state_neon *state, uint8x16_t input) {
    const uint8x16_t nibble = vdupq_n_u8(0x0F);
    uint8x16_t prev1 = vextq_u8(state->previous, input, 15);
    uint8x16_t special = vandq_u8(
        vandq_u8(vqtbl1q_u8(vld1q_u8(cbytes_utf8_byte1_high), vshrq_n_u8(prev1, 4)),
                 vqtbl1q_u8(vld1q_u8(cbytes_utf8_byte1_low), vandq_u8(prev1, nibble))),
        vqtbl1q_u8(vld1q_u8(cbytes_utf8_byte2_high), vshrq_n_u8(input, 4)));
    uint8x16_t prev2 = vextq_u8(state->previous, input, 14);
    uint8x16_t prev3 = vextq_u8(state->previous, input, 13);
    uint8x16_t third = vqsubq_u8(prev2, vdupq_n_u8(0xE0 - 0x80));
    uint8x16_t fourth = vqsubq_u8(prev3, vdupq_n_u8(0xF0 - 0x80));
    uint8x16_t must23 = vandq_u8(vorrq_u8(third, fourth), vdupq_n_u8(0x80));
    state->error = vorrq_u8(state->error, veorq_u8(must23, special));
    static const uint8_t last_max[16] = {
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0xF0 - 1, 0xE0 - 1, 0xC0 - 1,
    };
    state->incomplete = vqsubq_u8(input, vld1q_u8(last_max));
    state->previous = input;
}

/// The bytes of `v` that need escaping as four bits each (NEON has no movemask: a narrowing shift
/// packs 16 compare results into 64 bits).
static inline uint64_t cbytes_escape_mask_neon(uint8x16_t v) {
    uint8x16_t escapes = vorrq_u8(vorrq_u8(vcltq_u8(v, vdupq_n_u8(0x20)), vceqq_u8(v, vdupq_n_u8(0x7F))),
                                  vorrq_u8(vceqq_u8(v, vdupq_n_u8('"')), vceqq_u8(v, vdupq_n_u8('\\'))));
    return vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(escapes), 4)), 0);
}

static inline int cbytes_escape_json_neon(const uint8_t *in, size_t count, uint8_t *out, size_t capacity,
                                          size_t *written) {
    const uint8_t *end = in + count;
    const uint8_t *p = in;
    cbytes_utf8_state_neon utf8 = {vdupq_n_u8(0), vdupq_n_u8(0), vdupq_n_u8(0)};
    uint8_t *o = out;
    uint8_t *limit = out + capacity;
    // A block writes at most 16 escapes of 6 bytes and one 16-byte store past them; a run's copy
    // reads 16 bytes from inside the block, so a second block is kept before the end.
    while (p + 32 <= end) {
        if ((size_t)(limit - o) < 16 * CBYTES_ESCAPE_MAX_EXPANSION + 16) return 0;
        cbytes_prefetch(p);
        uint8x16_t v = vld1q_u8(p);
        if (vmaxvq_u8(v) < 0x80) {
            utf8.error = vorrq_u8(utf8.error, utf8.incomplete);
            utf8.incomplete = vdupq_n_u8(0);
            utf8.previous = v;
        } else {
            cbytes_utf8_block_neon(&utf8, v);
        }
        uint64_t mask = cbytes_escape_mask_neon(v);
        const uint8_t *run = p;
        while (mask) {
            unsigned bit = (unsigned)__builtin_ctzll(mask);
            const uint8_t *at = p + bit / 4;
            mask &= ~(0xFULL << (bit & ~3u));
            vst1q_u8(o, vld1q_u8(run));
            o += at - run;
            o += cbytes_store_escape(*at, o);
            run = at + 1;
        }
        vst1q_u8(o, vld1q_u8(run));
        o += p + 16 - run;
        p += 16;
    }
    // The last 16 to 31 bytes: validated in 16-byte blocks (the last zero-padded: zeros are
    // ASCII), escaped one byte at a time.
    const uint8_t *validated = p;
    for (; validated + 16 <= end; validated += 16) {
        cbytes_utf8_block_neon(&utf8, vld1q_u8(validated));
    }
    if (validated < end) {
        uint8_t tail[16] = {0};
        memcpy(tail, validated, (size_t)(end - validated));
        cbytes_utf8_block_neon(&utf8, vld1q_u8(tail));
    }
    utf8.error = vorrq_u8(utf8.error, utf8.incomplete);
    if (vmaxvq_u8(utf8.error) != 0) return -1;
    if (!cbytes_escape_bytes(p, end, &o, limit)) return 0;
    *written = (size_t)(o - out);
    return 1;
}

#endif

#endif
