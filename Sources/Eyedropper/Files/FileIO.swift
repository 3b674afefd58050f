import Glibc

/// A failed POSIX call: what was attempted and the `errno` it left.
struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was being done, e.g. "cannot open".
    let operation: String
    let code: Int32

    /// The C library's text for `code`.
    var text: String { String(cString: strerror(code)) }

    var description: String { "\(operation): \(text)" }

    /// The causes a person can fix and that messages explain; everything else is `.other`.
    enum Cause { case notFound, notPermitted, isDirectory, other }

    var cause: Cause {
        switch code {
        case ENOENT, ENOTDIR: .notFound
        case EACCES, EPERM, EROFS: .notPermitted
        case EISDIR: .isDirectory
        default: .other
        }
    }

    /// The operation, the C library's text and, when a person can fix the cause, how.
    func explained(writing: Bool) -> String {
        switch cause {
        case .notFound where writing: "\(operation): its directory does not exist (\(text)): create it or choose another path"
        case .notFound: "\(operation): the file does not exist (\(text)): check the path"
        case .notPermitted: "\(operation): \(text): check the permissions of the file and its directory"
        case .isDirectory: "\(operation): it is a directory (\(text)): give the path of a file"
        case .other: "\(operation): \(text)"
        }
    }
}

/// Every direct C file call of the library, so `EINTR` and `errno` are handled in one place.
enum FileIO {
    /// Runs `call` again while it fails with `EINTR`; the one place interrupted calls are retried.
    /// Never used for `close`, which must not be retried on Linux: the descriptor is gone either way.
    private static func retryingInterrupts<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result != -1 || errno != EINTR { return result }
        }
    }

    static func openForReading(_ path: String) throws(SystemError) -> Int32 {
        let fd = retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw SystemError(operation: "cannot open", code: errno) }
        return fd
    }

    /// One `read`: fewer bytes than asked is normal, 0 means end of file.
    static func readSome(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        let count = retryingInterrupts { read(fd, base, buffer.count) }
        guard count >= 0 else { throw SystemError(operation: "cannot read", code: errno) }
        return count
    }

    /// Reads until `buffer` is full or the file ends; returns the bytes read.
    static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        var done = 0
        while done < buffer.count {
            let count = try readSome(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            if count == 0 { break }
            done += count
        }
        return done
    }

    /// Writes all of `bytes`, however many calls it takes.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let count = retryingInterrupts { write(fd, base + done, bytes.count - done) }
            guard count > 0 else {
                throw SystemError(operation: "cannot write", code: count < 0 ? errno : EIO)
            }
            done += count
        }
    }

    /// Closes `fd` once, reporting a failure (a delayed write error on some file systems).
    @discardableResult
    static func close(_ fd: Int32) -> SystemError? {
        Glibc.close(fd) == 0 ? nil : SystemError(operation: "cannot close", code: errno)
    }

    /// Reads a whole (small) file into memory.
    static func readFile(_ path: String) throws(SystemError) -> [UInt8] {
        let fd = try openForReading(path)
        defer { close(fd) }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
        defer { chunk.deallocate() }
        var bytes: [UInt8] = []
        while true {
            let count = try readSome(fd, into: chunk)
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    static func unlink(_ path: String) {
        _ = Glibc.unlink(path)
    }

    static func fsync(_ fd: Int32) throws(SystemError) {
        guard retryingInterrupts({ Glibc.fsync(fd) }) == 0 else {
            throw SystemError(operation: "cannot flush to disk", code: errno)
        }
    }

    static func rename(_ from: String, to: String) throws(SystemError) {
        guard Glibc.rename(from, to) == 0 else { throw SystemError(operation: "cannot rename", code: errno) }
    }

    /// Creates a new file that no one else has opened: `O_EXCL`, mode 0666 less the umask.
    static func createExclusive(_ path: String) throws(SystemError) -> Int32 {
        let fd = retryingInterrupts { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666) }
        guard fd >= 0 else { throw SystemError(operation: "cannot create", code: errno) }
        return fd
    }
}

/// A file written under a temporary name in its directory and renamed into place by `commit`,
/// so readers see either the old file or the whole new one, never a partial one.
///
/// Dropped without `commit`, it removes the temporary file.
final class AtomicFile {
    let path: String
    let temporaryPath: String
    private var fd: Int32?

    init(path: String) throws(SystemError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var attempt = 0
        while true {
            // A random name and O_EXCL rather than mkstemp: mkstemp's mode 0600 ignores the umask.
            let suffix = String(UInt64.random(in: .min ... .max), radix: 16)
            let candidate = "\(directory).\(name).\(suffix).tmp"
            do {
                fd = try FileIO.createExclusive(candidate)
                temporaryPath = candidate
                self.path = path
                return
            } catch where error.code == EEXIST && attempt < 16 {
                attempt += 1
            }
        }
    }

    deinit { abandon() }

    func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        guard let fd else { preconditionFailure("\(path): written after commit or abandon") }
        try FileIO.writeAll(fd, bytes)
    }

    func write(_ text: String) throws(SystemError) {
        var text = text
        // withUTF8 rethrows untyped; a Result carries the typed error out.
        try text.withUTF8 { bytes in
            Result { () throws(SystemError) in try write(UnsafeRawBufferPointer(bytes)) }
        }.get()
    }

    /// Flushes, closes and renames onto `path`; on any failure the temporary file is removed.
    func commit() throws(SystemError) {
        guard let fd else { preconditionFailure("\(path): committed twice or after abandon") }
        self.fd = nil
        do {
            try FileIO.fsync(fd)
        } catch {
            FileIO.close(fd)
            FileIO.unlink(temporaryPath)
            throw error
        }
        if let error = FileIO.close(fd) {
            FileIO.unlink(temporaryPath)
            throw error
        }
        do {
            try FileIO.rename(temporaryPath, to: path)
        } catch {
            FileIO.unlink(temporaryPath)
            throw error
        }
    }

    /// Closes and removes the temporary file; nothing if already committed.
    func abandon() {
        guard let fd else { return }
        self.fd = nil
        FileIO.close(fd)
        FileIO.unlink(temporaryPath)
    }
}
