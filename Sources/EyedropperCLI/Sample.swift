import ArgumentParser
import Eyedropper
import EyedropperCapture
import EyedropperOutputs
import EyedropperPipeline

#if canImport(Glibc)
    import Glibc
    import EyedropperCalibration
#endif

/// `eyedropper sample`: the colours at a few points of each frame.
struct Sample: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the colour at points of each frame.",
        discussion: """
            Reads frames from SRC, converts each to RGB with the matrix and range the source \
            reports (or --matrix / --range) and prints the colour at every --at point, for every \
            frame (or every Nth), until --frames or Ctrl-C. SRC is a capture device (/dev/videoN), \
            a .y4m file (YUV4MPEG2, 8-bit 4:2:0) or 'testpattern' (75% colour bars, a grey ramp \
            and a hue sweep). Default: the first capture device, or the test pattern when there \
            is none.

            --format json prints one object per frame and line: \
            {"frame":0,"timestamp":0.0,"matrix":"bt709","range":"limited","samples":[{"x":0.5,"y":0.5,"r":191,"g":0,"b":192,"hex":"#bf00c0","mean":[191.00,0.00,192.00],"sd":[0.00,0.00,0.00],"n":1,"clipped":1}]} \
            (frame counts from 0 after --skip; timestamp in seconds, the driver's for a camera). \
            r, g, b and hex are the colour, rounded to a level; mean and sd are the mean and \
            (population) standard deviation of each channel over the n pixels of the patch \
            (2 decimals), clipped how many of their channel values are 0 or 255. \
            --format csv prints a header row, then one row per point and frame, with HSV and \
            CIE L*a*b* (D65) besides RGB, then mean_r,mean_g,mean_b,sd_r,sd_g,sd_b,n,clipped. \
            --format text is for people: a colour swatch when stdout is a terminal.

            --average N prints one line per N frames instead, each point's statistics over all \
            the patch pixels of those frames (n is N times the patch): "frame" is the block's \
            first frame, followed by "frames":N (a csv column after frame); a last, shorter \
            block (the source ended, --frames, Ctrl-C) is printed with its own count. With the \
            test pattern, --average N reads N frames unless --frames says otherwise.

            --profile PROFILE.json (from eyedropper calibrate) adds to each sample \
            "calibrated":{"xyz":[X,Y,Z],"lab":[L,a,b],"srgb":[r,g,b],"hex":"#rrggbb","inGamut":true}: \
            the colour of the patch mean (not of the rounded r, g, b) in CIE XYZ and L*a*b* \
            relative to D50 (Y of the perfect white 100), and in sRGB (Bradford to D65, 0...255 \
            unrounded, clamped when outside sRGB's gamut, and then "inGamut":false). csv adds the \
            columns xyz_x,xyz_y,xyz_z,cal_l,cal_a,cal_b,srgb_r,srgb_g,srgb_b,srgb_hex,in_gamut. \
            --target L,a,b or '#rrggbb' adds "deltaE" (CIEDE2000 to the target) and "pass" \
            (within --tolerance) to each sample (csv: delta_e,pass), and the exit status says \
            whether every sample of the last line printed passed: 0 yes, 1 no (as cmp does), so \
            a script can gate on it.

            --white-reference X,Y (with --profile) reads a white or grey patch that stays in \
            view and corrects the calibrated colours, frame by frame, for the light's change \
            since the profile was made: the profile must have recorded the patch (calibrate \
            --white-reference X,Y) or --white-reference-lab must give its colour. Each line gains \
            "reference":{"x":..,"y":..,"mean":[..],"sd":[..],"n":N,"clipped":C,"gains":[..],"deltaE":D,"applied":true,"state":"ok","model":"bradford"}: \
            deltaE is how far the light has moved (CIEDE2000 of the patch now, uncorrected, \
            against calibration), gains what was applied. A patch that clips, is covered (its sd \
            jumps), is too dark or turns a colour no light gives is not applied ("applied":false, \
            state clipped, covered, dark or implausible): the calibrated colours are then the \
            profile's alone. Past --max-drift the state is drift (still applied), and with \
            --target the exit status is 1 as for a sample off target. csv adds \
            ref_gain_r,ref_gain_g,ref_gain_b,ref_delta_e,ref_applied,ref_state.

            --palette FILE names each sample by the nearest of FILE's colours (CIEDE2000, exact), \
            by its calibrated colour with --profile, else by its camera colour read as sRGB: \
            "nearest":{"name":"red","deltaE":1.23,"next":"crimson","margin":4.1,"of":"calibrated"}. \
            margin is the next colour's ΔE minus the nearest's: below about 1 the name is one \
            just-noticeable difference from changing. Past --max-delta-e the name is "unknown", \
            next the nearest colour and margin how far past. CSS's 148 named colours and the \
            ColorChecker's 24 patches come with the package (/usr/share/eyedropper/palettes). csv \
            adds nearest,nearest_delta_e,next,margin,nearest_of.
            """
    )

    @OptionGroup var input: SourceOptions

    @OptionGroup var sampling: PointOptions

    @OptionGroup var calibration: CalibrationOptions

    @OptionGroup var naming: PaletteOptions

    /// MQTT and OSC: where each line goes besides stdout.
    @OptionGroup(title: "Outputs") var outputs: OutputOptions

    @Option(help: "Stop after this many frames (default: all of a file, 1 of the test pattern, a camera until Ctrl-C).")
    var frames: Int?

    @Option(help: ArgumentHelp("Print every Nth frame (frames 0, N, 2N, ...); the others are read but not sampled.", valueName: "N"))
    var every: Int?

    @Option(
        help: ArgumentHelp("Print one line per N frames: the statistics over all their patch pixels (not with --every).", valueName: "N"))
    var average: Int?

    @Option(help: "json (one object per frame), csv (a header, then a row per point) or text (for people).")
    var format: SampleFormat = .json

    func validate() throws {
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1, got \(frames)") }
        if let every, every < 1 { throw ValidationError("--every must be at least 1, got \(every)") }
        if let average, average < 1 { throw ValidationError("--average must be at least 1, got \(average)") }
        if average != nil, every != nil {
            throw ValidationError(
                "--average and --every cannot be used together: choose one (--average N prints blocks of N frames, --every N every Nth frame alone)"
            )
        }
    }

    func run() throws {
        let calibrated = try calibration.load()
        let palette = try naming.load()
        let configuration = try input.configuration()
        // The test pattern's default of one frame would make every block a single frame.
        let limit = frames ?? (configuration.source == .testPattern ? average : nil)
        let points = sampling.pointsOrCentre
        let sinks = try outputs.open(
            source: configuration,
            discovery: HomeAssistantDiscovery(
                points: points, calibrated: calibrated != nil, target: calibrated?.target != nil, reference: calibrated?.reference != nil,
                named: palette != nil),
            logger: input.diagnostics.logger)
        // Whatever ends the stream, what is queued for the broker is sent before the exit.
        defer { sinks?.close() }
        var pipeline = FramePipeline(
            points: points, radius: sampling.radius, profile: calibrated?.profile, target: calibrated?.target,
            reference: calibrated?.reference, palette: palette, average: average, driverClock: configuration.source.isCamera,
            profileStamp: calibration.profile.map { ProfileStamp(path: $0, generation: 0) })
        var lines = SampleLines(
            format: format, block: average != nil, swatches: isatty(STDOUT_FILENO) != 0, profile: calibrated != nil,
            target: calibrated?.target != nil, reference: calibrated?.reference != nil, palette: palette != nil)
        /// Each reading goes to stdout and to the outputs; with a target, the last says the exit status.
        var lastLinePassed: Bool?
        func write(_ reading: Reading?) {
            guard let reading else { return }
            // The JSON line made once, and only when an output wants it.
            let json = format == .json || sinks?.mqtt != nil ? reading.json : ""
            sinks?.send(reading, json: json)
            lines.print(reading, json: json)
            // Light that moved past --max-drift fails a line as a sample off target does.
            if calibrated?.target != nil {
                lastLinePassed = reading.calibrated.allSatisfy { $0.pass == true } && reading.reference?.state != .drift
            }
        }
        let every = every ?? 1
        var frameIndex = 0
        do {
            try input.forEachFrame(configuration, limit: limit, done: "read") { frame, timestamp in
                defer { frameIndex += 1 }
                guard frameIndex % every == 0 else { return }
                // Said even when sampling the frame fails.
                defer { for warning in pipeline.warnings ?? [] { StandardError.writeLine("eyedropper: warning: \(warning)") } }
                write(try pipeline.read(frame, number: frameIndex, timestamp: timestamp))
            }
        } catch {
            // A block cut short by an error is printed too.
            write(pipeline.finish())
            throw error
        }
        // And one cut short by the end of the source, --frames or Ctrl-C.
        write(pipeline.finish())
        if lastLinePassed == false { throw ExitCode(1) }
    }
}

enum SampleFormat: String, ExpressibleByArgument, CaseIterable {
    case json, csv, text
}

/// Prints readings in the chosen format: a JSON line, CSV rows (after a header) or text for
/// people, one per frame or block.
private struct SampleLines {
    let format: SampleFormat
    /// Whether text output shows each colour as a swatch (ANSI 24-bit background colour).
    let swatches: Bool
    /// The colorimetry named in the last text header: text names it again only when it changes.
    private var shownColorimetry: Colorimetry?

    /// Prints the CSV header: its columns follow `block` (--average), `profile`, `target` and
    /// `reference` and `palette`.
    init(format: SampleFormat, block: Bool, swatches: Bool, profile: Bool, target: Bool, reference: Bool, palette: Bool) {
        self.format = format
        self.swatches = swatches
        if format == .csv {
            var columns = [
                "frame", "timestamp", "matrix", "range", "x", "y", "r", "g", "b", "hex", "hue", "saturation", "value",
                "lab_l", "lab_a", "lab_b", "mean_r", "mean_g", "mean_b", "sd_r", "sd_g", "sd_b", "n", "clipped",
            ]
            if block { columns.insert("frames", at: 1) }
            if profile {
                columns += ["xyz_x", "xyz_y", "xyz_z", "cal_l", "cal_a", "cal_b", "srgb_r", "srgb_g", "srgb_b", "srgb_hex", "in_gamut"]
            }
            if target { columns += ["delta_e", "pass"] }
            if palette { columns += ["nearest", "nearest_delta_e", "next", "margin", "nearest_of"] }
            if reference { columns += ["ref_gain_r", "ref_gain_g", "ref_gain_b", "ref_delta_e", "ref_applied", "ref_state"] }
            Swift.print(columns.joined(separator: ","))
        }
    }

    /// One frame's or one block's lines; `json` is its JSON line.
    mutating func print(_ reading: Reading, json: String) {
        let (frame, frames, timestamp, colorimetry) = (reading.frame, reading.frames, reading.timestamp, reading.colorimetry)
        let (samples, calibrated) = (reading.samples, reading.calibrated)
        let (matrix, range) = (colorimetry.matrix.rawValue, colorimetry.range.rawValue)
        switch format {
        case .json:
            Swift.print(json)
        case .csv:
            for (index, sample) in samples.enumerated() {
                let (point, color, statistics) = (sample.point, sample.color, sample.statistics)
                let (hsv, lab) = (color.hsv, color.lab)
                let (mean, sd) = (statistics.mean, statistics.standardDeviation)
                var fields = [
                    "\(frame)", "\(timestamp)", matrix, range, "\(point.x)", "\(point.y)",
                    "\(color.r)", "\(color.g)", "\(color.b)", color.hex,
                    DecimalText.fixed(hsv.hue, 1), DecimalText.fixed(hsv.saturation, 4), DecimalText.fixed(hsv.value, 4),
                    DecimalText.fixed(lab.l, 2), DecimalText.fixed(lab.a, 2), DecimalText.fixed(lab.b, 2),
                    DecimalText.fixed(mean.r, 2), DecimalText.fixed(mean.g, 2), DecimalText.fixed(mean.b, 2), DecimalText.fixed(sd.r, 2),
                    DecimalText.fixed(sd.g, 2), DecimalText.fixed(sd.b, 2),
                    "\(statistics.count)", "\(statistics.clipped)",
                ]
                if let frames { fields.insert("\(frames)", at: 1) }
                if index < calibrated.count {
                    let calibrated = calibrated[index], color = calibrated.color
                    let (xyz, lab, srgb) = (color.xyz, color.lab, color.srgb)
                    fields +=
                        [xyz.x, xyz.y, xyz.z].map { DecimalText.fixed($0, 3) }
                        + [lab.l, lab.a, lab.b, srgb.x, srgb.y, srgb.z].map { DecimalText.fixed($0, 2) }
                    fields += [color.srgb8.hex, "\(color.inGamut)"]
                    if let deltaE = calibrated.deltaE, let pass = calibrated.pass { fields += [DecimalText.fixed(deltaE, 2), "\(pass)"] }
                }
                if index < reading.names.count, let palette = reading.palette?.palette {
                    let name = reading.names[index]
                    fields += [
                        name.entry.map { palette.csvName($0) } ?? NamedColor.unknownName,
                        name.match.deltaE.isFinite ? DecimalText.fixed(name.match.deltaE, 2) : "",
                        name.next.map { palette.csvName($0) } ?? "", name.margin.map { DecimalText.fixed($0, 2) } ?? "",
                        name.calibrated ? "calibrated" : "camera",
                    ]
                }
                if let reference = reading.reference {
                    let gains = reference.gains
                    fields += [gains.x, gains.y, gains.z].map { DecimalText.fixed($0, 4) }
                    fields += [
                        reference.deltaE.isFinite ? DecimalText.fixed(reference.deltaE, 2) : "", "\(reference.applied)",
                        reference.state.rawValue,
                    ]
                }
                Swift.print(fields.joined(separator: ","))
            }
        case .text:
            if shownColorimetry != colorimetry {
                Swift.print("\(reading.width)x\(reading.height), \(matrix) \(range) range")
                shownColorimetry = colorimetry
            }
            let frameText = frames.map { "frames \(frame)-\(frame + $0 - 1)" } ?? "frame \(frame)"
            for (index, sample) in samples.enumerated() {
                let (point, color, statistics) = (sample.point, sample.color, sample.statistics)
                let (hsv, lab) = (color.hsv, color.lab)
                let (mean, sd) = (statistics.mean, statistics.standardDeviation)
                let swatch = swatches ? "\u{1B}[48;2;\(color.r);\(color.g);\(color.b)m    \u{1B}[0m  " : ""
                let clipped = statistics.clipped > 0 ? "  clipped \(statistics.clipped)" : ""
                var calibratedText = ""
                if index < calibrated.count {
                    let calibrated = calibrated[index], color = calibrated.color
                    calibratedText =
                        "  calibrated \(color.srgb8.hex) L*a*b* \(DecimalText.fixed(color.lab.l, 1)) \(DecimalText.fixed(color.lab.a, 1)) \(DecimalText.fixed(color.lab.b, 1))"
                        + (color.inGamut ? "" : " (outside sRGB)")
                    if let deltaE = calibrated.deltaE, let pass = calibrated.pass {
                        calibratedText += "  ΔE \(DecimalText.fixed(deltaE, 2)) \(pass ? "pass" : "FAIL")"
                    }
                }
                Swift.print(
                    "\(frameText)  at \(point.x),\(point.y)  \(swatch)\(color.hex)  "
                        + "rgb \(color.r) \(color.g) \(color.b)  "
                        + "hsv \(DecimalText.fixed(hsv.hue, 0))° \(DecimalText.fixed(hsv.saturation * 100, 0))% \(DecimalText.fixed(hsv.value * 100, 0))%  "
                        + "lab \(DecimalText.fixed(lab.l, 1)) \(DecimalText.fixed(lab.a, 1)) \(DecimalText.fixed(lab.b, 1))  "
                        + "mean \(DecimalText.fixed(mean.r, 1)) \(DecimalText.fixed(mean.g, 1)) \(DecimalText.fixed(mean.b, 1)) ± \(DecimalText.fixed(sd.r, 1)) \(DecimalText.fixed(sd.g, 1)) \(DecimalText.fixed(sd.b, 1))"
                        + clipped + calibratedText + Self.text(reading, index))
            }
            if let reference = reading.reference { Swift.print("\(frameText)  \(Self.text(reference))") }
        }
    }

    /// `  ≈ red ΔE 1.2 (next crimson +4.1)`: sample `index`'s name, or nothing without a palette.
    static func text(_ reading: Reading, _ index: Int) -> String {
        guard index < reading.names.count, let palette = reading.palette?.palette else { return "" }
        let name = reading.names[index]
        let deltaE = DecimalText.fixed(name.match.deltaE, 1)
        guard let entry = name.entry else {
            return "  ≈ unknown (nearest \(palette.name(name.match.entry)) ΔE \(deltaE))"
        }
        let next = name.next.map { next in " (next \(palette.name(next)) +\(DecimalText.fixed(name.margin ?? 0, 1)))" } ?? ""
        return "  ≈ \(palette.name(entry)) ΔE \(deltaE)\(next)"
    }

    /// The reference's line for people: what was applied and how far the light moved, or why not.
    static func text(_ reference: ReferenceReading) -> String {
        let moved = reference.deltaE.isFinite ? DecimalText.fixed(reference.deltaE, 1) : "?"
        let sd = reference.statistics.standardDeviation
        let patch = "reference at \(reference.point.x),\(reference.point.y)"
        guard reference.applied else {
            let why =
                switch reference.state {
                case .clipped: "clipped (\(reference.statistics.clipped) values at 0 or 255)"
                case .covered: "covered (sd \(DecimalText.fixed(max(sd.r, sd.g, sd.b), 1)))"
                case .dark: "too dark"
                default: "not a light's colour"
                }
            return "\(patch) \(why): the colours above are uncorrected"
        }
        let gains = reference.gains
        return
            "\(patch): the light moved ΔE \(moved); corrected (\(reference.model.rawValue)) ×\(DecimalText.fixed(gains.x, 3)) \(DecimalText.fixed(gains.y, 3)) \(DecimalText.fixed(gains.z, 3))"
            + (reference.state == .drift ? ", more than --max-drift" : "")
    }
}
