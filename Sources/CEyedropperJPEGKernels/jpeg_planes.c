// Row kernels that remap a frame's YCbCr 4:2:0 into JPEG's own: BT.601, full range, three planes
// (see CEyedropperJPEGKernels.h for the arithmetic, JPEGRemapCoefficients.swift for the constants).
// The scalar kernel is the reference and the baseline; the AVX2 one (32 pixels per step, chosen
// at run time) computes the very same integers, so the two agree bit for bit.
#include "CEyedropperJPEGKernels.h"

// Cb' and Cr' in 1/64 levels before the shift: 128 levels plus half a level, to round.
#define ED_JPEG_CHROMA_BIAS (128 * 64 + 32) /* 8224 */

// pmulhrsw: (a * b + 2^14) >> 15. No product here comes near the one case pmulhrsw wraps
// (-32768 * -32768): every coefficient is below 2^15 in magnitude.
static inline int ed_mulhrs(int a, int b) { return (a * b + 0x4000) >> 15; }

static inline uint8_t ed_level(int sum64) {
    int level = sum64 >> 6; // arithmetic, as vpsraw
    return (uint8_t)(level < 0 ? 0 : level > 255 ? 255 : level);
}

void ed_jpeg_rows_scalar(const uint8_t *y0, const uint8_t *y1,
                         const uint8_t *cb, const uint8_t *cr, ptrdiff_t chromaStep,
                         uint8_t *dy0, uint8_t *dy1, uint8_t *dcb, uint8_t *dcr,
                         ptrdiff_t from, ptrdiff_t to, const ed_jpeg_coefficients *k) {
    for (ptrdiff_t c = from / 2; c < (to + 1) / 2; c++) {
        int u = ((int)cb[c * chromaStep] - 128) * 256, v = ((int)cr[c * chromaStep] - 128) * 256;
        dcb[c] = ed_level(ed_mulhrs(u, k->cbToCb) + ed_mulhrs(v, k->crToCb) + ED_JPEG_CHROMA_BIAS);
        dcr[c] = ed_level(ed_mulhrs(u, k->cbToCr) + ed_mulhrs(v, k->crToCr) + ED_JPEG_CHROMA_BIAS);
        if (dy0 == NULL) continue;
        int chroma = ed_mulhrs(u, k->cbToY) + ed_mulhrs(v, k->crToY) + k->yBias;
        for (ptrdiff_t x = 2 * c; x < 2 * c + 2 && x < to; x++) {
            dy0[x] = ed_level((int)(((unsigned)y0[x] * 257u * k->y) >> 16) + chroma);
            if (dy1) dy1[x] = ed_level((int)(((unsigned)y1[x] * 257u * k->y) >> 16) + chroma);
        }
    }
}

#if defined(__x86_64__)
#include <immintrin.h>

#define ED_JPEG_AVX2_INLINE static inline __attribute__((always_inline, target("avx2")))

// The coefficients splatted once per call: loaded in the loop, they would be reloaded after every
// store, which may alias them as far as the compiler knows (bytes alias anything).
typedef struct {
    __m256i y, cbToY, crToY, yBias, cbToCb, crToCb, cbToCr, crToCr;
} ed_jpeg_splat;

ED_JPEG_AVX2_INLINE ed_jpeg_splat ed_jpeg_splat_coefficients(const ed_jpeg_coefficients *k) {
    ed_jpeg_splat s;
    s.y = _mm256_set1_epi16((short)k->y);
    s.cbToY = _mm256_set1_epi16(k->cbToY);
    s.crToY = _mm256_set1_epi16(k->crToY);
    s.yBias = _mm256_set1_epi16(k->yBias);
    s.cbToCb = _mm256_set1_epi16(k->cbToCb);
    s.crToCb = _mm256_set1_epi16(k->crToCb);
    s.cbToCr = _mm256_set1_epi16(k->cbToCr);
    s.crToCr = _mm256_set1_epi16(k->crToCr);
    return s;
}

// One step: 16 chroma samples (words (C - 128) << 8, samples 0-7 in lane 0, 8-15 in lane 1) and
// the 32 luma pixels of each row that share them.
ED_JPEG_AVX2_INLINE void ed_jpeg_step(__m256i u, __m256i v, const uint8_t *y0, const uint8_t *y1,
                                      uint8_t *dy0, uint8_t *dy1, uint8_t *dcb, uint8_t *dcr,
                                      const ed_jpeg_splat *k, int luma, int pair) {
    const __m256i chromaBias = _mm256_set1_epi16(ED_JPEG_CHROMA_BIAS);
    __m256i cb = _mm256_add_epi16(_mm256_add_epi16(_mm256_mulhrs_epi16(u, k->cbToCb), _mm256_mulhrs_epi16(v, k->crToCb)),
                                  chromaBias);
    __m256i cr = _mm256_add_epi16(_mm256_add_epi16(_mm256_mulhrs_epi16(u, k->cbToCr), _mm256_mulhrs_epi16(v, k->crToCr)),
                                  chromaBias);
    // packus: Cb 0-7, Cr 0-7 | Cb 8-15, Cr 8-15; the qword permute puts Cb in lane 0, Cr in lane 1.
    __m256i packed = _mm256_permute4x64_epi64(
        _mm256_packus_epi16(_mm256_srai_epi16(cb, 6), _mm256_srai_epi16(cr, 6)), 0xD8);
    _mm_storeu_si128((__m128i *)dcb, _mm256_castsi256_si128(packed));
    _mm_storeu_si128((__m128i *)dcr, _mm256_extracti128_si256(packed, 1));
    if (!luma) return;
    __m256i t = _mm256_add_epi16(_mm256_add_epi16(_mm256_mulhrs_epi16(u, k->cbToY), _mm256_mulhrs_epi16(v, k->crToY)),
                                 k->yBias);
    // Each chroma term to its pixel pair, in the order the in-lane byte unpacks give luma:
    // lo = pixels 0-7 | 16-23 (samples 0-3 | 8-11), hi = pixels 8-15 | 24-31.
    __m256i tLo = _mm256_unpacklo_epi16(t, t), tHi = _mm256_unpackhi_epi16(t, t);
    for (int row = 0; row < 1 + pair; row++) {
        __m256i yy = _mm256_loadu_si256((const __m256i *)(row ? y1 : y0));
        // Y with itself is Y * 257 in each word: the unsigned high product is the luma term.
        __m256i lo = _mm256_add_epi16(_mm256_mulhi_epu16(_mm256_unpacklo_epi8(yy, yy), k->y), tLo);
        __m256i hi = _mm256_add_epi16(_mm256_mulhi_epu16(_mm256_unpackhi_epi8(yy, yy), k->y), tHi);
        _mm256_storeu_si256((__m256i *)(row ? dy1 : dy0),
                            _mm256_packus_epi16(_mm256_srai_epi16(lo, 6), _mm256_srai_epi16(hi, 6)));
    }
}

enum { ED_JPEG_PLANAR = 0, ED_JPEG_CB_FIRST = 1, ED_JPEG_CR_FIRST = 2 };

// The loop, instantiated per (chroma form, luma written, row pair) so those tests fold away.
ED_JPEG_AVX2_INLINE void ed_jpeg_rows(const uint8_t *y0, const uint8_t *y1, const uint8_t *cb, const uint8_t *cr,
                                      uint8_t *dy0, uint8_t *dy1, uint8_t *dcb, uint8_t *dcr, ptrdiff_t count,
                                      const ed_jpeg_coefficients *coefficients, int chroma, int luma, int pair) {
    const ed_jpeg_splat k = ed_jpeg_splat_coefficients(coefficients);
    const __m256i flip = _mm256_set1_epi16((short)0x8000);
    const uint8_t *pairs = chroma == ED_JPEG_CR_FIRST ? cr : cb; // interleaved: the first byte of the first pair
    for (ptrdiff_t i = 0; i < count; i += ED_JPEG_AVX2_PIXELS) {
        __m256i u, v;
        if (chroma != ED_JPEG_PLANAR) {
            // Word j holds pair j: its first byte low, its second high. Shifting the first up, or
            // masking the second, and flipping the top bit gives (C - 128) << 8.
            __m256i x = _mm256_loadu_si256((const __m256i *)(pairs + i));
            __m256i first = _mm256_xor_si256(_mm256_slli_epi16(x, 8), flip);
            __m256i second = _mm256_xor_si256(_mm256_and_si256(x, _mm256_set1_epi16((short)0xFF00)), flip);
            u = chroma == ED_JPEG_CR_FIRST ? second : first;
            v = chroma == ED_JPEG_CR_FIRST ? first : second;
        } else {
            u = _mm256_xor_si256(_mm256_slli_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(cb + i / 2))), 8), flip);
            v = _mm256_xor_si256(_mm256_slli_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(cr + i / 2))), 8), flip);
        }
        ed_jpeg_step(u, v, luma ? y0 + i : NULL, pair ? y1 + i : NULL, luma ? dy0 + i : NULL,
                     pair ? dy1 + i : NULL, dcb + i / 2, dcr + i / 2, &k, luma, pair);
    }
}

__attribute__((target("avx2")))
void ed_jpeg_rows_avx2(const uint8_t *y0, const uint8_t *y1,
                       const uint8_t *cb, const uint8_t *cr, ptrdiff_t chromaStep,
                       uint8_t *dy0, uint8_t *dy1, uint8_t *dcb, uint8_t *dcr,
                       ptrdiff_t count, const ed_jpeg_coefficients *k) {
#define ED_JPEG_CALL(chroma, luma, pair) \
    ed_jpeg_rows(y0, y1, cb, cr, dy0, dy1, dcb, dcr, count, k, chroma, luma, pair)
#define ED_JPEG_FORM(chroma)                                     \
    do {                                                         \
        if (dy0 == NULL) ED_JPEG_CALL(chroma, 0, 0);             \
        else if (dy1 == NULL) ED_JPEG_CALL(chroma, 1, 0);        \
        else ED_JPEG_CALL(chroma, 1, 1);                         \
    } while (0)
    if (chromaStep == 1) ED_JPEG_FORM(ED_JPEG_PLANAR);
    else if (cb < cr) ED_JPEG_FORM(ED_JPEG_CB_FIRST);
    else ED_JPEG_FORM(ED_JPEG_CR_FIRST);
#undef ED_JPEG_FORM
#undef ED_JPEG_CALL
}

#endif
