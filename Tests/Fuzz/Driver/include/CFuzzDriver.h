// SPDX-License-Identifier: GPL-3.0-or-later
#include <stddef.h>
#include <stdint.h>

// libFuzzer's entry for programs that have their own main (SwiftPM gives every executable one):
// it parses libFuzzer's options from argv and runs `test` on each input.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *data, size_t size));
