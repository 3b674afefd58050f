import SystemPackage

/// The file operations the readers and writers use, over swift-system's `FileDescriptor`
/// (which retries `EINTR` when asked, `retryOnInterrupt: true`), each failure a `SystemCallError`
/// naming what was being done.
extension FileDescriptor {
    /// Opens `path` to read it. The corresponding C function is `open`.
    static func open(reading path: String) throws(SystemCallError) -> FileDescriptor {
        try SystemCallError.attempt("open") {
            try FileDescriptor.open(FilePath(path), .readOnly, options: .closeOnExec, retryOnInterrupt: true)
        }
    }

    /// Creates a new file that no one else has opened: `O_EXCL`, mode 0666 less the umask. The
    /// corresponding C function is `open`.
    static func create(exclusively path: String) throws(SystemCallError) -> FileDescriptor {
        try SystemCallError.attempt("create") {
            try FileDescriptor.open(
                FilePath(path), .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec],
                permissions: FilePermissions(rawValue: 0o666), retryOnInterrupt: true)
        }
    }

    /// One `read`: fewer bytes than asked is normal, 0 means end of file. The corresponding C
    /// function is `read`.
    func readSome(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
        guard !buffer.isEmpty else { return 0 }
        return try SystemCallError.attempt("read") { try read(into: buffer, retryOnInterrupt: true) }
    }

    /// Reads until `buffer` is full or the file ends; returns the bytes read.
    func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
        var done = 0
        while done < buffer.count {
            let count = try readSome(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            if count == 0 { break }
            done += count
        }
        return done
    }

    /// Writes all of `bytes`, however many calls it takes. The corresponding C function is `write`.
    func writeAll(bytes: UnsafeRawBufferPointer) throws(SystemCallError) {
        _ = try SystemCallError.attempt("write") { try writeAll(bytes) }
    }

    /// Closes once, never retried, reporting a failure (a delayed write error on some file
    /// systems). The corresponding C function is `close`.
    @discardableResult
    func closeReporting() -> SystemCallError? {
        do {
            try SystemCallError.attempt("close") { try close() }
            return nil
        } catch {
            return error
        }
    }

    /// Reads a whole (small) file into memory (for the server's certificate, key and token too).
    package static func readWholeFile(_ path: String) throws(SystemCallError) -> [UInt8] {
        let fd = try open(reading: path)
        defer { fd.closeReporting() }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
        defer { chunk.deallocate() }
        var bytes: [UInt8] = []
        while true {
            let count = try fd.readSome(into: chunk)
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
}
