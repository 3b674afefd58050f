// AVX-512 row kernels (BW + VBMI): 64 pixels per step, same arithmetic and contract as the
// AVX2 kernels in rows_avx2.c; a final 32-pixel step goes to the AVX2 kernel.
#if defined(__x86_64__)
#include <immintrin.h>

#include "CEyedropperKernels.h"

#define ED_AVX512_ATTR __attribute__((target("avx2,avx512f,avx512bw,avx512vbmi")))
#define ED_AVX512_INLINE static inline __attribute__((always_inline)) ED_AVX512_ATTR

// Pixel layouts of a 64-pixel step. Natural: as loaded (for RGB24, whose byte permutes can
// reach anywhere). Transposed: dword 4k+j of Y holds pixels 16j+4k..16j+4k+3, so that the
// in-lane unpacks that interleave RGBA end with pixels 0-15, 16-31, 32-47, 48-63 in store order.
enum { ED512_NATURAL = 0, ED512_TRANSPOSED = 1 };

// The chroma sample behind each word of the unpacklo of Y (the unpackhi adds 4 or 16).
static const uint8_t ed512_chroma_of_word[2][32] = {
    {0, 0, 1, 1, 2, 2, 3, 3, 8, 8, 9, 9, 10, 10, 11, 11,
     16, 16, 17, 17, 18, 18, 19, 19, 24, 24, 25, 25, 26, 26, 27, 27},
    {0, 0, 1, 1, 8, 8, 9, 9, 2, 2, 3, 3, 10, 10, 11, 11,
     4, 4, 5, 5, 12, 12, 13, 13, 6, 6, 7, 7, 14, 14, 15, 15},
};

// RGB24: byte b of output vector s is channel (64s+b) % 3 of pixel p = (64s+b) / 3; the index
// is p for R and B, 64 + p for G (second source of the two-source permute).
static const uint8_t ed512_rgb24_index[3][64] = {
    {  0,  64,   0,   1,  65,   1,   2,  66,   2,   3,  67,   3,   4,  68,   4,   5,
      69,   5,   6,  70,   6,   7,  71,   7,   8,  72,   8,   9,  73,   9,  10,  74,
      10,  11,  75,  11,  12,  76,  12,  13,  77,  13,  14,  78,  14,  15,  79,  15,
      16,  80,  16,  17,  81,  17,  18,  82,  18,  19,  83,  19,  20,  84,  20,  21},
    { 85,  21,  22,  86,  22,  23,  87,  23,  24,  88,  24,  25,  89,  25,  26,  90,
      26,  27,  91,  27,  28,  92,  28,  29,  93,  29,  30,  94,  30,  31,  95,  31,
      32,  96,  32,  33,  97,  33,  34,  98,  34,  35,  99,  35,  36, 100,  36,  37,
     101,  37,  38, 102,  38,  39, 103,  39,  40, 104,  40,  41, 105,  41,  42, 106},
    { 42,  43, 107,  43,  44, 108,  44,  45, 109,  45,  46, 110,  46,  47, 111,  47,
      48, 112,  48,  49, 113,  49,  50, 114,  50,  51, 115,  51,  52, 116,  52,  53,
     117,  53,  54, 118,  54,  55, 119,  55,  56, 120,  56,  57, 121,  57,  58, 122,
      58,  59, 123,  59,  60, 124,  60,  61, 125,  61,  62, 126,  62,  63, 127,  63},
};

typedef struct {
    __m512i r_lo, r_hi, g_lo, g_hi, b_lo, b_hi;
} ed512_chroma;

typedef struct {
    __m512i y, crToR, cbToB, cbToG, crToG, bias;
    __m512i lo, hi; // byte permutes giving, in odd bytes, the chroma sample of each word
} ed512_setup;

ED_AVX512_INLINE ed512_setup ed512_prepare(const ed_coefficients *k, int layout, int interleaved) {
    ed512_setup s;
    s.y = _mm512_set1_epi16((short)k->y);
    s.crToR = _mm512_set1_epi16(k->crToR);
    s.cbToB = _mm512_set1_epi16(k->cbToB);
    s.cbToG = _mm512_set1_epi16(k->cbToG);
    s.crToG = _mm512_set1_epi16(k->crToG);
    s.bias = _mm512_set1_epi16(k->bias);
    __m512i c = _mm512_slli_epi16(
        _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)ed512_chroma_of_word[layout])), 8);
    __m512i step = _mm512_set1_epi16((short)((layout == ED512_NATURAL ? 4 : 16) << 8));
    s.lo = c;
    s.hi = _mm512_add_epi16(c, step);
    if (interleaved) { // sample c sits at byte 2c (first of the pair)
        s.lo = _mm512_add_epi16(s.lo, s.lo);
        s.hi = _mm512_add_epi16(s.hi, s.hi);
    }
    return s;
}

ED_AVX512_INLINE void ed512_terms(__m512i u, __m512i v, const ed512_setup *s,
                                  __m512i *r, __m512i *g, __m512i *b) {
    *r = _mm512_add_epi16(_mm512_mulhi_epi16(v, s->crToR), s->bias);
    *g = _mm512_add_epi16(_mm512_add_epi16(_mm512_mulhi_epi16(u, s->cbToG),
                                           _mm512_mulhi_epi16(v, s->crToG)), s->bias);
    *b = _mm512_add_epi16(_mm512_mulhi_epi16(u, s->cbToB), s->bias);
}

// Bytes with the top bit flipped, permuted into the odd (high) byte of each word with the even
// byte zeroed: (C - 128) << 8, duplicated to pixel pairs in the layout's order.
ED_AVX512_INLINE __m512i ed512_spread(__m512i index, __m512i flipped) {
    return _mm512_maskz_permutexvar_epi8(0xAAAAAAAAAAAAAAAAull, index, flipped);
}

ED_AVX512_INLINE ed512_chroma ed512_chroma_from(__m512i u_lo, __m512i u_hi, __m512i v_lo,
                                                __m512i v_hi, const ed512_setup *s) {
    ed512_chroma c;
    ed512_terms(u_lo, v_lo, s, &c.r_lo, &c.g_lo, &c.b_lo);
    ed512_terms(u_hi, v_hi, s, &c.r_hi, &c.g_hi, &c.b_hi);
    return c;
}

ED_AVX512_INLINE ed512_chroma ed512_planar_chroma(const uint8_t *cb, const uint8_t *cr,
                                                  const ed512_setup *s) {
    const __m256i flip = _mm256_set1_epi8((char)0x80);
    __m512i u = _mm512_castsi256_si512(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)cb), flip));
    __m512i v = _mm512_castsi256_si512(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)cr), flip));
    return ed512_chroma_from(ed512_spread(s->lo, u), ed512_spread(s->hi, u),
                             ed512_spread(s->lo, v), ed512_spread(s->hi, v), s);
}

ED_AVX512_INLINE ed512_chroma ed512_interleaved_chroma(const uint8_t *cbcr, int crFirst,
                                                       const ed512_setup *s) {
    __m512i x = _mm512_xor_si512(_mm512_loadu_si512(cbcr), _mm512_set1_epi8((char)0x80));
    const __m512i next = _mm512_set1_epi16(0x0100);
    __m512i first_lo = ed512_spread(s->lo, x), first_hi = ed512_spread(s->hi, x);
    __m512i second_lo = ed512_spread(_mm512_add_epi16(s->lo, next), x);
    __m512i second_hi = ed512_spread(_mm512_add_epi16(s->hi, next), x);
    return crFirst ? ed512_chroma_from(second_lo, second_hi, first_lo, first_hi, s)
                   : ed512_chroma_from(first_lo, first_hi, second_lo, second_hi, s);
}

// A 64-byte store: non-temporal when `stream` (dst is then aligned), else through the cache,
// as in the AVX2 kernels.
ED_AVX512_INLINE void ed512_store(uint8_t *dst, __m512i v, int stream) {
    if (stream) _mm512_stream_si512((void *)dst, v);
    else _mm512_storeu_si512(dst, v);
}

// Four stores of 16 pixels, bytes a, b, c, 255 (transposed layout).
ED_AVX512_INLINE void ed512_store_quad(__m512i a, __m512i b, __m512i c, uint8_t *dst, int stream) {
    __m512i opaque = _mm512_set1_epi8((char)0xFF);
    __m512i ab_lo = _mm512_unpacklo_epi8(a, b), ab_hi = _mm512_unpackhi_epi8(a, b);
    __m512i co_lo = _mm512_unpacklo_epi8(c, opaque), co_hi = _mm512_unpackhi_epi8(c, opaque);
    ed512_store(dst, _mm512_unpacklo_epi16(ab_lo, co_lo), stream);
    ed512_store(dst + 64, _mm512_unpackhi_epi16(ab_lo, co_lo), stream);
    ed512_store(dst + 128, _mm512_unpacklo_epi16(ab_hi, co_hi), stream);
    ed512_store(dst + 192, _mm512_unpackhi_epi16(ab_hi, co_hi), stream);
}

// Three stores of 64 bytes: R and G by one two-source permute, B merged in by a masked one.
ED_AVX512_INLINE void ed512_store_rgb24(__m512i r, __m512i g, __m512i b, uint8_t *dst, int stream) {
    const __mmask64 blue[3] = {0x4924924924924924ull, 0x2492492492492492ull, 0x9249249249249249ull};
    for (int s = 0; s < 3; s++) {
        __m512i index = _mm512_loadu_si512(ed512_rgb24_index[s]);
        __m512i rg = _mm512_permutex2var_epi8(r, index, g);
        ed512_store(dst + 64 * s, _mm512_mask_permutexvar_epi8(rg, blue[s], index, b), stream);
    }
}

// (s >> 5) as a multiply, as in the AVX2 kernel: the same floor for every int16 s.
ED_AVX512_INLINE __m512i ed512_descale(__m512i s) {
    return _mm512_mulhi_epi16(s, _mm512_set1_epi16(2048));
}

ED_AVX512_INLINE void ed512_row_step(const uint8_t *y, const ed512_chroma *c, __m512i ky,
                                     uint8_t *dst, ed_output output, int stream) {
    __m512i yy = _mm512_loadu_si512(y);
    if (output != ED_OUTPUT_RGB24)
        yy = _mm512_permutexvar_epi32(
            _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), yy);
    // Y with itself is Y * 257 in each word, so the unsigned high product is the luma term.
    __m512i lo = _mm512_mulhi_epu16(_mm512_unpacklo_epi8(yy, yy), ky);
    __m512i hi = _mm512_mulhi_epu16(_mm512_unpackhi_epi8(yy, yy), ky);
    __m512i r = _mm512_packus_epi16(ed512_descale(_mm512_add_epi16(lo, c->r_lo)),
                                    ed512_descale(_mm512_add_epi16(hi, c->r_hi)));
    __m512i g = _mm512_packus_epi16(ed512_descale(_mm512_add_epi16(lo, c->g_lo)),
                                    ed512_descale(_mm512_add_epi16(hi, c->g_hi)));
    __m512i b = _mm512_packus_epi16(ed512_descale(_mm512_add_epi16(lo, c->b_lo)),
                                    ed512_descale(_mm512_add_epi16(hi, c->b_hi)));
    switch (output) {
    case ED_OUTPUT_RGB24: ed512_store_rgb24(r, g, b, dst, stream); break;
    case ED_OUTPUT_RGBA: ed512_store_quad(r, g, b, dst, stream); break;
    case ED_OUTPUT_BGRA: ed512_store_quad(b, g, r, dst, stream); break;
    }
}

// Whole 64-pixel steps only; returns how many pixels it converted.
ED_AVX512_INLINE ptrdiff_t ed512_rows(const uint8_t *y0, const uint8_t *y1,
                                      const uint8_t *cb, const uint8_t *cr, const uint8_t *cbcr,
                                      int crFirst, uint8_t *dst0, uint8_t *dst1, ptrdiff_t count,
                                      const ed_coefficients *k, ed_output output,
                                      int interleaved, int pair, int stream) {
    const int layout = output == ED_OUTPUT_RGB24 ? ED512_NATURAL : ED512_TRANSPOSED;
    const ed512_setup s = ed512_prepare(k, layout, interleaved);
    const ptrdiff_t bpp = output == ED_OUTPUT_RGB24 ? 3 : 4;
    ptrdiff_t i = 0;
    for (; i + ED_AVX512_PIXELS <= count; i += ED_AVX512_PIXELS) {
        ed512_chroma c = interleaved ? ed512_interleaved_chroma(cbcr + i, crFirst, &s)
                                     : ed512_planar_chroma(cb + i / 2, cr + i / 2, &s);
        ed512_row_step(y0 + i, &c, s.y, dst0 + i * bpp, output, stream);
        if (pair) ed512_row_step(y1 + i, &c, s.y, dst1 + i * bpp, output, stream);
    }
    // Streamed stores are weakly ordered: fence them before the caller publishes the rows.
    if (stream) _mm_sfence();
    return i;
}

// Sets `done` to call(output, pair, stream) with each argument a constant.
#define ED512_DISPATCH(call)                                                          \
    do {                                                                              \
        int pair_ = y1 != NULL;                                                       \
        switch (output) {                                                             \
        case ED_OUTPUT_RGB24: done = ED512_BY_PAIR_AND_STREAM(call, ED_OUTPUT_RGB24); break; \
        case ED_OUTPUT_RGBA: done = ED512_BY_PAIR_AND_STREAM(call, ED_OUTPUT_RGBA); break; \
        case ED_OUTPUT_BGRA: done = ED512_BY_PAIR_AND_STREAM(call, ED_OUTPUT_BGRA); break; \
        }                                                                             \
    } while (0)
#define ED512_BY_PAIR_AND_STREAM(call, out)                                           \
    (pair_ ? (stream ? call(out, 1, 1) : call(out, 1, 0))                            \
           : (stream ? call(out, 0, 1) : call(out, 0, 0)))

ED_AVX512_ATTR
void ed_rows_planar_avx512(const uint8_t *y0, const uint8_t *y1,
                           const uint8_t *cb, const uint8_t *cr,
                           uint8_t *dst0, uint8_t *dst1, ptrdiff_t count,
                           const ed_coefficients *k, ed_output output, int stream) {
    ptrdiff_t done = 0;
#define ED512_PLANAR(out, pair, streamed) \
    ed512_rows(y0, y1, cb, cr, NULL, 0, dst0, dst1, count, k, out, 0, pair, streamed)
    ED512_DISPATCH(ED512_PLANAR);
#undef ED512_PLANAR
    if (done < count) {
        const ptrdiff_t bpp = output == ED_OUTPUT_RGB24 ? 3 : 4;
        ed_rows_planar_avx2(y0 + done, y1 ? y1 + done : NULL, cb + done / 2, cr + done / 2,
                            dst0 + done * bpp, dst1 ? dst1 + done * bpp : NULL, count - done, k, output, stream);
    }
}

ED_AVX512_ATTR
void ed_rows_interleaved_avx512(const uint8_t *y0, const uint8_t *y1,
                                const uint8_t *cbcr, int crFirst,
                                uint8_t *dst0, uint8_t *dst1, ptrdiff_t count,
                                const ed_coefficients *k, ed_output output, int stream) {
    ptrdiff_t done = 0;
#define ED512_INTERLEAVED(out, pair, streamed) \
    ed512_rows(y0, y1, NULL, NULL, cbcr, crFirst != 0, dst0, dst1, count, k, out, 1, pair, streamed)
    ED512_DISPATCH(ED512_INTERLEAVED);
#undef ED512_INTERLEAVED
    if (done < count) {
        const ptrdiff_t bpp = output == ED_OUTPUT_RGB24 ? 3 : 4;
        ed_rows_interleaved_avx2(y0 + done, y1 ? y1 + done : NULL, cbcr + done, crFirst,
                                 dst0 + done * bpp, dst1 ? dst1 + done * bpp : NULL, count - done, k, output, stream);
    }
}

#undef ED512_DISPATCH
#undef ED512_BY_PAIR_AND_STREAM

#endif
