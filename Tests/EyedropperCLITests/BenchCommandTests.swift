import EyedropperTestSupport
import Foundation
import Testing

/// `eyedropper bench`, run as a user runs it. Times are not asserted (they belong to the
/// benchmarks, as ratios): what is checked is that each figure is there and consistent.
@Suite struct BenchCommandTests {
    @Test func jsonIsOneObjectWithTheDocumentedFieldsInOrder() throws {
        let result = try runEyedropper([
            "bench", "--size", "320x240", "--layout", "nv12", "--output", "rgb24", "--threads", "2",
            "--frames", "20", "--format", "json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let line = result.stdout.trimmingCharacters(in: .newlines)
        #expect(!line.contains("\n"))
        let keys = [
            "width", "height", "layout", "output", "threads", "frames", "min_ms", "median_ms", "p99_ms", "max_ms", "mpix_per_s", "kernel",
        ]
        let positions = keys.map { line.range(of: "\"\($0)\":")?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil }, "\(line)")
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "fields out of order: \(line)")
        #expect(line.hasPrefix(#"{"width":320,"height":240,"layout":"nv12","output":"rgb24","threads":2,"frames":20,"min_ms":"#))

        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let (min, median, p99, max) = try (
            double(object, "min_ms"), double(object, "median_ms"), double(object, "p99_ms"), double(object, "max_ms")
        )
        #expect(0 < min && min <= median && median <= p99 && p99 <= max)
        let rate = try double(object, "mpix_per_s")
        #expect(abs(rate - 320 * 240 / (median / 1000) / 1e6) <= rate * 0.01 + 0.1, "megapixels/s is not pixels over the median")
    }

    @Test func textNamesWhatWasMeasured() throws {
        let result = try runEyedropper(["bench", "--size", "64x48", "--frames", "5", "--kernel", "scalar"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0] == "64x48 i420 -> rgba, bt601 limited, scalar kernel, 1 thread, 5 frames timed")
        #expect(lines[1].hasPrefix("per frame: min ") && lines[1].contains(", median ") && lines[1].contains(", p99 "))
        #expect(lines[2].hasPrefix("throughput: ") && lines[2].hasSuffix(" megapixels/s at the median"))
    }

    @Test func aFileShorterThanTheWarmUpIsAnError() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file("short.y4m")
        try ScratchDirectory.write(y4mBytes(header: "YUV4MPEG2 W4 H2 F25:1 C420jpeg\n", frames: [tinyFrame(40)]), to: path)
        let result = try runEyedropper(["bench", "--source", path, "--matrix", "bt601", "--range", "limited"])
        #expect(result.status == 65)
        #expect(
            result.stderr
                == "eyedropper: \(path): no frame was timed: the first 10 only warm the caches, and it ended after 1; give a longer source\n"
        )
    }

    @Test func layoutIsRefusedForSourcesWithTheirOwn() throws {
        let result = try runEyedropper(["bench", "--source", "/dev/video0", "--layout", "nv12"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--layout sets the test pattern's layout"))
    }

    private func double(_ object: [String: Any], _ key: String) throws -> Double {
        try #require(object[key] as? Double ?? (object[key] as? Int).map(Double.init), "\(key) missing or not a number")
    }
}
