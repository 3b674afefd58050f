#ifndef CEYEDROPPER_JPEG_KERNELS_H
#define CEYEDROPPER_JPEG_KERNELS_H

// A frame's YCbCr 4:2:0 remapped into JPEG's: BT.601, full range, three planes (jpeg_planes.c).
// Beside the JPEG encoder that compresses them, apart from the conversion kernels.

#include <stddef.h>
#include <stdint.h>

/// Luma pixels per step of the AVX2 kernel.
#define ED_JPEG_AVX2_PIXELS 32

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

/// The same for luma pixels [0, count), count a multiple of ED_JPEG_AVX2_PIXELS, 32 per step, bit for
/// bit the scalar kernel's bytes. Requires AVX2 (the caller checks the CPU first).
void ed_jpeg_rows_avx2(const uint8_t *y0, const uint8_t *y1,
                       const uint8_t *cb, const uint8_t *cr, ptrdiff_t chromaStep,
                       uint8_t *dy0, uint8_t *dy1, uint8_t *dcb, uint8_t *dcr,
                       ptrdiff_t count, const ed_jpeg_coefficients *k);

#ifdef __cplusplus
}
#endif

#endif
