import SystemPackage

/// A file written under a temporary name in its directory and renamed into place by `commit`,
/// so readers see either the old file or the whole new one, never a partial one.
///
/// Dropped without `commit`, it removes the temporary file.
final class AtomicFile {
    let path: String
    let temporaryPath: String
    private var fd: FileDescriptor?

    init(path: String) throws(SystemCallError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var attempt = 0
        while true {
            // A random name and O_EXCL rather than mkstemp: mkstemp's mode 0600 ignores the umask.
            let suffix = String(UInt64.random(in: .min ... .max), radix: 16)
            let candidate = "\(directory).\(name).\(suffix).tmp"
            do {
                fd = try FileDescriptor.create(exclusively: candidate)
                temporaryPath = candidate
                self.path = path
                return
            } catch  where error.errno == .fileExists && attempt < 16 {
                attempt += 1
            }
        }
    }

    deinit { abandon() }

    func write(_ bytes: UnsafeRawBufferPointer) throws(SystemCallError) {
        guard let fd else { preconditionFailure("\(path): written after commit or abandon") }
        try fd.writeAll(bytes: bytes)
    }

    func write(_ text: String) throws(SystemCallError) {
        var text = text
        // withUTF8 rethrows untyped; a Result carries the typed error out.
        try text.withUTF8 { bytes in
            Result { () throws(SystemCallError) in try write(UnsafeRawBufferPointer(bytes)) }
        }.get()
    }

    /// Flushes, closes and renames onto `path`; on any failure the temporary file is removed.
    func commit() throws(SystemCallError) {
        guard let fd else { preconditionFailure("\(path): committed twice or after abandon") }
        self.fd = nil
        do throws(Errno) {
            try SystemCalls.fsync(fd)
        } catch {
            fd.closeReporting()
            SystemCalls.unlinkIfPresent(temporaryPath)
            throw SystemCallError(operation: "flush to disk", errno: error)
        }
        if let error = fd.closeReporting() {
            SystemCalls.unlinkIfPresent(temporaryPath)
            throw error
        }
        do throws(Errno) {
            try SystemCalls.rename(temporaryPath, to: path)
        } catch {
            SystemCalls.unlinkIfPresent(temporaryPath)
            throw SystemCallError(operation: "rename", errno: error)
        }
    }

    /// Closes and removes the temporary file; nothing if already committed.
    func abandon() {
        guard let fd else { return }
        self.fd = nil
        fd.closeReporting()
        SystemCalls.unlinkIfPresent(temporaryPath)
    }
}
