internal import CEyedropperJPEGKernels
import Eyedropper

/// The remap kernels one binary carries; `JPEGPlaneBuffer` uses the best one this CPU supports.
public enum JPEGRemapKernel: String, CaseIterable, Hashable, Sendable {
    /// One chroma sample and its pixels at a time: the reference the other must match bit for bit.
    case scalar
    /// 32 pixels per step in 256-bit registers, on x86-64 CPUs with AVX2 (chosen at run time).
    case avx2

    public var isSupported: Bool { self == .scalar || ConversionKernel.avx2.isSupported }

    public static let best: JPEGRemapKernel = avx2.isSupported ? .avx2 : .scalar
}

/// A 4:2:0 frame as JPEG stores it: three planes of BT.601 full-range Y'CbCr, which libturbojpeg
/// compresses as they are (`tjCompressFromYUVPlanes`). Lent, never kept: the memory is a
/// `JPEGPlaneBuffer`'s or a frame's.
public struct JPEGPlanes: ~Copyable {
    public let width: Int
    public let height: Int
    public let luma: UnsafePointer<UInt8>
    public let cb: UnsafePointer<UInt8>
    public let cr: UnsafePointer<UInt8>
    public let lumaStride: Int
    /// Of both chroma planes, each ceil(width / 2) x ceil(height / 2) samples.
    public let chromaStride: Int
}

/// Memory for one frame's `JPEGPlanes`, reused from frame to frame: grown (only) for a frame
/// larger than any before, so remapping allocates nothing per frame. Not `Sendable`: one owner
/// writes it at a time.
public final class JPEGPlaneBuffer {
    public let kernel: JPEGRemapKernel
    private var memory = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var stored: (width: Int, height: Int)?
    private var coefficients: (colorimetry: Colorimetry, table: JPEGRemapCoefficients)?

    public init(kernel: JPEGRemapKernel = .best) {
        precondition(kernel.isSupported, "the \(kernel.rawValue) remap kernel needs a CPU feature this machine lacks")
        self.kernel = kernel
    }

    deinit { memory.deallocate() }

    /// Remaps `frame` (its `colorimetry`) into this buffer, where `withPlanes` finds it until the
    /// next call.
    public func remap(_ frame: borrowing PlanarFrame) {
        let (width, height) = (frame.width, frame.height)
        reserve(width: width, height: height)
        let (luma, cb, cr) = pointers(width: width, height: height)
        remapRows(frame.geometry, table: table(frame.colorimetry), luma: luma, cb: cb, cr: cr)
        stored = (width, height)
    }

    /// Whether `withPlanes` has planes to lend: a frame was remapped, and not cleared since.
    public var hasPlanes: Bool { stored != nil }

    /// Forgets the last frame remapped (keeping the memory), so that planes of an older frame are
    /// never taken for a newer one's.
    public func clear() { stored = nil }

    /// Lends the planes the last `remap` wrote; only while `hasPlanes`.
    public func withPlanes<R>(_ body: (borrowing JPEGPlanes) throws -> R) rethrows -> R {
        guard let (width, height) = stored else { preconditionFailure("no frame remapped since the last clear") }
        let (luma, cb, cr) = pointers(width: width, height: height)
        return try body(
            JPEGPlanes(
                width: width, height: height, luma: luma, cb: cb, cr: cr,
                lumaStride: Self.padded(width), chromaStride: Self.padded((width + 1) / 2)))
    }

    /// Lends `frame` as JPEG planes: the frame's own memory where it already is JPEG's (BT.601
    /// full range; its luma, and its chroma too when planar), the rest remapped into this buffer.
    /// Leaves what `withPlanes` lends undefined.
    public func withPlanes<R>(of frame: borrowing PlanarFrame, _ body: (borrowing JPEGPlanes) throws -> R) rethrows -> R {
        let geometry = frame.geometry, (width, height) = (frame.width, frame.height)
        guard frame.colorimetry == .bt601Full else {
            remap(frame)
            return try withPlanes(body)
        }
        if geometry.chromaStep == 1 {
            return try body(
                JPEGPlanes(
                    width: width, height: height, luma: geometry.luma, cb: geometry.cb, cr: geometry.cr,
                    lumaStride: geometry.lumaStride, chromaStride: geometry.chromaStride))
        }
        // Interleaved chroma: only Cb and Cr need separating (with the identity map, which is exact).
        reserve(width: width, height: height)
        let (_, cb, cr) = pointers(width: width, height: height)
        remapRows(geometry, table: table(.bt601Full), luma: nil, cb: cb, cr: cr)
        stored = nil
        return try body(
            JPEGPlanes(
                width: width, height: height, luma: geometry.luma, cb: cb, cr: cr,
                lumaStride: geometry.lumaStride, chromaStride: Self.padded((width + 1) / 2)))
    }

    /// A row's stride: padded to 32 bytes.
    private static func padded(_ rowBytes: Int) -> Int { (rowBytes + 31) & ~31 }

    private static func byteCount(width: Int, height: Int) -> Int {
        let chromaBytes: Int = padded((width + 1) / 2) * ((height + 1) / 2)
        return padded(width) * height + 2 * chromaBytes
    }

    private func reserve(width: Int, height: Int) {
        let needed = Self.byteCount(width: width, height: height)
        guard memory.count < needed else { return }
        memory.deallocate()
        memory = .allocate(byteCount: needed, alignment: 64)
        stored = nil
    }

    private func pointers(width: Int, height: Int)
        -> (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>)
    {
        let luma = memory.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let cb = luma + Self.padded(width) * height
        return (luma, cb, cb + Self.padded((width + 1) / 2) * ((height + 1) / 2))
    }

    private func table(_ colorimetry: Colorimetry) -> JPEGRemapCoefficients {
        if let coefficients, coefficients.colorimetry == colorimetry { return coefficients.table }
        let table = JPEGRemapCoefficients(colorimetry)
        coefficients = (colorimetry, table)
        return table
    }

    /// Every row pair: the vector kernel over whole 32-pixel steps, the scalar one over the rest
    /// (the one place tails are handled). `luma` nil: chroma alone.
    private func remapRows(
        _ frame: FrameGeometry, table: JPEGRemapCoefficients, luma: UnsafeMutablePointer<UInt8>?,
        cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>
    ) {
        var k = table.c
        let width = frame.width, lumaStride = Self.padded(width), chromaStride = Self.padded((width + 1) / 2)
        let vectorWidth = kernel == .avx2 ? width - width % Int(ED_JPEG_AVX2_PIXELS) : 0
        for row in stride(from: 0, to: frame.height, by: 2) {
            let pair = row + 1 < frame.height
            let y0 = luma == nil ? nil : frame.luma + row * frame.lumaStride
            let y1 = pair ? y0.map { $0 + frame.lumaStride } : nil
            let dy0 = luma.map { $0 + row * lumaStride }
            let dy1 = pair ? dy0.map { $0 + lumaStride } : nil
            let source = (row / 2) * frame.chromaStride, destination = (row / 2) * chromaStride
            let (scb, scr, dcb, dcr) = (frame.cb + source, frame.cr + source, cb + destination, cr + destination)
            #if arch(x86_64)
                if vectorWidth > 0 {
                    ed_jpeg_rows_avx2(y0, y1, scb, scr, frame.chromaStep, dy0, dy1, dcb, dcr, vectorWidth, &k)
                }
            #endif
            ed_jpeg_rows_scalar(y0, y1, scb, scr, frame.chromaStep, dy0, dy1, dcb, dcr, vectorWidth, width, &k)
        }
    }
}
