import Eyedropper
import EyedropperJPEG
import EyedropperTestSupport
import Testing

/// JPEG's Y'CbCr (BT.601 full range) of one sample, exactly: the frame's exact R'G'B' (unrounded,
/// unclamped) through BT.601's definition, so it owes nothing to the remap's own derivation.
private func exactJPEG(_ colorimetry: Colorimetry, _ sample: YCbCr8) -> (y: Double, cb: Double, cr: Double) {
    let (r, g, b) = colorimetry.exactRGBUnrounded(sample)
    let y = 0.299 * r + 0.587 * g + 0.114 * b
    return (y, (b - y) / 1.772 + 128, (r - y) / 1.402 + 128)
}

private func level(_ value: Double) -> Int { Int(min(max(value.rounded(.toNearestOrAwayFromZero), 0), 255)) }

/// The planes a buffer lends, each packed tightly.
private func packedPlanes(_ buffer: JPEGPlaneBuffer) -> (y: [UInt8], cb: [UInt8], cr: [UInt8]) {
    buffer.withPlanes { planes in
        let chromaWidth = (planes.width + 1) / 2, chromaHeight = (planes.height + 1) / 2
        func pack(_ base: UnsafePointer<UInt8>, _ width: Int, _ height: Int, _ stride: Int) -> [UInt8] {
            (0..<height).flatMap { row in UnsafeBufferPointer(start: base + row * stride, count: width) }
        }
        return (
            pack(planes.luma, planes.width, planes.height, planes.lumaStride),
            pack(planes.cb, chromaWidth, chromaHeight, planes.chromaStride),
            pack(planes.cr, chromaWidth, chromaHeight, planes.chromaStride)
        )
    }
}

@Suite(.serialized, .oneHeavySuiteAtATime) struct JPEGPlaneTests {
    /// Every output of all 2^24 inputs is within one level of the exact map, for every matrix and
    /// range; the AVX2 kernel writes the scalar kernel's bytes. Prints the error histograms. (A
    /// 256th of the inputs in a debug build: `ExhaustiveSweep`.)
    @Test(arguments: Colorimetry.all)
    func everyInputWithinOneLevelOfExact(colorimetry: Colorimetry) async throws {
        let sweep = try await ExhaustiveSweep.run { try Self.sweep(colorimetry) }
        if let avx2Differs = sweep.avx2Differs {
            #expect(!avx2Differs, "avx2 differs from scalar for \(colorimetry)")
        } else {
            print("\(colorimetry): this CPU cannot run the avx2 remap kernel: not compared")
        }
        for (name, histogram) in zip(["Y'", "Cb'", "Cr'"], sweep.histograms) {
            let counts = histogram.enumerated().filter { $0.element > 0 }.map { "\($0.offset - 255): \($0.element)" }
            let exactShare = (Double(histogram[255]) / Double(histogram.reduce(0, +)) * 10000).rounded() / 100
            print(
                "\(colorimetry) -> JPEG \(name) (\(ExhaustiveSweep.scope)): error histogram (levels: samples) \(counts.joined(separator: ", ")); \(exactShare)% exact"
            )
        }
        #expect(sweep.worst <= 1, "\(colorimetry): an output is \(sweep.worst) levels off the exact map")
    }

    /// What one colorimetry's sweep found: whether the AVX2 kernel's planes differ from the scalar
    /// kernel's (nil: not run here), the error histograms of Y', Cb' and Cr' (offset by 255), the
    /// largest error.
    struct Sweep: Sendable {
        var avx2Differs: Bool?
        var histograms = [[Int]](repeating: [Int](repeating: 0, count: 511), count: 3)
        var worst = 0
    }

    static func sweep(_ colorimetry: Colorimetry) throws -> Sweep {
        var sweep = Sweep()
        let frame = try makeAllTriples(colorimetry: colorimetry)
        let side = frame.width, chromaSide = side / 2
        var outputs: [JPEGRemapKernel: (y: [UInt8], cb: [UInt8], cr: [UInt8])] = [:]
        for kernel in JPEGRemapKernel.allCases where kernel.isSupported {
            let buffer = JPEGPlaneBuffer(kernel: kernel)
            frame.withFrame { buffer.remap($0) }
            outputs[kernel] = packedPlanes(buffer)
        }
        let scalar = outputs[.scalar]!
        sweep.avx2Differs = outputs[.avx2].map { $0.y != scalar.y || $0.cb != scalar.cb || $0.cr != scalar.cr }
        // The exact map is linear: its luma is a term in Y plus a term in (Cb, Cr), tabled once each.
        let lumaTerm = (0..<256).map { exactJPEG(colorimetry, YCbCr8(y: UInt8($0), cb: 128, cr: 128)).y }
        var chromaTerms = [(y: Double, cb: Double, cr: Double)](repeating: (0, 0, 0), count: 1 << 16)
        for cb in 0..<256 {
            for cr in 0..<256 {
                let exact = exactJPEG(colorimetry, YCbCr8(y: 0, cb: UInt8(cb), cr: UInt8(cr)))
                chromaTerms[cb << 8 | cr] = (exact.y - lumaTerm[0], exact.cb, exact.cr)
            }
        }
        func count(_ plane: Int, _ output: UInt8, _ exact: Double) {
            let error = Int(output) - level(exact)
            sweep.histograms[plane][error + 255] += 1
            sweep.worst = max(sweep.worst, abs(error))
        }
        frame.withFrame { source in
            for y in 0..<side {
                for x in 0..<side {
                    let sample = source.sample(x: x, y: y)
                    count(0, scalar.y[y * side + x], lumaTerm[Int(sample.y)] + chromaTerms[Int(sample.cb) << 8 | Int(sample.cr)].y)
                }
            }
            for cy in 0..<chromaSide {
                for cx in 0..<chromaSide {
                    let sample = source.sample(x: 2 * cx, y: 2 * cy), exact = chromaTerms[Int(sample.cb) << 8 | Int(sample.cr)]
                    count(1, scalar.cb[cy * chromaSide + cx], exact.cb)
                    count(2, scalar.cr[cy * chromaSide + cx], exact.cr)
                }
            }
        }
        return sweep
    }

    /// The AVX2 kernel writes the scalar kernel's bytes for widths 1...130 (every tail length),
    /// odd heights, padded and packed strides, every layout, sources flush against a guard page at
    /// either end; and the scalar kernel's every pixel is within a level of the exact map of its
    /// own luma and its block's co-sited chroma sample.
    @Test(
        .enabled(if: JPEGRemapKernel.avx2.isSupported, "this CPU lacks AVX2: the avx2 remap kernel is not tested here"),
        arguments: PixelLayout.allCases)
    func avx2KernelMatchesScalarBitForBit(layout: PixelLayout) throws {
        let scalar = JPEGPlaneBuffer(kernel: .scalar), avx2 = JPEGPlaneBuffer(kernel: .avx2)
        for colorimetry in [Colorimetry.bt601Limited, .bt709Full, Colorimetry(matrix: .bt2020, range: .limited)] {
            for width in 1...130 {
                for (height, padding, placement) in [(1, 0, GuardedBuffer.Placement.flushEnd), (3, 5, .flushStart), (6, 1, .flushEnd)] {
                    let source = GuardedFrame(
                        layout: layout, width: width, height: height, padding: padding, placement: placement,
                        seed: UInt64(width * 1000 + height))
                    try source.withFrame { frame in
                        frame.withColorimetry(colorimetry) { frame in
                            scalar.remap(frame)
                            avx2.remap(frame)
                        }
                    }
                    let expected = packedPlanes(scalar), actual = packedPlanes(avx2)
                    #expect(
                        actual.y == expected.y && actual.cb == expected.cb && actual.cr == expected.cr,
                        "\(layout), \(width)x\(height), padding \(padding), \(colorimetry)")
                    var worst = 0
                    try source.withFrame { frame in
                        for y in 0..<height {
                            for x in 0..<width {
                                let exact = exactJPEG(colorimetry, frame.sample(x: x, y: y))
                                worst = max(worst, abs(Int(expected.y[y * width + x]) - level(exact.y)))
                                if x % 2 == 0 && y % 2 == 0 {
                                    let chroma = (y / 2) * ((width + 1) / 2) + x / 2
                                    worst = max(worst, abs(Int(expected.cb[chroma]) - level(exact.cb)))
                                    worst = max(worst, abs(Int(expected.cr[chroma]) - level(exact.cr)))
                                }
                            }
                        }
                    }
                    #expect(worst <= 1, "\(layout), \(width)x\(height), \(colorimetry): \(worst) levels off")
                }
            }
        }
    }

    /// A BT.601 full-range frame is JPEG's already: planar layouts are handed over as they are (no
    /// copy), interleaved ones keep their luma and have only their chroma separated; every layout
    /// lends the same bytes as a remap (whose identity map is exact).
    @Test(arguments: PixelLayout.allCases)
    func fullRangeBT601IsHandedOver(layout: PixelLayout) throws {
        let source = GuardedFrame(layout: layout, width: 67, height: 41, padding: 3, placement: .flushEnd, seed: 11)
        let buffer = JPEGPlaneBuffer()
        try source.withFrame { frame in
            frame.withColorimetry(.bt601Full) { frame in
                buffer.remap(frame)
                let remapped = packedPlanes(buffer)
                let luma = source.buffers[0].bytes
                let sourceLuma: [UInt8] = (0..<41).flatMap { row in Array(luma[(row * 70)..<(row * 70 + 67)]) }
                #expect(remapped.y == sourceLuma)
                let handed = JPEGPlaneBuffer()
                handed.withPlanes(of: frame) { planes in
                    #expect(planes.luma == UnsafePointer(source.buffers[0].bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)))
                    #expect(planes.lumaStride == 70)
                    if !layout.isSemiPlanar {
                        let cbPlane = source.buffers[layout == .i420 ? 1 : 2].bytes.baseAddress!
                        #expect(planes.cb == UnsafePointer(cbPlane.assumingMemoryBound(to: UInt8.self)))
                    }
                    for row in 0..<21 {
                        for column in 0..<34 {
                            let index = row * 34 + column
                            #expect(planes.cb[row * planes.chromaStride + column] == remapped.cb[index])
                            #expect(planes.cr[row * planes.chromaStride + column] == remapped.cr[index])
                        }
                    }
                }
            }
        }
    }

    /// The same picture in each layout remaps to the same planes.
    @Test func layoutsAgree() throws {
        let pattern = try TestPattern(width: 67, height: 41)
        var outputs: [[UInt8]] = []
        for layout in PixelLayout.allCases {
            let buffer = JPEGPlaneBuffer()
            try pattern.makeFrameBuffer(layout: layout).withFrame { buffer.remap($0) }
            let planes = packedPlanes(buffer)
            outputs.append(planes.y + planes.cb + planes.cr)
        }
        #expect(outputs.allSatisfy { $0 == outputs[0] })
    }
}
