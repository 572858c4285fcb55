// The JSON validator's block classifier (json_validate.h) with NEON on aarch64: 16 bytes per
// compare, and the four compares of a 64-byte block folded into one 64-bit mask by pairwise
// additions (NEON has no movemask; simdjson's ARM64 kernel does the same). Included by
// json_validate.h after the validator's template.
#ifndef CBYTES_JSON_VALIDATE_NEON_H
#define CBYTES_JSON_VALIDATE_NEON_H

#if defined(__aarch64__)
#include <arm_neon.h>

/// Bit i of the result: lane i of the four compare results `a`, `b`, `c`, `d` (64 lanes in all).
CBYTES_JSON_INLINE uint64_t cbytes_json_mask_neon(uint8x16_t a, uint8x16_t b, uint8x16_t c, uint8x16_t d) {
    static const uint8_t weights[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t bits = vld1q_u8(weights);
    uint8x16_t ab = vpaddq_u8(vandq_u8(a, bits), vandq_u8(b, bits));
    uint8x16_t cd = vpaddq_u8(vandq_u8(c, bits), vandq_u8(d, bits));
    uint8x16_t sum = vpaddq_u8(ab, cd);
    sum = vpaddq_u8(sum, sum);
    return vgetq_lane_u64(vreinterpretq_u64_u8(sum), 0);
}

/// Classifies a block with NEON: each class as four compares and one fold.
CBYTES_JSON_INLINE void cbytes_json_classify_neon(const uint8_t *block, cbytes_json_masks *m) {
    uint8x16_t quote[4], backslash[4], space[4], bracket[4], colon[4], comma[4], low[4], slash[4];
    CBYTES_JSON_UNROLL
    for (int i = 0; i < 4; i++) {
        uint8x16_t v = vld1q_u8(block + 16 * i);
        // '[' | 0x20 is '{' and ']' | 0x20 is '}'; no other byte folds onto either.
        uint8x16_t folded = vorrq_u8(v, vdupq_n_u8(0x20));
        quote[i] = vceqq_u8(v, vdupq_n_u8('"'));
        backslash[i] = vceqq_u8(v, vdupq_n_u8('\\'));
        space[i] = vorrq_u8(vorrq_u8(vceqq_u8(v, vdupq_n_u8(' ')), vceqq_u8(v, vdupq_n_u8('\t'))),
                            vorrq_u8(vceqq_u8(v, vdupq_n_u8('\n')), vceqq_u8(v, vdupq_n_u8('\r'))));
        bracket[i] = vorrq_u8(vceqq_u8(folded, vdupq_n_u8('{')), vceqq_u8(folded, vdupq_n_u8('}')));
        colon[i] = vceqq_u8(v, vdupq_n_u8(':'));
        comma[i] = vceqq_u8(v, vdupq_n_u8(','));
        // Signed compare: bytes >= 0x80 are negative, so this finds them and the controls at once.
        low[i] = vcltq_s8(vreinterpretq_s8_u8(v), vdupq_n_s8(0x20));
        slash[i] = vceqq_u8(v, vdupq_n_u8('/'));
    }
    m->quote = cbytes_json_mask_neon(quote[0], quote[1], quote[2], quote[3]);
    m->backslash = cbytes_json_mask_neon(backslash[0], backslash[1], backslash[2], backslash[3]);
    m->space = cbytes_json_mask_neon(space[0], space[1], space[2], space[3]);
    m->bracket = cbytes_json_mask_neon(bracket[0], bracket[1], bracket[2], bracket[3]);
    m->colon = cbytes_json_mask_neon(colon[0], colon[1], colon[2], colon[3]);
    m->comma = cbytes_json_mask_neon(comma[0], comma[1], comma[2], comma[3]);
    m->low = cbytes_json_mask_neon(low[0], low[1], low[2], low[3]);
    m->escape_ok = cbytes_json_mask_neon(slash[0], slash[1], slash[2], slash[3]) | m->quote | m->backslash;
}

CBYTES_JSON_VALIDATOR(cbytes_json_valid_neon, , cbytes_json_classify_neon, cbytes_json_prefix_xor)

#endif

#endif
