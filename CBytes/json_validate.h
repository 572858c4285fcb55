// Validation of a whole JSON document (RFC 8259, strict), accepting exactly what BatchFetch's
// JSONScanner accepts.
//
// Why: validating 64 KB API documents was the largest single cost of `batchfetch fetch` on JSON
// (the Swift scanner's `skipValue` steps token by token). Here each 64-byte block is
// classified with vector compares (quotes, backslashes, whitespace, brackets, ':' and ',', control
// and non-ASCII bytes), the strings are found with bit arithmetic (simdjson's stage 1: escapes from
// odd-length backslash runs, the inside of strings as a prefix XOR of the unescaped quotes), and
// the grammar is checked for the whole block at once: for every token class, one addition finds
// the next token after each of its tokens (the carry runs over whitespace and string contents),
// and a handful of masks say which token may follow which. Only the rare parts are byte by byte:
// brackets (a stack of object/array, the nesting limit), the escapes after backslashes, numbers
// and literals (at their first byte), and UTF-8 sequences in strings.
//
// Rules, as JSONScanner has them: whitespace is space, tab, LF, CR; one value per document, then
// only whitespace; strings without raw bytes < 0x20 (DEL is allowed), escapes \" \\ \/ \b \f \n
// \r \t and \u with four hex digits (a lone surrogate escape is allowed), well-formed UTF-8 (no
// overlongs, no encoded surrogates, nothing above U+10FFFF); numbers -?(0|[1-9][0-9]*)(.[0-9]+)?
// ([eE][+-]?[0-9]+)?; true, false, null; at most `max_depth` containers open at once. A UTF-8
// byte order mark is not whitespace, so a document starting with one is invalid.
#ifndef CBYTES_JSON_VALIDATE_H
#define CBYTES_JSON_VALIDATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prefetch.h"
#include "simd_level.h"
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/// Inlined even when the includer optimises for size (Swift's importer compiles C at -Os, which
/// would leave the per-block helpers as calls and their loops rolled: a third slower).
#define CBYTES_JSON_INLINE __attribute__((always_inline)) static inline
/// Fully unrolled whatever the optimisation level (the loop counts are constants); gcc, which
/// builds the aarch64 cross-test, has its own spelling.
#if defined(__clang__)
#define CBYTES_JSON_UNROLL _Pragma("clang loop unroll(full)")
#else
#define CBYTES_JSON_UNROLL _Pragma("GCC unroll 64")
#endif
/// Kept out of line (the rare paths): not `inline`, which gcc rejects beside `noinline`, and
/// `unused`, as an includer may not call them.
#define CBYTES_JSON_OUTLINE static __attribute__((noinline, unused))

/// Byte classes for the scalar checks, one table lookup each.
enum {
    CBYTES_JSON_HEX = 1,         // 0-9 a-f A-F: the digits of a \u escape
    CBYTES_JSON_ESCAPE = 2,      // a byte that may follow a backslash in a string
    CBYTES_JSON_DELIMITER = 4,   // may follow a number or literal: whitespace, brackets, ':' ',' '"'
    CBYTES_JSON_DIGIT = 8,
};

/// The class bits of one byte (a function-local table, so including the header defines no data).
CBYTES_JSON_INLINE uint8_t cbytes_json_class(uint8_t byte) {
    static const uint8_t table[256] = {
        ['\t'] = 4, ['\n'] = 4, ['\r'] = 4, [' '] = 4, ['"'] = 6, [','] = 4, ['/'] = 2,
        ['0'] = 9, ['1'] = 9, ['2'] = 9, ['3'] = 9, ['4'] = 9, ['5'] = 9, ['6'] = 9, ['7'] = 9, ['8'] = 9, ['9'] = 9,
        [':'] = 4, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['['] = 4, ['\\'] = 2, [']'] = 4,
        ['a'] = 1, ['b'] = 3, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 3, ['n'] = 2, ['r'] = 2, ['t'] = 2, ['u'] = 2,
        ['{'] = 4, ['}'] = 4,
    };
    return table[byte];
}

/// One 64-byte block as bit masks (bit i: byte i), what the vector compares produce.
typedef struct {
    uint64_t quote, backslash, space, bracket, colon, comma;
    /// Bytes below 0x20 or above 0x7F: errors or UTF-8 inside strings.
    uint64_t low;
    /// Bytes that are a valid escape after a backslash without further checks: all of \" \\ \/ \b
    /// \f \n \r \t where a table lookup is cheap (AVX2), else \/ \" \\ (the usual ones); the
    /// others, \u included, are checked one by one.
    uint64_t escape_ok;
} cbytes_json_masks;

/// Makes each mask an opaque 64-bit word. Without it, clang sees through the movemasks to the
/// byte compares and rewrites the bit arithmetic as vectors of booleans, which it then takes
/// apart byte by byte: four times slower.
CBYTES_JSON_INLINE void cbytes_json_opaque(cbytes_json_masks *m) {
    __asm__("" : "+r"(m->quote), "+r"(m->backslash), "+r"(m->space), "+r"(m->bracket));
    __asm__("" : "+r"(m->colon), "+r"(m->comma), "+r"(m->low), "+r"(m->escape_ok));
}

/// What carries from one block to the next (kept in registers by the loop).
typedef struct {
    /// 1 when the previous block ended in an odd run of backslashes (its next byte is escaped).
    uint64_t escaped;
    /// All ones when the previous block ended inside a string.
    uint64_t in_string;
    /// 1 when the previous block's last byte belongs to a number or literal.
    uint64_t scalar;
    /// 1 when the string the previous block ended in is an object key.
    uint64_t key_string;
    /// 1 when the last token so far is of that kind, so the next block's first token follows it:
    /// one after which a value must come (the start, ':', '[', ',' in an array); one after which
    /// a key must come ('{', ',' in an object); the end of a value. (After a key's closing quote
    /// none is set: only a colon may come there.)
    uint64_t before_value, before_key, after_value;
    /// 1 when the last token so far is '{' or '[' (a closing bracket next closes an empty one).
    uint64_t after_open;
    /// Bytes before this offset belong to a UTF-8 sequence already checked.
    size_t utf8_next;
} cbytes_json_carry;

/// The open containers: their kinds as a bit stack (1: object), on the C stack up to 4,096 levels
/// and on the heap beyond (the limit is the caller's, and hostile input may reach it).
typedef struct {
    size_t depth, max_depth, capacity;
    uint64_t *kinds;
    /// The innermost container: 0 none, 1 array, 2 object.
    int context;
    uint64_t local[64];
} cbytes_json_stack;

/// Offsets of numbers and literals, checked in batches: one loop over many is predictable where a
/// loop per block over its zero to three would mispredict its exit.
#define CBYTES_JSON_BATCH 256

/// Where the next token after each token of `tokens` is: one addition carries each token's bit,
/// shifted one place up, across the transparent bytes (`transparent`: whitespace, string contents,
/// the rest of a number) that follow it. `*carry` brings in the previous block's pending token and
/// takes out this block's.
CBYTES_JSON_INLINE uint64_t cbytes_json_next(uint64_t tokens, uint64_t *carry, uint64_t transparent) {
    uint64_t sum;
    uint64_t overflow = __builtin_add_overflow((tokens << 1) | *carry, transparent, &sum);
    uint64_t out = overflow | (tokens >> 63);
    // Opaque, so each carry is stored on its own: with AVX-512 clang packs the four carries of a
    // block into one vector store through mask registers, a fifth slower than plain stores.
    __asm__("" : "+r"(out));
    *carry = out;
    return sum & ~transparent;
}

/// The inside of strings from the unescaped quotes, without carry-less multiplication: bit i is
/// the XOR of bits 0...i.
CBYTES_JSON_INLINE uint64_t cbytes_json_prefix_xor(uint64_t bits) {
    bits ^= bits << 1;
    bits ^= bits << 2;
    bits ^= bits << 4;
    bits ^= bits << 8;
    bits ^= bits << 16;
    bits ^= bits << 32;
    return bits;
}

/// The bytes escaped by a backslash: the byte after each run of backslashes of odd length
/// (simdjson's `find_odd_backslash_sequences`). A run that reaches the block's end is continued
/// through `*carry` (1 when the next block's first byte is escaped).
CBYTES_JSON_INLINE uint64_t cbytes_json_escaped(uint64_t *carry, uint64_t backslash) {
    const uint64_t even = 0x5555555555555555ULL;
    if ((backslash | *carry) == 0) return 0;
    uint64_t starts = backslash & ~(backslash << 1);
    uint64_t even_start_mask = even ^ *carry;
    uint64_t even_carries = backslash + (starts & even_start_mask);
    uint64_t odd_carries;
    uint64_t overflow = __builtin_add_overflow(backslash, starts & ~even_start_mask, &odd_carries);
    odd_carries |= *carry;
    *carry = overflow;
    return (even_carries & ~backslash & ~even) | (odd_carries & ~backslash & even);
}

/// The length of the well-formed UTF-8 sequence at `p` (lead byte >= 0x80), or 0 when it is
/// ill-formed or truncated; also 0 for a control byte. JSONScanner.utf8Sequence's rules.
static inline size_t cbytes_json_utf8_length(const uint8_t *bytes, size_t p, size_t count) {
    uint8_t lead = bytes[p];
    size_t length;
    uint8_t lower = 0x80, upper = 0xBF;
    if (lead < 0xC2) return 0;
    if (lead < 0xE0) {
        length = 2;
    } else if (lead < 0xF0) {
        length = 3;
        lower = lead == 0xE0 ? 0xA0 : 0x80;
        upper = lead == 0xED ? 0x9F : 0xBF;
    } else if (lead < 0xF5) {
        length = 4;
        lower = lead == 0xF0 ? 0x90 : 0x80;
        upper = lead == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 0;
    }
    if (count - p < length) return 0;
    if (bytes[p + 1] < lower || bytes[p + 1] > upper) return 0;
    for (size_t i = 2; i < length; i++) {
        if ((bytes[p + i] & 0xC0) != 0x80) return 0;
    }
    return length;
}

/// Whether the number or literal starting at `p` is well-formed and followed by a delimiter or
/// the end of the document.
static inline int cbytes_json_scalar(const uint8_t *bytes, size_t p, size_t count) {
    size_t end;
    switch (bytes[p]) {
    case 'n':
        if (count - p < 4 || memcmp(bytes + p, "null", 4) != 0) return 0;
        end = p + 4;
        break;
    case 't':
        if (count - p < 4 || memcmp(bytes + p, "true", 4) != 0) return 0;
        end = p + 4;
        break;
    case 'f':
        if (count - p < 5 || memcmp(bytes + p, "false", 5) != 0) return 0;
        end = p + 5;
        break;
    default:
        end = p;
        if (bytes[end] == '-') end++;
        if (end == count || !(cbytes_json_class(bytes[end]) & CBYTES_JSON_DIGIT)) return 0;
        if (bytes[end] == '0') {
            end++;
        } else {
            while (end < count && (cbytes_json_class(bytes[end]) & CBYTES_JSON_DIGIT)) end++;
        }
        if (end < count && bytes[end] == '.') {
            end++;
            if (end == count || !(cbytes_json_class(bytes[end]) & CBYTES_JSON_DIGIT)) return 0;
            while (end < count && (cbytes_json_class(bytes[end]) & CBYTES_JSON_DIGIT)) end++;
        }
        if (end < count && (bytes[end] | 0x20) == 'e') {
            end++;
            if (end < count && (bytes[end] == '+' || bytes[end] == '-')) end++;
            if (end == count || !(cbytes_json_class(bytes[end]) & CBYTES_JSON_DIGIT)) return 0;
            while (end < count && (cbytes_json_class(bytes[end]) & CBYTES_JSON_DIGIT)) end++;
        }
    }
    return end == count || (cbytes_json_class(bytes[end]) & CBYTES_JSON_DELIMITER);
}

/// Moves the bit stack to the heap with twice the room. Returns 0 when memory is short.
CBYTES_JSON_OUTLINE int cbytes_json_grow(cbytes_json_stack *stack) {
    size_t capacity = stack->capacity * 2;
    uint64_t *kinds = (uint64_t *)malloc(capacity / 8);
    if (kinds == NULL) return 0;
    memcpy(kinds, stack->kinds, stack->capacity / 8);
    if (stack->kinds != stack->local) free(stack->kinds);
    stack->kinds = kinds;
    stack->capacity = capacity;
    return 1;
}

/// The index of the lowest set bit, 64 for none.
CBYTES_JSON_INLINE size_t cbytes_json_lowest(uint64_t bits) {
    return bits ? (size_t)__builtin_ctzll(bits) : 64;
}

/// Applies the brackets of a block (bit mask `brackets`, outside strings) to the stack, and says
/// which bytes are inside an object or an array (a bracket counts as outside the container it
/// opens and inside the one it closes), which brackets open objects and arrays, and which close
/// an empty container (`significant`: the block's tokens). Returns 1, or 0 (a mismatched or
/// unopened closing bracket, nesting past the limit) / -1 (out of memory) to stop.
static inline int cbytes_json_brackets(cbytes_json_stack *stack, cbytes_json_carry *carry, const uint8_t *block,
                                       uint64_t brackets, uint64_t significant, uint64_t *object_opens,
                                       uint64_t *array_opens, uint64_t *empty_closes, uint64_t *in_object,
                                       uint64_t *in_array) {
    uint64_t object = 0, array = 0, objects = 0, arrays = 0, empties = 0, from = ~0ULL;
    while (brackets) {
        uint64_t bit = brackets & (0 - brackets);
        uint64_t through = bit | (bit - 1);
        object |= from & through & (0 - (uint64_t)(stack->context == 2));
        array |= from & through & (0 - (uint64_t)(stack->context == 1));
        from = ~through;
        uint8_t byte = block[__builtin_ctzll(brackets)];
        size_t depth = stack->depth;
        if ((byte | 0x20) == '{') {
            if (depth >= stack->max_depth) return 0;
            if (depth == stack->capacity && !cbytes_json_grow(stack)) return -1;
            uint64_t level = 1ULL << (depth & 63);
            uint64_t *word = &stack->kinds[depth >> 6];
            // A word is written whole when its first level opens, so no bit is read unwritten.
            uint64_t kinds = (depth & 63) == 0 ? 0 : *word;
            *word = byte == '{' ? kinds | level : kinds & ~level;
            stack->depth = depth + 1;
            stack->context = byte == '{' ? 2 : 1;
            if (byte == '{') {
                objects |= bit;
            } else {
                arrays |= bit;
            }
        } else {
            if (depth == 0) return 0;
            size_t top = depth - 1;
            if (((stack->kinds[top >> 6] >> (top & 63)) & 1) != (byte == '}')) return 0;
            stack->depth = top;
            stack->context = top == 0 ? 0 : 1 + (int)((stack->kinds[(top - 1) >> 6] >> ((top - 1) & 63)) & 1);
            // Empty when the token before is an opening bracket (then its own: others mismatch).
            uint64_t before = significant & (bit - 1);
            if (before ? ((objects | arrays) >> (63 - __builtin_clzll(before))) & 1 : carry->after_open) {
                empties |= bit;
            }
        }
        brackets &= brackets - 1;
    }
    carry->after_open = ((objects | arrays) >> (63 - __builtin_clzll(significant))) & 1;
    *in_object = object | (from & (0 - (uint64_t)(stack->context == 2)));
    *in_array = array | (from & (0 - (uint64_t)(stack->context == 1)));
    *object_opens = objects;
    *array_opens = arrays;
    *empty_closes = empties;
    return 1;
}

/// Checks the bytes after backslashes at `unchecked` (bits from `base`): a valid escape, and four
/// hex digits after a 'u'. Out of line: most blocks have none.
CBYTES_JSON_OUTLINE int cbytes_json_check_escapes(const uint8_t *bytes, size_t count, size_t base, uint64_t unchecked) {
    for (; unchecked; unchecked &= unchecked - 1) {
        size_t p = base + (size_t)__builtin_ctzll(unchecked);
        if (p >= count) return 0;
        uint8_t byte = bytes[p];
        if (!(cbytes_json_class(byte) & CBYTES_JSON_ESCAPE)) return 0;
        if (byte == 'u') {
            if (count - p < 5) return 0;
            for (size_t i = 1; i <= 4; i++) {
                if (!(cbytes_json_class(bytes[p + i]) & CBYTES_JSON_HEX)) return 0;
            }
        }
    }
    return 1;
}

/// Checks the control and non-ASCII bytes inside strings at `special` (bits from `base`): each
/// UTF-8 sequence from its first byte; a sequence may run into the next block. Out of line: an
/// ASCII document has none.
CBYTES_JSON_OUTLINE int cbytes_json_check_special(cbytes_json_carry *carry, const uint8_t *bytes, size_t count,
                                                  size_t base, uint64_t special) {
    if (carry->utf8_next > base) {
        size_t skip = carry->utf8_next - base;
        special = skip >= 64 ? 0 : special & (~0ULL << skip);
    }
    while (special) {
        size_t i = (size_t)__builtin_ctzll(special);
        size_t length = cbytes_json_utf8_length(bytes, base + i, count);
        if (length == 0) return 0;
        if (i + length >= 64) {
            carry->utf8_next = base + i + length;
            break;
        }
        special &= ~0ULL << (i + length);
    }
    return 1;
}

/// Validates one 64-byte block at offset `base` of the document, given its masks, its escaped
/// bytes, its unescaped quotes and which of its bytes are inside strings (each opening quote is,
/// each closing one is not). `block` is the block's bytes (the document's, or a padded copy of its
/// tail). The offsets of its numbers and literals are appended to `batch` at `*batched`, for the
/// caller to check. Returns 1, or 0 (invalid) / -1 (out of memory) to stop.
CBYTES_JSON_INLINE int cbytes_json_block(
    cbytes_json_carry *carry, cbytes_json_stack *stack, const cbytes_json_masks *m, uint64_t escaped,
    uint64_t quotes, uint64_t in_string, const uint8_t *block, size_t base, const uint8_t *bytes, size_t count,
    size_t *batch, size_t *batched) {
    // A block inside one string from end to end (long text fields): only its escapes and its
    // control and non-ASCII bytes need a look; every carry but `scalar` stays as it was (the
    // steps below would leave them so: nothing in the block is a token).
    if (quotes == 0 && in_string == ~0ULL) {
        uint64_t unchecked = escaped & ~m->escape_ok;
        if (unchecked && !cbytes_json_check_escapes(bytes, count, base, unchecked)) return 0;
        if (m->low && !cbytes_json_check_special(carry, bytes, count, base, m->low)) return 0;
        carry->scalar = 0;
        return 1;
    }
    uint64_t open = quotes & in_string;
    uint64_t close = quotes & ~in_string;

    // The byte after each escaping backslash, where the masks do not vouch for it. Outside
    // strings a backslash fails as a number, so a valid document has them all inside strings.
    uint64_t unchecked = escaped & ~m->escape_ok;
    if (unchecked && !cbytes_json_check_escapes(bytes, count, base, unchecked)) return 0;

    // Control and non-ASCII bytes inside strings; outside, they fail as numbers.
    uint64_t special = m->low & in_string;
    if (special && !cbytes_json_check_special(carry, bytes, count, base, special)) return 0;

    // Numbers and literals: every other byte outside strings. Each run is checked from its
    // first byte (by the caller, in batches), which also rejects stray bytes (a letter, a
    // backslash, a control byte). Four offsets are stored whether there are that many or not.
    uint64_t scalar = ~(in_string | quotes | m->space | m->bracket | m->colon | m->comma);
    uint64_t scalar_start = scalar & ~((scalar << 1) | carry->scalar);
    carry->scalar = scalar >> 63;
    {
        size_t *out = batch + *batched;
        uint64_t starts = scalar_start;
        CBYTES_JSON_UNROLL
        for (int i = 0; i < 4; i++) {
            out[i] = base + cbytes_json_lowest(starts);
            starts &= starts - 1;
        }
        for (size_t i = 4; starts; i++) {
            out[i] = base + (size_t)__builtin_ctzll(starts);
            starts &= starts - 1;
        }
        *batched += (size_t)__builtin_popcountll(scalar_start);
    }

    // Tokens: '{' '[' ':' ',' '}' ']', opening and closing quotes, and the first byte of each
    // number or literal; everything else is transparent. Every token is checked against the one
    // before it; the token before the first is the start, after which a value must come.
    uint64_t colons = m->colon & ~in_string, commas = m->comma & ~in_string;
    uint64_t transparent = (m->space & ~in_string) | (in_string & ~open) | (scalar & ~scalar_start);
    uint64_t object_opens = 0, array_opens = 0, empty_closes = 0, in_object, in_array;
    uint64_t brackets = m->bracket & ~in_string;
    if (brackets == 0) {
        in_object = 0 - (uint64_t)(stack->context == 2);
        in_array = 0 - (uint64_t)(stack->context == 1);
        carry->after_open &= transparent == ~0ULL;
    } else {
        int result = cbytes_json_brackets(stack, carry, block, brackets, ~transparent, &object_opens, &array_opens,
                                          &empty_closes, &in_object, &in_array);
        if (result != 1) return result;
    }
    uint64_t opens = object_opens | array_opens;
    uint64_t closes = brackets & ~opens;

    uint64_t before_value = cbytes_json_next(colons | (commas & in_array) | array_opens, &carry->before_value,
                                             transparent);
    uint64_t before_key = cbytes_json_next((commas & in_object) | object_opens, &carry->before_key, transparent);
    // A key's closing quote is where the carry from its opening quote leaves the string.
    uint64_t key_open = open & before_key;
    uint64_t key_sum;
    uint64_t key_overflow = __builtin_add_overflow(key_open, in_string, &key_sum);
    key_overflow |= __builtin_add_overflow(key_sum, carry->key_string, &key_sum);
    carry->key_string = key_overflow;
    uint64_t key_close = key_sum & ~in_string;
    uint64_t after_value =
        cbytes_json_next((close & ~key_close) | closes | scalar_start, &carry->after_value, transparent);

    uint64_t bad = ((open & ~key_open) | opens | scalar_start) & ~before_value;
    // A colon must follow a key's closing quote. Every token follows exactly one kind of token
    // (the start counts as one after which a value comes), so a colon that follows none of the
    // other three kinds follows a key: a fourth addition for keys would say nothing more.
    bad |= colons & (before_value | before_key | after_value);
    bad |= commas & ~(after_value & (in_object | in_array));
    bad |= closes & ~(after_value | empty_closes);
    return bad == 0;
}

/// Checks the numbers and literals at the `batched` offsets in `batch`. A `null` (a third of the
/// values in an API document) is one compare.
static inline int cbytes_json_check_batch(const uint8_t *bytes, size_t count, const size_t *batch, size_t batched) {
    int ok = 1;
    for (size_t i = 0; i < batched; i++) {
        size_t p = batch[i];
        if (count - p >= 5) {
            uint32_t word;
            memcpy(&word, bytes + p, 4);
            if (word == 0x6C6C756EU /* "null" */ && (cbytes_json_class(bytes[p + 4]) & CBYTES_JSON_DELIMITER)) {
                continue;
            }
        }
        ok &= cbytes_json_scalar(bytes, p, count);
    }
    return ok;
}

/// Defines a validator over 64-byte blocks with a block classifier and a prefix XOR (both inlined,
/// so each instruction set gets its own loop). The last partial block is a copy padded with
/// spaces, which are whitespace outside strings and keep an unterminated string unterminated.
/// Valid at the end: one value closed (the last token ends a value), no string or container open.
/// `*controls` is set to 0 when no tab, LF or CR lies outside a string, else 1 (inside strings they
/// are invalid): the record writer then knows a valid document is one line without looking.
#define CBYTES_JSON_VALIDATOR(name, attributes, classify, prefix_xor)                                        \
    attributes static inline int name(const uint8_t *bytes, size_t count, size_t max_depth, int *controls) {  \
        cbytes_json_carry carry;                                                                              \
        memset(&carry, 0, sizeof carry);                                                                      \
        carry.before_value = 1;                                                                               \
        cbytes_json_stack stack;                                                                              \
        stack.depth = 0;                                                                                      \
        stack.max_depth = max_depth;                                                                          \
        stack.capacity = 64 * 64;                                                                             \
        stack.kinds = stack.local;                                                                            \
        stack.context = 0;                                                                                    \
        size_t batch[CBYTES_JSON_BATCH + 64];                                                                 \
        size_t batched = 0;                                                                                   \
        uint8_t tail[64];                                                                                     \
        uint64_t whitespace_controls = 0;                                                                     \
        int result = 1;                                                                                       \
        for (size_t base = 0; base < count && result == 1; base += 64) {                                      \
            const uint8_t *block = bytes + base;                                                              \
            cbytes_prefetch(block);                                                                           \
            if (count - base < 64) {                                                                          \
                memset(tail, ' ', 64);                                                                        \
                memcpy(tail, block, count - base);                                                            \
                block = tail;                                                                                 \
            }                                                                                                 \
            cbytes_json_masks masks;                                                                          \
            classify(block, &masks);                                                                          \
            cbytes_json_opaque(&masks);                                                                       \
            uint64_t escaped = cbytes_json_escaped(&carry.escaped, masks.backslash);                          \
            uint64_t quotes = masks.quote & ~escaped;                                                         \
            uint64_t in_string = prefix_xor(quotes) ^ carry.in_string;                                        \
            carry.in_string = (uint64_t)((int64_t)in_string >> 63);                                           \
            whitespace_controls |= masks.low & masks.space & ~in_string;                                      \
            result = cbytes_json_block(&carry, &stack, &masks, escaped, quotes, in_string, block, base, bytes, \
                                       count, batch, &batched);                                               \
            if (batched > CBYTES_JSON_BATCH - 64 && result == 1) {                                            \
                result = cbytes_json_check_batch(bytes, count, batch, batched);                               \
                batched = 0;                                                                                  \
            }                                                                                                 \
        }                                                                                                     \
        if (stack.kinds != stack.local) free(stack.kinds);                                                    \
        *controls = whitespace_controls != 0;                                                                 \
        if (result != 1) return result;                                                                       \
        return carry.after_value && !carry.in_string && stack.depth == 0 &&                                   \
               cbytes_json_check_batch(bytes, count, batch, batched);                                         \
    }

/// The structural classes of one byte as bits (quote 1, backslash 2, whitespace 4, bracket 8,
/// ':' 16, ',' 32, '/' 64); the control and non-ASCII class (128) comes from arithmetic instead.
CBYTES_JSON_INLINE uint64_t cbytes_json_structural_class(uint8_t byte) {
    static const uint8_t table[256] = {
        ['"'] = 1, ['\\'] = 2, [' '] = 4, ['\t'] = 4, ['\n'] = 4, ['\r'] = 4,
        ['['] = 8, [']'] = 8, ['{'] = 8, ['}'] = 8, [':'] = 16, [','] = 32, ['/'] = 64,
    };
    return table[byte];
}

/// Transposes the 8×8 bit matrix in `x` (bit 8r + c to bit 8c + r): eight bytes' class bits
/// become eight classes' byte bits (Hacker's Delight, transpose8).
CBYTES_JSON_INLINE uint64_t cbytes_json_transpose_bits(uint64_t x) {
    uint64_t t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAULL;
    x ^= t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCULL;
    x ^= t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ULL;
    x ^= t ^ (t << 28);
    return x;
}

/// Swaps the bytes of `*a` and `*b` selected by `keep`'s complement, `shift` bits apart: one step
/// of an 8×8 byte matrix transpose.
CBYTES_JSON_INLINE void cbytes_json_swap_bytes(uint64_t *a, uint64_t *b, int shift, uint64_t keep) {
    uint64_t t = ((*a >> shift) ^ *b) & keep;
    *b ^= t;
    *a ^= t << shift;
}

/// Classifies a block without a vector unit: one table lookup per byte gives all of its classes
/// at once, where comparing words with each class byte (SWAR) takes a compare and a gather per
/// class; two transposes turn the 64 bytes of class bits into the eight 64-bit masks.
CBYTES_JSON_INLINE void cbytes_json_classify_portable(const uint8_t *block, cbytes_json_masks *m) {
    uint64_t x[8];
    CBYTES_JSON_UNROLL
    for (int i = 0; i < 8; i++) {
        uint64_t w;
        memcpy(&w, block + 8 * i, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap64(w);
#endif
        // Bytes below 0x20 or above 0x7F, in each byte's high bit: the class bit 128.
        uint64_t classes = (~((w & 0x7F7F7F7F7F7F7F7FULL) + 0x6060606060606060ULL) | w) & 0x8080808080808080ULL;
        CBYTES_JSON_UNROLL
        for (int j = 0; j < 8; j++) classes |= cbytes_json_structural_class(block[8 * i + j]) << (8 * j);
        x[i] = cbytes_json_transpose_bits(classes);
    }
    // Now byte k of x[i] is class k of bytes 8i to 8i + 7; transposing the bytes makes x[k] class k.
    CBYTES_JSON_UNROLL
    for (int i = 0; i < 8; i += 2) cbytes_json_swap_bytes(&x[i], &x[i + 1], 8, 0x00FF00FF00FF00FFULL);
    CBYTES_JSON_UNROLL
    for (int i = 0; i < 4; i++) {
        cbytes_json_swap_bytes(&x[i + (i & 2)], &x[i + (i & 2) + 2], 16, 0x0000FFFF0000FFFFULL);
    }
    CBYTES_JSON_UNROLL
    for (int i = 0; i < 4; i++) cbytes_json_swap_bytes(&x[i], &x[i + 4], 32, 0x00000000FFFFFFFFULL);
    m->quote = x[0];
    m->backslash = x[1];
    m->space = x[2];
    m->bracket = x[3];
    m->colon = x[4];
    m->comma = x[5];
    m->escape_ok = x[6] | x[0] | x[1];
    m->low = x[7];
}

CBYTES_JSON_VALIDATOR(cbytes_json_valid_portable, , cbytes_json_classify_portable, cbytes_json_prefix_xor)

#if defined(__x86_64__)

/// Bytes that send a block down the classifiers' rare path: controls and non-ASCII (a signed
/// compare: bytes >= 0x80 are negative), and `[ \\ ] { | }`, which `| 0x20` folds onto 0x7B-0x7D
/// and `+ 5` then onto the three smallest signed bytes ('|' is a harmless false alarm).
CBYTES_JSON_INLINE __m128i cbytes_json_rare_sse2(__m128i v) {
    __m128i folded = _mm_add_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8(5));
    return _mm_or_si128(_mm_cmplt_epi8(folded, _mm_set1_epi8(-125)), _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
}

/// Classifies a block with SSE2 (every x86_64 has it): 16 bytes per compare, a movemask each.
/// The movemasks are the cost, so the four classes most blocks lack (backslashes and the slashes
/// they escape, brackets, control and non-ASCII bytes) are gathered only where one of them occurs.
/// Without controls the only whitespace is ' ', one compare; the rare path adds tab, LF and CR.
CBYTES_JSON_INLINE void cbytes_json_classify_sse2(const uint8_t *block, cbytes_json_masks *m) {
    memset(m, 0, sizeof *m);
    __m128i v[4], rare = _mm_setzero_si128();
    CBYTES_JSON_UNROLL
    for (int i = 0; i < 4; i++) {
        v[i] = _mm_loadu_si128((const __m128i *)(block + 16 * i));
        rare = _mm_or_si128(rare, cbytes_json_rare_sse2(v[i]));
        int shift = 16 * i;
        m->quote |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v[i], _mm_set1_epi8('"'))) << shift;
        m->space |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v[i], _mm_set1_epi8(' '))) << shift;
        m->colon |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v[i], _mm_set1_epi8(':'))) << shift;
        m->comma |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v[i], _mm_set1_epi8(','))) << shift;
    }
    // Opaque before the branch, or clang takes the masks apart bit by bit to merge the two paths.
    __asm__("" : "+r"(m->quote), "+r"(m->space), "+r"(m->colon), "+r"(m->comma));
    if (_mm_movemask_epi8(rare)) {
        CBYTES_JSON_UNROLL
        for (int i = 0; i < 4; i++) {
            __m128i space = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v[i], _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v[i], _mm_set1_epi8('\t'))),
                _mm_or_si128(_mm_cmpeq_epi8(v[i], _mm_set1_epi8('\n')), _mm_cmpeq_epi8(v[i], _mm_set1_epi8('\r'))));
            // '[' | 0x20 is '{' and ']' | 0x20 is '}'; no other byte folds onto either.
            __m128i folded = _mm_or_si128(v[i], _mm_set1_epi8(0x20));
            __m128i bracket = _mm_or_si128(_mm_cmpeq_epi8(folded, _mm_set1_epi8('{')),
                                           _mm_cmpeq_epi8(folded, _mm_set1_epi8('}')));
            int shift = 16 * i;
            m->space |= (uint64_t)(uint32_t)_mm_movemask_epi8(space) << shift;
            m->backslash |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v[i], _mm_set1_epi8('\\'))) << shift;
            m->bracket |= (uint64_t)(uint32_t)_mm_movemask_epi8(bracket) << shift;
            // Signed compare: bytes >= 0x80 are negative, so this finds them and the controls at once.
            m->low |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmplt_epi8(v[i], _mm_set1_epi8(0x20))) << shift;
            m->escape_ok |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v[i], _mm_set1_epi8('/'))) << shift;
        }
    }
    m->escape_ok |= m->quote | m->backslash;
}

CBYTES_JSON_VALIDATOR(cbytes_json_valid_sse2, , cbytes_json_classify_sse2, cbytes_json_prefix_xor)

/// The 16-byte lookup tables of the wide classifiers (AVX2, AVX-512), indexed by a nibble with
/// `pshufb` and repeated in every 128-bit lane. Whitespace by the low nibble: each whitespace byte
/// at its own low nibble, so only it compares equal (bytes >= 0x80 look up 0).
CBYTES_JSON_INLINE __m128i cbytes_json_space_lane(void) {
    return _mm_setr_epi8(' ', 0, 0, 0, 0, 0, 0, 0, 0, '\t', '\n', 0, 0, '\r', 0, 0);
}

/// The escapes other than \u by nibbles: the high nibble's row (2, 5, 6, 7) and the low nibbles
/// valid in it (" / in row 2, \\ in row 5, b f n in row 6, r t in row 7); a byte is a valid
/// escape where its row and column share a bit.
CBYTES_JSON_INLINE __m128i cbytes_json_escape_row_lane(void) {
    return _mm_setr_epi8(0, 0, 1, 0, 0, 2, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0);
}

CBYTES_JSON_INLINE __m128i cbytes_json_escape_column_lane(void) {
    return _mm_setr_epi8(0, 0, 1 | 4 | 8, 0, 8, 0, 4, 0, 0, 0, 0, 0, 2, 0, 4, 1);
}

#define CBYTES_JSON_AVX2 __attribute__((target("avx2,pclmul")))

/// cbytes_json_rare_sse2 with AVX2.
CBYTES_JSON_AVX2 CBYTES_JSON_INLINE __m256i cbytes_json_rare_avx2(__m256i v) {
    __m256i folded = _mm256_add_epi8(_mm256_or_si256(v, _mm256_set1_epi8(0x20)), _mm256_set1_epi8(5));
    return _mm256_or_si256(_mm256_cmpgt_epi8(_mm256_set1_epi8(-125), folded),
                           _mm256_cmpgt_epi8(_mm256_set1_epi8(0x20), v));
}

/// Classifies a block with AVX2: half the compares and movemasks of SSE2, and as there, the rare
/// classes only where one of them occurs.
CBYTES_JSON_AVX2 CBYTES_JSON_INLINE void cbytes_json_classify_avx2(const uint8_t *block, cbytes_json_masks *m) {
    memset(m, 0, sizeof *m);
    __m256i v[2], rare = _mm256_setzero_si256();
    CBYTES_JSON_UNROLL
    for (int i = 0; i < 2; i++) {
        v[i] = _mm256_loadu_si256((const __m256i *)(block + 32 * i));
        rare = _mm256_or_si256(rare, cbytes_json_rare_avx2(v[i]));
        int shift = 32 * i;
        m->quote |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v[i], _mm256_set1_epi8('"'))) << shift;
        m->space |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v[i], _mm256_set1_epi8(' '))) << shift;
        m->colon |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v[i], _mm256_set1_epi8(':'))) << shift;
        m->comma |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v[i], _mm256_set1_epi8(','))) << shift;
    }
    __asm__("" : "+r"(m->quote), "+r"(m->space), "+r"(m->colon), "+r"(m->comma));
    if (!_mm256_testz_si256(rare, rare)) {
        CBYTES_JSON_UNROLL
        for (int i = 0; i < 2; i++) {
            __m256i spaces = _mm256_broadcastsi128_si256(cbytes_json_space_lane());
            __m256i space = _mm256_cmpeq_epi8(_mm256_shuffle_epi8(spaces, v[i]), v[i]);
            __m256i folded = _mm256_or_si256(v[i], _mm256_set1_epi8(0x20));
            __m256i bracket = _mm256_or_si256(_mm256_cmpeq_epi8(folded, _mm256_set1_epi8('{')),
                                              _mm256_cmpeq_epi8(folded, _mm256_set1_epi8('}')));
            int shift = 32 * i;
            m->space |= (uint64_t)(uint32_t)_mm256_movemask_epi8(space) << shift;
            m->backslash |=
                (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v[i], _mm256_set1_epi8('\\'))) << shift;
            m->bracket |= (uint64_t)(uint32_t)_mm256_movemask_epi8(bracket) << shift;
            // Signed compare: bytes >= 0x80 are negative, so this finds them and the controls at once.
            m->low |=
                (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(_mm256_set1_epi8(0x20), v[i])) << shift;
            __m256i row_table = _mm256_broadcastsi128_si256(cbytes_json_escape_row_lane());
            __m256i column_table = _mm256_broadcastsi128_si256(cbytes_json_escape_column_lane());
            __m256i high_nibbles = _mm256_and_si256(_mm256_srli_epi16(v[i], 4), _mm256_set1_epi8(0x0F));
            __m256i rows = _mm256_shuffle_epi8(row_table, high_nibbles);
            __m256i columns = _mm256_shuffle_epi8(column_table, v[i]);
            __m256i valid = _mm256_cmpeq_epi8(_mm256_and_si256(rows, columns), _mm256_setzero_si256());
            m->escape_ok |= (uint64_t)(uint32_t)~_mm256_movemask_epi8(valid) << shift;
        }
    }
}

/// The prefix XOR as one carry-less multiplication by all ones.
CBYTES_JSON_AVX2 CBYTES_JSON_INLINE uint64_t cbytes_json_prefix_xor_clmul(uint64_t bits) {
    __m128i product = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)bits), _mm_set1_epi8((char)0xFF), 0);
    return (uint64_t)_mm_cvtsi128_si64(product);
}

CBYTES_JSON_VALIDATOR(cbytes_json_valid_avx2, CBYTES_JSON_AVX2, cbytes_json_classify_avx2, cbytes_json_prefix_xor_clmul)

#define CBYTES_JSON_AVX512 __attribute__((target("avx512f,avx512bw,avx2,pclmul")))

/// Classifies a block with AVX-512 (BW): one 64-byte load, and each class a compare straight into a
/// 64-bit mask, with no movemasks and no halves to join.
CBYTES_JSON_AVX512 CBYTES_JSON_INLINE void cbytes_json_classify_avx512(const uint8_t *block, cbytes_json_masks *m) {
    __m512i v = _mm512_loadu_si512((const void *)block);
    __m512i folded = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
    __m512i spaces = _mm512_broadcast_i32x4(cbytes_json_space_lane());
    m->space = _mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(spaces, v), v);
    m->bracket = _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8('{')) |
                 _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8('}'));
    m->quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
    m->backslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
    m->colon = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(':'));
    m->comma = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(','));
    // Signed compare: bytes >= 0x80 are negative, so this finds them and the controls at once.
    m->low = _mm512_cmplt_epi8_mask(v, _mm512_set1_epi8(0x20));
    __m512i row_table = _mm512_broadcast_i32x4(cbytes_json_escape_row_lane());
    __m512i column_table = _mm512_broadcast_i32x4(cbytes_json_escape_column_lane());
    __m512i high_nibbles = _mm512_and_si512(_mm512_srli_epi16(v, 4), _mm512_set1_epi8(0x0F));
    __m512i rows = _mm512_shuffle_epi8(row_table, high_nibbles);
    __m512i columns = _mm512_shuffle_epi8(column_table, v);
    m->escape_ok = _mm512_test_epi8_mask(rows, columns);
}

CBYTES_JSON_VALIDATOR(cbytes_json_valid_avx512, CBYTES_JSON_AVX512, cbytes_json_classify_avx512,
                      cbytes_json_prefix_xor_clmul)

#endif

#if defined(__aarch64__)
#include "json_validate_neon.h"
#endif

/// cbytes_json_valid with the loop of SIMD level `level` (CBYTES_SIMD_*), which this CPU must run
/// (cbytes_simd_available): portable at the scalar level, SSE2 at SSE2 and SSSE3, AVX2, AVX-512,
/// NEON. Tests compare the levels with this.
static inline int cbytes_json_valid_at(int level, const uint8_t *bytes, size_t count, size_t max_depth,
                                       int *controls) {
#if defined(__x86_64__)
    if (level == CBYTES_SIMD_AVX512) return cbytes_json_valid_avx512(bytes, count, max_depth, controls);
    if (level == CBYTES_SIMD_AVX2) return cbytes_json_valid_avx2(bytes, count, max_depth, controls);
    if (level == CBYTES_SIMD_SSE2 || level == CBYTES_SIMD_SSSE3) {
        return cbytes_json_valid_sse2(bytes, count, max_depth, controls);
    }
#elif defined(__aarch64__)
    if (level == CBYTES_SIMD_NEON) return cbytes_json_valid_neon(bytes, count, max_depth, controls);
#endif
    return cbytes_json_valid_portable(bytes, count, max_depth, controls);
}

/// Whether `count` bytes at `bytes` are one valid JSON document with at most `max_depth`
/// containers open at once (and, in `*controls`, whether a tab, LF or CR may be in it):
/// 1 valid, 0 invalid (also for an empty or all-whitespace document),
/// -1 when memory for a stack deeper than 4,096 levels could not be had (undecided). At the
/// process's SIMD level (cbytes_simd_level: the CPU's best unless BATCHFETCH_SIMD asks for less).
static inline int cbytes_json_valid(const uint8_t *bytes, size_t count, size_t max_depth, int *controls) {
    return cbytes_json_valid_at(cbytes_simd_level(), bytes, count, max_depth, controls);
}

#endif
