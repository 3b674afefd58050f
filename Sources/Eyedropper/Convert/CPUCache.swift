import SystemPackage

enum CPUCache {
    /// The size of CPU 0's highest cache level, from sysfs (as lscpu reads it), or 8 MiB where the
    /// system does not say. Not `sysconf(_SC_LEVEL3_CACHE_SIZE)`: in a VM glibc reports the host's
    /// cpuid figure (320 MiB on the 32 MiB machine this was measured on).
    static let lastLevelBytes: Int = {
        var best = (level: 0, bytes: 8 << 20)
        for index in 0..<8 {
            let directory = "/sys/devices/system/cpu/cpu0/cache/index\(index)/"
            guard let level = readInteger(directory + "level"), let bytes = readInteger(directory + "size")
            else { continue }
            if level > best.level { best = (level, bytes) }
        }
        return best.bytes
    }()

    /// The number at the start of a small sysfs file, times 1024 or 1048576 for a K or M suffix.
    private static func readInteger(_ path: String) -> Int? {
        var bytes = [UInt8](repeating: 0, count: 32)
        guard let fd = try? FileDescriptor.open(reading: path) else { return nil }
        defer { fd.closeReporting() }
        guard let count = try? bytes.withUnsafeMutableBytes({ try fd.readSome(into: $0) }), count > 0 else { return nil }
        let text = String(decoding: bytes[..<count], as: UTF8.self).trimmingSuffixWhitespace
        let scale = text.hasSuffix("K") ? 1024 : text.hasSuffix("M") ? 1 << 20 : 1
        return Int(scale == 1 ? text : String(text.dropLast())).map { $0 * scale }
    }
}

extension String {
    fileprivate var trimmingSuffixWhitespace: String {
        String(self[..<(lastIndex { !$0.isWhitespace }.map { index(after: $0) } ?? startIndex)])
    }
}
