#if canImport(Glibc)
    import Glibc
#endif

/// The input as a real file a reader opens by path: a file in /dev/shm, unlinked at once and
/// named by `/proc/self/fd/N`, so the reader's own open, reads and close run as on a user's file
/// and nothing is left behind, whatever way the run ends.
public struct MemoryFile: ~Copyable {
    public let path: String
    private let fd: CInt

    public init(_ bytes: [UInt8]) {
        var template = Array("/dev/shm/eyedropper-fuzz-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        invariant(fd >= 0, "mkstemp in /dev/shm failed: errno \(errno)")
        unlink(template)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            invariant(count > 0, "writing the input file failed: errno \(errno)")
            written += count
        }
        self.fd = fd
        path = "/proc/self/fd/\(fd)"
    }

    deinit { close(fd) }
}
