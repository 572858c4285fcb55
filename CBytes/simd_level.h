// Which vector instructions the body kernels use: the best this CPU runs, or less where the
// BATCHFETCH_SIMD environment variable asks for less, so that one machine can measure (and test)
// every level it has. Every kernel in CBytes dispatches on cbytes_simd_level(); a level a kernel
// has no loop for runs its next lower one (SSE2 escapes byte by byte, base64 below AVX2 is scalar).
#ifndef CBYTES_SIMD_LEVEL_H
#define CBYTES_SIMD_LEVEL_H

#include <stdlib.h>
#include <string.h>

/// The levels, in order of width. NEON is aarch64's only level above scalar (every aarch64 CPU
/// has it); the x86 ones are never available there and NEON never on x86_64.
enum {
    CBYTES_SIMD_SCALAR = 0,
    CBYTES_SIMD_SSE2 = 1,
    CBYTES_SIMD_SSSE3 = 2,
    CBYTES_SIMD_AVX2 = 3,
    CBYTES_SIMD_AVX512 = 4,
    CBYTES_SIMD_NEON = 5,
};

/// The level's name as BATCHFETCH_SIMD spells it.
static inline const char *cbytes_simd_name(int level) {
    switch (level) {
    case CBYTES_SIMD_SSE2: return "sse2";
    case CBYTES_SIMD_SSSE3: return "ssse3";
    case CBYTES_SIMD_AVX2: return "avx2";
    case CBYTES_SIMD_AVX512: return "avx512";
    case CBYTES_SIMD_NEON: return "neon";
    default: return "scalar";
    }
}

/// The level a name stands for, or -1 for a name that is none.
static inline int cbytes_simd_parse(const char *name) {
    for (int level = CBYTES_SIMD_SCALAR; level <= CBYTES_SIMD_NEON; level++) {
        if (strcmp(name, cbytes_simd_name(level)) == 0) return level;
    }
    return -1;
}

/// The best level this CPU runs. AVX2 also needs PCLMUL and POPCNT (the validator's prefix XOR,
/// the escaper's lengths: every AVX2 CPU has both); AVX-512 means F and BW (the escaper's
/// VBMI2 loop is used only where the CPU also has VBMI, VBMI2 and BMI2).
static inline int cbytes_simd_cpu_level(void) {
#if defined(__x86_64__)
    static int best = -1;
    if (best < 0) {
        __builtin_cpu_init();
        int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul") &&
                   __builtin_cpu_supports("popcnt");
        int avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
        best = avx512 ? CBYTES_SIMD_AVX512
               : avx2 ? CBYTES_SIMD_AVX2
               : __builtin_cpu_supports("ssse3") ? CBYTES_SIMD_SSSE3
                                                 : CBYTES_SIMD_SSE2;
    }
    return best;
#elif defined(__aarch64__)
    return CBYTES_SIMD_NEON;
#else
    return CBYTES_SIMD_SCALAR;
#endif
}

/// Whether this CPU runs `level`: scalar everywhere, the x86 levels up to the CPU's best on
/// x86_64, NEON on aarch64.
static inline int cbytes_simd_available(int level) {
    int best = cbytes_simd_cpu_level();
    if (level == CBYTES_SIMD_SCALAR) return 1;
    if (best == CBYTES_SIMD_NEON || level == CBYTES_SIMD_NEON) return level == best;
    return level > 0 && level <= best;
}

/// What BATCHFETCH_SIMD asked for: the level, -1 when unset or empty, -2 when it names no level.
static inline int cbytes_simd_requested(void) {
    const char *name = getenv("BATCHFETCH_SIMD");
    if (name == NULL || name[0] == '\0') return -1;
    int level = cbytes_simd_parse(name);
    return level < 0 ? -2 : level;
}

/// `requested` capped at what this CPU runs: an x86 level above the CPU's best gives its best, a
/// level of the other architecture gives the CPU's best too (so `neon` on x86 or `avx2` on ARM
/// is the same as leaving the variable unset). A negative `requested` gives the best.
static inline int cbytes_simd_capped(int requested) {
    return requested >= 0 && cbytes_simd_available(requested) ? requested : cbytes_simd_cpu_level();
}

/// The level every kernel uses in this process: BATCHFETCH_SIMD capped at the CPU's best, read
/// once. An unset, empty or unknown name gives the best (the command line refuses unknown names).
static inline int cbytes_simd_level(void) {
    static int level = -1;
    if (level < 0) level = cbytes_simd_capped(cbytes_simd_requested());
    return level;
}

#endif
