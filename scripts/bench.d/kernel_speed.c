// Throughput of CBytes' kernels at every SIMD level this CPU runs, one core, on the files given
// (W5's HTML pages for the escaper, W2's JSON documents for the validator; base64 on either):
// each kernel runs over all the files, round after round, for at least SECONDS of CPU time per
// level (so a busy machine skews it less), and the input bytes per second are printed. The files
// stay in memory, so this is the kernels' speed with warm caches, not a body's way through `fetch`.
//
// usage: kernel_speed escape|json|base64 SECONDS FILE...   (scripts/kernels runs it)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shim.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: kernel_speed escape|json|base64 SECONDS FILE...\n");
        return 2;
    }
    const char *kernel = argv[1];
    double seconds = atof(argv[2]);
    int files = argc - 3;
    uint8_t **data = calloc((size_t)files, sizeof *data);
    size_t *sizes = calloc((size_t)files, sizeof *sizes);
    size_t largest = 0, total = 0;
    for (int i = 0; i < files; i++) {
        FILE *f = fopen(argv[3 + i], "rb");
        if (f == NULL || fseek(f, 0, SEEK_END) != 0) {
            perror(argv[3 + i]);
            return 1;
        }
        sizes[i] = (size_t)ftell(f);
        rewind(f);
        data[i] = malloc(sizes[i] + 1);
        if (fread(data[i], 1, sizes[i], f) != sizes[i]) {
            perror(argv[3 + i]);
            return 1;
        }
        fclose(f);
        largest = sizes[i] > largest ? sizes[i] : largest;
        total += sizes[i];
    }
    size_t capacity = largest * CBYTES_ESCAPE_MAX_EXPANSION + CBYTES_ESCAPE_SLACK;
    uint8_t *out = malloc(capacity);
    for (int level = CBYTES_SIMD_SCALAR; level <= CBYTES_SIMD_NEON; level++) {
        if (!cbytes_simd_available(level)) continue;
        size_t bytes = 0, sink = 0, rounds = 0;
        int failed = 0;
        double start = now(), elapsed = 0;
        // Bounded: a round takes well under a second even at the scalar level.
        while (elapsed < seconds && rounds < 1000000) {
            for (int i = 0; i < files; i++) {
                if (strcmp(kernel, "escape") == 0) {
                    size_t written = 0;
                    failed |= cbytes_escape_json_at(level, data[i], sizes[i], out, capacity, &written) != 1;
                    sink += written;
                } else if (strcmp(kernel, "json") == 0) {
                    int controls = 0;
                    failed |= cbytes_json_valid_at(level, data[i], sizes[i], 512, &controls) != 1;
                } else {
                    cbytes_base64_encode_at(level, data[i], sizes[i], out);
                    sink += out[0];
                }
            }
            bytes += total;
            rounds++;
            elapsed = now() - start;
        }
        printf("%-6s %-6s %6.2f GB/s  (%zu rounds of %d files, %zu bytes, %.1f s)%s\n", kernel,
               cbytes_simd_name(level), (double)bytes / elapsed / 1e9, rounds, files, total, elapsed,
               failed ? "  FAILED: a file was refused" : "");
        if (sink == 1) printf(" ");
    }
    return 0;
}
