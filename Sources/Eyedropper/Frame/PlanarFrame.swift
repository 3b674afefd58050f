/// A view of one YCbCr 4:2:0 frame over memory it does not own.
///
/// The view is non-copyable and only ever handed out borrowed, inside a closure
/// (`FrameBuffer.withFrame`, a capture device's frame callback), so it cannot outlive the memory
/// it points at: the compiler rejects storing or returning it. Geometry is validated once, here;
/// the kernels trust it.
public struct PlanarFrame: ~Copyable {
    public let layout: PixelLayout
    /// What the source reports the frame's colorimetry to be.
    public let colorimetry: Colorimetry
    package let geometry: FrameGeometry

    public var width: Int { geometry.width }
    public var height: Int { geometry.height }

    /// A frame over separate planes in memory order: Y, Cb, Cr (I420); Y, Cr, Cb (YV12);
    /// Y, CbCr (NV12); Y, CrCb (NV21).
    public init(
        layout: PixelLayout, width: Int, height: Int, colorimetry: Colorimetry,
        planes plane0: Plane, _ plane1: Plane, _ plane2: Plane? = nil
    ) throws(FrameGeometryError) {
        guard width > 0, height > 0 else { throw .nonPositiveSize(width: width, height: height) }
        let given = plane2 == nil ? 2 : 3
        guard given == layout.planeCount else { throw .wrongPlaneCount(layout: layout, given: given) }
        func validate(_ plane: Plane, _ index: Int) throws(FrameGeometryError) {
            try plane.validate(
                name: layout.planeName(index), rowBytes: layout.rowBytes(plane: index, width: width),
                rows: layout.rows(plane: index, height: height))
        }
        try validate(plane0, 0)
        try validate(plane1, 1)
        if let plane2 {
            try validate(plane2, 2)
            // Eyedropper's kernels step both chroma planes by one stride.
            guard plane2.stride == plane1.stride else {
                throw .chromaStridesDiffer(first: plane1.stride, second: plane2.stride)
            }
        }
        self.layout = layout
        self.colorimetry = colorimetry
        self.geometry = FrameGeometry(layout: layout, width: width, height: height, plane0, plane1, plane2)
    }

    /// A frame whose planes follow each other in one buffer, as V4L2's single-plane formats and
    /// YUV4MPEG2 store them: chroma strides are derived from `lumaStride` (default: `width`).
    public init(
        layout: PixelLayout, width: Int, height: Int, colorimetry: Colorimetry,
        packedIn buffer: UnsafeRawBufferPointer, lumaStride: Int? = nil
    ) throws(FrameGeometryError) {
        guard width > 0, height > 0 else { throw .nonPositiveSize(width: width, height: height) }
        let lumaStride = lumaStride ?? width
        var planes: (Plane?, Plane?, Plane?) = (nil, nil, nil)
        var offset = 0
        for index in 0..<layout.planeCount {
            let stride = layout.packedStride(plane: index, lumaStride: lumaStride)
            let size = stride * layout.rows(plane: index, height: height)
            let start = min(offset, buffer.count)
            // The last plane may end short of its stride padding; `Plane.validate` checks what is needed.
            let slice = UnsafeRawBufferPointer(rebasing: buffer[start..<min(offset + size, buffer.count)])
            let plane = Plane(bytes: slice, stride: stride)
            switch index {
            case 0: planes.0 = plane
            case 1: planes.1 = plane
            default: planes.2 = plane
            }
            offset += size
        }
        try self.init(
            layout: layout, width: width, height: height, colorimetry: colorimetry,
            planes: planes.0!, planes.1!, planes.2)
    }

    /// This frame's memory lent to `body` as a frame of `colorimetry`: for a source whose report
    /// is overridden (`--matrix`, `--range`), so every consumer reads one `colorimetry`.
    public func withColorimetry<R>(_ colorimetry: Colorimetry, _ body: (borrowing PlanarFrame) throws -> R) rethrows -> R {
        try body(PlanarFrame(layout: layout, colorimetry: colorimetry, geometry: geometry))
    }

    private init(layout: PixelLayout, colorimetry: Colorimetry, geometry: FrameGeometry) {
        self.layout = layout
        self.colorimetry = colorimetry
        self.geometry = geometry
    }

    /// The bytes a tightly packed frame of this size and layout occupies.
    public static func packedByteCount(layout: PixelLayout, width: Int, height: Int) -> Int {
        (0..<layout.planeCount).reduce(0) { total, index in
            total + layout.rowBytes(plane: index, width: width) * layout.rows(plane: index, height: height)
        }
    }

    /// The Y, Cb and Cr values at pixel (`x`, `y`), chroma taken nearest.
    public func sample(x: Int, y: Int) -> YCbCr8 {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside \(width)x\(height)")
        return geometry.sample(x: x, y: y)
    }
}

/// The validated pointers of a frame: what the kernels and the threads sharing its chunks read.
///
/// Sendable only so that one conversion can spread its rows over worker threads that all finish
/// before the conversion returns, while the frame is still borrowed.
package struct FrameGeometry: @unchecked Sendable {
    package let width: Int
    package let height: Int
    package let luma: UnsafePointer<UInt8>
    package let lumaStride: Int
    package let cb: UnsafePointer<UInt8>
    package let cr: UnsafePointer<UInt8>
    package let chromaStride: Int
    /// 1 for separate Cb and Cr planes, 2 when they are interleaved.
    package let chromaStep: Int

    init(layout: PixelLayout, width: Int, height: Int, _ plane0: Plane, _ plane1: Plane, _ plane2: Plane?) {
        func base(_ plane: Plane) -> UnsafePointer<UInt8> {
            plane.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        }
        self.width = width
        self.height = height
        luma = base(plane0)
        lumaStride = plane0.stride
        chromaStride = plane1.stride
        switch layout {
        case .i420: (cb, cr, chromaStep) = (base(plane1), base(plane2!), 1)
        case .yv12: (cr, cb, chromaStep) = (base(plane1), base(plane2!), 1)
        case .nv12: (cb, cr, chromaStep) = (base(plane1), base(plane1) + 1, 2)
        case .nv21: (cr, cb, chromaStep) = (base(plane1), base(plane1) + 1, 2)
        }
    }

    func sample(x: Int, y: Int) -> YCbCr8 {
        let chroma = (y / 2) * chromaStride + (x / 2) * chromaStep
        return YCbCr8(y: luma[y * lumaStride + x], cb: cb[chroma], cr: cr[chroma])
    }
}
