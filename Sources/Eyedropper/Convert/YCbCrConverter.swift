import CEyedropperKernels

/// Converts YCbCr 4:2:0 frames to packed RGB with one matrix and range.
///
/// A value type with no buffers of its own: the caller owns the destination, so any number of
/// threads can share one converter.
public struct YCbCrConverter: Hashable, Sendable {
    public let colorimetry: Colorimetry
    public let kernel: ConversionKernel
    let coefficients: FixedPointCoefficients
    /// Tests only: stream the stores wherever the destination is aligned, whatever the frame's
    /// size, so that the streamed path runs on frames small enough to check pixel by pixel.
    package var streamsAtAnySize = false

    /// A converter for `colorimetry` using `kernel`, which must be supported by this CPU.
    public init(colorimetry: Colorimetry, kernel: ConversionKernel = .best) {
        precondition(kernel.isSupported, "the \(kernel.rawValue) kernel needs a CPU feature this machine lacks")
        self.colorimetry = colorimetry
        self.kernel = kernel
        self.coefficients = FixedPointCoefficients(colorimetry)
    }

    /// Converts `frame` into `destination`, rows `stride` bytes apart (default: tightly packed).
    ///
    /// Throws before writing anything if the destination is too small for the frame.
    public func convert(
        _ frame: borrowing PlanarFrame, to layout: RGBLayout,
        into destination: UnsafeMutableRawBufferPointer, stride: Int? = nil
    ) throws(FrameGeometryError) {
        let target = try RGBDestination(
            destination, layout: layout, width: frame.width, height: frame.height, stride: stride)
        convertRows(frame.geometry, 0..<frame.height, into: target)
    }

    /// Converts rows `rows` (starting at an even row, so chroma rows are not split) of a validated frame.
    func convertRows(_ frame: FrameGeometry, _ rows: Range<Int>, into target: RGBDestination) {
        precondition(rows.lowerBound % 2 == 0, "chunks of rows start on even rows")
        switch target.layout {
        case .rgb24: convertRows(frame, rows, into: target, RGB24Packer.self)
        case .rgba: convertRows(frame, rows, into: target, RGBAPacker.self)
        case .bgra: convertRows(frame, rows, into: target, BGRAPacker.self)
        }
    }

    private func convertRows<Packer: PixelPacker>(
        _ frame: FrameGeometry, _ rows: Range<Int>, into target: RGBDestination, _ packer: Packer.Type
    ) {
        let width = frame.width
        let (pairs, stream) = plan(frame, target)
        #if arch(x86_64)
            var table = coefficients.c
        #endif
        var row = rows.lowerBound
        while row < rows.upperBound {
            let pairRows = pairs ? min(2, rows.upperBound - row) : 1
            let chromaOffset = (row / 2) * frame.chromaStride
            let cb = frame.cb + chromaOffset, cr = frame.cr + chromaOffset
            let vectorWidth = kernel.vectorStep.map { width - width % $0 } ?? 0
            #if arch(x86_64)
                if let rows = kernel.cRows, vectorWidth > 0 {
                    let y0 = frame.luma + row * frame.lumaStride, dst0 = target.row(row)
                    let y1 = pairRows == 2 ? y0 + frame.lumaStride : nil
                    let dst1 = pairRows == 2 ? target.row(row + 1) : nil
                    if frame.chromaStep == 1 {
                        rows.planar(y0, y1, cb, cr, dst0, dst1, vectorWidth, &table, Packer.layout.c, stream ? 1 : 0)
                    } else {
                        rows.interleaved(
                            y0, y1, min(cb, cr), cr < cb ? 1 : 0, dst0, dst1, vectorWidth, &table, Packer.layout.c, stream ? 1 : 0)
                    }
                }
            #endif
            for line in row..<(row + pairRows) {
                let y = frame.luma + line * frame.lumaStride, dst = target.row(line)
                if kernel == .simd {
                    RowKernels.simd(
                        packer, y: y, cb: cb, cr: cr, chromaStep: frame.chromaStep, dst: dst,
                        count: vectorWidth, coefficients)
                }
                // The one place row tails are handled, for every kernel: the pixels after the last
                // full vector step (all of them for the scalar kernel).
                RowKernels.scalar(
                    packer, y: y, cb: cb, cr: cr, chromaStep: frame.chromaStep, dst: dst,
                    from: vectorWidth, to: width, coefficients)
            }
            row += pairRows
        }
    }

    /// How the C kernels write a frame: one row or two per call, through the cache or streamed.
    ///
    /// Past the cache (source and output more than half the last-level cache), streamed stores
    /// write each output line without first reading it in (read-for-ownership), which is half the
    /// write traffic. They need destination rows aligned to 64 bytes: a buffer from
    /// `allocate(byteCount:alignment: 64)` and a width that is a multiple of 64 pixels (16 for
    /// RGBA). Within the cache, cached stores win: the output stays there for whatever reads it next.
    ///
    /// Two rows per call compute the shared chroma row's terms once. That pays within the cache
    /// and with streamed stores, but with cached stores past the cache the two interleaved store
    /// streams cost more than the chroma work saves. Measured in docs/performance.md, Past the cache.
    private func plan(_ frame: FrameGeometry, _ target: RGBDestination) -> (pairs: Bool, stream: Bool) {
        let traffic =
            frame.height * (frame.lumaStride + frame.chromaStride / 2 * (3 - frame.chromaStep))
            + frame.height * target.stride
        let pastCache = traffic > CPUCache.lastLevelBytes / 2
        let aligned = Int(bitPattern: target.base) % 64 == 0 && target.stride % 64 == 0
        let stream = aligned && (pastCache || streamsAtAnySize)
        return (stream || !pastCache, stream)
    }
}

/// A validated destination for packed RGB rows.
struct RGBDestination: @unchecked Sendable {
    let base: UnsafeMutablePointer<UInt8>
    let stride: Int
    let layout: RGBLayout

    init(
        _ buffer: UnsafeMutableRawBufferPointer, layout: RGBLayout, width: Int, height: Int, stride: Int?
    ) throws(FrameGeometryError) {
        let rowBytes = width * layout.bytesPerPixel
        let stride = stride ?? rowBytes
        let plane = Plane(bytes: UnsafeRawBufferPointer(buffer), stride: stride)
        try plane.validate(name: "output \(layout.rawValue)", rowBytes: rowBytes, rows: height)
        self.base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        self.stride = stride
        self.layout = layout
    }

    func row(_ index: Int) -> UnsafeMutablePointer<UInt8> { base + index * stride }
}
