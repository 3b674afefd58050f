import Eyedropper

/// Random 4:2:0 planes in guarded memory, with a chosen stride padding and placement.
public struct GuardedFrame {
    public let layout: PixelLayout
    public let width: Int
    public let height: Int
    public let buffers: [GuardedBuffer]
    public let strides: [Int]

    public init(layout: PixelLayout, width: Int, height: Int, padding: Int, placement: GuardedBuffer.Placement, seed: UInt64) {
        var random = TestRandom(seed: seed)
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        var buffers: [GuardedBuffer] = [], strides: [Int] = []
        let shapes =
            layout.isSemiPlanar
            ? [(width, height), (2 * chromaWidth, chromaHeight)]
            : [(width, height), (chromaWidth, chromaHeight), (chromaWidth, chromaHeight)]
        for (rowBytes, rows) in shapes {
            let stride = rowBytes + padding
            // The last row is not padded, so the guard page sits right after its last byte.
            let buffer = GuardedBuffer(count: stride * (rows - 1) + rowBytes, placement: placement)
            random.fill(buffer.bytes)
            buffers.append(buffer)
            strides.append(stride)
        }
        self.layout = layout
        self.width = width
        self.height = height
        self.buffers = buffers
        self.strides = strides
    }

    public func withFrame<R>(_ body: (borrowing PlanarFrame) throws -> R) throws -> R {
        func plane(_ index: Int) -> Plane {
            Plane(bytes: UnsafeRawBufferPointer(buffers[index].bytes), stride: strides[index])
        }
        let frame = try PlanarFrame(
            layout: layout, width: width, height: height, colorimetry: .bt601Limited,
            planes: plane(0), plane(1), buffers.count == 3 ? plane(2) : nil)
        return try body(frame)
    }
}

/// Converts into guarded memory pre-filled with a sentinel and returns every byte, padding included.
public func convertGuarded(
    _ source: GuardedFrame, converter: YCbCrConverter, format: RGBLayout, padding: Int,
    placement: GuardedBuffer.Placement
) throws -> [UInt8] {
    let rowBytes = source.width * format.bytesPerPixel
    let stride = rowBytes + padding
    let output = GuardedBuffer(count: stride * (source.height - 1) + rowBytes, placement: placement)
    output.bytes.initializeMemory(as: UInt8.self, repeating: 0xA5)
    try source.withFrame { frame in
        try converter.convert(frame, to: format, into: output.bytes, stride: stride)
    }
    return Array(output.bytes)
}
