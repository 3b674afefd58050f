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

// MARK: - JPEG planes (jpeg_planes.c)
//
// A frame's YCbCr 4:2:0 remapped into JPEG's: BT.601, full range, three planes. In its own
// section, with its own guard, so that it stays apart from the conversion kernels above.
#ifndef CEYEDROPPER_JPEG_PLANES_H
#define CEYEDROPPER_JPEG_PLANES_H

#ifdef __cplusplus
extern "C" {
#endif

/// The fixed-point form of one source colorimetry's map to BT.601 full range (derived in
/// JPEGRemapCoefficients.swift). Per 2x2 block, with u = (Cb - 128) << 8, v = (Cr - 128) << 8
/// (int16) of its co-sited chroma sample and mulhrs(a, b) = (a * b + 2^14) >> 15 (pmulhrsw):
///   Cb' = clamp((mulhrs(u, cbToCb) + mulhrs(v, crToCb) + 8224) >> 6, 0, 255)
///   Cr' = clamp((mulhrs(u, cbToCr) + mulhrs(v, crToCr) + 8224) >> 6, 0, 255)
///   t   = mulhrs(u, cbToY) + mulhrs(v, crToY) + yBias
/// and per pixel of the block, with mulhi_unsigned(a, b) = (a * b) >> 16 (pmulhuw):
///   Y'  = clamp((mulhi_unsigned(Y * 257, y) + t) >> 6, 0, 255)
/// Terms are in 1/64 levels; no int16 sum overflows for any table Eyedropper builds.
typedef struct ed_jpeg_coefficients {
    uint16_t y;
    int16_t cbToY;
    int16_t crToY;
    int16_t yBias;
    int16_t cbToCb;
    int16_t crToCb;
    int16_t cbToCr;
    int16_t crToCr;
} ed_jpeg_coefficients;

/// Remaps luma pixels [from, to) of one or two rows that share one chroma row, and the chroma
/// samples [from / 2, (to + 1) / 2) of that row. `from` is even. `chromaStep` is 1 for planar
/// chroma, 2 for interleaved (then `cb` and `cr` point at the first pair's two bytes, in either
/// order). `y1` and `dy1` are both null for a lone last row; `y0` and `dy0` both null to write
/// chroma alone (the source's luma is already JPEG's). Writes only the bytes named.
void ed_jpeg_rows_scalar(const uint8_t *y0, const uint8_t *y1,
                         const uint8_t *cb, const uint8_t *cr, ptrdiff_t chromaStep,
                         uint8_t *dy0, uint8_t *dy1, uint8_t *dcb, uint8_t *dcr,
                         ptrdiff_t from, ptrdiff_t to, const ed_jpeg_coefficients *k);

/// The same for luma pixels [0, count), count a multiple of ED_AVX2_PIXELS, 32 per step, bit for
/// bit the scalar kernel's bytes. Requires AVX2 (check ed_cpu_has_avx2 first).
void ed_jpeg_rows_avx2(const uint8_t *y0, const uint8_t *y1,
                       const uint8_t *cb, const uint8_t *cr, ptrdiff_t chromaStep,
                       uint8_t *dy0, uint8_t *dy1, uint8_t *dcb, uint8_t *dcr,
                       ptrdiff_t count, const ed_jpeg_coefficients *k);

#ifdef __cplusplus
}
#endif

#endif
