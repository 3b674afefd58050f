import Eyedropper

/// Every (Y, Cb, Cr) triple, once: a 4096x4096 I420 frame whose 8x8 blocks of chroma samples each
/// hold one (Cb, Cr) pair, and whose 256 luma pixels under a block take every Y value. For the
/// exhaustive tests of the converter and of the JPEG planes' remap.
public func makeAllTriples(colorimetry: Colorimetry) throws -> FrameBuffer {
    let side = 4096, chromaSide = side / 2
    let buffer = try FrameBuffer(layout: .i420, width: side, height: side, colorimetry: colorimetry)
    buffer.withUnsafeMutableBytes { bytes in
        let y = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let cb = y + side * side, cr = cb + chromaSide * chromaSide
        for cy in 0..<chromaSide {
            for cx in 0..<chromaSide {
                cb[cy * chromaSide + cx] = UInt8(cy / 8)
                cr[cy * chromaSide + cx] = UInt8(cx / 8)
                let block = (cy % 8) * 8 + cx % 8
                for dy in 0..<2 {
                    for dx in 0..<2 { y[(2 * cy + dy) * side + 2 * cx + dx] = UInt8(block * 4 + dy * 2 + dx) }
                }
            }
        }
    }
    return buffer
}
