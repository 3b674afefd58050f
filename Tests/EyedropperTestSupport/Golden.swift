import Foundation

/// Golden files: the contract (command output, exit statuses, HTTP responses) as readable text
/// under Tests/Golden, compared byte for byte after masking what varies from run to run.
/// `EYEDROPPER_UPDATE_GOLDEN=1` rewrites the files instead, so that a deliberate change to the
/// contract is a diff in the commit that makes it.
public enum Golden {
    /// Tests/Golden in the source tree.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Golden").path

    static let updating = ProcessInfo.processInfo.environment["EYEDROPPER_UPDATE_GOLDEN"] == "1"

    /// Compares `actual` with the golden file `name` (relative to `directory`); throws a
    /// `Mismatch` naming the file and the first lines that differ.
    public static func check(_ actual: String, file name: String) throws {
        let path = directory + "/" + name
        if updating {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: URL(fileURLWithPath: path))
            return
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Mismatch(description: "\(path) is missing: run with EYEDROPPER_UPDATE_GOLDEN=1 to write it, and read it")
        }
        let expected = String(decoding: data, as: UTF8.self)
        guard expected != actual else { return }
        throw Mismatch(
            description: "\(path) differs (EYEDROPPER_UPDATE_GOLDEN=1 rewrites it if the change is meant):\n"
                + difference(expected, actual))
    }

    public struct Mismatch: Error, CustomStringConvertible {
        public let description: String
    }

    /// The lines that differ, as `-golden` / `+actual` pairs with their line numbers (at most 20).
    static func difference(_ expected: String, _ actual: String) -> String {
        let (old, new) = (
            expected.split(separator: "\n", omittingEmptySubsequences: false),
            actual.split(separator: "\n", omittingEmptySubsequences: false)
        )
        var lines: [String] = []
        for index in 0..<max(old.count, new.count) where lines.count < 40 {
            let (a, b) = (index < old.count ? String(old[index]) : nil, index < new.count ? String(new[index]) : nil)
            if a != b {
                lines.append("line \(index + 1):")
                if let a { lines.append("-\(a)") }
                if let b { lines.append("+\(b)") }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// What varies between runs, replaced by a named placeholder: the scratch directory's path,
    /// measured times and rates (bench), the CPU's kernel (the kernels give the same bits; which
    /// one runs depends on the CPU), wall-clock dates, and the server's uptime-like figures.
    public static func mask(_ text: String, scratch: String? = nil) -> String {
        var text = text
        if let scratch { text = text.replacingOccurrences(of: scratch, with: "$SCRATCH") }
        text = text.replacingOccurrences(of: directory, with: "$GOLDEN")
        for (pattern, replacement) in rules {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return text
    }

    static let rules: [(String, String)] = [
        // bench: per-frame times and throughput.
        (#"[0-9]+\.[0-9]+ ms"#, "<ms> ms"),
        (#"[0-9]+\.[0-9]+ megapixels/s"#, "<rate> megapixels/s"),
        (#""(min_ms|median_ms|p99_ms|max_ms|mpix_per_s|interval_median_ms|fps)":[0-9.e+-]+"#, #""$1":<number>"#),
        // The kernel the CPU runs.
        (#"\b(avx512|avx2|scalar) kernel"#, "<kernel> kernel"),
        (#""kernel":"(avx512|avx2|scalar)""#, #""kernel":"<kernel>""#),
        // Dates and times of day (ISO 8601), e.g. a profile's "created" or an HTTP Date header.
        (#"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z"#, "<date>"),
        (#"(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9:]{8} GMT"#, "<http-date>"),
    ]

    /// FNV-1a, 64-bit: a short fingerprint of bytes that are fixed for a fixed input (a JPEG).
    public static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}
