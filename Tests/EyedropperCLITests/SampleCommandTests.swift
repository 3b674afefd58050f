import Eyedropper
import EyedropperTestSupport
import Foundation
import Testing

@Suite struct SampleCommandTests {
    /// The README's main job: with no source, the test pattern's centre (the magenta bar, 75%
    /// 191/0/191, which 8-bit BT.709 code values hold as 191/0/192), one JSON line per frame.
    @Test func sampleWithNoSourceReadsTheTestPattern() throws {
        let result = try runEyedropper(["sample", "--frames", "2"])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                {"frame":0,"timestamp":0.0,"matrix":"bt709","range":"limited","samples":[{"x":0.5,"y":0.5,"r":191,"g":0,"b":192,"hex":"#bf00c0","mean":[191.00,0.00,192.00],"sd":[0.00,0.00,0.00],"n":1,"clipped":1}]}
                {"frame":1,"timestamp":0.0,"matrix":"bt709","range":"limited","samples":[{"x":0.5,"y":0.5,"r":191,"g":0,"b":192,"hex":"#bf00c0","mean":[191.00,0.00,192.00],"sd":[0.00,0.00,0.00],"n":1,"clipped":1}]}

                """)
        #expect(result.stderr.contains("test pattern"))
    }

    /// --log-level sets what is said on stderr besides errors: at `warning` the choice of source
    /// (an `info` line) is not said, and the samples are the same.
    @Test func logLevelQuietsTheInfoLines() throws {
        let quiet = try runEyedropper(["sample", "--frames", "1", "--log-level", "warning"])
        #expect(quiet.status == 0)
        #expect(quiet.stderr == "")
        let told = try runEyedropper(["sample", "--frames", "1"])
        #expect(told.stderr.hasPrefix("eyedropper: no --source given: reading "))
        #expect(quiet.stdout == told.stdout && quiet.stdout.hasPrefix(#"{"frame":0,"#))
    }

    /// Bar centres of a .y4m file, in its colorimetry (BT.601 at 480 lines, full range as tagged).
    @Test func sampleReadsY4MFiles() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file("bars.y4m")
        let pattern = try TestPattern(width: 640, height: 480, colorimetry: .bt601Full)
        let writer = try Y4MWriter(path: path, width: 640, height: 480, colorimetry: .bt601Full)
        let buffer = try pattern.makeFrameBuffer()
        try writer.write(buffer)
        try writer.write(buffer)
        try writer.finish()
        let points = (0..<8).flatMap { ["--at", "\((Double($0) + 0.5) / 8),0.25"] }
        let result = try runEyedropper(["sample", "--source", path] + points)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.contains(#""matrix":"bt601","range":"full""#) })
        for (bar, color) in TestPattern.barColors.enumerated() {
            // Full range holds 191 and 0 exactly for every bar but a level's rounding.
            let x = (Double(bar) + 0.5) / 8
            let expected = buffer.withFrame { frame in
                pattern.colorimetry.exactRGB(frame.sample(x: Int(x * 640), y: 120))
            }
            #expect(abs(Int(expected.r) - Int(color.r)) <= 1 && abs(Int(expected.b) - Int(color.b)) <= 1)
            #expect(
                lines[0].contains(#""x":\#(x),"y":0.25,"r":\#(expected.r),"g":\#(expected.g),"b":\#(expected.b)"#),
                "bar \(bar): \(lines[0])")
        }
    }

    @Test func badPointsAndSourcesAreUsageErrors() throws {
        let outside = try runEyedropper(["sample", "--at", "1.5,0"])
        #expect(outside.status == 64)
        #expect(outside.stderr.contains("'1.5,0' is invalid for '--at <X,Y>'"))
        let unknown = try runEyedropper(["sample", "--source", "photo.png"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("--source photo.png"))
        let missing = try runEyedropper(["sample", "--source", "/nonexistent/clip.y4m"])
        #expect(missing.status == 66)
        #expect(
            missing.stderr
                == "eyedropper: /nonexistent/clip.y4m: cannot open: the file does not exist (No such file or directory): check the path\n")
    }

    /// Usage errors are one line naming the option, the value and what is wrong: no usage text.
    @Test(arguments: [
        (
            ["sample", "--at", "1.5,0"],
            "eyedropper: The value '1.5,0' is invalid for '--at <X,Y>': point 1.5,0.0 is outside the frame: both coordinates must be within 0...1, (0, 0) the top-left corner\n"
        ),
        (
            ["sample", "--at", "nan,0.5"],
            "eyedropper: The value 'nan,0.5' is invalid for '--at <X,Y>': point nan,0.5 is outside the frame: both coordinates must be within 0...1, (0, 0) the top-left corner\n"
        ),
        (
            ["sample", "--at", "0.5"],
            "eyedropper: The value '0.5' is invalid for '--at <X,Y>': give two numbers X,Y in 0...1, e.g. 0.5,0.5 for the centre\n"
        ),
        (
            ["sample", "--size", "0x0"],
            "eyedropper: The value '0x0' is invalid for '--size <WxH>': give the width and height in pixels as WxH, both at least 1, e.g. 1280x720\n"
        ),
        (
            ["sample", "--format", "xml"],
            "eyedropper: The value 'xml' is invalid for '--format <format>'. Please provide one of 'json', 'csv' or 'text'.\n"
        ),
        (["sample", "--every", "0"], "eyedropper: --every must be at least 1, got 0\n"),
        (["sample", "--average", "0"], "eyedropper: --average must be at least 1, got 0\n"),
        (["sample", "--average=-3"], "eyedropper: --average must be at least 1, got -3\n"),
        (
            ["sample", "--average", "30", "--every", "2"],
            "eyedropper: --average and --every cannot be used together: choose one (--average N prints blocks of N frames, --every N every Nth frame alone)\n"
        ),
        (["sample", "--radius=-1"], "eyedropper: --radius: radius -1 is out of range: give 0 (one pixel) to 512\n"),
        (
            ["sample", "--log-level", "loud"],
            "eyedropper: The value 'loud' is invalid for '--log-level <LEVEL>': give one of trace, debug, info, notice, warning, error, critical\n"
        ),
    ])
    func usageErrorsAreOneLineAndExit64(arguments: [String], message: String) throws {
        let result = try runEyedropper(arguments)
        #expect(result.status == 64)
        #expect(result.stderr == message)
        #expect(result.stdout.isEmpty)
    }

    /// A damaged file is a data error (65) naming the file and the frame, in one line (its tags
    /// say its colorimetry, so nothing else is said).
    @Test func damagedFileExits65NamingFileAndFrame() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file("cut.y4m")
        try ScratchDirectory.write(
            Array("YUV4MPEG2 W4 H2 F25:1 C420jpeg XCOLORRANGE=LIMITED XEYEDROPPER_MATRIX=BT601\nFRAME\n\u{10}\u{10}".utf8), to: path)
        let result = try runEyedropper(["sample", "--source", path])
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("eyedropper: \(path): frame 0: "))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    /// A 4 kB file whose header promises a 16384x16384 frame: the same truncation error (65),
    /// and the memory the process took stays near what it holds. Catches a reader that takes the
    /// header's 384 MiB before the data comes (the whole frame cleared at open: 409 MiB), which a
    /// few such files, or one on a pipe that never fills, would turn into a machine out of memory.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3 to measure the child's memory"))
    func aHugeHeaderCostsOnlyTheDataThatArrives() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file("huge.y4m")
        let header = Array("YUV4MPEG2 W16384 H16384 F30:1 C420jpeg\nFRAME\n".utf8)
        try ScratchDirectory.write(header + [UInt8](repeating: 128, count: 4096 - header.count), to: path)
        let (status, peakKiB, stderr) = try peakMemory(ofEyedropper: ["sample", "--source", path, "--frames", "1"])
        #expect(status == 65, "\(stderr)")
        #expect(stderr.contains("frame 0: truncated: \(4096 - header.count) of 402653184 bytes"), "\(stderr)")
        // The process's own baseline (runtime, libraries) is about 25 MiB; the frame is 384 MiB.
        #expect(peakKiB < 64 * 1024, "peak resident memory \(peakKiB / 1024) MiB")
    }

    /// --skip drops a file's first frames: numbering starts at 0 after them, timestamps keep
    /// the file's clock (25 fps: frame 3 of the file is at 0.12 s).
    @Test func skipDropsAFilesFirstFramesKeepingItsClock() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file("five.y4m")
        try ScratchDirectory.write(
            y4mBytes(header: "YUV4MPEG2 W4 H2 F25:1 C420jpeg\n", frames: (0..<5).map { tinyFrame(UInt8($0) * 40) }), to: path)
        let result = try runEyedropper(["sample", "--source", path, "--skip", "3", "--format", "csv", "--at", "0,0"])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",").prefix(2).joined(separator: ",") }
        #expect(rows == ["0,0.12", "1,0.16"])
    }

    /// Ctrl-C ends a stream after the frame being sampled: exit 0, every line printed whole.
    @Test func interruptEndsTheStreamCleanly() throws {
        let process = Process()
        process.executableURL = eyedropperExecutable
        process.arguments = ["sample", "--source", "testpattern", "--size", "64x48", "--frames", "1000000000", "--every", "1000"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = Pipe()
        try process.run()
        // The first line arrives at once (stdout is line-buffered), so the stream is under way.
        let first = out.fileHandleForReading.availableData
        #expect(String(decoding: first, as: UTF8.self).hasPrefix(#"{"frame":0,"#))
        kill(process.processIdentifier, SIGINT)
        let rest = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let text = String(decoding: first + rest, as: UTF8.self)
        #expect(text.hasSuffix("}]}\n"))
        #expect(text.split(separator: "\n").allSatisfy { $0.hasPrefix(#"{"frame":"#) && $0.hasSuffix("}]}") })
    }

    /// CSV: a header, then one row per point and frame, with HSV, L*a*b* and the statistics;
    /// --every thins frames.
    @Test func csvHasAHeaderAndARowPerPointAndFrame() throws {
        let result = try runEyedropper([
            "sample", "--source", "testpattern", "--size", "640x480", "--format", "csv",
            "--at", "0.0625,0.25", "--at", "0.5625,0.25", "--frames", "5", "--every", "2",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                frame,timestamp,matrix,range,x,y,r,g,b,hex,hue,saturation,value,lab_l,lab_a,lab_b,mean_r,mean_g,mean_b,sd_r,sd_g,sd_b,n,clipped
                0,0.0,bt601,limited,0.0625,0.25,191,191,191,#bfbfbf,0.0,0.0000,0.7490,77.34,0.00,0.00,191.00,191.00,191.00,0.00,0.00,0.00,1,0
                0,0.0,bt601,limited,0.5625,0.25,191,0,192,#bf00c0,299.7,1.0000,0.7529,45.48,79.19,-49.43,191.00,0.00,192.00,0.00,0.00,0.00,1,1
                2,0.0,bt601,limited,0.0625,0.25,191,191,191,#bfbfbf,0.0,0.0000,0.7490,77.34,0.00,0.00,191.00,191.00,191.00,0.00,0.00,0.00,1,0
                2,0.0,bt601,limited,0.5625,0.25,191,0,192,#bf00c0,299.7,1.0000,0.7529,45.48,79.19,-49.43,191.00,0.00,192.00,0.00,0.00,0.00,1,1
                4,0.0,bt601,limited,0.0625,0.25,191,191,191,#bfbfbf,0.0,0.0000,0.7490,77.34,0.00,0.00,191.00,191.00,191.00,0.00,0.00,0.00,1,0
                4,0.0,bt601,limited,0.5625,0.25,191,0,192,#bf00c0,299.7,1.0000,0.7529,45.48,79.19,-49.43,191.00,0.00,192.00,0.00,0.00,0.00,1,1

                """)
    }

    /// Text, for people: the colorimetry once, then a line per point; no escape codes into a pipe.
    @Test func textIsPlainWhenNotATerminal() throws {
        let result = try runEyedropper(["sample", "--source", "testpattern", "--format", "text", "--at", "0.3125,0.25"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                1280x720, bt709 limited range
                frame 0  at 0.3125,0.25  #00bfbe  rgb 0 191 190  hsv 180° 100% 75%  lab 70.2 -39.0 -10.9  mean 0.0 191.0 190.0 ± 0.0 0.0 0.0  clipped 1

                """)
    }
}

/// Runs the built `eyedropper` with stdout discarded and stderr kept, and returns its exit status,
/// its peak resident memory (KiB) and stderr. Through python3, which forks it: a child's peak
/// counts the memory of the process it was forked from, so it must come from a small one, not
/// from this test runner.
func peakMemory(ofEyedropper arguments: [String]) throws -> (status: Int32, peakKiB: Int, stderr: String) {
    let scratch = try ScratchDirectory()
    let errorPath = scratch.file("stderr")
    let script = """
        import os, sys
        pid = os.fork()
        if pid == 0:
            os.dup2(os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
            os.dup2(os.open("/dev/null", os.O_WRONLY), 1)
            os.execv(sys.argv[2], sys.argv[2:])
        _, status, usage = os.wait4(pid, 0)
        print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
        """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = ["-c", script, errorPath, eyedropperExecutable.path] + arguments
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let fields = text.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    guard process.terminationStatus == 0, fields.count == 2 else { throw CocoaError(.fileReadUnknown) }
    let stderr = String(decoding: try ScratchDirectory.read(errorPath), as: UTF8.self)
    return (Int32(fields[0]), fields[1], stderr)
}
