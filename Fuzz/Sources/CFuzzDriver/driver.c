// The declaration is all: LLVMFuzzerRunDriver comes from libFuzzer, linked by -sanitize=fuzzer.
#include "CFuzzDriver.h"
