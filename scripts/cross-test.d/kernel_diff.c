// Differential test of CBytes' kernels: every SIMD level this CPU runs (BATCHFETCH_SIMD's levels)
// must give byte for byte what the scalar loops give: the escaper (output, and the refusal of
// ill-formed UTF-8 or too little room, never a write past the room), the JSON validator (verdict,
// and where valid whether a line break may lie between tokens) and base64. Built natively by
// scripts/cross-test and, for aarch64's NEON loops, cross-compiled and run under qemu-aarch64.
//
// usage: kernel_diff [INPUTS [SEED]]   (INPUTS: differential inputs in all, default 1,000,000)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

static uint64_t state = 0x9E3779B97F4A7C15ULL;

static uint64_t next(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static size_t below(size_t n) { return n ? (size_t)(next() % n) : 0; }

static int levels[8];
static int level_count;
static long failures;

static void report(const char *kernel, int level, const uint8_t *in, size_t count, const char *what) {
    if (++failures > 20) return;
    fprintf(stderr, "MISMATCH %s at %s (%zu bytes): %s; input:", kernel, cbytes_simd_name(level), count, what);
    for (size_t i = 0; i < count && i < 96; i++) fprintf(stderr, " %02x", in[i]);
    fprintf(stderr, "\n");
}

// ---- inputs -------------------------------------------------------------------------------------

/// Pieces of text, well-formed and not: runs of them cross every block boundary.
static const char *const pieces[] = {
    "<div class=\"drink\">", "plain text, ", "\"", "\\", "\n", "\r\n", "\t", "\x01", "\x1f", "\x7f",
    "\xc3\xa9", "\xe2\x82\xac", "\xe6\x97\xa5\xe6\x9c\xac", "\xf0\x9f\x8d\xb8", "\xc2\xa2", "abcdefghijklmnop",
    // ill-formed from here: a lone continuation, a truncated lead, a surrogate, above U+10FFFF,
    // a truncated 3-byte sequence, an overlong '/'.
    "\x80", "\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "\xc0\xaf",
};
enum { PIECES = sizeof pieces / sizeof *pieces, WELL_FORMED = PIECES - 6 };

/// Text of `count` bytes at most into `buf`: pieces, random bytes, or one odd byte in clean text.
static size_t make_text(uint8_t *buf, size_t count) {
    size_t n = 0;
    switch (below(4)) {
    case 0: // random bytes of every value
        for (; n < count; n++) buf[n] = (uint8_t)next();
        return n;
    case 1: { // clean text with one byte of any value at any place
        for (; n < count; n++) buf[n] = (uint8_t)('a' + below(26));
        if (count) buf[below(count)] = (uint8_t)next();
        return n;
    }
    default: { // pieces, ill-formed ones in one input of four
        int choices = below(4) == 0 ? PIECES : WELL_FORMED;
        while (n < count) {
            const char *piece = pieces[below((size_t)choices)];
            size_t length = strlen(piece);
            if (n + length > count) break;
            memcpy(buf + n, piece, length);
            n += length;
        }
        return n;
    }
    }
}

/// The lengths that meet block edges (15/16/17, 31/32/33, 63/64/65, ...), else any up to `max`.
static size_t pick_length(size_t max) {
    static const size_t edges[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 95, 96, 97, 127, 128, 129};
    if (below(2)) return edges[below(sizeof edges / sizeof *edges)];
    return below(below(8) == 0 ? max : 200);
}

static size_t json_value(uint8_t *buf, size_t room, int depth);

static size_t json_put(uint8_t *buf, size_t room, const char *text) {
    size_t length = strlen(text);
    if (length > room) return 0;
    memcpy(buf, text, length);
    return length;
}

static size_t json_space(uint8_t *buf, size_t room) {
    static const char *const spaces[] = {"", "", "", " ", "\n", "\t", "\r\n  "};
    return json_put(buf, room, spaces[below(7)]);
}

static size_t json_string(uint8_t *buf, size_t room) {
    static const char *const parts[] = {"abc", "drink", " ", "\\\"", "\\\\", "\\/", "\\n", "\\u00e9", "\\uD83C",
                                        "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x8d\xb8", "0123456789abcdefghij", "{[:,]}"};
    size_t n = json_put(buf, room, "\"");
    int parts_count = (int)below(12);
    for (int i = 0; i < parts_count; i++) n += json_put(buf + n, room - n, parts[below(sizeof parts / sizeof *parts)]);
    return n + json_put(buf + n, room - n, "\"");
}

static size_t json_value(uint8_t *buf, size_t room, int depth) {
    static const char *const scalars[] = {"null", "true", "false", "0", "-1", "12.5", "1e10", "-0.25E-3", "123456789"};
    size_t n = json_space(buf, room);
    size_t kind = depth > 6 ? 2 + below(2) : below(4);
    if (kind == 0 || kind == 1) {
        int object = kind == 0;
        n += json_put(buf + n, room - n, object ? "{" : "[");
        int members = (int)below(6);
        for (int i = 0; i < members && room - n > 64; i++) {
            if (i) n += json_put(buf + n, room - n, ",");
            if (object) {
                n += json_space(buf + n, room - n);
                n += json_string(buf + n, room - n);
                n += json_space(buf + n, room - n);
                n += json_put(buf + n, room - n, ":");
            }
            n += json_value(buf + n, room - n, depth + 1);
        }
        n += json_space(buf + n, room - n);
        n += json_put(buf + n, room - n, object ? "}" : "]");
    } else if (kind == 2) {
        n += json_string(buf + n, room - n);
    } else {
        n += json_put(buf + n, room - n, scalars[below(sizeof scalars / sizeof *scalars)]);
    }
    return n + json_space(buf + n, room - n);
}

/// A document, valid or not: generated, then in half the cases one byte changed, inserted or cut.
static size_t make_json(uint8_t *buf, size_t room) {
    size_t n = json_value(buf, room - 1, 0);
    switch (below(8)) {
    case 0: if (n) buf[below(n)] = (uint8_t)next(); break;
    case 1: if (n) buf[below(n)] = (uint8_t)"{}[]\":,\\ \n0e-.a"[below(16)]; break;
    case 2: if (n) n = below(n); break;
    case 3: {
        size_t at = below(n + 1);
        memmove(buf + at + 1, buf + at, n - at);
        buf[at] = (uint8_t)"{}[]\":,\\ \n0e-.a\x80"[below(17)];
        n++;
        break;
    }
    default: break;
    }
    return n;
}

// ---- kernels ------------------------------------------------------------------------------------

enum { MAX_INPUT = 4096, GUARD = 256 };
static uint8_t input[MAX_INPUT + 64];
static uint8_t want[MAX_INPUT * CBYTES_ESCAPE_MAX_EXPANSION + CBYTES_ESCAPE_SLACK + GUARD];
static uint8_t got[MAX_INPUT * CBYTES_ESCAPE_MAX_EXPANSION + CBYTES_ESCAPE_SLACK + GUARD];

static int escape(int level, const uint8_t *in, size_t count, uint8_t *out, size_t capacity, size_t *written) {
    memset(out, 0xAB, capacity + GUARD);
    int code = cbytes_escape_json_at(level, in, count, out, capacity, written);
    for (size_t i = capacity; i < capacity + GUARD; i++) {
        if (out[i] != 0xAB) return 99;
    }
    return code;
}

static void check_escape(const uint8_t *in, size_t count) {
    size_t worst = count * CBYTES_ESCAPE_MAX_EXPANSION + CBYTES_ESCAPE_SLACK;
    size_t want_length = 0, got_length = 0;
    int want_code = escape(CBYTES_SIMD_SCALAR, in, count, want, worst, &want_length);
    for (int i = 0; i < level_count; i++) {
        int code = escape(levels[i], in, count, got, worst, &got_length);
        if (code != want_code || (code == 1 && (got_length != want_length || memcmp(got, want, want_length) != 0))) {
            report("escape", levels[i], in, count, code == 99 ? "wrote past its room" : "different output");
        }
        size_t tight = below(count + count / 8 + 40);
        code = escape(levels[i], in, count, got, tight, &got_length);
        if (code == 99 || (code != 0 && (code != want_code || (code == 1 && (got_length != want_length ||
                                                                              memcmp(got, want, want_length) != 0))))) {
            report("escape (tight room)", levels[i], in, count, code == 99 ? "wrote past its room" : "different");
        }
    }
}

static void check_json(const uint8_t *in, size_t count) {
    size_t depth = below(4) == 0 ? below(8) : 512;
    int want_controls = 1, got_controls = 1;
    int want_code = cbytes_json_valid_at(CBYTES_SIMD_SCALAR, in, count, depth, &want_controls);
    for (int i = 0; i < level_count; i++) {
        int code = cbytes_json_valid_at(levels[i], in, count, depth, &got_controls);
        if (code != want_code || (code == 1 && got_controls != want_controls)) {
            report("json", levels[i], in, count, code != want_code ? "different verdict" : "different controls");
        }
    }
}

static void check_base64(const uint8_t *in, size_t count) {
    size_t length = cbytes_base64_length(count);
    memset(want, 0xAB, length + GUARD);
    cbytes_base64_encode_at(CBYTES_SIMD_SCALAR, in, count, want);
    for (int i = 0; i < level_count; i++) {
        memset(got, 0xAB, length + GUARD);
        cbytes_base64_encode_at(levels[i], in, count, got);
        if (memcmp(got, want, length + GUARD) != 0) report("base64", levels[i], in, count, "different output");
    }
}

int main(int argc, char **argv) {
    long inputs = argc > 1 ? atol(argv[1]) : 1000000;
    if (argc > 2) state = strtoull(argv[2], NULL, 10) | 1;
    for (int level = CBYTES_SIMD_SSE2; level <= CBYTES_SIMD_NEON; level++) {
        if (cbytes_simd_available(level)) levels[level_count++] = level;
    }
    printf("kernel_diff: levels besides scalar:");
    for (int i = 0; i < level_count; i++) printf(" %s", cbytes_simd_name(levels[i]));
    printf("\n");
    if (level_count == 0) {
        printf("kernel_diff: no SIMD level on this CPU, nothing to compare\n");
        return 0;
    }
    long counts[3] = {0, 0, 0};
    // Every byte value at every place of a 33-byte text, alone and in clean text.
    for (int value = 0; value < 256; value++) {
        for (size_t length = 1; length <= 33; length++) {
            memset(input, 'x', length);
            input[length - 1] = (uint8_t)value;
            check_escape(input, length);
            check_base64(input, length);
            counts[0]++;
            counts[2]++;
        }
    }
    for (long done = counts[0]; done < inputs; done++) {
        size_t count;
        switch (done % 3) {
        case 0:
            count = make_text(input, pick_length(MAX_INPUT));
            check_escape(input, count);
            counts[0]++;
            break;
        case 1:
            count = make_json(input, MAX_INPUT);
            check_json(input, count);
            counts[1]++;
            break;
        default:
            count = make_text(input, pick_length(MAX_INPUT));
            check_base64(input, count);
            counts[2]++;
            break;
        }
    }
    printf("kernel_diff: %ld escape, %ld json, %ld base64 inputs: %s\n", counts[0], counts[1], counts[2],
           failures ? "MISMATCHES" : "every level identical to scalar");
    return failures ? 1 : 0;
}
