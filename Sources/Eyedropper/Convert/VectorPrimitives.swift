#if arch(x86_64)
    import _Builtin_intrinsics.intel
#endif

/// The few vector operations the SIMD kernel needs that Swift's generic SIMD does not reliably
/// compile to single instructions: multiply-high, zip (interleave) and saturating narrowing.
///
/// On x86-64 each is one SSE2 instruction through the clang intrinsics. Written generically, the
/// compiler turned the same operations into 32-bit multiplies and branchy scalar code once
/// inlined into the kernel (RGB24 measured slower than the scalar kernel). Elsewhere (arm64) the
/// generic forms are used; they compute the same values.
enum Vector {
    /// `(a * b) >> 16` per lane, signed (`pmulhw`).
    @inline(__always)
    static func mulhi(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> SIMD8<Int16> {
        #if arch(x86_64)
            lanes(_mm_mulhi_epi16(m128(a), m128(b)))
        #else
            SIMD8<Int16>(truncatingIfNeeded: (SIMD8<Int32>(truncatingIfNeeded: a) &* SIMD8<Int32>(truncatingIfNeeded: b)) &>> 16)
        #endif
    }

    /// `(a * b) >> 16` per lane, unsigned (`pmulhuw`).
    @inline(__always)
    static func mulhi(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>) -> SIMD8<UInt16> {
        #if arch(x86_64)
            lanes(_mm_mulhi_epu16(m128(a), m128(b)))
        #else
            SIMD8<UInt16>(truncatingIfNeeded: (SIMD8<UInt32>(truncatingIfNeeded: a) &* SIMD8<UInt32>(truncatingIfNeeded: b)) &>> 16)
        #endif
    }

    /// Interleaves bytes: (a0, b0, a1, b1, ... a7, b7) and (a8, b8, ... a15, b15) (`punpck*bw`).
    @inline(__always)
    static func zip(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> (SIMD16<UInt8>, SIMD16<UInt8>) {
        #if arch(x86_64)
            (lanes(_mm_unpacklo_epi8(m128(a), m128(b))), lanes(_mm_unpackhi_epi8(m128(a), m128(b))))
        #else
            func pairs(_ a: SIMD8<UInt8>, _ b: SIMD8<UInt8>) -> SIMD16<UInt8> {
                unsafeBitCast(SIMD8<UInt16>(truncatingIfNeeded: a) | SIMD8<UInt16>(truncatingIfNeeded: b) &<< 8, to: SIMD16<UInt8>.self)
            }
            return (pairs(a.lowHalf, b.lowHalf), pairs(a.highHalf, b.highHalf))
        #endif
    }

    /// Interleaves 16-bit lanes: (a0, b0, ... a3, b3) and (a4, b4, ... a7, b7) (`punpck*wd`).
    @inline(__always)
    static func zip(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>) -> (SIMD8<UInt16>, SIMD8<UInt16>) {
        #if arch(x86_64)
            (lanes(_mm_unpacklo_epi16(m128(a), m128(b))), lanes(_mm_unpackhi_epi16(m128(a), m128(b))))
        #else
            func pairs(_ a: SIMD4<UInt16>, _ b: SIMD4<UInt16>) -> SIMD8<UInt16> {
                unsafeBitCast(SIMD4<UInt32>(truncatingIfNeeded: a) | SIMD4<UInt32>(truncatingIfNeeded: b) &<< 16, to: SIMD8<UInt16>.self)
            }
            return (pairs(a.lowHalf, b.lowHalf), pairs(a.highHalf, b.highHalf))
        #endif
    }

    /// Each lane of `low` then of `high`, clamped to 0...255, as bytes (`packuswb`).
    @inline(__always)
    static func packSaturated(_ low: SIMD8<Int16>, _ high: SIMD8<Int16>) -> SIMD16<UInt8> {
        #if arch(x86_64)
            lanes(_mm_packus_epi16(m128(low), m128(high)))
        #else
            func clamp(_ v: SIMD8<Int16>) -> SIMD8<UInt8> {
                SIMD8<UInt8>(truncatingIfNeeded: pointwiseMin(pointwiseMax(v, .zero), SIMD8<Int16>(repeating: 255)))
            }
            return SIMD16<UInt8>(lowHalf: clamp(low), highHalf: clamp(high))
        #endif
    }

    /// Reinterprets 16 bytes as another 16-byte vector type.
    @inline(__always)
    static func cast<From: SIMD, To: SIMD>(_ value: From) -> To {
        unsafeBitCast(value, to: To.self)
    }

    #if arch(x86_64)
        /// Swift imports `__m128i` as `SIMD2<Int64>`; these name the direction of each reinterpretation.
        @inline(__always)
        private static func m128<From: SIMD>(_ value: From) -> __m128i { unsafeBitCast(value, to: __m128i.self) }

        @inline(__always)
        private static func lanes<To: SIMD>(_ value: __m128i) -> To { unsafeBitCast(value, to: To.self) }
    #endif
}
