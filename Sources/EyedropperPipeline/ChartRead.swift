import Eyedropper
import EyedropperCalibration

/// A ColorChecker read over frames and fitted into a camera profile: what `eyedropper calibrate`
/// and serve's `POST /api/v1/calibration` both do. Without corners the chart is found in every
/// frame (which way round from its own colours) and must stay where the first frame had it; with
/// them, the other 20 centres follow from the four. Each patch's window is added up over the
/// frames, as `sample --average` adds samples, and `fit` fits the profile to the means.
public struct ChartRead {
    public let reference: ChartReference
    /// The chart as the first frame showed it, when it was found rather than given.
    public private(set) var chart: DetectedChart?
    /// Where the patches are read, set by the first frame.
    public private(set) var geometry: ChartGeometry?
    /// The window radius, set by the first frame: as asked, or a fifth of the patch spacing.
    public private(set) var radius: Int?
    public let sampler: ColorSampler
    /// A reference patch in view (`--white-reference`), read with the patches and recorded in
    /// the profile.
    public let whiteReference: SamplePoint?
    private let corners: [SamplePoint]
    private let radiusAsked: Int?
    private let detector: ChartDetector?
    private var size = (width: 0, height: 0)
    private var block = SampleAverage(points: [])
    private var samples: [ColorSample] = []
    /// The patches' centres, then the white reference's.
    private var readPoints: [SamplePoint] = []

    /// `corners`: the centres of patches 1, 6, 24 and 19, or none to find the chart.
    public init(
        corners: [SamplePoint] = [], radius: Int? = nil, reference: ChartReference = .colorChecker2014,
        whiteReference: SamplePoint? = nil, sampler: ColorSampler = ColorSampler()
    ) {
        precondition(corners.isEmpty || corners.count == 4, "\(corners.count) corners")
        self.corners = corners
        self.radiusAsked = radius
        self.reference = reference
        self.whiteReference = whiteReference
        self.sampler = sampler
        detector = corners.isEmpty ? ChartDetector(reference: reference) : nil
    }

    /// The frames read so far.
    public var frames: Int { block.frames }

    /// The 24 patches as read so far, patch 1 first (the white reference's reading left out).
    public var readings: [PatchStatistics] {
        var means: [ColorSample] = []
        block.samples(into: &means)
        return means.prefix(ChartReference.patchCount).map(\.statistics)
    }

    /// Reads the patches of one more frame. Throws when the chart is not found in it, has moved
    /// since the first frame, or the frame's size or colorimetry is not the first frame's.
    public mutating func add<Frame: SampleSource & ~Copyable>(_ frame: borrowing Frame) throws(ChartReadError) {
        let number = block.frames + 1
        if let detector {
            let failure: ChartDetectionFailure?
            do throws(SamplingError) {
                failure = try frame.withRGB24(with: sampler) { rgb in
                    do throws(ChartDetectionFailure) {
                        try detector.detect(rgb24: rgb.bytes, width: rgb.width, height: rgb.height)
                        return nil
                    } catch {
                        return error
                    }
                }
            } catch {
                throw .sampling(error)
            }
            if let failure { throw .notFound(frame: number, failure) }
            let found = detector.chart
            if let first = chart {
                try Self.checkStill(found, first: first, number: number)
            } else {
                // A chart whose colours are not the reference's would teach the camera wrong
                // colours: only with that chart's own (`--reference`).
                if found.colorDifference > DetectedChart.looseColors && reference == .colorChecker2014 {
                    throw .colorsNotReference(difference: found.colorDifference)
                }
                chart = found
            }
        }
        if geometry == nil {
            let made: ChartGeometry
            do throws(ChartGeometryError) {
                made =
                    if let chart { try ChartGeometry(detected: chart) } else {
                        try ChartGeometry(corners: corners, width: frame.width, height: frame.height)
                    }
            } catch {
                throw .geometry(error)
            }
            geometry = made
            radius = radiusAsked ?? made.defaultRadius
            size = (frame.width, frame.height)
            readPoints = made.centers + (whiteReference.map { [$0] } ?? [])
            block = SampleAverage(points: readPoints)
        }
        guard geometry != nil, let radius, frame.width == size.width, frame.height == size.height,
            block.colorimetry.map({ $0 == frame.colorimetry }) ?? true
        else { throw .frameChanged }
        do throws(SamplingError) {
            try frame.sample(at: readPoints, radius: radius, with: sampler, into: &samples)
        } catch {
            throw .sampling(error)
        }
        block.add(samples, frame: block.frames, timestamp: 0, colorimetry: frame.colorimetry)
    }

    /// The profile fitted to the patches read: `model`, or with nil the model of least
    /// leave-one-out error. `controls`: the camera's controls in force, kept in the profile.
    /// `measured`: the tone curve measured from several exposures (`calibrate --bracket`), used
    /// instead of one fitted; else `curve`, or with nil the curve of least leave-one-out error.
    public func fit(
        model: CorrectionModel?, curve: CurveSource? = nil, controls: [String: Int] = [:], measured: ResponseRecovery? = nil
    ) throws -> ChartFit {
        guard let geometry, let radius, let colorimetry = block.colorimetry else { throw ChartReadError.noFrames }
        var means: [ColorSample] = []
        block.samples(into: &means)
        let white = whiteReference == nil ? nil : means.removeLast()
        var hidden: [Int: String] = [:]
        if let chart {
            for patch in 0..<ChartReference.patchCount where !chart.visible[patch] {
                hidden[patch] =
                    chart.outside[patch]
                    ? "hidden: beyond the frame's edge" : "hidden: covered or glaring where the chart was found"
            }
        }
        let calibration = try Calibration(
            readings: means.map(\.statistics), reference: reference, model: model, hidden: hidden, curve: curve,
            measuredCurve: measured?.curve)
        let report = CalibrationReport(
            calibration, geometry: geometry, radius: radius, frames: block.frames, modelAsked: model != nil,
            bracket: measured.map(CalibrationReport.Bracket.init))
        var profile = CameraProfile(
            calibration: calibration, report: report, colorimetry: colorimetry, width: size.width, height: size.height,
            controls: controls)
        if let white { profile = profile.recordingWhiteReference(at: white.point, radius: radius, statistics: white.statistics) }
        return ChartFit(calibration: calibration, report: report, profile: profile)
    }

    /// Every patch within a quarter of a step of where the first frame had it: a chart that
    /// moves while it is read mixes neighbouring patches.
    private static func checkStill(_ chart: DetectedChart, first: DetectedChart, number: Int) throws(ChartReadError) {
        var moved = 0.0
        for (a, b) in zip(chart.centers, first.centers) { moved = max(moved, ((a - b) * (a - b)).sum().squareRoot()) }
        guard moved <= first.pitch / 4 else { throw .moved(frame: number, pixels: moved, step: first.pitch) }
    }
}

/// A profile fitted to a chart read: the fit, its report (what `calibrate --format json`
/// prints), and the profile to write.
public struct ChartFit {
    public let calibration: Calibration
    public let report: CalibrationReport
    public let profile: CameraProfile
}

/// Why a chart could not be read from the frames.
public enum ChartReadError: Error, Sendable, CustomStringConvertible {
    /// Frame `frame` (from 1) shows no chart, two, or one not sure enough.
    case notFound(frame: Int, ChartDetectionFailure)
    /// The chart found has colours that do not fit the published reference (median CIEDE2000
    /// `difference` after the best 3x3), and no reference of its own was given.
    case colorsNotReference(difference: Double)
    /// The chart in frame `frame` is `pixels` from where the first frame had it.
    case moved(frame: Int, pixels: Double, step: Double)
    /// A frame's size or colorimetry is not the first frame's.
    case frameChanged
    /// The corners given (or found) do not make a chart.
    case geometry(ChartGeometryError)
    case sampling(SamplingError)
    /// `fit` before any frame was read.
    case noFrames

    public var description: String {
        switch self {
        case let .notFound(frame, failure): "frame \(frame): \(failure)"
        case let .colorsNotReference(difference):
            "the chart's colours are not the ColorChecker's (median ΔE00 \(DecimalText.fixed(difference, 1)) from the published values after the best 3x3, over \(DecimalText.fixed(DetectedChart.looseColors, 0)) for this): a printed copy, a chart on a screen or a faded chart would teach the camera wrong colours; give that chart's own measured colours with --reference FILE"
        case let .moved(frame, pixels, step):
            "frame \(frame): the chart moved \(DecimalText.fixed(pixels, 1)) pixels since frame 1 (a patch step is \(DecimalText.fixed(step, 1))): hold it still (a stand or a clamp), or give --frames 1"
        case .frameChanged: "the frames changed size or colorimetry while the chart was read: calibrate again"
        case let .geometry(error): error.description
        case let .sampling(error): error.description
        case .noFrames: "no frames were read from the source"
        }
    }
}

extension ChartReadError: ExitStatusError {
    public var exitStatus: Int32 {
        switch self {
        case .notFound, .moved, .colorsNotReference: 65
        case .frameChanged: 74
        case let .geometry(error): error.exitStatus
        case let .sampling(error): error.exitStatus
        case .noFrames: 66
        }
    }
}
