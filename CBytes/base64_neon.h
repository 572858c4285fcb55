// Base64 (base64.h) with NEON on aarch64: 48 bytes in, 64 characters out a step. `ld3`
// de-interleaves the 3-byte groups into three registers, shifts make the four 6-bit values, one
// 64-byte table lookup (`tbl` over four registers) maps them to the alphabet, and `st4`
// interleaves the characters back.
#ifndef CBYTES_BASE64_NEON_H
#define CBYTES_BASE64_NEON_H

#if defined(__aarch64__)
#include <arm_neon.h>

static inline void cbytes_base64_encode_neon(const uint8_t *in, size_t count, uint8_t *out) {
    static const uint8_t alphabet[64] = {
        'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O', 'P', 'Q', 'R', 'S', 'T', 'U', 'V',
        'W', 'X', 'Y', 'Z', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r',
        's', 't', 'u', 'v', 'w', 'x', 'y', 'z', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '+', '/',
    };
    uint8x16x4_t table;
    table.val[0] = vld1q_u8(alphabet);
    table.val[1] = vld1q_u8(alphabet + 16);
    table.val[2] = vld1q_u8(alphabet + 32);
    table.val[3] = vld1q_u8(alphabet + 48);
    const uint8x16_t six = vdupq_n_u8(63);
    size_t i = 0;
    for (; i + 48 <= count; i += 48) {
        uint8x16x3_t bytes = vld3q_u8(in + i);
        uint8x16x4_t text;
        text.val[0] = vshrq_n_u8(bytes.val[0], 2);
        text.val[1] = vandq_u8(vorrq_u8(vshlq_n_u8(bytes.val[0], 4), vshrq_n_u8(bytes.val[1], 4)), six);
        text.val[2] = vandq_u8(vorrq_u8(vshlq_n_u8(bytes.val[1], 2), vshrq_n_u8(bytes.val[2], 6)), six);
        text.val[3] = vandq_u8(bytes.val[2], six);
        text.val[0] = vqtbl4q_u8(table, text.val[0]);
        text.val[1] = vqtbl4q_u8(table, text.val[1]);
        text.val[2] = vqtbl4q_u8(table, text.val[2]);
        text.val[3] = vqtbl4q_u8(table, text.val[3]);
        vst4q_u8(out, text);
        out += 64;
    }
    cbytes_base64_encode_scalar(in + i, count - i, out);
}

#endif

#endif
