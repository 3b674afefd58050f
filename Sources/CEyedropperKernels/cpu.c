// Run-time CPU feature detection for kernel dispatch. x86-64 only; elsewhere every answer is 0.
#include "CEyedropperKernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static uint64_t ed_xgetbv0(void) {
    uint32_t eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((uint64_t)edx << 32) | eax;
}

// The OS must save the vector registers across context switches (XCR0), not just the CPU have them.
static int ed_os_saves(uint64_t mask) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    if (!(c & bit_OSXSAVE)) return 0;
    return (ed_xgetbv0() & mask) == mask;
}

int ed_cpu_has_avx2(void) {
    unsigned a, b, c, d;
    if (!ed_os_saves(0x6)) return 0; // XMM and YMM state
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (b & bit_AVX2) != 0;
}

int ed_cpu_has_avx512bw(void) {
    unsigned a, b, c, d;
    if (!ed_os_saves(0xE6)) return 0; // XMM, YMM, opmask, ZMM_Hi256, Hi16_ZMM
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (b & bit_AVX512F) && (b & bit_AVX512BW);
}

int ed_cpu_has_avx512vbmi(void) {
    unsigned a, b, c, d;
    if (!ed_os_saves(0xE6)) return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (c & (1u << 1)) != 0; // leaf 7 ecx bit 1: VBMI
}
#else
int ed_cpu_has_avx2(void) { return 0; }
int ed_cpu_has_avx512bw(void) { return 0; }
int ed_cpu_has_avx512vbmi(void) { return 0; }
#endif
