import Eyedropper
import EyedropperCalibration
import EyedropperTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A .y4m of seeded noise written for one test: pixels whose every channel value is possible,
/// 0 and 255 included, so patches spread and clip.
///
/// Every 2x2 block's values are drawn again until each of its pixels converts, by Eyedropper's
/// fixed point, to exactly the exact formula's RGB (one draw in about thirty is redrawn): so the
/// expected statistics below come from `Colorimetry.exactRGB` and plain Double arithmetic, not
/// from the code under test, and still must match it to the last decimal.
private struct NoisyClip {
    let width: Int
    let height: Int
    let colorimetry: Colorimetry
    /// Each frame's I420 bytes.
    let frames: [[UInt8]]

    init(width: Int, height: Int, frames count: Int, colorimetry: Colorimetry, seed: UInt64) {
        self.width = width
        self.height = height
        self.colorimetry = colorimetry
        var random = TestRandom(seed: seed)
        func byte(_ range: ClosedRange<Int>) -> UInt8 {
            UInt8(range.lowerBound + Int(random.next() >> 33) % range.count)
        }
        let fixedPoint = FixedPointCoefficients(colorimetry)
        let (chromaWidth, chromaHeight) = ((width + 1) / 2, (height + 1) / 2)
        frames = (0..<count).map { _ in
            var luma = [UInt8](repeating: 0, count: width * height)
            var cb = [UInt8](repeating: 0, count: chromaWidth * chromaHeight), cr = cb
            for blockY in 0..<chromaHeight {
                for blockX in 0..<chromaWidth {
                    let pixels = [(0, 0), (1, 0), (0, 1), (1, 1)]
                        .map { (2 * blockX + $0.0, 2 * blockY + $0.1) }
                        .filter { $0.0 < width && $0.1 < height }
                    while true {
                        let (u, v) = (byte(64...192), byte(64...192))
                        let ys = pixels.map { _ in byte(0...255) }
                        let exact = ys.allSatisfy { y in
                            let sample = YCbCr8(y: y, cb: u, cr: v)
                            return fixedPoint.convert(sample) == colorimetry.exactRGB(sample)
                        }
                        guard exact else { continue }
                        for ((x, y), value) in zip(pixels, ys) { luma[y * width + x] = value }
                        (cb[blockY * chromaWidth + blockX], cr[blockY * chromaWidth + blockX]) = (u, v)
                        break
                    }
                }
            }
            return luma + cb + cr
        }
    }

    /// 25 frames a second, as ffmpeg would tag the file.
    func write(to path: String) throws {
        let range = colorimetry.range == .full ? "FULL" : "LIMITED"
        try ScratchDirectory.write(
            y4mBytes(header: "YUV4MPEG2 W\(width) H\(height) F25:1 Ip A1:1 C420jpeg XCOLORRANGE=\(range)\n", frames: frames),
            to: path)
    }

    /// The exact formula's RGB of one pixel.
    func rgb(frame: Int, x: Int, y: Int) -> RGB8 {
        let bytes = frames[frame], chromaWidth = (width + 1) / 2
        let chroma = width * height + (y / 2) * chromaWidth + x / 2
        let cbCount = chromaWidth * ((height + 1) / 2)
        return colorimetry.exactRGB(YCbCr8(y: bytes[y * width + x], cb: bytes[chroma], cr: bytes[chroma + cbCount]))
    }

    /// What a sample over `frames` should say: every pixel of the (2r+1)^2 patch clipped to the
    /// frame, in Double arithmetic, the deviation in two passes.
    func expected(_ point: (x: Double, y: Double), radius: Int, frames: Range<Int>) -> ExpectedSample {
        let cx = min(Int(point.x * Double(width)), width - 1), cy = min(Int(point.y * Double(height)), height - 1)
        var values: [[Double]] = [[], [], []]
        for frame in frames {
            for y in max(0, cy - radius)...min(height - 1, cy + radius) {
                for x in max(0, cx - radius)...min(width - 1, cx + radius) {
                    let color = rgb(frame: frame, x: x, y: y)
                    for (channel, value) in [color.r, color.g, color.b].enumerated() { values[channel].append(Double(value)) }
                }
            }
        }
        let reference = ReferenceStatistics(values: values), levels = reference.levels
        return ExpectedSample(
            x: point.x, y: point.y, levels: levels, hex: String(format: "#%02x%02x%02x", levels[0], levels[1], levels[2]),
            mean: reference.mean, sd: reference.sd, n: reference.n, clipped: reference.clipped)
    }
}

private struct ExpectedSample {
    let x: Double, y: Double
    let levels: [Int]
    let hex: String
    let mean: [Double], sd: [Double]
    let n: Int, clipped: Int

    /// Compares every field of a parsed sample; 2 decimals can be 0.005 off the true value.
    func check(_ sample: [String: Any], _ context: String) {
        func numbers(_ key: String) -> [Double] { (sample[key] as? [Any] ?? []).compactMap { ($0 as? NSNumber)?.doubleValue } }
        #expect(sample["x"] as? Double == x && sample["y"] as? Double == y, "\(context): \(sample)")
        #expect(["r", "g", "b"].map { sample[$0] as? Int } == levels, "\(context): \(sample) vs \(levels)")
        #expect(sample["hex"] as? String == hex, "\(context): \(sample)")
        let (gotMean, gotSD) = (numbers("mean"), numbers("sd"))
        #expect(
            gotMean.count == 3 && zip(gotMean, mean).allSatisfy { abs($0 - $1) <= 0.005 + 1e-9 }, "\(context): mean \(gotMean) vs \(mean)")
        #expect(gotSD.count == 3 && zip(gotSD, sd).allSatisfy { abs($0 - $1) <= 0.005 + 1e-9 }, "\(context): sd \(gotSD) vs \(sd)")
        #expect(sample["n"] as? Int == n, "\(context): \(sample) vs n \(n)")
        #expect(sample["clipped"] as? Int == clipped, "\(context): \(sample) vs clipped \(clipped)")
    }
}

/// Every corner, the middle of every edge, the centre and one more: most patches clipped.
private let edgePoints: [(x: Double, y: Double)] = [
    (0, 0), (1, 0), (0, 1), (1, 1), (0.5, 0), (0, 0.5), (1, 0.5), (0.5, 1), (0.5, 0.5), (0.37, 0.61),
]

/// One sample in the documented field order, mean and sd with exactly 2 decimals.
private var sampleShape: Regex<Substring> {
    #/\{"x":[0-9.e-]+,"y":[0-9.e-]+,"r":\d+,"g":\d+,"b":\d+,"hex":"#[0-9a-f]{6}","mean":\[\d+\.\d\d,\d+\.\d\d,\d+\.\d\d\],"sd":\[\d+\.\d\d,\d+\.\d\d,\d+\.\d\d\],"n":\d+,"clipped":\d+\}/#
}

private func parse(_ line: Substring) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
}

@Suite struct SampleStatisticsTests {
    /// Every field of every sample of `sample --format json` against the independent computation,
    /// on noise, at every edge and corner, for radius 0 (one pixel), 1, 2 and 7 (a 15x15 patch
    /// larger than the 41x27 frame's quarter). The 41x27 frame is sampled by the full-frame path,
    /// the 640x480 one by the direct path (`ColorSampler.cheaperPath`). Catches a mean rounded to
    /// a level, a sample (n - 1) deviation, a variance that cancels or goes negative, a patch not
    /// clipped to the frame (n), channels at 255 or at 0 not counted, fields out of order or with
    /// other than 2 decimals, and the two paths disagreeing.
    @Test(arguments: [(41, 27), (640, 480)], [0, 1, 2, 7])
    func statisticsMatchAnIndependentComputation(size: (width: Int, height: Int), radius: Int) throws {
        let colorimetry: Colorimetry = size.width < 100 ? .bt601Full : .bt601Limited
        let clip = NoisyClip(
            width: size.width, height: size.height, frames: 2, colorimetry: colorimetry, seed: UInt64(size.width * 10 + radius))
        let scratch = try ScratchDirectory()
        let path = scratch.file("noise.y4m")
        try clip.write(to: path)
        let result = try runEyedropper(
            ["sample", "--source", path, "--radius", "\(radius)"] + edgePoints.flatMap { ["--at", "\($0.x),\($0.y)"] })
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        var clippedCounts: [Int] = []
        for (frame, line) in lines.enumerated() {
            #expect(line.matches(of: sampleShape).count == edgePoints.count, "\(line)")
            let object = try parse(line)
            #expect(object["frame"] as? Int == frame && object["frames"] == nil)
            #expect(object["timestamp"] as? Double == Double(frame) / 25)
            #expect(object["matrix"] as? String == "bt601" && object["range"] as? String == colorimetry.range.rawValue)
            let samples = object["samples"] as? [[String: Any]] ?? []
            #expect(samples.count == edgePoints.count)
            for (sample, point) in zip(samples, edgePoints) {
                clip.expected(point, radius: radius, frames: frame..<(frame + 1))
                    .check(sample, "\(size) r\(radius) frame \(frame) at \(point)")
                clippedCounts.append(sample["clipped"] as? Int ?? -1)
            }
        }
        // The noise gives patches with clipped channels and, of single pixels, some without.
        #expect(clippedCounts.contains { $0 > 0 })
        if radius == 0 { #expect(clippedCounts.contains(0)) }
    }

    /// --average N: a line per N frames, each the statistics over every patch pixel of its frames
    /// (n = frames x patch), `frame` the block's first and `"frames"` its length; the last block,
    /// cut short by the file's end or by --frames, is printed with its own count. Catches a block
    /// that drops or repeats a frame, statistics of one frame only, a lost last block, and the
    /// timestamp of another frame than the block's first.
    @Test(arguments: [(nil, [2, 2, 1]), (3, [2, 1]), (4, [2, 2])] as [(Int?, [Int])])
    func averageSpansBlocksOfFrames(limit: Int?, blocks: [Int]) throws {
        let clip = NoisyClip(width: 41, height: 27, frames: 5, colorimetry: .bt601Full, seed: 7)
        let scratch = try ScratchDirectory()
        let path = scratch.file("noise.y4m")
        try clip.write(to: path)
        let points = [edgePoints[0], edgePoints[8], edgePoints[3]]
        let result = try runEyedropper(
            ["sample", "--source", path, "--radius", "2", "--average", "2"] + (limit.map { ["--frames", "\($0)"] } ?? [])
                + points.flatMap { ["--at", "\($0.x),\($0.y)"] })
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == blocks.count, "\(result.stdout)")
        var first = 0
        for (line, length) in zip(lines, blocks) {
            #expect(line.hasPrefix(#"{"frame":\#(first),"frames":\#(length),"timestamp":"#), "\(line)")
            #expect(line.matches(of: sampleShape).count == points.count, "\(line)")
            let object = try parse(line)
            #expect(object["timestamp"] as? Double == Double(first) / 25)
            for (sample, point) in zip(object["samples"] as? [[String: Any]] ?? [], points) {
                clip.expected(point, radius: 2, frames: first..<(first + length)).check(sample, "frames \(first)+\(length) at \(point)")
            }
            first += length
        }
    }

    /// CSV: the columns after L*a*b* carry the same statistics, 2 decimals; with --average a
    /// `frames` column follows `frame`, as in the JSON. Catches columns out of order, missing or
    /// rounded otherwise than the JSON.
    @Test(arguments: [nil, 2] as [Int?])
    func csvColumnsCarryTheStatistics(average: Int?) throws {
        let clip = NoisyClip(width: 41, height: 27, frames: 3, colorimetry: .bt601Full, seed: 11)
        let scratch = try ScratchDirectory()
        let path = scratch.file("noise.y4m")
        try clip.write(to: path)
        let result = try runEyedropper(
            ["sample", "--source", path, "--radius", "7", "--format", "csv"] + (average.map { ["--average", "\($0)"] } ?? [])
                + edgePoints.flatMap { ["--at", "\($0.x),\($0.y)"] })
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = try #require(rows.first)
        #expect(
            header == ["frame"] + (average == nil ? [] : ["frames"]) + [
                "timestamp", "matrix", "range", "x", "y", "r", "g", "b", "hex", "hue", "saturation", "value", "lab_l", "lab_a", "lab_b",
                "mean_r", "mean_g", "mean_b", "sd_r", "sd_g", "sd_b", "n", "clipped",
            ])
        let blocks = average == nil ? [(0, 1), (1, 1), (2, 1)] : [(0, 2), (2, 1)]
        #expect(rows.count == 1 + blocks.count * edgePoints.count)
        for (index, row) in rows.dropFirst().enumerated() {
            #expect(row.count == header.count, "\(row)")
            let field = Dictionary(uniqueKeysWithValues: zip(header, row))
            let (first, length) = blocks[index / edgePoints.count], point = edgePoints[index % edgePoints.count]
            #expect(field["frame"] == "\(first)" && field["frames"] == average.map { _ in "\(length)" })
            for key in ["mean_r", "mean_g", "mean_b", "sd_r", "sd_g", "sd_b"] {
                #expect(field[key]?.wholeMatch(of: /\d+\.\d\d/) != nil, "\(key): \(row)")
            }
            let sample: [String: Any] = [
                "x": Double(field["x"]!)!, "y": Double(field["y"]!)!,
                "r": Int(field["r"]!)!, "g": Int(field["g"]!)!, "b": Int(field["b"]!)!, "hex": field["hex"]!,
                "mean": ["mean_r", "mean_g", "mean_b"].map { NSNumber(value: Double(field[$0]!)!) },
                "sd": ["sd_r", "sd_g", "sd_b"].map { NSNumber(value: Double(field[$0]!)!) },
                "n": Int(field["n"]!)!, "clipped": Int(field["clipped"]!)!,
            ]
            clip.expected(point, radius: 7, frames: first..<(first + length)).check(sample, "row \(row)")
        }
    }

    /// Text shows mean ± sd with one decimal, `clipped N` only when N > 0, and a block as its
    /// range of frames. Catches the spread left out, clipped printed as 0, a block named by one
    /// frame.
    @Test func textShowsMeanSpreadAndClipping() throws {
        let result = try runEyedropper([
            "sample", "--source", "testpattern", "--size", "640x480", "--format", "text", "--radius", "2",
            "--at", "0.0625,0.25", "--at", "0.125,0.25", "--frames", "3", "--average", "2",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        // White (191) alone, then 2 columns of white and 3 of yellow (191, 190, 0 in these code
        // values): green's mean 191 - 0.6 = 190.4, sd sqrt(0.4 x 0.6) x 1 = 0.5; blue's mean
        // 0.4 x 191 = 76.4, sd sqrt(0.24) x 191 = 93.6; 15 pixels a frame with blue at 0.
        #expect(
            result.stdout == """
                640x480, bt601 limited range
                frames 0-1  at 0.0625,0.25  #bfbfbf  rgb 191 191 191  hsv 0° 0% 75%  lab 77.3 0.0 0.0  mean 191.0 191.0 191.0 ± 0.0 0.0 0.0
                frames 0-1  at 0.125,0.25  #bfbe4c  rgb 191 190 76  hsv 59° 60% 75%  lab 75.1 -14.2 56.1  mean 191.0 190.4 76.4 ± 0.0 0.5 93.6  clipped 30
                frames 2-2  at 0.0625,0.25  #bfbfbf  rgb 191 191 191  hsv 0° 0% 75%  lab 77.3 0.0 0.0  mean 191.0 191.0 191.0 ± 0.0 0.0 0.0
                frames 2-2  at 0.125,0.25  #bfbe4c  rgb 191 190 76  hsv 59° 60% 75%  lab 75.1 -14.2 56.1  mean 191.0 190.4 76.4 ± 0.0 0.5 93.6  clipped 15

                """)
    }

    /// Ctrl-C during --average prints the block under way, with the frames it has, and exits 0.
    /// Catches a block lost at the interrupt. The interrupt comes once a frame is in the block,
    /// which the command says itself: a profile made at another size is warned of on stderr after
    /// the first frame is read (so it is waited for, not given a time).
    @Test func interruptPrintsThePartialBlock() throws {
        let scratch = try ScratchDirectory()
        let profile = try simulatedProfile(colorimetry: Colorimetry(matrix: .bt601, range: .limited), width: 640, height: 480)
        try ScratchDirectory.write(profile.json(), to: scratch.file("profile.json"))
        let process = Process()
        process.executableURL = eyedropperExecutable
        // A block of a billion frames: minutes of the test pattern, so Ctrl-C lands inside it.
        process.arguments = [
            "sample", "--source", "testpattern", "--size", "64x48", "--frames", "2000000000", "--average", "1000000000",
            "--profile", scratch.file("profile.json"),
        ]
        let out = Pipe(), errors = Pipe()
        process.standardOutput = out
        process.standardError = errors
        try process.run()
        var stderr = ""
        let fd = errors.fileHandleForReading.fileDescriptor
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + .seconds(30)
        while !stderr.contains("these frames are 64x48"), ContinuousClock.now < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 10) == 1 else { continue }
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { break }
            stderr += String(decoding: chunk[..<count], as: UTF8.self)
        }
        #expect(stderr.contains("these frames are 64x48"), "no frame read in 30 s: \(stderr)")
        let status = "/proc/\(process.processIdentifier)/status"
        #expect(catchesInterrupt(status), "reading frames before it catches SIGINT")
        kill(process.processIdentifier, SIGINT)
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 1, "\(text)")
        let block = try parse(lines.first ?? "")
        let frames = block["frames"] as? Int ?? 0
        #expect(block["frame"] as? Int == 0 && (1..<1_000_000_000).contains(frames), "\(block)")
        let samples = block["samples"] as? [[String: Any]] ?? []
        #expect(samples.first?["n"] as? Int == frames, "\(samples)")
    }

    /// Whether the process's status (/proc/PID/status) says it catches SIGINT (`SigCgt`, a hex mask).
    private func catchesInterrupt(_ status: String) -> Bool {
        guard let text = try? String(contentsOfFile: status, encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
            let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << (UInt64(SIGINT) - 1)) != 0
    }
}
