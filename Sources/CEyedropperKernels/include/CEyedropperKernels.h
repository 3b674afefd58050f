#ifndef CEYEDROPPER_KERNELS_H
#define CEYEDROPPER_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The fixed-point form of one matrix and range (see FixedPointCoefficients.swift for the
/// derivation). Per pixel, with mulhi(a, b) = (a * b) >> 16 rounded down:
///   luma = mulhi_unsigned(Y * 257, y)
///   u = (Cb - 128) << 8, v = (Cr - 128) << 8            (as int16)
///   R = clamp((luma + mulhi(v, crToR) + bias) >> 5, 0, 255)
///   G = clamp((luma + mulhi(u, cbToG) + mulhi(v, crToG) + bias) >> 5, 0, 255)
///   B = clamp((luma + mulhi(u, cbToB) + bias) >> 5, 0, 255)
/// Every int16 sum above is free of overflow for every table Eyedropper builds.
typedef struct ed_coefficients {
    uint16_t y;
    int16_t crToR;
    int16_t cbToB;
    int16_t cbToG;
    int16_t crToG;
    int16_t bias;
} ed_coefficients;

/// Output pixel formats: bytes in memory order.
typedef enum ed_output {
    ED_OUTPUT_RGB24 = 0, ///< R, G, B
    ED_OUTPUT_RGBA = 1,  ///< R, G, B, 255
    ED_OUTPUT_BGRA = 2,  ///< B, G, R, 255
} ed_output;

/// Which vector extensions this CPU and operating system support (cpuid and xgetbv).
int ed_cpu_has_avx2(void);
int ed_cpu_has_avx512bw(void);

/// Pixels per step of the AVX2 row kernels: `count` must be a multiple of this.
#define ED_AVX2_PIXELS 32

/// Converts `count` pixels of one or two luma rows that share one chroma row (4:2:0).
///
/// `y1` and `dst1` are both null (one row) or both non-null (the second row of the pair, which
/// reuses the chroma terms computed for the first). Planar chroma: `cb` and `cr` each hold
/// count / 2 samples. Interleaved chroma (NV12, NV21): `cbcr` holds count bytes, Cb first unless
/// `crFirst` is non-zero. Reads exactly those bytes and writes exactly count * bytes-per-pixel
/// bytes to each destination: nothing before, nothing after.
///
/// `stream` non-zero asks for non-temporal stores, which write whole lines to memory without
/// first reading them into the cache: for outputs larger than the cache, where every ordinary
/// store would first read its line. Both destinations must then be 64-byte aligned (a streamed
/// store to an unaligned address faults). The kernel fences its streamed stores before it
/// returns. The bytes written are the same either way.
/// Requires AVX2 (check ed_cpu_has_avx2 first).
void ed_rows_planar_avx2(const uint8_t *y0, const uint8_t *y1,
                         const uint8_t *cb, const uint8_t *cr,
                         uint8_t *dst0, uint8_t *dst1, ptrdiff_t count,
                         const ed_coefficients *k, ed_output output, int stream);

void ed_rows_interleaved_avx2(const uint8_t *y0, const uint8_t *y1,
                              const uint8_t *cbcr, int crFirst,
                              uint8_t *dst0, uint8_t *dst1, ptrdiff_t count,
                              const ed_coefficients *k, ed_output output, int stream);

/// Pixels per step of the AVX-512 row kernels. `count` need only be a multiple of
/// ED_AVX2_PIXELS: a final 32-pixel step is done by the AVX2 kernel.
#define ED_AVX512_PIXELS 64

/// AVX-512 VBMI (byte permutes), required with AVX-512BW by the AVX-512 row kernels.
int ed_cpu_has_avx512vbmi(void);

/// Same contract as the AVX2 kernels above. Requires AVX2, AVX-512BW and AVX-512 VBMI
/// (check ed_cpu_has_avx512bw and ed_cpu_has_avx512vbmi first).
void ed_rows_planar_avx512(const uint8_t *y0, const uint8_t *y1,
                           const uint8_t *cb, const uint8_t *cr,
                           uint8_t *dst0, uint8_t *dst1, ptrdiff_t count,
                           const ed_coefficients *k, ed_output output, int stream);

void ed_rows_interleaved_avx512(const uint8_t *y0, const uint8_t *y1,
                                const uint8_t *cbcr, int crFirst,
                                uint8_t *dst0, uint8_t *dst1, ptrdiff_t count,
                                const ed_coefficients *k, ed_output output, int stream);

#ifdef __cplusplus
}
#endif

#endif
