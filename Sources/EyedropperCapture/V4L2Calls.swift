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
        } catch  where error == .invalidArgument {
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

    /// The control after `id` (`ED_CTRL_FLAG_NEXT` for the first), nil after the last. The
    /// corresponding ioctl is `VIDIOC_QUERY_EXT_CTRL` with the NEXT_CTRL and NEXT_COMPOUND flags.
    static func nextControl(_ fd: Int32, after id: UInt32) throws(Errno) -> v4l2_query_ext_ctrl? {
        var query = v4l2_query_ext_ctrl()
        query.id = id | ED_CTRL_FLAG_NEXT
        return try enumerate(fd, ED_VIDIOC_QUERY_EXT_CTRL, &query) ? query : nil
    }

    /// Control `id` as it is now (its flags change: an automatic control makes others inactive).
    /// The corresponding ioctl is `VIDIOC_QUERY_EXT_CTRL`.
    static func queryControl(_ fd: Int32, id: UInt32) throws(Errno) -> v4l2_query_ext_ctrl {
        var query = v4l2_query_ext_ctrl()
        query.id = id
        try ioctl(fd, ED_VIDIOC_QUERY_EXT_CTRL, &query)
        return query
    }

    /// Menu entry `index` of control `id`: its label and its integer (an integer menu's entry);
    /// nil for an index the menu skips. The corresponding ioctl is `VIDIOC_QUERYMENU`.
    static func menuEntry(_ fd: Int32, control id: UInt32, index: UInt32) throws(Errno) -> (label: String, value: Int64)? {
        var label = [CChar](repeating: 0, count: 33)  // 32 and a NUL the driver need not write
        var value: Int64 = 0
        do {
            _ = try SystemCalls.retryingInterrupts { ed_v4l2_query_menu(fd, id, index, &label, &value) }.get()
        } catch  where error == .invalidArgument {
            return nil
        }
        return (String(decoding: label.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), value)
    }

    /// Reads (`set` false) or writes one integer control's current value: the value read, or the
    /// value the driver kept. The corresponding ioctls are `VIDIOC_G_EXT_CTRLS` and `VIDIOC_S_EXT_CTRLS`.
    static func controlValue(_ fd: Int32, id: UInt32, is64: Bool, set newValue: Int64? = nil) throws(Errno) -> Int64 {
        var value = newValue ?? 0
        let request = newValue == nil ? ED_VIDIOC_G_EXT_CTRLS : ED_VIDIOC_S_EXT_CTRLS
        _ = try SystemCalls.retryingInterrupts { ed_v4l2_control_value(fd, request, id, is64 ? 1 : 0, &value) }.get()
        return value
    }

    /// Reads a string control of at most `maximum` characters. The corresponding ioctl is
    /// `VIDIOC_G_EXT_CTRLS`.
    static func controlString(_ fd: Int32, id: UInt32, maximum: Int) throws(Errno) -> String {
        var buffer = [CChar](repeating: 0, count: maximum + 1)
        let size = UInt32(buffer.count)
        _ = try SystemCalls.retryingInterrupts { ed_v4l2_control_string(fd, ED_VIDIOC_G_EXT_CTRLS, id, &buffer, size) }.get()
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes a string control. The corresponding ioctl is `VIDIOC_S_EXT_CTRLS`.
    static func setControlString(_ fd: Int32, id: UInt32, _ text: String) throws(Errno) {
        var buffer = Array(text.utf8CString)
        let size = UInt32(buffer.count)
        _ = try SystemCalls.retryingInterrupts { ed_v4l2_control_string(fd, ED_VIDIOC_S_EXT_CTRLS, id, &buffer, size) }.get()
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
