import Eyedropper
import Testing

@Suite struct FrameGeometryTests {
    private func frame(
        _ layout: PixelLayout = .i420, width: Int = 64, height: Int = 48, strides: [Int]? = nil, sizes: [Int]? = nil
    ) throws(FrameGeometryError) {
        let strides = strides ?? (layout.isSemiPlanar ? [width, width] : [width, width / 2, width / 2])
        let sizes = sizes ?? strides.enumerated().map { $0.element * ($0.offset == 0 ? height : height / 2) }
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: sizes.reduce(0, +), alignment: 16)
        defer { memory.deallocate() }
        var planes: [Plane] = [], offset = 0
        for (stride, size) in zip(strides, sizes) {
            planes.append(Plane(bytes: UnsafeRawBufferPointer(rebasing: memory[offset..<(offset + size)]), stride: stride))
            offset += size
        }
        _ = try PlanarFrame(
            layout: layout, width: width, height: height, colorimetry: .bt601Limited,
            planes: planes[0], planes[1], planes.count > 2 ? planes[2] : nil)
    }

    @Test func wellFormedFramesAreAccepted() throws {
        for layout in PixelLayout.allCases { try frame(layout) }
        // Odd sizes: chroma is ceil(w/2) x ceil(h/2).
        try frame(.i420, width: 5, height: 3, strides: [5, 3, 3], sizes: [15, 6, 6])
        try frame(.nv12, width: 5, height: 3, strides: [5, 6], sizes: [15, 12])
    }

    @Test func zeroOrNegativeSizeIsRefused() {
        #expect(throws: FrameGeometryError.nonPositiveSize(width: 0, height: 48)) { try frame(width: 0) }
        #expect(throws: FrameGeometryError.nonPositiveSize(width: 64, height: -2)) {
            try frame(height: -2, strides: [64, 32, 32], sizes: [64, 32, 32])
        }
    }

    @Test func shortStrideNamesThePlane() {
        #expect(throws: FrameGeometryError.strideTooShort(plane: "Y", stride: 63, rowBytes: 64)) {
            try frame(strides: [63, 32, 32], sizes: [63 * 48, 32 * 24, 32 * 24])
        }
        // Odd width 5 needs 3 chroma samples per row; interleaved, 6 bytes.
        #expect(throws: FrameGeometryError.strideTooShort(plane: "CbCr", stride: 5, rowBytes: 6)) {
            try frame(.nv12, width: 5, height: 3, strides: [5, 5], sizes: [15, 10])
        }
        #expect(throws: FrameGeometryError.strideTooShort(plane: "Cr", stride: 2, rowBytes: 3)) {
            try frame(.yv12, width: 5, height: 3, strides: [5, 2, 2], sizes: [15, 4, 4])
        }
    }

    @Test func smallBufferNamesThePlaneAndTheNumbers() {
        #expect(throws: FrameGeometryError.bufferTooSmall(plane: "Cr", bytes: 767, needed: 768)) {
            try frame(sizes: [64 * 48, 32 * 24, 32 * 24 - 1])
        }
        let error = FrameGeometryError.bufferTooSmall(plane: "Cr", bytes: 767, needed: 768)
        #expect(error.description == "Cr plane: buffer holds 767 bytes but the declared size needs 768")
    }

    @Test func lastRowNeedNotBePadded() throws {
        // Stride 80 for a 64-pixel row: the last row ends 16 bytes before a whole stride would.
        try frame(strides: [80, 40, 40], sizes: [80 * 47 + 64, 40 * 23 + 32, 40 * 23 + 32])
    }

    @Test func packedBufferTooSmallIsRefused() {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 100, alignment: 1)
        defer { bytes.deallocate() }
        #expect(throws: FrameGeometryError.bufferTooSmall(plane: "Y", bytes: 100, needed: 160)) {
            _ = try PlanarFrame(layout: .nv12, width: 16, height: 10, colorimetry: .bt709Limited, packedIn: UnsafeRawBufferPointer(bytes))
        }
    }

    @Test func destinationTooSmallIsRefusedBeforeWriting() throws {
        let buffer = try TestPattern(width: 8, height: 4).makeFrameBuffer()
        var rgb = [UInt8](repeating: 7, count: 8 * 4 * 3 - 1)
        #expect(throws: FrameGeometryError.bufferTooSmall(plane: "output rgb24", bytes: 95, needed: 96)) {
            try buffer.withFrame { frame in
                try rgb.withUnsafeMutableBytes { try YCbCrConverter(colorimetry: .bt601Limited).convert(frame, to: .rgb24, into: $0) }
            }
        }
        #expect(rgb.allSatisfy { $0 == 7 })
    }
}
