import ArgumentParser
import Eyedropper
import EyedropperCapture
import EyedropperPipeline

#if canImport(Glibc)
    import Glibc
    import EyedropperCalibration
#endif

/// One `calibrate --bracket FILE@FACTOR`: the chart at another exposure, FACTOR times --source's.
struct BracketExposure: Hashable, Sendable {
    let path: String
    let source: SourceName
    let factor: Double

    /// "dark.y4m@1/16", "bright.y4m@2.5": the last `@` parts the source from its factor.
    static func parse(_ text: String) throws -> BracketExposure {
        guard let at = text.lastIndex(of: "@") else {
            throw ValidationError("give FILE@FACTOR, the file and its exposure relative to --source's, e.g. dark.y4m@1/16")
        }
        let path = String(text[..<at]), factorText = String(text[text.index(after: at)...])
        guard let source = SourceName(path) else {
            throw ValidationError("'\(path)' is not a source: give a .y4m file (as `eyedropper record` writes), or any --source")
        }
        let parts = factorText.split(separator: "/", omittingEmptySubsequences: false)
        let factor: Double? =
            parts.count == 2 ? Double(parts[0]).flatMap { a in Double(parts[1]).map { a / $0 } } : Double(factorText)
        guard let factor, factor.isFinite, factor > 0 else {
            throw ValidationError(
                "'\(factorText)' is not an exposure factor above 0: give its exposure time over --source's, as 1/16, 0.25 or 4")
        }
        return BracketExposure(path: path, source: source, factor: factor)
    }
}

extension Calibrate {
    /// Checks the --bracket exposures against each other: none is --source's own, none twice.
    func validateBracket() throws {
        var seen: [Double: String] = [1: "--source"]
        for exposure in bracket {
            if let other = seen[exposure.factor] {
                throw ValidationError(
                    "--bracket \(exposure.path)@\(DecimalText.fixed(exposure.factor, 4)): the same exposure as \(other): each exposure is read once"
                )
            }
            seen[exposure.factor] = exposure.path
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
        var readings = [base.readings]
        for (index, exposure) in bracket.enumerated() {
            var source = configuration
            source.source = exposure.source
            var read = ChartRead(corners: geometry.corners, radius: base.radius, reference: reference)
            do {
                try input.forEachFrame(source, limit: frames, done: "read") { frame, _ in try read.add(frame) }
            } catch {
                let status = (error as? any ExitStatusError)?.exitStatus ?? 65
                throw CommandFailure("--bracket \(exposure.path)@\(DecimalText.atMost(exposure.factor, 4)): \(error)", status: status)
            }
            guard read.frames > 0 else {
                throw CommandFailure("--bracket \(exposure.path): no frame in it", status: 65)
            }
            StandardError.writeLine(
                "exposure \(index + 2) of \(bracket.count + 1): \(exposure.path), ×\(DecimalText.atMost(exposure.factor, 4)), \(read.frames) frames"
            )
            readings.append(read.readings)
        }
        let exposures = [1] + bracket.map(\.factor)
        let recovery = try ResponseRecovery(readings: readings, exposures: exposures)
        for index in recovery.unusedExposures {
            let name = index == 0 ? "--source" : "--bracket \(bracket[index - 1].path)"
            StandardError.writeLine(
                "eyedropper: warning: \(name) (×\(DecimalText.atMost(exposures[index], 4))) has no patch between levels \(Int(ResponseRecovery.usableLevels.lowerBound)) and \(Int(ResponseRecovery.usableLevels.upperBound)) of 255: left out, too dark or too bright to say anything"
            )
        }
        let range = recovery.range
        StandardError.writeLine(
            "measured the tone curve from \(exposures.count - recovery.unusedExposures.count) exposures: levels \(DecimalText.fixed(255 * range.lowerBound, 1)) to \(DecimalText.fixed(255 * range.upperBound, 1)) of 255 read, \(recovery.samples) patch channels within \(DecimalText.fixed(100 * recovery.residual, 1))% of the curve"
        )
        return recovery
    }
}
