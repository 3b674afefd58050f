/// Samples the colour at points of frames, reusing one RGB buffer.
///
/// One sampler per worker: it owns its buffer, allocated for the largest frame it has seen and
/// reused after, so the steady state allocates nothing. It is deliberately not `Sendable`: Swift 6
/// refuses to share one between tasks or threads, which is the bug of the shared static buffer
/// this design replaces.
public final class ColorSampler {
    /// How a sample's pixels are converted.
    public enum Path: String, CaseIterable, Hashable, Sendable {
        /// The cheaper of the two for the points and radius asked.
        case automatic
        /// Convert the whole frame into the sampler's buffer, then read it.
        case fullFrame
        /// Convert only the pixels the points need, straight from the YCbCr planes.
        case direct
    }

    /// The colorimetry to convert with; nil: what each frame reports.
    public let colorimetry: Colorimetry?
    public let kernel: ConversionKernel
    /// The path the last `sample` call took.
    public private(set) var lastPath: Path = .automatic
    private var converter: YCbCrConverter?
    private var rgb = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    public init(colorimetry: Colorimetry? = nil, kernel: ConversionKernel = .best) {
        self.colorimetry = colorimetry
        self.kernel = kernel
    }

    deinit { rgb.deallocate() }

    /// The colours at `points` of `frame`, each the pixel the point selects or, with `radius` r,
    /// the mean of the (2r + 1)^2 pixels around it clipped to the frame, rounded to nearest, with
    /// the statistics of those pixels.
    /// Replaces the contents of `samples`, keeping its capacity: reuse one array to allocate nothing.
    public func sample(
        _ frame: borrowing PlanarFrame, at points: [SamplePoint], radius: Int = 0, path: Path = .automatic,
        into samples: inout [ColorSample]
    ) throws(SamplingError) {
        guard (0...SamplingError.maximumRadius).contains(radius) else { throw .radiusOutOfRange(radius) }
        let converter = converter(for: frame)
        let chosen = path == .automatic ? Self.cheaperPath(frame, points: points.count, radius: radius) : path
        lastPath = chosen
        samples.removeAll(keepingCapacity: true)
        switch chosen {
        case .direct, .automatic:
            let geometry = frame.geometry, coefficients = converter.coefficients
            for point in points {
                samples.append(
                    ColorSample(
                        point: point,
                        statistics: Self.directPatchStatistics(
                            around: point, radius: radius, geometry, coefficients)))
            }
        case .fullFrame:
            try convertFrame(frame).sample(at: points, radius: radius, into: &samples)
        }
    }

    /// Converts the whole frame into the sampler's buffer and lends it to `body`, e.g. to write it
    /// out; the buffer is reused by the next call. Throws a `SamplingError` or what `body` throws.
    public func withRGB24<R>(_ frame: borrowing PlanarFrame, _ body: (borrowing RGBFrame) throws -> R) throws -> R {
        try body(convertFrame(frame))
    }

    /// Converts `frame` into the buffer, growing it (only) when the frame is the largest yet; the
    /// buffer is reused by the next call.
    package func convertFrame(_ frame: borrowing PlanarFrame) throws(SamplingError) -> RGBFrame {
        let converter = converter(for: frame)
        let byteCount = frame.width * frame.height * 3
        if rgb.count < byteCount {
            rgb.deallocate()
            rgb = .allocate(byteCount: byteCount, alignment: 64)
        }
        let image = UnsafeMutableRawBufferPointer(rebasing: rgb[..<byteCount])
        do {
            try converter.convert(frame, to: .rgb24, into: image)
        } catch {
            throw .geometry(error)
        }
        return RGBFrame(bytes: UnsafeRawBufferPointer(image), width: frame.width, height: frame.height)
    }

    private func converter(for frame: borrowing PlanarFrame) -> YCbCrConverter {
        let wanted = colorimetry ?? frame.colorimetry
        if let converter, converter.colorimetry == wanted { return converter }
        let made = YCbCrConverter(colorimetry: wanted, kernel: kernel)
        converter = made
        return made
    }

    /// The direct path's cost in units of one pixel of the full-frame path: a point costs about as
    /// much as converting 64 pixels (mostly the cache misses of reaching it), plus 56 for each
    /// pixel of its patch. Fitted to the Sample suite's 1920x1080 rows (Benchmarks/Sample; the
    /// figures are in docs/sampling.md, Sampling colours); measure again there when kernels change.
    static let directCostPerPoint = 64
    static let directCostPerPixel = 56

    /// The direct path while it costs no more than converting the whole frame.
    static func cheaperPath(_ frame: borrowing PlanarFrame, points: Int, radius: Int) -> Path {
        let side = 2 * radius + 1
        let direct = points * (directCostPerPoint + directCostPerPixel * side * side)
        return direct <= frame.width * frame.height ? .direct : .fullFrame
    }

    /// The direct path's `patchStatistics`, reading the planes in place: each row's pointers found
    /// once, and the chroma terms of a Cb, Cr pair computed once for the two pixels of the row
    /// that share it. The same pixels, in the same order, as `convert` of each gives them, so
    /// the same bits as the full-frame path (ColorSamplerTests, PatchStatisticsTests).
    @inline(__always)
    static func directPatchStatistics(
        around point: SamplePoint, radius: Int, _ geometry: FrameGeometry, _ coefficients: FixedPointCoefficients
    ) -> PatchStatistics {
        let (cx, cy) = point.pixel(width: geometry.width, height: geometry.height)
        let (first, last) = (max(0, cx - radius), min(geometry.width - 1, cx + radius))
        var statistics = PatchStatistics()
        for y in max(0, cy - radius)...min(geometry.height - 1, cy + radius) {
            let luma = geometry.luma + y * geometry.lumaStride
            let chromaRow = (y &>> 1) * geometry.chromaStride
            var x = first
            while x <= last {
                let c = chromaRow + (x &>> 1) * geometry.chromaStep
                let chroma = coefficients.chroma(cb: geometry.cb[c], cr: geometry.cr[c])
                statistics.add(coefficients.convert(luma: luma[x], chroma: chroma))
                // An even column's right neighbour shares its chroma.
                if x & 1 == 0, x < last {
                    statistics.add(coefficients.convert(luma: luma[x + 1], chroma: chroma))
                    x += 2
                } else {
                    x += 1
                }
            }
        }
        return statistics
    }

    /// The statistics of the pixels within `radius` of the point's pixel, clipped to the frame,
    /// `pixel` giving each: the full-frame path's and `RGBFrame.sample`'s.
    @inline(__always)
    static func patchStatistics(
        around point: SamplePoint, radius: Int, width: Int, height: Int, _ pixel: (Int, Int) -> RGB8
    ) -> PatchStatistics {
        let (cx, cy) = point.pixel(width: width, height: height)
        if radius == 0 { return PatchStatistics(pixel(cx, cy)) }
        var statistics = PatchStatistics()
        for y in max(0, cy - radius)...min(height - 1, cy + radius) {
            for x in max(0, cx - radius)...min(width - 1, cx + radius) {
                statistics.add(pixel(x, y))
            }
        }
        return statistics
    }
}
