import Eyedropper
import EyedropperTestSupport
import Foundation
import Testing

/// Runs `command` in bash (`$E` is the built eyedropper) with `input` on its standard input.
private func runShell(_ command: String, input: [UInt8]? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-o", "pipefail", "-c", command]
    process.environment = ProcessInfo.processInfo.environment.merging(["E": eyedropperExecutable.path]) { $1 }
    let out = Pipe(), err = Pipe(), stdin = Pipe()
    (process.standardOutput, process.standardError, process.standardInput) = (out, err, stdin)
    try process.run()
    if let input { stdin.fileHandleForWriting.write(Data(input)) }
    try stdin.fileHandleForWriting.close()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}

/// 64x32 I420 with eight 8-pixel columns, each one colour's code values in `colorimetry`.
private func barsFrame(_ colorimetry: Colorimetry) -> (bytes: [UInt8], codes: [YCbCr8]) {
    let codes = TestPattern.barColors.map { colorimetry.ycbcr($0) }
    var luma = [UInt8](), cb = [UInt8](), cr = [UInt8]()
    for y in 0..<32 {
        for x in 0..<64 {
            luma.append(codes[x / 8].y)
            if y % 2 == 0, x % 2 == 0 {
                cb.append(codes[x / 8].cb)
                cr.append(codes[x / 8].cr)
            }
        }
    }
    return (luma + cb + cr, codes)
}

private let barPoints = (0..<8).flatMap { ["--at", "\((Double($0) + 0.5) / 8),0.5"] }

@Suite struct SourceCommandTests {
    /// `ffmpeg ... -f yuv4mpegpipe - | eyedropper sample --source -`: each bar of a BT.601 and of a
    /// BT.709 stream converts to exactly the formula's colour with --matrix given, one line per
    /// frame, ending with the pipe. Catches a pipe not read, frames misaligned, and the matrix
    /// guessed from the height (32 lines: BT.601) where BT.709 was given: 20 levels off.
    @Test(arguments: [Colorimetry.bt601Limited, .bt709Limited])
    func pipeFromFFmpegReadsExactly(colorimetry: Colorimetry) throws {
        let (frame, codes) = barsFrame(colorimetry)
        let result = try runShell(
            "ffmpeg -v error -f rawvideo -pix_fmt yuv420p -s 64x32 -r 25 -i - -color_range tv -f yuv4mpegpipe - "
                + "| \"$E\" sample --source - --matrix \(colorimetry.matrix.rawValue) \(barPoints.joined(separator: " "))",
            input: frame + frame + frame)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        for line in lines {
            #expect(line.contains(#""matrix":"\#(colorimetry.matrix.rawValue)","range":"limited""#))
            for (bar, code) in codes.enumerated() {
                let rgb = colorimetry.exactRGB(code)
                #expect(
                    line.contains(#""x":\#((Double(bar) + 0.5) / 8),"y":0.5,"r":\#(rgb.r),"g":\#(rgb.g),"b":\#(rgb.b)"#),
                    "bar \(bar): \(line)")
            }
        }
        // Told the matrix, and the range by ffmpeg's tag: nothing is guessed, nothing said.
        #expect(result.stderr == "")
    }

    /// Where neither the stream nor the options say, the guess is said once (not per frame), and
    /// only what is guessed; Eyedropper's own tag says the matrix whatever the height. Catches a
    /// guess said per frame, said when told, and the tag ignored (BT.601 read at 32 lines).
    @Test func guessIsSaidOnceAndTheMatrixTagWins() throws {
        let (frame, _) = barsFrame(.bt709Limited)
        let guessed = try runShell(
            "ffmpeg -v error -f rawvideo -pix_fmt yuv420p -s 64x32 -i - -f yuv4mpegpipe - | \"$E\" sample --source -",
            input: frame + frame)
        #expect(guessed.status == 0, "\(guessed.stderr)")
        #expect(
            guessed.stderr
                == "eyedropper: standard input: no XEYEDROPPER_MATRIX tag: matrix bt601 assumed from the height (32 lines); no XCOLORRANGE tag: limited range assumed (--matrix and --range say otherwise)\n"
        )
        #expect(guessed.stdout.split(separator: "\n").allSatisfy { $0.contains(#""matrix":"bt601","range":"limited""#) })
        let tagged = try runShell(
            "\"$E\" sample --source - --at 0.5625,0.5",
            input: Array("YUV4MPEG2 W64 H32 F25:1 C420jpeg XCOLORRANGE=LIMITED XEYEDROPPER_MATRIX=BT709\nFRAME\n".utf8) + frame)
        #expect(tagged.status == 0 && tagged.stderr == "", "\(tagged.stderr)")
        let magenta = Colorimetry.bt709Limited.exactRGB(Colorimetry.bt709Limited.ycbcr(TestPattern.barColors[4]))
        #expect(
            tagged.stdout.contains(
                #""matrix":"bt709","range":"limited","samples":[{"x":0.5625,"y":0.5,"r":\#(magenta.r),"g":\#(magenta.g),"b":\#(magenta.b)"#)
        )
    }

    /// Standard input that is not YUV4MPEG2, or nothing, is refused as damaged input (65) with
    /// what to pipe in; a frame cut short is an error after the whole frames' lines.
    @Test func standardInputThatIsNotY4MIsRefusedClearly() throws {
        let text = try runShell("echo hello | \"$E\" sample --source -")
        #expect(text.status == 65)
        #expect(
            text.stderr.hasPrefix(
                "eyedropper: standard input: header: not a YUV4MPEG2 stream: it starts 'hello\\n' instead of 'YUV4MPEG2 '; pipe YUV4MPEG2 in, e.g. ffmpeg"
            ), "\(text.stderr)")
        let empty = try runShell("\"$E\" sample --source - < /dev/null")
        #expect(empty.status == 65 && empty.stderr.contains("standard input: header: nothing came"), "\(empty.stderr)")
        let (frame, _) = barsFrame(.bt601Limited)
        let cut = try runShell(
            "\"$E\" sample --source - --matrix bt601 --range limited",
            input: Array("YUV4MPEG2 W64 H32 F25:1\nFRAME\n".utf8) + frame + Array("FRAME\n".utf8) + frame.prefix(100))
        #expect(cut.status == 65 && cut.stdout.split(separator: "\n").count == 1, "\(cut.stderr)")
        #expect(cut.stderr.contains("standard input: frame 1: truncated: 100 of 3072 bytes"))
    }

    /// `sample --record` keeps what it sampled: the recording read back prints the same lines,
    /// byte for byte, with each frame's own time (odd ones, that a frame-rate clock would not
    /// give); ffmpeg reads the recording, every frame's planes as they came. Catches timestamps
    /// not recorded or not read back, a frame-line tag ffmpeg cannot read past (its limit is 80
    /// bytes), planes changed on the way.
    @Test func recordingReplaysToTheSameLines() throws {
        let scratch = try ScratchDirectory()
        let (frame, _) = barsFrame(.bt709Limited)
        var second = frame
        for index in 0..<(64 * 32) { second[index] = second[index] &+ 7 }
        let input =
            Array("YUV4MPEG2 W64 H32 F30000:1001 C420jpeg XCOLORRANGE=LIMITED XEYEDROPPER_MATRIX=BT709\n".utf8)
            + Array("FRAME XEYEDROPPER_TIME=1764100123.456789\n".utf8) + frame
            + Array("FRAME XEYEDROPPER_TIME=1764100123.4901234\n".utf8) + second
            + Array("FRAME XEYEDROPPER_TIME=0.30000000000000004\n".utf8) + frame
        try ScratchDirectory.write(input, to: scratch.file("in.y4m"))
        let points = barPoints.joined(separator: " ") + " --radius 3"
        let recording = scratch.file("rec.y4m")
        let live = try runShell("\"$E\" sample --source - --record \(recording) \(points) < \(scratch.file("in.y4m"))")
        #expect(live.status == 0, "\(live.stderr)")
        #expect(
            live.stdout.split(separator: "\n").map { $0.prefix(38) } == [
                #"{"frame":0,"timestamp":1764100123.456789"#.prefix(38), #"{"frame":1,"timestamp":1764100123.4901234"#.prefix(38),
                #"{"frame":2,"timestamp":0.30000000000000004"#.prefix(38),
            ])
        let replay = try runEyedropper(["sample", "--source", recording] + barPoints + ["--radius", "3"])
        #expect(replay.status == 0 && replay.stderr == "", "\(replay.stderr)")
        #expect(replay.stdout == live.stdout)
        let header = try #require(
            String(decoding: try ScratchDirectory.read(recording).prefix(120), as: UTF8.self).split(separator: "\n").first)
        #expect(header == "YUV4MPEG2 W64 H32 F30000:1001 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED XEYEDROPPER_MATRIX=BT709")
        let md5 = try runShell(
            "ffmpeg -v error -i \(recording) -f framemd5 - | grep -v '^#' && ffmpeg -v error -i \(scratch.file("in.y4m")) -f framemd5 - | grep -v '^#'"
        )
        #expect(md5.status == 0, "\(md5.stderr)")
        let rows = md5.stdout.split(separator: "\n")
        #expect(rows.count == 6 && Array(rows[..<3]) == Array(rows[3...]), "\(md5.stdout)")
    }

    /// `record` writes the source's frames and prints the path; --out must be a .y4m.
    @Test func recordWritesWhatTheSourceGave() throws {
        let scratch = try ScratchDirectory()
        let out = scratch.file("pattern.y4m")
        let result = try runEyedropper(["record", "--source", "testpattern", "--size", "64x32", "--frames", "3", "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == out + "\n")
        #expect(result.stderr.contains("\(out): 3 frames recorded"))
        let replay = try runEyedropper(["sample", "--source", out, "--at", "0.5625,0.25"])
        let lines = replay.stdout.split(separator: "\n")
        // Paced like a camera at 30 fps: the times it had, not a file's clock from 0.
        #expect(lines.count == 3 && lines.allSatisfy { $0.contains(#""r":191,"g":0,"b":192"#) }, "\(replay.stdout)")
        #expect(lines[2].contains(#""timestamp":0.06666666666666667,"#), "\(lines[2])")
        let refused = try runEyedropper(["record", "--out", scratch.file("clip.mp4")])
        #expect(refused.status == 64 && refused.stderr.contains("--out \(scratch.file("clip.mp4")): give a path ending in .y4m"))
    }
}
