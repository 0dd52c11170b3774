// SPDX-License-Identifier: GPL-3.0-or-later
// Nothing here: libFuzzer (linked by -sanitize=fuzzer) defines LLVMFuzzerRunDriver.
#include "CFuzzDriver.h"
