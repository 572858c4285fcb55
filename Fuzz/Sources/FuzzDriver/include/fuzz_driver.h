// libFuzzer's driver, for fuzzers that bring their own `main`: SwiftPM links every executable
// through a renamed `main`, so libFuzzer's cannot be the entry point and each fuzzer calls this.
#ifndef FUZZ_DRIVER_H
#define FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer with the command line's flags, calling `test` for each input (`-sanitize=fuzzer`
/// links it); returns the process's exit status.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *data, size_t size));

#endif
