import Eyedropper

/// Where `FramePipeline` reads a frame's colours from: the camera's planes (`PlanarFrame`,
/// through the pipeline's `ColorSampler`, direct or full-frame) or a frame already converted to
/// RGB (`ConvertedFrame`, as serve keeps every frame for its JPEGs). Both give the same colours,
/// bit for bit. Lent, never kept: non-copyable sources are borrowed.
public protocol SampleSource: ~Copyable {
    var width: Int { get }
    var height: Int { get }
    /// What the frame was (or is to be) converted with.
    var colorimetry: Colorimetry { get }
    /// The colours at `points`, replacing the contents of `samples` (keeping its capacity).
    func sample(
        at points: [SamplePoint], radius: Int, with sampler: ColorSampler, into samples: inout [ColorSample]
    ) throws(SamplingError)
    /// The whole frame as RGB24, lent to `body`: converted into `sampler`'s buffer (reused by its
    /// next call), or as it is.
    func withRGB24<R>(with sampler: ColorSampler, _ body: (borrowing RGBFrame) -> R) throws(SamplingError) -> R
}

extension PlanarFrame: SampleSource {
    public func sample(
        at points: [SamplePoint], radius: Int, with sampler: ColorSampler, into samples: inout [ColorSample]
    ) throws(SamplingError) {
        try sampler.sample(self, at: points, radius: radius, into: &samples)
    }

    public func withRGB24<R>(with sampler: ColorSampler, _ body: (borrowing RGBFrame) -> R) throws(SamplingError) -> R {
        body(try sampler.convertFrame(self))
    }
}

/// A frame converted to RGB24 and the colorimetry it was converted with.
public struct ConvertedFrame: ~Copyable, SampleSource {
    public let rgb: RGBFrame
    public let colorimetry: Colorimetry

    public init(rgb: consuming RGBFrame, colorimetry: Colorimetry) {
        self.rgb = rgb
        self.colorimetry = colorimetry
    }

    public var width: Int { rgb.width }
    public var height: Int { rgb.height }

    public func sample(
        at points: [SamplePoint], radius: Int, with sampler: ColorSampler, into samples: inout [ColorSample]
    ) throws(SamplingError) {
        guard (0...SamplingError.maximumRadius).contains(radius) else { throw .radiusOutOfRange(radius) }
        rgb.sample(at: points, radius: radius, into: &samples)
    }

    public func withRGB24<R>(with sampler: ColorSampler, _ body: (borrowing RGBFrame) -> R) throws(SamplingError) -> R {
        body(rgb)
    }
}
