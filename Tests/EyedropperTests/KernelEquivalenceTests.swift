import Eyedropper
import EyedropperTestSupport
import Testing

@Suite struct KernelEquivalenceTests {
    /// Every vector kernel writes the scalar kernel's bytes, for widths 1...130 (every tail length
    /// of every kernel), odd heights, padded and packed strides, buffers flush against a guard page
    /// at either end, and leaves the stride padding untouched. One test per kernel, so a kernel
    /// this CPU cannot run is reported as skipped, by name, never passed unseen.
    @Test(arguments: PixelLayout.allCases, RGBLayout.allCases)
    func simdKernelMatchesScalarBitForBit(layout: PixelLayout, format: RGBLayout) throws {
        try expectScalarBytes(from: .simd, layout: layout, format: format)
    }

    @Test(
        .enabled(if: ConversionKernel.avx2.isSupported, "this CPU lacks AVX2: the avx2 kernel is not tested here"),
        arguments: PixelLayout.allCases, RGBLayout.allCases)
    func avx2KernelMatchesScalarBitForBit(layout: PixelLayout, format: RGBLayout) throws {
        try expectScalarBytes(from: .avx2, layout: layout, format: format)
    }

    @Test(
        .enabled(if: ConversionKernel.avx512.isSupported, "this CPU lacks AVX-512 BW or VBMI: the avx512 kernel is not tested here"),
        arguments: PixelLayout.allCases, RGBLayout.allCases)
    func avx512KernelMatchesScalarBitForBit(layout: PixelLayout, format: RGBLayout) throws {
        try expectScalarBytes(from: .avx512, layout: layout, format: format)
    }

    /// The same with streamed (non-temporal) stores, which the converter uses past the cache: rows
    /// 64-byte aligned (a page-aligned start, strides padded to 64), where the kernels stream, and
    /// rows that end against the trailing guard page, whose start is mostly not aligned, where they
    /// must not stream (a streamed store to an unaligned address faults) but store through the cache.
    @Test(
        .enabled(if: ConversionKernel.avx2.isSupported, "this CPU lacks AVX2: the avx2 kernel's streamed stores are not tested here"),
        arguments: PixelLayout.allCases, RGBLayout.allCases)
    func avx2StreamedStoresMatchScalarBitForBit(layout: PixelLayout, format: RGBLayout) throws {
        try expectScalarBytes(from: .avx2, layout: layout, format: format, streamed: true)
    }

    @Test(
        .enabled(
            if: ConversionKernel.avx512.isSupported,
            "this CPU lacks AVX-512 BW or VBMI: the avx512 kernel's streamed stores are not tested here"),
        arguments: PixelLayout.allCases, RGBLayout.allCases)
    func avx512StreamedStoresMatchScalarBitForBit(layout: PixelLayout, format: RGBLayout) throws {
        try expectScalarBytes(from: .avx512, layout: layout, format: format, streamed: true)
    }

    private func expectScalarBytes(
        from kernel: ConversionKernel, layout: PixelLayout, format: RGBLayout, streamed: Bool = false
    ) throws {
        for colorimetry in [Colorimetry.bt601Limited, .bt709Full] {
            let scalar = YCbCrConverter(colorimetry: colorimetry, kernel: .scalar)
            var converter = YCbCrConverter(colorimetry: colorimetry, kernel: kernel)
            converter.streamsAtAnySize = streamed
            for width in 1...130 {
                let toAligned = (64 - width * format.bytesPerPixel % 64) % 64
                let shapes: [(Int, Int, GuardedBuffer.Placement)] =
                    streamed
                    ? [(2, toAligned, .flushStart), (5, toAligned, .flushStart), (4, toAligned, .flushEnd)]
                    : [(1, 0, .flushEnd), (3, 5, .flushStart), (5, 1, .flushEnd)]
                for (height, padding, placement) in shapes {
                    let source = GuardedFrame(
                        layout: layout, width: width, height: height, padding: padding, placement: placement,
                        seed: UInt64(width * 1000 + height))
                    let expected = try convertGuarded(source, converter: scalar, format: format, padding: padding, placement: placement)
                    // Padding bytes keep the sentinel: the scalar kernel writes only pixels.
                    let rowBytes = width * format.bytesPerPixel
                    for row in 0..<(height - 1) {
                        let padStart = row * (rowBytes + padding) + rowBytes
                        #expect(expected[padStart..<(padStart + padding)].allSatisfy { $0 == 0xA5 })
                    }
                    let actual = try convertGuarded(source, converter: converter, format: format, padding: padding, placement: placement)
                    #expect(actual == expected, "\(kernel) \(layout) -> \(format), \(width)x\(height), padding \(padding), \(colorimetry)")
                }
            }
        }
    }

    /// The same frame in each layout converts to the same pixels.
    @Test func layoutsAgree() throws {
        let pattern = try TestPattern(width: 67, height: 41)
        var outputs: [[UInt8]] = []
        for layout in PixelLayout.allCases {
            let buffer = try pattern.makeFrameBuffer(layout: layout)
            var rgb = [UInt8](repeating: 0, count: 67 * 41 * 3)
            try buffer.withFrame { frame in
                try rgb.withUnsafeMutableBytes { try YCbCrConverter(colorimetry: pattern.colorimetry).convert(frame, to: .rgb24, into: $0) }
            }
            outputs.append(rgb)
        }
        #expect(outputs.allSatisfy { $0 == outputs[0] })
    }

    /// BGRA is RGBA with red and blue swapped; RGB24 is RGBA without alpha.
    @Test func outputFormatsHoldTheSameColours() throws {
        let source = GuardedFrame(layout: .i420, width: 99, height: 7, padding: 0, placement: .flushEnd, seed: 7)
        let converter = YCbCrConverter(colorimetry: .bt709Limited)
        let rgba = try convertGuarded(source, converter: converter, format: .rgba, padding: 0, placement: .flushEnd)
        let bgra = try convertGuarded(source, converter: converter, format: .bgra, padding: 0, placement: .flushEnd)
        let rgb = try convertGuarded(source, converter: converter, format: .rgb24, padding: 0, placement: .flushEnd)
        for pixel in 0..<(99 * 7) {
            let p = rgba[(4 * pixel)..<(4 * pixel + 4)]
            #expect(Array(p) == [rgb[3 * pixel], rgb[3 * pixel + 1], rgb[3 * pixel + 2], 255])
            #expect(Array(bgra[(4 * pixel)..<(4 * pixel + 4)]) == [p[p.startIndex + 2], p[p.startIndex + 1], p[p.startIndex], 255])
        }
    }
}
