// Nothing here: libFuzzer (linked by -sanitize=fuzzer) defines LLVMFuzzerRunDriver.
#include "CFuzzDriver.h"
