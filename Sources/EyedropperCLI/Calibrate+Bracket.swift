import ArgumentParser
import Eyedropper
import EyedropperCapture
import EyedropperPipeline

#if canImport(Glibc)
    import Glibc
    import EyedropperCalibration
#endif

/// One `calibrate --bracket`: the chart at another exposure, FACTOR times --source's; from a file
/// (`FILE@FACTOR`), or from a camera stepping its own exposure control (`FACTOR`).
struct BracketExposure: Hashable, Sendable {
    /// A recording of the chart at that exposure.
    struct File: Hashable, Sendable {
        let path: String
        let source: SourceName
    }

    /// The recording; nil for a camera's step.
    let file: File?
    let factor: Double
    /// The factor as given: "1/16".
    let factorText: String

    /// As given: "dark.y4m@1/16", "1/16".
    var text: String { (file.map { $0.path + "@" } ?? "") + factorText }

    /// "dark.y4m@1/16", "bright.y4m@2.5", or "1/16" alone: the last `@` parts the source from its
    /// factor.
    static func parse(_ text: String) throws -> BracketExposure {
        let at = text.lastIndex(of: "@")
        let factorText = at.map { String(text[text.index(after: $0)...]) } ?? text
        let parts = factorText.split(separator: "/", omittingEmptySubsequences: false)
        let factor: Double? =
            parts.count == 2 ? Double(parts[0]).flatMap { a in Double(parts[1]).map { a / $0 } } : Double(factorText)
        guard let at else {
            guard let factor, factor.isFinite, factor > 0 else {
                throw ValidationError(
                    "'\(text)': give FILE@FACTOR (a recording and its exposure relative to --source's, e.g. dark.y4m@1/16), or FACTOR alone for a camera to step its own exposure to (e.g. 1/16)"
                )
            }
            return BracketExposure(file: nil, factor: factor, factorText: factorText)
        }
        let path = String(text[..<at])
        guard let source = SourceName(path) else {
            throw ValidationError("'\(path)' is not a source: give a .y4m file (as `eyedropper record` writes), or any --source")
        }
        guard let factor, factor.isFinite, factor > 0 else {
            throw ValidationError(
                "'\(factorText)' is not an exposure factor above 0: give its exposure time over --source's, as 1/16, 0.25 or 4")
        }
        return BracketExposure(file: File(path: path, source: source), factor: factor, factorText: factorText)
    }
}

extension Calibrate {
    /// The controls a camera's exposure is stepped with, the first the camera has: UVC's (in
    /// units of 100 µs) and the older names.
    static let exposureControls = ["exposure_time_absolute", "exposure_absolute", "exposure"]
    /// Frames dropped at least at a new exposure, and at most while the camera settles.
    static let settleFrames = 2...30
    /// Two frames in a row whose patches agree this well (levels, each channel) have settled.
    static let settledLevels = 1.0

    /// Checks the --bracket exposures against each other: none is --source's own, none twice.
    func validateBracket() throws {
        var seen: [Double: String] = [1: "--source"]
        for exposure in bracket {
            if let other = seen[exposure.factor] {
                throw ValidationError("--bracket \(exposure.text): the same exposure as \(other): each exposure is read once")
            }
            seen[exposure.factor] = exposure.file?.path ?? "--bracket \(exposure.text)"
        }
        if bracketControl != nil, bracket.isEmpty {
            throw ValidationError(
                "--bracket-control steps a camera's exposure for --bracket: give the exposures too, e.g. --bracket 3/200 --bracket 1/40 ... --bracket 4"
            )
        }
    }

    /// Checks --bracket against the source, before anything is read: a camera steps its own
    /// exposure (FACTOR alone), anything else is read from one recording per exposure (FILE@FACTOR).
    func validateBracket(for source: SourceName) throws {
        let camera = if case .camera = source { true } else { false }
        if camera, let file = bracket.first(where: { $0.file != nil }) {
            throw ValidationError(
                "--bracket \(file.text): \(source) steps its own exposure: give the factor alone (--bracket \(file.factorText))"
            )
        }
        if !camera, let step = bracket.first(where: { $0.file == nil }) {
            throw ValidationError(
                "--bracket \(step.text): only a camera (--source /dev/videoN) steps its own exposure; give the recording of that exposure as FILE@\(step.text)"
            )
        }
        if !camera, let bracketControl {
            throw ValidationError(
                "--bracket-control \(bracketControl): \(source) is not a camera: give one recording per exposure, FILE@FACTOR")
        }
    }

    /// The tone curve measured from `base` (the chart read at --source's exposure) and a read of
    /// each --bracket exposure, the patches where `base` had them: the camera and the chart stay
    /// put between the exposures, and a dark exposure need not show the chart well enough to be
    /// found.
    func measureCurve(base: ChartRead, configuration: FrameSource.Configuration, reference: ChartReference) throws
        -> ResponseRecovery
    {
        guard let geometry = base.geometry else { throw ChartReadError.noFrames }
        let read = { ChartRead(corners: geometry.corners, radius: base.radius, reference: reference) }
        let steps =
            if case .camera(let device) = configuration.source {
                try readCameraSteps(device: device, configuration: configuration, read: read)
            } else {
                try readFileSteps(configuration: configuration, read: read)
            }
        let exposures = [1] + steps.map(\.factor)
        let recovery = try ResponseRecovery(readings: [base.readings] + steps.map(\.readings), exposures: exposures)
        for index in recovery.unusedExposures {
            let name = index == 0 ? "--source" : steps[index - 1].name
            StandardError.writeLine(
                "eyedropper: warning: \(name) (×\(DecimalText.atMost(exposures[index], 4))) has no patch between levels \(Int(ResponseRecovery.usableLevels.lowerBound)) and \(Int(ResponseRecovery.usableLevels.upperBound)) of 255: left out, too dark or too bright to say anything"
            )
        }
        if let ratio = recovery.ladderRatio {
            let used = recovery.usedExposures
            StandardError.writeLine(
                "eyedropper: warning: the exposures (×\(DecimalText.atMost(used.min()!, 4)) to ×\(DecimalText.atMost(used.max()!, 4))) are all close to powers of \(DecimalText.atMost(ratio, 2)): the curve measured is free to ripple with that step (on measured curves whole stops missed by up to 3.2 levels, steps off any ladder by 0.8); add exposures between the steps, or use docs/calibration.md's 3/200, 1/40, 3/50, 3/25, 1/4, 17/40, 1.25, 1.75, 4"
            )
        }
        let range = recovery.range
        StandardError.writeLine(
            "measured the tone curve from \(exposures.count - recovery.unusedExposures.count) exposures: levels \(DecimalText.fixed(255 * range.lowerBound, 1)) to \(DecimalText.fixed(255 * range.upperBound, 1)) of 255 read, \(recovery.samples) patch channels within \(DecimalText.fixed(100 * recovery.residual, 1))% of \(recovery.sharedByChannels ? "one curve for the three channels" : "a curve for each channel")"
        )
        return recovery
    }

    /// One exposure read for the curve: named for messages, its factor, its 24 patches.
    private struct Step {
        let name: String
        let factor: Double
        let readings: [PatchStatistics]
    }

    /// Each --bracket FILE@FACTOR read at the base's chart position.
    private func readFileSteps(configuration: FrameSource.Configuration, read newRead: () -> ChartRead) throws -> [Step] {
        var steps: [Step] = []
        for (index, exposure) in bracket.enumerated() {
            guard let file = exposure.file else { continue }
            let path = file.path
            var source = configuration
            source.source = file.source
            var read = newRead()
            do {
                try input.forEachFrame(source, limit: frames, done: "read") { frame, _ in try read.add(frame) }
            } catch {
                let status = (error as? any ExitStatusError)?.exitStatus ?? 65
                throw CommandFailure("--bracket \(exposure.text): \(error)", status: status)
            }
            guard read.frames > 0 else {
                throw CommandFailure("--bracket \(path): no frame in it", status: 65)
            }
            StandardError.writeLine(
                "exposure \(index + 2) of \(bracket.count + 1): \(path), ×\(DecimalText.atMost(exposure.factor, 4)), \(read.frames) frames")
            steps.append(Step(name: "--bracket \(path)", factor: exposure.factor, readings: read.readings))
        }
        return steps
    }

    /// The camera's exposure control stepped to each --bracket FACTOR times the value it has now
    /// (as --lock or --control left it after the base was read), the chart read at each once two
    /// frames in a row agree, and the control put back however the reading ends. A step the
    /// control cannot take (past its range, or rounding onto a value already read) is left out,
    /// said; the factor is the value set over the one it had, not the one asked.
    private func readCameraSteps(device: String, configuration: FrameSource.Configuration, read newRead: () -> ChartRead)
        throws -> [Step]
    {
        let listing = try CameraControls.list(device: device)
        guard
            let control =
                bracketControl.map({ name in listing.first { $0.name == name } })
                ?? Self.exposureControls.lazy.compactMap({ name in listing.first { $0.name == name } }).first
        else {
            throw CommandFailure(
                bracketControl.map {
                    "--bracket-control \($0): \(device) has no such control (`eyedropper controls --device \(device)` lists them)"
                }
                    ?? "--bracket: \(device) has no exposure control (\(Self.exposureControls.joined(separator: ", "))): name the control to step with --bracket-control",
                status: 64)
        }
        guard control.kind == .int || control.kind == .int64, case .integer(let original) = control.value, original > 0 else {
            throw CommandFailure(
                "--bracket: \(device)'s \(control.name) is not an integer control with a value above 0 to step from (\(control.kind.rawValue)\(control.value.map { ", \($0)" } ?? "")): name another with --bracket-control",
                status: 64)
        }
        if control.flags.contains(.inactive) || control.flags.contains(.readOnly) {
            // What setting it would say: which automatic control governs it, and what to do.
            try CameraControls(device: device).set([ControlSetting(name: control.name, value: "\(original)")])
        }
        var values: [Int64] = [original]
        var planned: [(value: Int64, factor: Double)] = []
        for exposure in bracket {
            let value = control.clamped(Int64((Double(original) * exposure.factor).rounded()))
            if values.contains(value) {
                StandardError.writeLine(
                    "eyedropper: warning: --bracket \(exposure.text): \(control.name) \(original) × \(exposure.text) is \(value) (its range is \(control.minimum)...\(control.maximum), step \(control.step)), an exposure already read: left out"
                )
                continue
            }
            values.append(value)
            planned.append((value, Double(value) / Double(original)))
        }
        let controls = CameraControls(device: device)
        defer {
            do {
                try controls.set([ControlSetting(name: control.name, value: "\(original)")])
                StandardError.writeLine("put \(control.name) back to \(original)")
            } catch {
                StandardError.writeLine("eyedropper: warning: could not put \(control.name) back to \(original): \(error)")
            }
        }
        var steps: [Step] = []
        for (index, (value, factor)) in planned.enumerated() {
            let setting = ControlSetting(name: control.name, value: "\(value)")
            var source = configuration
            // Only this control is set as the camera opens: --control and --lock were applied to
            // the base, and stay on the device; applied again they would undo the step.
            source.controls = [setting]
            source.lock = false
            source.skip = 0
            var read = newRead()
            var (dropped, previous, change): (Int, [Double]?, Double) = (0, nil, .infinity)
            var settled = false
            let enough = { (_: Double) in read.frames >= frames }
            try input.forEachFrame(source, limit: nil, done: "read", until: enough) { frame, _ in
                if !settled {
                    var probe = newRead()
                    try probe.add(frame)
                    let levels = probe.readings.flatMap { patch in
                        let mean = patch.mean
                        return [mean.r, mean.g, mean.b]
                    }
                    change = previous.map { zip($0, levels).map { abs($0 - $1) }.max() ?? 0 } ?? .infinity
                    previous = levels
                    dropped += 1
                    if dropped > Self.settleFrames.upperBound {
                        StandardError.writeLine(
                            "eyedropper: warning: \(control.name)=\(value): the patches still moved \(DecimalText.fixed(change, 1)) levels a frame after \(Self.settleFrames.upperBound) frames: read as they are"
                        )
                    } else if dropped <= Self.settleFrames.lowerBound || change > Self.settledLevels {
                        return
                    }
                    settled = true
                }
                try read.add(frame)
            }
            guard read.frames >= frames else {
                throw CommandFailure(
                    "--bracket: \(control.name)=\(value): \(Interrupt.requested ? "interrupted" : "the camera stopped") after \(read.frames) of \(frames) frames: nothing written",
                    status: Interrupt.requested ? 130 : 74)
            }
            StandardError.writeLine(
                "exposure \(index + 2) of \(planned.count + 1): \(control.name)=\(value) (×\(DecimalText.atMost(factor, 4)) of \(original)), \(read.frames) frames after \(dropped - 1) to settle"
            )
            steps.append(Step(name: "\(control.name)=\(value)", factor: factor, readings: read.readings))
        }
        return steps
    }
}
