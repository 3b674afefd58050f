/// The Swift row kernels: a scalar reference and a portable SIMD kernel computing the same bits
/// (the arithmetic is documented on `FixedPointCoefficients`).
///
/// A row kernel converts pixels `start..<end` of one row; `cb` and `cr` point at the row's chroma
/// (sample `x / 2` is at offset `(x / 2) * chromaStep`).
enum RowKernels {
    /// Pixels per step of the SIMD kernel.
    static let simdPixels = 16

    /// The reference: one pixel at a time, `FixedPointCoefficients.convert`.
    @inline(__always)
    static func scalar<Packer: PixelPacker>(
        _: Packer.Type, y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>,
        chromaStep: Int, dst: UnsafeMutablePointer<UInt8>, from start: Int, to end: Int,
        _ k: FixedPointCoefficients
    ) {
        for x in start..<end {
            let c = (x / 2) * chromaStep
            let color = k.convert(YCbCr8(y: y[x], cb: cb[c], cr: cr[c]))
            Packer.store(r: color.r, g: color.g, b: color.b, to: dst + x * Packer.layout.bytesPerPixel)
        }
    }

    /// Swift SIMD, 16 pixels per step in 16-bit lanes (SSE2 on x86-64, NEON on arm64). Converts
    /// pixels `0..<count`, `count` a multiple of 16; reads and writes nothing beyond them.
    @inline(__always)
    static func simd<Packer: PixelPacker>(
        _: Packer.Type, y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>,
        chromaStep: Int, dst: UnsafeMutablePointer<UInt8>, count: Int, _ k: FixedPointCoefficients
    ) {
        let ky = SIMD8<UInt16>(repeating: k.y)
        let crToR = SIMD8<Int16>(repeating: k.crToR), cbToB = SIMD8<Int16>(repeating: k.cbToB)
        let cbToG = SIMD8<Int16>(repeating: k.cbToG), crToG = SIMD8<Int16>(repeating: k.crToG)
        let bias = SIMD8<Int16>(repeating: k.bias)
        let signFlip = SIMD8<UInt16>(repeating: 0x8000), highByte = SIMD8<UInt16>(repeating: 0xFF00)
        let dstRaw = UnsafeMutableRawPointer(dst)
        let bytesPerPixel = Packer.layout.bytesPerPixel
        // Interleaved chroma: both pointers lie in one row and the lower one starts each pair.
        let pairs = UnsafeRawPointer(min(cb, cr)), cbIsLow = cb < cr
        var x = 0
        while x + simdPixels <= count {
            // 8 chroma samples as (C - 128) << 8: the byte moved to the high half, top bit flipped.
            var u: SIMD8<UInt16>, v: SIMD8<UInt16>
            if chromaStep == 1 {
                u = SIMD8<UInt16>(truncatingIfNeeded: UnsafeRawPointer(cb + x / 2).loadUnaligned(as: SIMD8<UInt8>.self)) &<< 8
                v = SIMD8<UInt16>(truncatingIfNeeded: UnsafeRawPointer(cr + x / 2).loadUnaligned(as: SIMD8<UInt8>.self)) &<< 8
            } else {
                // Little-endian pairs: the low byte of each 16-bit lane is the first sample.
                let both = pairs.loadUnaligned(fromByteOffset: x, as: SIMD8<UInt16>.self)
                let first = both &<< 8, second = both & highByte
                (u, v) = cbIsLow ? (first, second) : (second, first)
            }
            let cbTerm = SIMD8<Int16>(truncatingIfNeeded: u ^ signFlip)
            let crTerm = SIMD8<Int16>(truncatingIfNeeded: v ^ signFlip)
            // Chroma terms with the bias, computed once per sample, then repeated for its two pixels.
            let (rLow, rHigh) = repeatedPairs(Vector.mulhi(crTerm, crToR) &+ bias)
            let (gLow, gHigh) = repeatedPairs(Vector.mulhi(cbTerm, cbToG) &+ Vector.mulhi(crTerm, crToG) &+ bias)
            let (bLow, bHigh) = repeatedPairs(Vector.mulhi(cbTerm, cbToB) &+ bias)

            // Y * 257 is Y in both bytes.
            let luma = UnsafeRawPointer(y + x).loadUnaligned(as: SIMD16<UInt8>.self)
            let (lumaLow, lumaHigh) = Vector.zip(luma, luma)
            let yLow = SIMD8<Int16>(truncatingIfNeeded: Vector.mulhi(Vector.cast(lumaLow) as SIMD8<UInt16>, ky))
            let yHigh = SIMD8<Int16>(truncatingIfNeeded: Vector.mulhi(Vector.cast(lumaHigh) as SIMD8<UInt16>, ky))
            Packer.store(
                r: Vector.packSaturated((yLow &+ rLow) &>> 5, (yHigh &+ rHigh) &>> 5),
                g: Vector.packSaturated((yLow &+ gLow) &>> 5, (yHigh &+ gHigh) &>> 5),
                b: Vector.packSaturated((yLow &+ bLow) &>> 5, (yHigh &+ bHigh) &>> 5),
                to: dstRaw + x * bytesPerPixel)
            x += simdPixels
        }
    }

    /// Each lane twice: (t0, t0, t1, t1, ... t3, t3) and (t4, t4, ... t7, t7).
    @inline(__always)
    private static func repeatedPairs(_ terms: SIMD8<Int16>) -> (SIMD8<Int16>, SIMD8<Int16>) {
        let bits = SIMD8<UInt16>(truncatingIfNeeded: terms)
        let (low, high) = Vector.zip(bits, bits)
        return (SIMD8<Int16>(truncatingIfNeeded: low), SIMD8<Int16>(truncatingIfNeeded: high))
    }
}
