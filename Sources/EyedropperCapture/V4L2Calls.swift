internal import CV4L2
import Eyedropper
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Every direct V4L2 and libv4l2 call Eyedropper makes, each failure swift-system's `Errno`.
/// An interrupted call (EINTR) is retried by `SystemCalls.retryingInterrupts`, the package's one
/// rule for it; the caller names the operation when it turns an `Errno` into a `CaptureError`.
enum V4L2Calls {
    /// Opens a device node, through libv4l2 (which adds its format conversions) when `converting`.
    /// libv4l2 prints its own complaints about nodes that are not video devices, so nodes are
    /// first checked opened plainly. The corresponding calls are `open` and `v4l2_open`.
    static func open(_ path: String, converting: Bool) throws(Errno) -> Int32 {
        let flags = O_RDWR | O_NONBLOCK | O_CLOEXEC
        return try SystemCalls.retryingInterrupts { converting ? ed_v4l2_open(path, flags) : Glibc.open(path, flags) }.get()
    }

    /// Closes a descriptor from `open`; never retried (the descriptor is gone either way). The
    /// corresponding call is `v4l2_close` (which passes descriptors libv4l2 did not open to `close`).
    static func close(_ fd: Int32) {
        _ = ed_v4l2_close(fd)
    }

    /// Sends `request` with `argument`, the one wrapper every V4L2 ioctl goes through. The
    /// corresponding call is `v4l2_ioctl` (a plain `ioctl` for descriptors libv4l2 did not open).
    static func ioctl<Argument>(_ fd: Int32, _ request: UInt, _ argument: inout Argument) throws(Errno) {
        _ = try withUnsafeMutablePointer(to: &argument) { pointer in
            SystemCalls.retryingInterrupts { ed_v4l2_ioctl(fd, request, pointer) }
        }.get()
    }

    /// An enumeration ioctl: false once the index passes the last entry (EINVAL, a result here,
    /// not an error). The corresponding call is `v4l2_ioctl` with a `VIDIOC_ENUM_*` request.
    static func enumerate<Argument>(_ fd: Int32, _ request: UInt, _ argument: inout Argument) throws(Errno) -> Bool {
        do {
            try ioctl(fd, request, &argument)
            return true
        } catch where error == .invalidArgument {
            return false
        }
    }

    /// Maps a driver buffer (libv4l2 substitutes its own for converted formats). The corresponding
    /// call is `v4l2_mmap`.
    static func map(_ fd: Int32, length: Int, offset: Int64) throws(Errno) -> UnsafeMutableRawPointer {
        guard let address = ed_v4l2_mmap(length, fd, offset), address != MAP_FAILED else { throw SystemCalls.lastErrno() }
        return address
    }

    /// The corresponding call is `v4l2_munmap`.
    static func unmap(_ address: UnsafeMutableRawPointer, length: Int) {
        _ = ed_v4l2_munmap(address, length)
    }

    /// Waits up to `milliseconds` for a frame to be ready: false on timeout. The corresponding
    /// call is `poll`.
    static func waitReadable(_ fd: Int32, milliseconds: Int32) throws(Errno) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return try SystemCalls.retryingInterrupts { poll(&descriptor, 1, milliseconds) }.get() > 0
    }

    /// The names in a directory (for finding /dev/video*). The corresponding calls are
    /// `opendir`, `readdir` and `closedir`.
    static func directoryEntries(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) })
        }
        return names
    }
}

/// A C `char[N]` field (imported as a tuple) up to its first NUL, as text.
func cString<Tuple>(_ field: Tuple) -> String {
    withUnsafeBytes(of: field) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}
