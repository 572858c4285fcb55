// The declaration is all this target provides; libFuzzer itself comes with -sanitize=fuzzer.
#include "fuzz_driver.h"
