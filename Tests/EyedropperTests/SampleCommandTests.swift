import Eyedropper
import Foundation
import Testing

/// Runs the built `eyedropper` (beside this test bundle) and returns its exit status and output.
func runEyedropper(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let process = Process()
    process.executableURL = directory.appendingPathComponent("eyedropper")
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}

@Suite struct SampleCommandTests {
    /// The README's main job: with no source, the test pattern's centre (the magenta bar, 75%
    /// 191/0/191, which 8-bit BT.709 code values hold as 191/0/192), one JSON line per frame.
    @Test func sampleWithNoSourceReadsTheTestPattern() throws {
        let result = try runEyedropper(["sample", "--frames", "2"])
        #expect(result.status == 0)
        #expect(result.stdout == """
            {"frame":0,"timestamp":0.0,"matrix":"bt709","range":"limited","samples":[{"x":0.5,"y":0.5,"r":191,"g":0,"b":192,"hex":"#bf00c0"}]}
            {"frame":1,"timestamp":0.0,"matrix":"bt709","range":"limited","samples":[{"x":0.5,"y":0.5,"r":191,"g":0,"b":192,"hex":"#bf00c0"}]}

            """)
        #expect(result.stderr.contains("test pattern"))
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
            #expect(lines[0].contains(#""x":\#(x),"y":0.25,"r":\#(expected.r),"g":\#(expected.g),"b":\#(expected.b)"#),
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
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("/nonexistent/clip.y4m: cannot open: the file does not exist"))
    }
}
