import ArgumentParser
import Eyedropper
import EyedropperCapture
import EyedropperJPEG
import EyedropperPipeline
import Foundation

#if canImport(Glibc)
    import Glibc
    import EyedropperCalibration
#endif

/// `eyedropper calibrate`: reads a ColorChecker in frames, fits a camera profile, reports how well
/// it fits.
struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Profile a camera from a ColorChecker Classic 24 in its frames.",
        discussion: """
            Hold the chart (X-Rite or Calibrite ColorChecker Classic, 4 rows of 6 patches) in \
            even light, the whole of it in view and at least 150 pixels wide, and lock the \
            camera's automatic exposure and white balance (--lock, or --control). The chart is \
            found in every frame read (any roll, tilted, or seen in a mirror; which way round \
            from its own colours), and must stay where it is: a frame without it, with two, \
            with one it cannot be sure of, or with the chart moved is refused (exit 65) with \
            what to do. Or give the centres of its four corner patches as --corner X,Y (0...1 \
            from the frame's top-left, as --at), in this order: dark skin (patch 1, top left \
            when the chart is upright), bluish green (6, top right), black (24, bottom right), \
            white (19, bottom left); the other 20 centres follow through the perspective those \
            four define. --picture shows where each patch was found and read.

            Each patch is averaged over a (2R+1)x(2R+1) window (R: a fifth of the patch spacing \
            unless --radius) and --frames frames. A patch clipped in part (a dark camera's black, \
            its noise cut off at 0) is read at the level its unclipped values and their spread \
            say; one with half or more of a channel's values clipped, or with a spread that says \
            the window is not on one uniform patch, is named in a warning and left out. Then a \
            tone curve and a correction from linear camera RGB to CIE XYZ (D50): linear-3x3, \
            affine-3x4 or root-polynomial-2 (Finlayson 2015), refined to the least mean \
            CIEDE2000. The curve is fitted either through the six neutral patches, one per \
            channel, or as one shape for the three channels through every patch (the colours \
            read levels between the greys' and below them). The curve, and the model with \
            --model auto, are chosen by their error on each patch left out of its own fit \
            (leave-one-out), never by the error on the patches fitted.

            A camera's curve can bend between the greys, and below the black. With --bracket it \
            is measured instead: record the chart at several exposures, nothing else changed \
            (eyedropper record --lock --control exposure_time_absolute=N, one file each), and \
            give each as FILE@FACTOR, its exposure time over --source's; every patch at every \
            exposure traces the response over its whole range (Debevec and Malik 1997), and \
            only the correction is fitted through it. --source is the exposure the profile is for. \
            A camera steps its own: give each FACTOR alone (--bracket 3/200 --bracket 1/40 ...), and \
            its exposure control (--bracket-control) is set to that times the value it has after \
            --lock or --control, each step read once two frames in a row agree, and put back after.

            Prints per patch the reference and corrected L*a*b* and their CIEDE2000 (fitted, \
            and left out), then mean, median and max; --format json prints the same as one \
            object (keys sorted). Writes the profile to --out, for sample --profile and serve \
            --profile. Reference: the ColorChecker's published values for charts made after \
            November 2014, or --reference FILE: {"name":"...","lab":[[L,a,b],...]} or a bare \
            array of 24 [L,a,b], D50, patch 1 first.
            """
    )

    @OptionGroup var input: SourceOptions

    @Option(
        name: .customLong("corner"),
        help: ArgumentHelp(
            "A corner patch's centre, X,Y in 0...1; four of them: dark skin, bluish green, black, white (default: find the chart).",
            valueName: "X,Y"),
        transform: SamplePoint.parse)
    var corners: [SamplePoint] = []

    @Option(help: "Frames to average each patch over.")
    var frames: Int = 10

    @Option(help: "Average the (2R+1)x(2R+1) pixels around each patch centre (default: a fifth of the patch spacing).")
    var radius: Int?

    @Option(
        help: ArgumentHelp(
            "A white or grey patch beside the chart that stays in view (a tile, a card): how the camera saw it is kept in the profile, for sample and serve --white-reference to correct for the light's changes.",
            valueName: "X,Y"),
        transform: SamplePoint.parse)
    var whiteReference: SamplePoint?

    @Option(help: "The correction: auto (least leave-one-out error), linear-3x3, affine-3x4 or root-polynomial-2.")
    var model: ModelChoice = .auto

    @Option(
        help:
            "The tone curve: auto (least leave-one-out error), neutrals (one per channel through the six neutral patches) or patches (one shape for the three channels through every patch). Not with --bracket, which measures it."
    )
    var curve: CurveChoice = .auto

    @Option(help: ArgumentHelp("Your chart's own L*a*b* (D50) as JSON, instead of the published values.", valueName: "FILE"))
    var reference: String?

    @Option(help: ArgumentHelp("The profile to write (JSON).", valueName: "PROFILE.json"))
    var out: String

    @Option(
        help: ArgumentHelp(
            "Also draw what was measured: the first frame with each patch's window outlined and numbered (red: left out), over the 24 patches, reference (left) beside corrected (right), with each ΔE.",
            valueName: "REPORT.jpg"))
    var picture: String?

    @Option(
        help: ArgumentHelp(
            "Also write the profile as a 3D LUT (.cube, 33 points a side) from camera RGB to corrected sRGB, for ffmpeg's lut3d, OBS or Resolve.",
            valueName: "FILE.cube"))
    var cube: String?

    @Option(
        help: ArgumentHelp(
            "Also write the profile as an ICC input profile (v2.4, camera RGB to L*a*b* D50 through a 33-point table), to load as the input profile in darktable or GIMP, or with ArgyllCMS or lcms.",
            valueName: "FILE.icc"))
    var icc: String?

    @Option(help: "text (a table for people) or json (one object).")
    var format: CalibrateFormat = .text

    @Option(
        help: ArgumentHelp(
            "Measure the tone curve instead of fitting it to the six greys: the same chart, light and camera at another exposure, FACTOR times --source's (its exposure time over --source's: 1/16, 0.25, 2.5). Give one for each other exposure: 5 to 9, from 1/64 to 4, off any ladder of one ratio (whole stops are one), e.g. 3/200, 1/40, 3/50, 3/25, 1/4, 17/40, 1.25, 1.75, 4. A camera steps its own exposure: give FACTOR alone.",
            valueName: "FILE@FACTOR"),
        transform: BracketExposure.parse)
    var bracket: [BracketExposure] = []

    @Option(
        help: ArgumentHelp(
            "The control a camera's --bracket steps (default: exposure_time_absolute, else exposure_absolute or exposure); it is put back after.",
            valueName: "NAME"))
    var bracketControl: String?

    func validate() throws {
        guard corners.isEmpty || corners.count == 4 else {
            throw ValidationError(
                "give 4 --corner points, not \(corners.count): the centres of patches 1 (dark skin), 6 (bluish green), 24 (black) and 19 (white), in that order"
            )
        }
        guard frames >= 1 else { throw ValidationError("--frames must be at least 1, got \(frames)") }
        if let picture, !picture.lowercased().hasSuffix(".jpg") && !picture.lowercased().hasSuffix(".jpeg") {
            throw ValidationError("--picture \(picture): give a path ending in .jpg or .jpeg")
        }
        if let cube, !cube.lowercased().hasSuffix(".cube") {
            throw ValidationError("--cube \(cube): give a path ending in .cube")
        }
        if let icc, !icc.lowercased().hasSuffix(".icc") && !icc.lowercased().hasSuffix(".icm") {
            throw ValidationError("--icc \(icc): give a path ending in .icc or .icm")
        }
        if let radius, !(0...SamplingError.maximumRadius).contains(radius) {
            throw ValidationError("--radius: " + SamplingError.radiusOutOfRange(radius).description)
        }
        if curve != .auto, !bracket.isEmpty {
            throw ValidationError("--curve \(curve.rawValue) with --bracket: --bracket measures the tone curve; give one or the other")
        }
        try validateBracket()
    }

    func run() throws {
        let chartReference = try reference.map { try ChartReference.load(path: $0) } ?? .colorChecker2014
        let configuration = try input.configuration()
        if !bracket.isEmpty { try validateBracket(for: configuration.source) }
        var read = ChartRead(corners: corners, radius: radius, reference: chartReference, whiteReference: whiteReference)
        // The frame the picture draws on: the first, kept only with --picture.
        var firstFrame: RGBImage?
        let progress = isatty(STDERR_FILENO) != 0
        try input.forEachFrame(configuration, limit: frames, done: "read") { frame, _ in
            try read.add(frame)
            if read.frames == 1, let chart = read.chart {
                StandardError.writeLine(Self.foundLine(chart))
                for warning in chart.warnings { StandardError.writeLine("eyedropper: warning: \(warning)") }
            }
            if picture != nil, firstFrame == nil {
                firstFrame = try frame.withRGB24(with: read.sampler) {
                    RGBImage(width: $0.width, height: $0.height, pixels: Array($0.bytes))
                }
            }
            if progress { StandardError.write("\rreading the chart: frame \(read.frames) of \(frames)") }
        }
        let count = read.frames
        guard count > 0 else { throw ChartReadError.noFrames }
        if progress { StandardError.write("\n") }
        if count < frames {
            StandardError.writeLine("eyedropper: the source ended after \(count) of \(frames) frames: calibrating on those")
        }
        let measured = bracket.isEmpty ? nil : try measureCurve(base: read, configuration: configuration, reference: chartReference)
        StandardError.writeLine(
            model == .auto
                ? "fitting the models, each again without each patch (leave-one-out)..."
                : "fitting \(model.rawValue), again without each patch (leave-one-out)...")
        let fit = try read.fit(
            model: model.model, curve: curve.curve, controls: CameraControls.integerValues(of: configuration.source), measured: measured)
        let (calibration, report, profile) = (fit.calibration, fit.report, fit.profile)
        for patch in calibration.patches {
            if let excluded = patch.excluded {
                StandardError.writeLine(
                    "eyedropper: warning: patch \(patch.number) (\(ChartReference.patchNames[patch.number - 1])) left out: \(excluded)")
            }
        }
        if calibration.light.spread > Self.unevenLight {
            let percent = Int((100 * calibration.light.spread).rounded())
            StandardError.writeLine(
                "eyedropper: warning: the light on the chart varies by \(percent)% across it: the fit allows for light that changes evenly from one side to the other, not for a spot or a shadow; light the chart more evenly if you can"
            )
        }
        if let record = profile.whiteReference { for line in Self.whiteReferenceLines(record) { StandardError.writeLine(line) } }
        try profile.json().withUnsafeBytes { try AtomicWrite.write($0, to: out) }
        if let cube {
            let text = CubeLUT.text(profile, title: "eyedropper \(out)")
            try Array(text.utf8).withUnsafeBytes { try AtomicWrite.write($0, to: cube) }
        }
        if let icc {
            try ICCProfile.bytes(profile, description: "eyedropper \(out)").withUnsafeBytes { try AtomicWrite.write($0, to: icc) }
        }
        if let picture, let firstFrame, let geometry = read.geometry, let radius = read.radius {
            let image = Self.picture(calibration, frame: firstFrame, geometry: geometry, radius: radius)
            // 4:4:4 at quality 95: 4:2:0 smears the red outlines and the small text.
            try image.pixels.withUnsafeBytes { pixels in
                try JPEGEncoder(quality: 95, subsampling: .s444).withJPEG(rgb24: pixels, width: image.width, height: image.height) { jpeg in
                    try AtomicWrite.write(jpeg, to: picture)
                }
            }
        }
        switch format {
        case .json: print(report.json)
        case .text: print(Self.table(calibration, report: report, profilePath: out))
        }
    }

    /// What was recorded of the white reference, and a warning when it leaves the light no room to
    /// grow or is not one patch: for stderr.
    static func whiteReferenceLines(_ record: WhiteReferenceRecord) -> [String] {
        func three(_ values: [Double]) -> String { values.map { DecimalText.fixed($0, 1) }.joined(separator: " ") }
        var lines = [
            "white reference at \(record.x),\(record.y): mean \(three(record.mean)) ± \(three(record.sd)) over \(record.n) pixels, L*a*b* \(three(record.lab)); recorded in the profile"
        ]
        let brightest = record.mean.max() ?? 0
        if record.clipped * 1000 > record.n * 3 || brightest > 200 {
            let percent = Int((100 * (255 / max(brightest, 1) - 1)).rounded(.down))
            lines.append(
                "eyedropper: warning: the white reference reads \(DecimalText.fixed(brightest, 0)) of 255: light \(max(percent, 0))% brighter clips it, and then it cannot correct; lower the exposure until it reads about 150"
            )
        }
        if (record.sd.max() ?? 0) > 8 {
            lines.append(
                "eyedropper: warning: the white reference varies by sd \(DecimalText.fixed(record.sd.max() ?? 0, 1)) across its window: put --white-reference on one even patch, or give a smaller --radius"
            )
        }
        return lines
    }

    /// Where the chart was found, for stderr.
    static func foundLine(_ chart: DetectedChart) -> String {
        let center = chart.centers.reduce(SIMD2<Double>.zero, +) / 24
        let x = center.x / Double(chart.width), y = center.y / Double(chart.height)
        return
            "found the ColorChecker centred at \(DecimalText.fixed(x, 3)),\(DecimalText.fixed(y, 3)), patches \(Int(chart.pitch.rounded())) pixels apart"
            + (chart.mirrored ? ", seen in a mirror" : "") + ", confidence \(DecimalText.fixed(chart.confidence, 2))"
            + (chart.hiddenNumbers.isEmpty ? "" : ", \(24 - chart.hiddenNumbers.count) of 24 patches seen")
    }

    /// The frame with the windows read, over the reference and corrected colour of each patch.
    static func picture(_ calibration: Calibration, frame: RGBImage, geometry: ChartGeometry, radius: Int) -> RGBImage {
        let windows = calibration.patches.map { patch in
            let (x, y) = geometry.centers[patch.number - 1].pixel(width: frame.width, height: frame.height)
            let outline = geometry.patchCorners[(4 * patch.number - 4)..<(4 * patch.number)].map {
                SIMD2($0.x * Double(frame.width), $0.y * Double(frame.height))
            }
            return CalibrationPicture.Window(
                number: patch.number, centerX: x, centerY: y, radius: radius, used: patch.excluded == nil, patch: outline)
        }
        let swatches = calibration.patches.map { patch in
            let used = patch.excluded == nil
            return CalibrationPicture.Swatch(
                number: patch.number, reference: CalibratedColor(xyz: CIEXYZ(patch.reference)).srgb8,
                corrected: used ? CalibratedColor(xyz: CIEXYZ(patch.corrected)).srgb8 : nil, deltaE: used ? patch.deltaE : nil)
        }
        return CalibrationPicture.render(frame: frame, windows: windows, swatches: swatches)
    }

    /// A table for people: per patch reference, corrected and ΔE, then the summaries.
    static func table(_ calibration: Calibration, report: CalibrationReport, profilePath: String) -> String {
        func pad(_ text: String, _ width: Int, right: Bool = true) -> String {
            let space = String(repeating: " ", count: max(0, width - text.count))
            return right ? space + text : text + space
        }
        func lab(_ value: CIELab) -> String {
            pad(DecimalText.fixed(value.l, 2), 7) + pad(DecimalText.fixed(value.a, 2), 8) + pad(DecimalText.fixed(value.b, 2), 8)
        }
        var lines = [
            "patch                 reference L*a*b* (D50)    corrected L*a*b*          ΔE00  left out"
        ]
        for patch in calibration.patches {
            let name = pad("\(pad("\(patch.number)", 2)) \(ChartReference.patchNames[patch.number - 1])", 17, right: false)
            let leftOut = patch.deltaELeaveOneOut.map { pad(DecimalText.fixed($0, 2), 10) } ?? "  not used"
            lines.append(
                "\(name)  \(lab(patch.reference))  \(lab(patch.corrected))  \(pad(DecimalText.fixed(patch.deltaE, 2), 6))\(leftOut)")
        }
        func summary(_ s: Calibration.Summary) -> String {
            "mean \(DecimalText.fixed(s.mean, 2))  median \(DecimalText.fixed(s.median, 2))  max \(DecimalText.fixed(s.max, 2))"
        }
        let used = calibration.patches.filter { $0.excluded == nil }.count
        lines.append("")
        lines.append(
            "model \(calibration.model.rawValue) (\(report.chosenBy == "asked" ? "as asked" : "least leave-one-out error")), \(used) of 24 patches used"
        )
        lines.append("tone curve \(Self.curveText(calibration.curveSource))")
        if calibration.candidates.count > 1 {
            for candidate in calibration.candidates {
                let curve = pad(candidate.curve?.rawValue ?? "", 8, right: false)
                lines.append(
                    "  \(pad(candidate.model.rawValue, 18, right: false)) \(curve)  fitted \(summary(candidate.fitted));  left out \(summary(candidate.leaveOneOut))"
                )
            }
        }
        let light = calibration.light
        func percent(_ value: Double) -> String { DecimalText.fixed(100 * value, 1) + "%" }
        lines.append(
            "light across the chart: \(percent(light.spread)) from the most lit patch to the least (\(percent(light.perColumn)) a column to the right, \(percent(light.perRow)) a row down); fitted for the light at its centre"
        )
        lines.append("ΔE00 fitted:        \(summary(calibration.fitted))")
        lines.append("ΔE00 leave-one-out: \(summary(calibration.leaveOneOut))")
        lines.append("wrote \(profilePath)")
        return lines.joined(separator: "\n")
    }
}

extension Calibrate {
    /// A spread of the light across the chart (`ChartLight.spread`) above which calibrate warns.
    static let unevenLight = 0.5

    /// How the text report says the tone curve was found.
    static func curveText(_ source: CurveSource) -> String {
        switch source {
        case .neutrals: "through the six neutral patches, one per channel (least leave-one-out error)"
        case .patches: "one shape for the three channels through every patch (least leave-one-out error)"
        case .measured: "measured from the exposures of --bracket"
        }
    }
}

enum CalibrateFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

enum ModelChoice: String, ExpressibleByArgument, CaseIterable {
    case auto
    case linear = "linear-3x3"
    case affine = "affine-3x4"
    case rootPolynomial = "root-polynomial-2"

    var model: CorrectionModel? { CorrectionModel(rawValue: rawValue) }
}

enum CurveChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, neutrals, patches

    var curve: CurveSource? { CurveSource(rawValue: rawValue) }
}
