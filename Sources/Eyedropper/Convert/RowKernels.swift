/// The Swift row kernels: a scalar reference and a portable SIMD kernel computing the same bits
/// (the arithmetic is documented on `FixedPointCoefficients`).
///
/// A row kernel converts pixels `start..<end` of one row; `cb` and `cr` point at the row's chroma
/// (sample `x / 2` is at offset `(x / 2) * chromaStep`).
enum RowKernels {
    /// Pixels per step of the portable SIMD kernel.
    static let simdPixels = 8

    /// The reference: one pixel at a time, in 32-bit integers (no sum overflows Int16 either, so
    /// the vector kernels' 16-bit wrapping arithmetic gives the same results).
    @inline(__always)
    static func scalar<Packer: PixelPacker>(
        _: Packer.Type, y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>,
        chromaStep: Int, dst: UnsafeMutablePointer<UInt8>, from start: Int, to end: Int,
        _ k: FixedPointCoefficients
    ) {
        let ky = UInt32(k.y), crToR = Int32(k.crToR), cbToB = Int32(k.cbToB)
        let cbToG = Int32(k.cbToG), crToG = Int32(k.crToG), bias = Int32(k.bias)
        @inline(__always) func channel(_ value: Int32) -> UInt8 {
            UInt8(clamping: value &>> 5)
        }
        for x in start..<end {
            let c = (x / 2) * chromaStep
            let luma = Int32((UInt32(y[x]) &* 257 &* ky) &>> 16)
            let u = (Int32(cb[c]) - 128) &<< 8
            let v = (Int32(cr[c]) - 128) &<< 8
            let r = luma + ((v &* crToR) &>> 16) + bias
            let g = luma + ((u &* cbToG) &>> 16) + ((v &* crToG) &>> 16) + bias
            let b = luma + ((u &* cbToB) &>> 16) + bias
            Packer.store(r: channel(r), g: channel(g), b: channel(b), to: dst + x * Packer.format.bytesPerPixel)
        }
    }

    /// Portable SIMD: 8 pixels per step in 16-bit lanes (SSE2 on x86-64, NEON on arm64). Converts
    /// pixels `0..<count`, `count` a multiple of 8; reads and writes nothing beyond them.
    @inline(__always)
    static func simd<Packer: PixelPacker>(
        _: Packer.Type, y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>,
        chromaStep: Int, dst: UnsafeMutablePointer<UInt8>, count: Int, _ k: FixedPointCoefficients
    ) {
        let ky = SIMD8<UInt16>(repeating: k.y)
        let crToR = SIMD4<Int16>(repeating: k.crToR), cbToB = SIMD4<Int16>(repeating: k.cbToB)
        let cbToG = SIMD4<Int16>(repeating: k.cbToG), crToG = SIMD4<Int16>(repeating: k.crToG)
        let bias = SIMD4<Int16>(repeating: k.bias)
        let lumaRaw = UnsafeRawPointer(y), dstRaw = UnsafeMutableRawPointer(dst)
        let bytesPerPixel = Packer.format.bytesPerPixel
        var x = 0
        while x + 8 <= count {
            // 4 chroma samples, as (C - 128) << 8: the byte in the high half, top bit flipped.
            let cbBytes: SIMD4<UInt8>, crBytes: SIMD4<UInt8>
            let c = (x / 2) * chromaStep
            if chromaStep == 1 {
                cbBytes = UnsafeRawPointer(cb + c).loadUnaligned(as: SIMD4<UInt8>.self)
                crBytes = UnsafeRawPointer(cr + c).loadUnaligned(as: SIMD4<UInt8>.self)
            } else {
                // Both pointers lie in one interleaved row; the lower one starts the pairs.
                let pairs = UnsafeRawPointer(min(cb, cr) + c).loadUnaligned(as: SIMD8<UInt8>.self)
                (cbBytes, crBytes) = cb < cr ? (pairs.evenHalf, pairs.oddHalf) : (pairs.oddHalf, pairs.evenHalf)
            }
            let u = SIMD4<Int16>(truncatingIfNeeded: cbBytes) &<< 8 ^ SIMD4<Int16>(repeating: Int16.min)
            let v = SIMD4<Int16>(truncatingIfNeeded: crBytes) &<< 8 ^ SIMD4<Int16>(repeating: Int16.min)
            let rChroma = duplicated(mulhi(v, crToR) &+ bias)
            let gChroma = duplicated(mulhi(u, cbToG) &+ mulhi(v, crToG) &+ bias)
            let bChroma = duplicated(mulhi(u, cbToB) &+ bias)

            let yBytes = lumaRaw.loadUnaligned(fromByteOffset: x, as: SIMD8<UInt8>.self)
            let luma = SIMD8<Int16>(truncatingIfNeeded: mulhi(SIMD8<UInt16>(truncatingIfNeeded: yBytes) &* 257, ky))
            Packer.store(
                r: saturated(luma &+ rChroma), g: saturated(luma &+ gChroma), b: saturated(luma &+ bChroma),
                to: dstRaw + x * bytesPerPixel)
            x += 8
        }
    }

    @inline(__always)
    private static func mulhi(_ a: SIMD4<Int16>, _ b: SIMD4<Int16>) -> SIMD4<Int16> {
        SIMD4<Int16>(truncatingIfNeeded: (SIMD4<Int32>(truncatingIfNeeded: a) &* SIMD4<Int32>(truncatingIfNeeded: b)) &>> 16)
    }

    @inline(__always)
    private static func mulhi(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>) -> SIMD8<UInt16> {
        SIMD8<UInt16>(truncatingIfNeeded: (SIMD8<UInt32>(truncatingIfNeeded: a) &* SIMD8<UInt32>(truncatingIfNeeded: b)) &>> 16)
    }

    /// Each chroma term for the two pixels that share it: widen to 32 bits, copy into the high
    /// half, reinterpret as twice the lanes.
    @inline(__always)
    private static func duplicated(_ terms: SIMD4<Int16>) -> SIMD8<Int16> {
        let wide = SIMD4<UInt32>(truncatingIfNeeded: SIMD4<UInt16>(truncatingIfNeeded: terms))
        return unsafeBitCast(wide | wide &<< 16, to: SIMD8<Int16>.self)
    }

    /// `(sum >> 5)` clamped to 0...255, still in 16-bit lanes.
    @inline(__always)
    private static func saturated(_ sum: SIMD8<Int16>) -> SIMD8<Int16> {
        pointwiseMin(pointwiseMax(sum &>> 5, .zero), SIMD8<Int16>(repeating: 255))
    }
}
