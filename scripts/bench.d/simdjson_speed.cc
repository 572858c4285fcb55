// simdjson 3's DOM parse over the same files as kernel_speed.c's `json` kernel, with the same
// method (one core, CPU time, all files round after round for at least SECONDS per kernel), at
// every simdjson kernel this CPU runs: the anchor issue 40 compares JSON validation against.
// A parse also builds the DOM's tape, which a validator does not, so the comparison favours us by
// that much; it is the figure the field quotes.
//
// usage: simdjson_speed SECONDS FILE...   (scripts/kernels runs it)
#include <simdjson.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

static double now() {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: simdjson_speed SECONDS FILE...\n");
        return 2;
    }
    double seconds = std::atof(argv[1]);
    std::vector<simdjson::padded_string> files;
    size_t total = 0;
    for (int i = 2; i < argc; i++) {
        auto loaded = simdjson::padded_string::load(argv[i]);
        if (loaded.error()) {
            std::fprintf(stderr, "%s: %s\n", argv[i], simdjson::error_message(loaded.error()));
            return 1;
        }
        total += loaded.value().size();
        files.push_back(std::move(loaded).value());
    }
    for (auto implementation : simdjson::get_available_implementations()) {
        if (!implementation->supported_by_runtime_system()) continue;
        simdjson::get_active_implementation() = implementation;
        simdjson::dom::parser parser;
        size_t bytes = 0, rounds = 0;
        int failed = 0;
        double start = now(), elapsed = 0;
        // Bounded: a round takes well under a second even with the fallback kernel.
        while (elapsed < seconds && rounds < 1000000) {
            for (auto &file : files) {
                failed |= parser.parse(file).error() != simdjson::SUCCESS;
            }
            bytes += total;
            rounds++;
            elapsed = now() - start;
        }
        std::printf("simdjson-dom %-9s %6.2f GB/s  (%zu rounds of %zu files, %zu bytes, %.1f s)%s\n",
                    implementation->name().c_str(), double(bytes) / elapsed / 1e9, rounds, files.size(), total,
                    elapsed, failed ? "  FAILED: a file was refused" : "");
    }
    return 0;
}
