import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The direct C calls the package makes where swift-system's `FileDescriptor` has no wrapper
/// (`fsync`, `rename`, `unlink`), and the one rule for interrupted calls, which the V4L2 calls
/// of EyedropperCapture use too. Everything else goes through `FileDescriptor`.
package enum SystemCalls {
    /// Runs `call` again while it fails with `EINTR`; any other failure is the `errno` it left.
    /// Never for `close`: on Linux the descriptor is gone even when `close` is interrupted.
    package static func retryingInterrupts<T: FixedWidthInteger>(_ call: () -> T) -> Result<T, Errno> {
        while true {
            let result = call()
            if result != -1 { return .success(result) }
            let error = lastErrno()
            if error != .interrupted { return .failure(error) }
        }
    }

    /// The `errno` the last failed call left.
    package static func lastErrno() -> Errno { Errno(rawValue: errno) }

    /// Flushes `fd`'s data to the disk. The corresponding C function is `fsync`.
    static func fsync(_ fd: FileDescriptor) throws(Errno) {
        _ = try retryingInterrupts { Glibc.fsync(fd.rawValue) }.get()
    }

    /// Renames `source` onto `destination`, replacing it atomically. The corresponding C
    /// function is `rename`.
    static func rename(_ source: String, to destination: String) throws(Errno) {
        _ = try retryingInterrupts { Glibc.rename(source, destination) }.get()
    }

    /// Removes `path`; a failure is ignored (used only to clean up). The corresponding C
    /// function is `unlink`.
    static func unlinkIfPresent(_ path: String) {
        _ = retryingInterrupts { Glibc.unlink(path) }
    }
}
