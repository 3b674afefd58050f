/// Memory for one tightly packed frame, allocated once and reused for every frame of a source.
///
/// Not `Sendable`: one owner fills it and reads it. Frames are lent out with `withFrame`.
public final class FrameBuffer {
    public let layout: PixelLayout
    public let width: Int
    public let height: Int
    /// What the frame's source reports; sources update it when a stream says otherwise.
    public var colorimetry: Colorimetry
    /// The packed planes: Y, then chroma, in the layout's order. Internal: a pointer that outlives
    /// its buffer is the bug this type exists to prevent; callers use `withUnsafeMutableBytes`.
    let bytes: UnsafeMutableRawBufferPointer

    /// A frame of zeros (black luma, no chroma).
    public convenience init(layout: PixelLayout, width: Int, height: Int, colorimetry: Colorimetry) throws(FrameGeometryError) {
        try self.init(layout: layout, width: width, height: height, colorimetry: colorimetry, zeroed: true)
    }

    /// `zeroed: false` leaves the memory as the allocator gives it, for a source that fills every
    /// byte before it lends the frame: the pages of a large frame are then taken only as its data
    /// arrives, so a file whose header promises a huge frame and ends early costs what it holds.
    package init(layout: PixelLayout, width: Int, height: Int, colorimetry: Colorimetry, zeroed: Bool) throws(FrameGeometryError) {
        guard width > 0, height > 0 else { throw .nonPositiveSize(width: width, height: height) }
        self.layout = layout
        self.width = width
        self.height = height
        self.colorimetry = colorimetry
        bytes = .allocate(
            byteCount: PlanarFrame.packedByteCount(layout: layout, width: width, height: height), alignment: 64)
        if zeroed { bytes.initializeMemory(as: UInt8.self, repeating: 0) }
    }

    deinit { bytes.deallocate() }

    /// Lends the frame to `body`; the frame cannot escape it.
    public func withFrame<R>(_ body: (borrowing PlanarFrame) throws -> R) rethrows -> R {
        let frame: PlanarFrame
        do {
            frame = try PlanarFrame(
                layout: layout, width: width, height: height, colorimetry: colorimetry,
                packedIn: UnsafeRawBufferPointer(bytes))
        } catch {
            preconditionFailure("a FrameBuffer always holds a whole frame: \(error)")
        }
        return try body(frame)
    }

    /// The bytes of the packed planes, in `PlanarFrame.packedIn` order, lent to `body`.
    public func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(bytes) }
    }

    /// Writes one pixel's Y and its chroma sample (shared with the other pixels of its 2x2 block).
    public func set(x: Int, y: Int, to sample: YCbCr8) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside \(width)x\(height)")
        let lumaBytes = width * height
        let chromaWidth = (width + 1) / 2, chromaRows = (height + 1) / 2
        let c = (y / 2) * chromaWidth + x / 2
        bytes[y * width + x] = sample.y
        switch layout {
        case .i420:
            bytes[lumaBytes + c] = sample.cb
            bytes[lumaBytes + chromaWidth * chromaRows + c] = sample.cr
        case .yv12:
            bytes[lumaBytes + c] = sample.cr
            bytes[lumaBytes + chromaWidth * chromaRows + c] = sample.cb
        case .nv12:
            bytes[lumaBytes + 2 * c] = sample.cb
            bytes[lumaBytes + 2 * c + 1] = sample.cr
        case .nv21:
            bytes[lumaBytes + 2 * c] = sample.cr
            bytes[lumaBytes + 2 * c + 1] = sample.cb
        }
    }
}
