#include <stddef.h>
#include <stdint.h>

// libFuzzer's entry point for a program with a main of its own (libFuzzer's FuzzerDriver.cpp):
// parses libFuzzer's flags from argv and runs `callback` on each input.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
