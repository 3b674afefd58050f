import Eyedropper

/// How the camera saw a reference patch (a white tile or grey card that stays in view) when a
/// profile was made: `calibrate --white-reference X,Y` keeps it in the profile, and every frame
/// read with the profile later is compared with it.
public struct WhiteReferenceRecord: Hashable, Sendable, Codable {
    /// Where the patch is, as `--white-reference` gave it (0...1).
    public let x: Double
    public let y: Double
    /// The window's radius in pixels: calibrate's patch window.
    public let radius: Int
    /// The patch's mean camera RGB (0...255, unrounded) and standard deviation per channel, over
    /// every calibration frame.
    public let mean: [Double]
    public let sd: [Double]
    /// Pixels counted, and channel values at 0 or 255 among them.
    public let n: Int
    public let clipped: Int
    /// Its L*a*b* (D50) through the profile.
    public let lab: [Double]

    /// The record of `statistics` read at `point` with `radius`, and its colour through `profile`.
    public init(point: SamplePoint, radius: Int, statistics: PatchStatistics, profile: CameraProfile) {
        x = point.x
        y = point.y
        self.radius = radius
        let (mean, sd) = (statistics.mean, statistics.standardDeviation)
        self.mean = [mean.r, mean.g, mean.b]
        self.sd = [sd.r, sd.g, sd.b]
        n = statistics.count
        clipped = statistics.clipped
        let color = profile.calibrated(mean).lab
        lab = [color.l, color.a, color.b]
    }
}

/// How a frame is corrected by the reference.
public enum ReferenceModel: String, Hashable, Sendable, CaseIterable {
    /// Von Kries in Bradford's cone space, on the calibrated XYZ: one 3x3 a frame. Measured closer
    /// than the sensor's diagonal when the light's colour moves (docs/calibration.md).
    case bradford
    /// Von Kries in the camera's own linear RGB: each channel scaled, between the profile's tone
    /// curve and its matrix, so the reference reads as at calibration. Exact for a change of
    /// intensity; for a change of colour only as far as the sensor's channels are narrow.
    case diagonal
}

/// What a frame says about the reference, and so about the light.
public enum ReferenceState: String, Hashable, Sendable, CaseIterable {
    /// Read and applied.
    case ok
    /// Applied, but the light has moved further than `--max-drift`: the readings needed more
    /// correction than that.
    case drift
    /// More than 0.1% of the patch's channel values at 0 or 255: its mean, so the gains, would
    /// be wrong.
    case clipped
    /// Its spread jumped (a hand, a shadow, an object across it): not the patch any more.
    case covered
    /// Under a quarter of its calibration level in a channel: too dark to scale by.
    case dark
    /// The gains ask for a colour change no light gives (red or blue against green beyond 0.4 to
    /// 2.5 times): something else is on the patch.
    case implausible

    /// Whether readings were corrected by the reference in this state.
    public var applied: Bool { self == .ok || self == .drift }
}

/// One frame's reading of the reference.
public struct ReferenceReading: Sendable {
    /// Where the patch was read, and what the sampler found there.
    public let point: SamplePoint
    public let statistics: PatchStatistics
    /// The scaling applied: per camera channel with `.diagonal`, per cone (Bradford's long,
    /// medium, short) with `.bradford`; 1, 1, 1 when the reference was not applied.
    public let gains: SIMD3<Double>
    /// CIEDE2000 between the patch's calibrated colour now (uncorrected) and at calibration: how
    /// far the light has moved, i.e. how far an uncorrected reading is off. NaN only when the
    /// patch is black in a channel (`.dark`).
    public let deltaE: Double
    public let state: ReferenceState
    public let model: ReferenceModel
    /// What `CameraProfile.calibrated(_:reference:)` applies.
    let cameraGains: SIMD3<Double>
    let xyzAdaptation: Matrix3?

    /// Whether the readings of this frame were corrected.
    public var applied: Bool { state.applied }
}

/// A reference patch in view, and what it should read: `sample`/`serve --white-reference`.
public struct WhiteReference: Sendable {
    /// Where it is sampled.
    public let point: SamplePoint
    /// The window read around `point`, (2 × radius + 1)² pixels, whatever radius the points are
    /// read with: as asked (`--white-reference X,Y,R`), else the window the profile recorded the
    /// patch over, else `defaultRadius`.
    public let radius: Int
    public let model: ReferenceModel
    /// `--max-drift`: beyond this CIEDE2000, `state` is `.drift`.
    public let maxDrift: Double?
    /// Where what it should read comes from.
    public let recorded: Recorded
    /// What it should read (D50).
    public let expectedLab: CIELab
    /// Its linear camera RGB and calibrated XYZ at calibration.
    let expectedLinear: SIMD3<Double>
    let expectedXYZ: CIEXYZ
    /// The patch's largest channel standard deviation when uncovered: recorded in the profile, or
    /// with `.lab` the first frame's.
    private var baselineSD: Double?
    public let profile: CameraProfile

    public enum Recorded: String, Hashable, Sendable {
        /// The profile's `whiteReference`.
        case profile
        /// Given as L*a*b* (`--white-reference-lab`).
        case lab
    }

    /// The reference at `point` for `profile`: what the profile recorded, or with `lab` that
    /// colour. Throws when the profile recorded none and no `lab` is given, or no positive camera
    /// RGB makes `lab` through the profile.
    public init(
        profile: CameraProfile, point: SamplePoint, radius: Int? = nil, lab: CIELab? = nil, model: ReferenceModel = .bradford,
        maxDrift: Double? = nil
    ) throws(WhiteReferenceError) {
        self.profile = profile
        self.point = point
        self.radius = radius ?? profile.whiteReference?.radius ?? Self.defaultRadius
        self.model = model
        self.maxDrift = maxDrift
        if let lab {
            recorded = .lab
            expectedLab = lab
            expectedXYZ = CIEXYZ(lab, white: .d50)
            guard let linear = Self.cameraLinear(of: expectedXYZ, profile: profile) else { throw .unreachable(lab) }
            expectedLinear = linear
            baselineSD = nil
        } else if let record = profile.whiteReference, record.mean.count == 3, record.sd.count == 3 {
            recorded = .profile
            expectedLinear = profile.toneCurve.linear(SIMD3(record.mean[0], record.mean[1], record.mean[2]) / 255)
            expectedXYZ = profile.correction.xyz(expectedLinear)
            expectedLab = expectedXYZ.lab(white: .d50)
            baselineSD = record.sd.max()
        } else {
            throw .notRecorded
        }
    }

    /// The window's radius when neither `--white-reference X,Y,R` nor the profile gives one (a
    /// reference given as `--white-reference-lab`): 17 × 17 pixels, enough to average the noise
    /// out of a patch a tenth of a 720p frame across.
    public static let defaultRadius = 8

    /// What the profile recorded differs from where it is read now: a sentence for a warning, or nil.
    public var moved: String? {
        guard recorded == .profile, let record = profile.whiteReference else { return nil }
        let distance = ((record.x - point.x) * (record.x - point.x) + (record.y - point.y) * (record.y - point.y)).squareRoot()
        guard distance > 0.01 else { return nil }
        return
            "the profile recorded its white reference at \(record.x),\(record.y), it is read at \(point.x),\(point.y): the readings are scaled to make this patch read as that one did"
    }

    /// Reads the reference's statistics of one frame (or block): its state and the correction.
    public mutating func assess(_ statistics: PatchStatistics) -> ReferenceReading {
        let mean = statistics.mean, sd = statistics.standardDeviation
        let linear = profile.toneCurve.linear(SIMD3(mean.r, mean.g, mean.b) / 255)
        let xyz = profile.correction.xyz(linear)
        let deltaE = expectedLab.deltaE2000(xyz.lab(white: .d50))
        let cameraGains = expectedLinear / linear
        let spread = Swift.max(sd.r, sd.g, sd.b)
        if baselineSD == nil { baselineSD = spread }
        let ratios = SIMD2(cameraGains.x, cameraGains.z) / cameraGains.y
        let state: ReferenceState =
            if statistics.clipped * 1000 > statistics.count * 3 {
                .clipped
            } else if spread > 3 * (baselineSD ?? spread) + 2 {
                .covered
            } else if !(linear.min() > 0) || !(cameraGains.max() <= 4) || !deltaE.isFinite {
                .dark
            } else if !(ratios.min() >= 0.4 && ratios.max() <= 2.5) {
                .implausible
            } else if let maxDrift, deltaE > maxDrift {
                .drift
            } else {
                .ok
            }
        let one = SIMD3<Double>(repeating: 1)
        guard state.applied else {
            return ReferenceReading(
                point: point, statistics: statistics, gains: one, deltaE: deltaE, state: state, model: model, cameraGains: one,
                xyzAdaptation: nil)
        }
        switch model {
        case .diagonal:
            return ReferenceReading(
                point: point, statistics: statistics, gains: cameraGains, deltaE: deltaE, state: state, model: model,
                cameraGains: cameraGains, xyzAdaptation: nil)
        case .bradford:
            let cones = (SRGB.bradfordCones * expectedXYZ.vector) / (SRGB.bradfordCones * xyz.vector)
            return ReferenceReading(
                point: point, statistics: statistics, gains: cones, deltaE: deltaE, state: state, model: model, cameraGains: one,
                xyzAdaptation: SRGB.bradford(gains: cones))
        }
    }

    /// The linear camera RGB the profile turns into `xyz`: Newton's method on the tone curve's
    /// output, from the grey of the same Y. nil when no positive RGB reaches it.
    static func cameraLinear(of xyz: CIEXYZ, profile: CameraProfile) -> SIMD3<Double>? {
        let goal = xyz.vector
        var linear = SIMD3(repeating: Swift.max(xyz.y / 100, 1e-3))
        for _ in 0..<50 {
            let residual = profile.correction.xyz(linear).vector - goal
            if (residual * residual).sum().squareRoot() < 1e-9 * Swift.max(goal.y, 1) { return linear }
            // The Jacobian by central differences: its columns are each channel's effect.
            var columns: [SIMD3<Double>] = []
            for channel in 0..<3 {
                var step = SIMD3<Double>(repeating: 0)
                step[channel] = 1e-6 * Swift.max(linear[channel], 1e-3)
                columns.append(
                    (profile.correction.xyz(linear + step).vector - profile.correction.xyz(linear - step).vector) / (2 * step[channel]))
            }
            let jacobian = Matrix3(columns[0], columns[1], columns[2]).transposed
            var next = linear - jacobian.inverse * residual
            // Stay where the root-polynomial terms are defined: halve towards 0 rather than cross it.
            next = SIMD3(
                next.x > 0 ? next.x : linear.x / 2, next.y > 0 ? next.y : linear.y / 2, next.z > 0 ? next.z : linear.z / 2)
            guard next.x.isFinite, next.y.isFinite, next.z.isFinite else { return nil }
            linear = next
        }
        return nil
    }
}

extension CameraProfile {
    /// The calibrated colour of a patch's mean, corrected by the frame's reading of a reference
    /// when it was applied.
    @inline(__always)
    public func calibrated(_ mean: (r: Double, g: Double, b: Double), reference: ReferenceReading?) -> CalibratedColor {
        guard let reference, reference.applied else { return calibrated(mean) }
        let xyz = correction.xyz(reference.cameraGains * toneCurve.linear(SIMD3(mean.r, mean.g, mean.b) / 255))
        guard let adaptation = reference.xyzAdaptation else { return CalibratedColor(xyz: xyz) }
        return CalibratedColor(xyz: CIEXYZ(adaptation * xyz.vector))
    }
}

/// What `--white-reference` and its options ask for, apart from any profile: serve keeps it and
/// makes a `WhiteReference` for each profile it serves.
public struct WhiteReferenceSettings: Hashable, Sendable {
    public var point: SamplePoint
    /// `--white-reference X,Y,R`: the window's radius; nil: the one the profile recorded.
    public var radius: Int?
    /// `--white-reference-lab`: the patch's colour, when the profile recorded none.
    public var lab: CIELab?
    public var model: ReferenceModel
    public var maxDrift: Double?

    public init(
        point: SamplePoint, radius: Int? = nil, lab: CIELab? = nil, model: ReferenceModel = .bradford, maxDrift: Double? = nil
    ) {
        self.point = point
        self.radius = radius
        self.lab = lab
        self.model = model
        self.maxDrift = maxDrift
    }
}

extension WhiteReference {
    /// The reference `settings` ask for, with `profile`.
    public init(profile: CameraProfile, settings: WhiteReferenceSettings) throws(WhiteReferenceError) {
        try self.init(
            profile: profile, point: settings.point, radius: settings.radius, lab: settings.lab, model: settings.model,
            maxDrift: settings.maxDrift)
    }
}

/// A white reference that cannot be used with the profile.
public enum WhiteReferenceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The profile recorded none and no L*a*b* was given.
    case notRecorded
    /// No positive camera RGB reads as this L*a*b* through the profile.
    case unreachable(CIELab)

    public var description: String {
        switch self {
        case .notRecorded:
            "the profile recorded no white reference: make it again with eyedropper calibrate --white-reference X,Y (the patch in view beside the chart), or give the patch's colour with --white-reference-lab L,a,b"
        case let .unreachable(lab):
            "no camera colour reads as L*a*b* \(DecimalText.fixed(lab.l, 2)),\(DecimalText.fixed(lab.a, 2)),\(DecimalText.fixed(lab.b, 2)) through this profile: give the patch's own colour (a white or grey, L* between 20 and 100)"
        }
    }
}

extension WhiteReferenceError: ExitStatusError {
    /// 64: the reference is asked for on the command line (a profile that recorded none is a
    /// usage error, not damage).
    public var exitStatus: Int32 { 64 }
}
