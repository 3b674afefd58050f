// AVX2 row kernels: 32 pixels per step, 16-bit fixed point (see CEyedropperKernels.h).
// Compiled for baseline x86-64; the target attribute carries the AVX2 code, chosen at run time.
#if defined(__x86_64__)
#include <immintrin.h>

#include "CEyedropperKernels.h"

#define ED_AVX2_INLINE static inline __attribute__((always_inline, target("avx2")))

// Pixel layouts of a 32-pixel step, in groups of 4 pixels (one dword of Y bytes).
// Natural: as loaded; lane 0 of the unpacks holds pixels 0-7 (lo) and 8-15 (hi).
// Quad: dwords 0,2,4,6 | 1,3,5,7, so that the in-lane unpacks that interleave RGBA end with
// pixels 0-7, 8-15, 16-23, 24-31 in store order: one permute per row instead of one per store.
enum { ED_NATURAL = 0, ED_QUAD = 1 };

// Chroma terms (bias included) for 32 pixels, each already duplicated to its pixel pair:
// lo goes with the unpacklo of Y, hi with the unpackhi.
typedef struct {
    __m256i r_lo, r_hi, g_lo, g_hi, b_lo, b_hi;
} ed_chroma;

typedef struct {
    __m256i y, crToR, cbToB, cbToG, crToG, bias;
} ed_splat;

ED_AVX2_INLINE ed_splat ed_splat_coefficients(const ed_coefficients *k) {
    ed_splat s;
    s.y = _mm256_set1_epi16((short)k->y);
    s.crToR = _mm256_set1_epi16(k->crToR);
    s.cbToB = _mm256_set1_epi16(k->cbToB);
    s.cbToG = _mm256_set1_epi16(k->cbToG);
    s.crToG = _mm256_set1_epi16(k->crToG);
    s.bias = _mm256_set1_epi16(k->bias);
    return s;
}

// u, v: (C - 128) << 8, one word per pixel.
ED_AVX2_INLINE void ed_terms(__m256i u, __m256i v, const ed_splat *s,
                             __m256i *r, __m256i *g, __m256i *b) {
    *r = _mm256_add_epi16(_mm256_mulhi_epi16(v, s->crToR), s->bias);
    *g = _mm256_add_epi16(_mm256_add_epi16(_mm256_mulhi_epi16(u, s->cbToG),
                                           _mm256_mulhi_epi16(v, s->crToG)), s->bias);
    *b = _mm256_add_epi16(_mm256_mulhi_epi16(u, s->cbToB), s->bias);
}

// Bytes with the top bit flipped, spread by one in-lane shuffle to the high half of words:
// the shuffle orders and duplicates the samples for the layout, zeroes the low half, and the
// flip makes each word (C - 128) << 8. Duplicating samples rather than terms doubles the
// chroma multiplies but turns six unpacks into two shuffles: shuffles are the scarcer resource.
ED_AVX2_INLINE __m256i ed_spread(__m256i flipped, __m256i mask) {
    return _mm256_shuffle_epi8(flipped, mask);
}

ED_AVX2_INLINE __m256i ed_load_flipped16(const uint8_t *p) {
    __m256i x = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p));
    return _mm256_xor_si256(x, _mm256_set1_epi8((char)0x80));
}

ED_AVX2_INLINE ed_chroma ed_chroma_from(__m256i u_lo, __m256i u_hi, __m256i v_lo, __m256i v_hi,
                                        const ed_splat *s) {
    ed_chroma c;
    ed_terms(u_lo, v_lo, s, &c.r_lo, &c.g_lo, &c.b_lo);
    ed_terms(u_hi, v_hi, s, &c.r_hi, &c.g_hi, &c.b_hi);
    return c;
}

// Planar: 16 Cb and 16 Cr bytes, each broadcast to both lanes.
ED_AVX2_INLINE ed_chroma ed_planar_chroma(const uint8_t *cb, const uint8_t *cr,
                                          const ed_splat *s, int layout) {
    const char Z = (char)0x80;
    __m256i lo, hi;
    if (layout == ED_QUAD) { // lo: samples 0,1,4,5 | 2,3,6,7; hi: 8,9,12,13 | 10,11,14,15
        lo = _mm256_setr_epi8(Z, 0, Z, 0, Z, 1, Z, 1, Z, 4, Z, 4, Z, 5, Z, 5,
                              Z, 2, Z, 2, Z, 3, Z, 3, Z, 6, Z, 6, Z, 7, Z, 7);
        hi = _mm256_setr_epi8(Z, 8, Z, 8, Z, 9, Z, 9, Z, 12, Z, 12, Z, 13, Z, 13,
                              Z, 10, Z, 10, Z, 11, Z, 11, Z, 14, Z, 14, Z, 15, Z, 15);
    } else { // lo: samples 0-3 | 8-11; hi: 4-7 | 12-15
        lo = _mm256_setr_epi8(Z, 0, Z, 0, Z, 1, Z, 1, Z, 2, Z, 2, Z, 3, Z, 3,
                              Z, 8, Z, 8, Z, 9, Z, 9, Z, 10, Z, 10, Z, 11, Z, 11);
        hi = _mm256_setr_epi8(Z, 4, Z, 4, Z, 5, Z, 5, Z, 6, Z, 6, Z, 7, Z, 7,
                              Z, 12, Z, 12, Z, 13, Z, 13, Z, 14, Z, 14, Z, 15, Z, 15);
    }
    __m256i u = ed_load_flipped16(cb), v = ed_load_flipped16(cr);
    return ed_chroma_from(ed_spread(u, lo), ed_spread(u, hi), ed_spread(v, lo), ed_spread(v, hi), s);
}

// Interleaved: 16 sample pairs (32 bytes). The first of each pair is at even bytes.
ED_AVX2_INLINE ed_chroma ed_interleaved_chroma(const uint8_t *cbcr, int crFirst,
                                               const ed_splat *s, int layout) {
    const char Z = (char)0x80;
    __m256i first_lo, first_hi, second_lo, second_hi;
    if (layout == ED_QUAD) {
        // Pairs 0-7 feed lo and pairs 8-15 feed hi, in both lanes: broadcast each half and
        // pick pairs 0,1,4,5 | 2,3,6,7 of it.
        const __m256i f = _mm256_setr_epi8(Z, 0, Z, 0, Z, 2, Z, 2, Z, 8, Z, 8, Z, 10, Z, 10,
                                           Z, 4, Z, 4, Z, 6, Z, 6, Z, 12, Z, 12, Z, 14, Z, 14);
        const __m256i sec = _mm256_add_epi8(f, _mm256_set1_epi16(0x0100));
        __m256i a = ed_load_flipped16(cbcr), b = ed_load_flipped16(cbcr + 16);
        first_lo = ed_spread(a, f);
        second_lo = ed_spread(a, sec);
        first_hi = ed_spread(b, f);
        second_hi = ed_spread(b, sec);
    } else {
        // Natural order keeps pairs 0-7 in lane 0 and 8-15 in lane 1, as loaded.
        const __m256i f_lo = _mm256_setr_epi8(Z, 0, Z, 0, Z, 2, Z, 2, Z, 4, Z, 4, Z, 6, Z, 6,
                                              Z, 0, Z, 0, Z, 2, Z, 2, Z, 4, Z, 4, Z, 6, Z, 6);
        const __m256i f_hi = _mm256_add_epi8(f_lo, _mm256_set1_epi16(0x0800));
        const __m256i s_lo = _mm256_add_epi8(f_lo, _mm256_set1_epi16(0x0100));
        const __m256i s_hi = _mm256_add_epi8(f_lo, _mm256_set1_epi16(0x0900));
        __m256i x = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)cbcr),
                                     _mm256_set1_epi8((char)0x80));
        first_lo = ed_spread(x, f_lo);
        first_hi = ed_spread(x, f_hi);
        second_lo = ed_spread(x, s_lo);
        second_hi = ed_spread(x, s_hi);
    }
    return crFirst ? ed_chroma_from(second_lo, second_hi, first_lo, first_hi, s)
                   : ed_chroma_from(first_lo, first_hi, second_lo, second_hi, s);
}

// A 32-byte store: non-temporal when `stream` (dst is then aligned), else through the cache.
// Streamed bytes go to memory in write-combining buffers without first reading the line in
// (read-for-ownership), which halves the write traffic of an output larger than the cache.
ED_AVX2_INLINE void ed_store(uint8_t *dst, __m256i v, int stream) {
    if (stream) _mm256_stream_si256((__m256i *)dst, v);
    else _mm256_storeu_si256((__m256i *)dst, v);
}

// Four stores of 8 pixels, bytes a, b, c, 255 (quad layout).
ED_AVX2_INLINE void ed_store_quad(__m256i a, __m256i b, __m256i c, uint8_t *dst, int stream) {
    __m256i opaque = _mm256_set1_epi8((char)0xFF);
    __m256i ab_lo = _mm256_unpacklo_epi8(a, b), ab_hi = _mm256_unpackhi_epi8(a, b);
    __m256i co_lo = _mm256_unpacklo_epi8(c, opaque), co_hi = _mm256_unpackhi_epi8(c, opaque);
    ed_store(dst, _mm256_unpacklo_epi16(ab_lo, co_lo), stream);
    ed_store(dst + 32, _mm256_unpackhi_epi16(ab_lo, co_lo), stream);
    ed_store(dst + 64, _mm256_unpacklo_epi16(ab_hi, co_hi), stream);
    ed_store(dst + 96, _mm256_unpackhi_epi16(ab_hi, co_hi), stream);
}

// Three stores of 32 bytes, R,G,B, natural layout. Each lane makes the 48 output bytes of its
// 16 pixels in three 16-byte thirds, which whole-lane moves then pair up as 0+1, 2+3, 4+5 (a
// blend for the middle store). rg_lo holds R then G of pixels 0-7 (lane 0) and 16-23 (lane 1),
// rg_hi those of 8-15 and 24-31, b the B of 0-15 and 16-31: the first third takes R,G from
// rg_lo, the last from rg_hi, and the middle one (pixels 5-10) from a word blend of both,
// so each third costs two shuffles. Shuffle indexes with the top bit set give zero.
ED_AVX2_INLINE void ed_store_rgb24(__m256i rg_lo, __m256i rg_hi, __m256i b, uint8_t *dst, int stream) {
    const char Z = (char)0x80;
#define ED_LANES(...) _mm256_broadcastsi128_si256(_mm_setr_epi8(__VA_ARGS__))
    __m256i rg_mid = _mm256_blend_epi16(rg_lo, rg_hi, 0x33);
    __m256i t0 = _mm256_or_si256(
        _mm256_shuffle_epi8(rg_lo, ED_LANES(0, 8, Z, 1, 9, Z, 2, 10, Z, 3, 11, Z, 4, 12, Z, 5)),
        _mm256_shuffle_epi8(b, ED_LANES(Z, Z, 0, Z, Z, 1, Z, Z, 2, Z, Z, 3, Z, Z, 4, Z)));
    __m256i t1 = _mm256_or_si256(
        _mm256_shuffle_epi8(rg_mid, ED_LANES(13, Z, 6, 14, Z, 7, 15, Z, 0, 8, Z, 1, 9, Z, 2, 10)),
        _mm256_shuffle_epi8(b, ED_LANES(Z, 5, Z, Z, 6, Z, Z, 7, Z, Z, 8, Z, Z, 9, Z, Z)));
    __m256i t2 = _mm256_or_si256(
        _mm256_shuffle_epi8(rg_hi, ED_LANES(Z, 3, 11, Z, 4, 12, Z, 5, 13, Z, 6, 14, Z, 7, 15, Z)),
        _mm256_shuffle_epi8(b, ED_LANES(10, Z, Z, 11, Z, Z, 12, Z, Z, 13, Z, Z, 14, Z, Z, 15)));
#undef ED_LANES
    ed_store(dst, _mm256_permute2x128_si256(t0, t1, 0x20), stream);
    ed_store(dst + 32, _mm256_blend_epi32(t2, t0, 0xF0), stream);
    ed_store(dst + 64, _mm256_permute2x128_si256(t1, t2, 0x31), stream);
}

// (s >> 5) as a multiply: (s * 2048) >> 16 is the same floor for every int16 s, and
// multiplies run beside the shuffle units instead of competing with them as shifts do.
ED_AVX2_INLINE __m256i ed_descale(__m256i s) {
    return _mm256_mulhi_epi16(s, _mm256_set1_epi16(2048));
}

// One row step: 32 luma bytes plus the shared chroma terms to 32 output pixels.
ED_AVX2_INLINE void ed_row_step(const uint8_t *y, const ed_chroma *c, __m256i ky,
                                uint8_t *dst, ed_output output, int stream) {
    __m256i yy = _mm256_loadu_si256((const __m256i *)y);
    if (output != ED_OUTPUT_RGB24) {
        __m256i quad = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
        // Opaque to the compiler, which would otherwise split this one vpermd into two shuffles.
        __asm__("" : "+x"(quad));
        yy = _mm256_permutevar8x32_epi32(yy, quad);
    }
    // Y with itself is Y * 257 in each word, so the unsigned high product is the luma term.
    __m256i lo = _mm256_mulhi_epu16(_mm256_unpacklo_epi8(yy, yy), ky);
    __m256i hi = _mm256_mulhi_epu16(_mm256_unpackhi_epi8(yy, yy), ky);
    __m256i r_lo = ed_descale(_mm256_add_epi16(lo, c->r_lo));
    __m256i r_hi = ed_descale(_mm256_add_epi16(hi, c->r_hi));
    __m256i g_lo = ed_descale(_mm256_add_epi16(lo, c->g_lo));
    __m256i g_hi = ed_descale(_mm256_add_epi16(hi, c->g_hi));
    __m256i b = _mm256_packus_epi16(ed_descale(_mm256_add_epi16(lo, c->b_lo)),
                                    ed_descale(_mm256_add_epi16(hi, c->b_hi)));
    if (output == ED_OUTPUT_RGB24) {
        ed_store_rgb24(_mm256_packus_epi16(r_lo, g_lo), _mm256_packus_epi16(r_hi, g_hi), b, dst, stream);
        return;
    }
    __m256i r = _mm256_packus_epi16(r_lo, r_hi), g = _mm256_packus_epi16(g_lo, g_hi);
    if (output == ED_OUTPUT_BGRA) ed_store_quad(b, g, r, dst, stream);
    else ed_store_quad(r, g, b, dst, stream);
}

// The whole loop, instantiated once per (chroma form, output, row count, store kind) so that
// every test on those folds away. crFirst matters only for interleaved chroma.
ED_AVX2_INLINE void ed_rows(const uint8_t *y0, const uint8_t *y1,
                            const uint8_t *cb, const uint8_t *cr, const uint8_t *cbcr, int crFirst,
                            uint8_t *dst0, uint8_t *dst1, ptrdiff_t count,
                            const ed_coefficients *k, ed_output output, int interleaved, int pair,
                            int stream) {
    const ed_splat s = ed_splat_coefficients(k);
    const int layout = output == ED_OUTPUT_RGB24 ? ED_NATURAL : ED_QUAD;
    const ptrdiff_t bpp = output == ED_OUTPUT_RGB24 ? 3 : 4;
    for (ptrdiff_t i = 0; i < count; i += ED_AVX2_PIXELS) {
        ed_chroma c = interleaved ? ed_interleaved_chroma(cbcr + i, crFirst, &s, layout)
                                  : ed_planar_chroma(cb + i / 2, cr + i / 2, &s, layout);
        ed_row_step(y0 + i, &c, s.y, dst0 + i * bpp, output, stream);
        if (pair) ed_row_step(y1 + i, &c, s.y, dst1 + i * bpp, output, stream);
    }
    // Streamed stores are weakly ordered: fence them before the caller publishes the rows.
    if (stream) _mm_sfence();
}

// Calls call(output, pair, stream) with each argument a constant.
#define ED_DISPATCH(call)                                                             \
    do {                                                                              \
        int pair_ = y1 != NULL;                                                       \
        switch (output) {                                                             \
        case ED_OUTPUT_RGB24: ED_BY_PAIR_AND_STREAM(call, ED_OUTPUT_RGB24); break;    \
        case ED_OUTPUT_RGBA: ED_BY_PAIR_AND_STREAM(call, ED_OUTPUT_RGBA); break;      \
        case ED_OUTPUT_BGRA: ED_BY_PAIR_AND_STREAM(call, ED_OUTPUT_BGRA); break;      \
        }                                                                             \
    } while (0)
#define ED_BY_PAIR_AND_STREAM(call, out)                                              \
    (pair_ ? (stream ? call(out, 1, 1) : call(out, 1, 0))                            \
           : (stream ? call(out, 0, 1) : call(out, 0, 0)))

__attribute__((target("avx2")))
void ed_rows_planar_avx2(const uint8_t *y0, const uint8_t *y1,
                         const uint8_t *cb, const uint8_t *cr,
                         uint8_t *dst0, uint8_t *dst1, ptrdiff_t count,
                         const ed_coefficients *k, ed_output output, int stream) {
#define ED_PLANAR(out, pair, streamed) \
    ed_rows(y0, y1, cb, cr, NULL, 0, dst0, dst1, count, k, out, 0, pair, streamed)
    ED_DISPATCH(ED_PLANAR);
#undef ED_PLANAR
}

__attribute__((target("avx2")))
void ed_rows_interleaved_avx2(const uint8_t *y0, const uint8_t *y1,
                              const uint8_t *cbcr, int crFirst,
                              uint8_t *dst0, uint8_t *dst1, ptrdiff_t count,
                              const ed_coefficients *k, ed_output output, int stream) {
#define ED_INTERLEAVED(out, pair, streamed) \
    ed_rows(y0, y1, NULL, NULL, cbcr, crFirst != 0, dst0, dst1, count, k, out, 1, pair, streamed)
    ED_DISPATCH(ED_INTERLEAVED);
#undef ED_INTERLEAVED
}

#undef ED_DISPATCH
#undef ED_BY_PAIR_AND_STREAM

#endif
