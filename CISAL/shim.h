#ifndef CISAL_SHIM_H
#define CISAL_SHIM_H
// ISA-L's igzip: whole-buffer DEFLATE with gzip framing, and its CRC-32. A WARC record is one gzip
// member compressed at once; igzip's fastest level builds no Huffman table per call, which for
// records of a few kilobytes is most of what other deflaters spend.
#include <isa-l/igzip_lib.h>
#include <isa-l/crc.h>

// The level buffer igzip needs at `level` (0-3), its default size; 0 for level 0, which needs none.
// A function, as Swift does not import these macros.
static inline uint32_t cisal_level_buffer_size(int level) {
    switch (level) {
    case 1: return ISAL_DEF_LVL1_DEFAULT;
    case 2: return ISAL_DEF_LVL2_DEFAULT;
    case 3: return ISAL_DEF_LVL3_DEFAULT;
    default: return 0;
    }
}
#endif
