import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Reads 8-bit 4:2:0 frames from a YUV4MPEG2 (`.y4m`) file or pipe, one after another.
///
/// One `FrameBuffer`, allocated at open, holds every frame in turn, and the `FRAME` lines are read
/// through a fixed read-ahead buffer: reading allocates nothing per frame. The buffer is not
/// cleared, and a frame is lent only once every byte of it has been read: its memory is taken as
/// the file's data arrives, not as its header promises. Not `Sendable`: one
/// owner reads it. After an error every further read reports the same error.
public final class Y4MReader {
    /// What `readFrame` found.
    public enum ReadResult: Hashable, Sendable {
        /// A frame was read and lent to the closure.
        case frame
        /// The file ended cleanly, at a frame boundary.
        case endOfStream
    }

    public let path: String
    public let header: Y4MHeader
    public var width: Int { header.width }
    public var height: Int { header.height }
    /// Nil when the header gives no frame rate (or `F0:0`).
    public var frameRate: Y4MFrameRate? { header.frameRate }
    public var colorimetry: Colorimetry { header.colorimetry }
    /// Frames delivered so far; also the number of the next frame.
    public private(set) var framesRead = 0
    /// The last frame's `XEYEDROPPER_TIME` parameter (a recording's timestamp), nil when it has none.
    public private(set) var frameTime: Double?

    /// The name a reader of standard input goes by, in its errors.
    public static let standardInputName = "standard input"

    /// Longest `FRAME` line accepted, newline included (frame parameters are rare and short).
    static let maximumFrameLineLength = 4096
    private static let frameMarker: [UInt8] = Array("FRAME".utf8)

    private let fd: FileDescriptor
    /// Whether `fd` is closed with the reader (not standard input's).
    private let ownsDescriptor: Bool
    private let frame: FrameBuffer
    /// The current `FRAME` line, NUL-terminated for `strtod`: made once.
    private let frameLine: UnsafeMutableRawBufferPointer
    /// Bytes read from the file but not yet used: `readAhead[pending]`.
    private let readAhead: UnsafeMutableRawBufferPointer
    private var pending = 0..<0
    private var failure: Y4MError?

    /// Opens `path` and reads its header.
    public convenience init(path: String) throws(Y4MError) {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(reading: path)
        } catch {
            throw .system(path, frame: nil, error)
        }
        try self.init(fd: fd, name: path, owning: true)
    }

    /// Reads standard input (a pipe from ffmpeg, say), which it leaves open; errors name it
    /// `standard input`.
    public static func standardInput() throws(Y4MError) -> Y4MReader {
        try Y4MReader(fd: .standardInput, name: standardInputName, owning: false)
    }

    private init(fd: FileDescriptor, name path: String, owning: Bool) throws(Y4MError) {
        self.path = path
        self.fd = fd
        ownsDescriptor = owning
        frameLine = .allocate(byteCount: Self.maximumFrameLineLength + 1, alignment: 1)
        readAhead = .allocate(byteCount: Y4MHeader.maximumLength, alignment: 64)
        do {
            let headerEnd = try Self.readHeader(fd: fd, into: readAhead, path: path)
            header = try Y4MHeader(parsing: UnsafeRawBufferPointer(rebasing: readAhead[headerEnd.bytes]), path: path)
            pending = headerEnd.bytes.upperBound..<headerEnd.filled
            frame = try FrameBuffer(
                layout: .i420, width: header.width, height: header.height, colorimetry: header.colorimetry, zeroed: false)
        } catch let error as Y4MError {
            if owning { fd.closeReporting() }
            readAhead.deallocate()
            frameLine.deallocate()
            throw error
        } catch {
            // FrameBuffer rejects only a non-positive size, which the header parser never returns.
            preconditionFailure("\(path): \(error)")
        }
    }

    deinit {
        if ownsDescriptor { fd.closeReporting() }
        readAhead.deallocate()
        frameLine.deallocate()
    }

    /// Reads the next frame and lends it to `body`; `.endOfStream` when the file ends cleanly.
    ///
    /// Throws a `Y4MError` for a damaged or cut-short frame (never passing on a partial one), or
    /// what `body` throws.
    public func readFrame(_ body: (borrowing PlanarFrame) throws -> Void) throws -> ReadResult {
        if let failure { throw failure }
        do {
            guard try readFrameLine() else { return .endOfStream }
            try readFrameBytes()
        } catch {
            failure = error
            throw error
        }
        framesRead += 1
        try frame.withFrame(body)
        return .frame
    }

    /// Fills `buffer` until it holds a newline or is full or the file ends; returns the header's
    /// bytes (up to and including the newline, or all of them) and how much of `buffer` was filled.
    private static func readHeader(
        fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, path: String
    ) throws(Y4MError) -> (bytes: Range<Int>, filled: Int) {
        var filled = 0
        while filled < buffer.count {
            let count: Int
            do {
                count = try fd.readSome(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            } catch {
                throw .system(path, frame: nil, error)
            }
            if count == 0 { break }
            if let newline = buffer[filled..<(filled + count)].firstIndex(of: UInt8(ascii: "\n")) {
                return (0..<(newline + 1), filled + count)
            }
            filled += count
        }
        return (0..<filled, filled)
    }

    private enum NextByte {
        case byte(UInt8)
        case endOfFile
    }

    /// The next byte of the file, through the read-ahead buffer.
    private func nextByte() throws(Y4MError) -> NextByte {
        if pending.isEmpty {
            do {
                pending = 0..<(try fd.readSome(into: readAhead))
            } catch {
                throw .system(path, frame: framesRead, error)
            }
            if pending.isEmpty { return .endOfFile }
        }
        let byte = readAhead[pending.lowerBound]
        pending = pending.dropFirst()
        return .byte(byte)
    }

    /// Consumes `FRAME`, its optional parameters and its newline, reading `XEYEDROPPER_TIME`;
    /// false at a clean end of file.
    private func readFrameLine() throws(Y4MError) -> Bool {
        guard let length = try readFrameLineBytes() else { return false }
        frameTime = nil
        // Parameters: ` <tag><value>` each; only Eyedropper's time is read, the rest skipped.
        let line = UnsafeMutableRawBufferPointer(rebasing: frameLine[..<(length - 1)])
        let wanted = Self.timeMarker
        var start = Self.frameMarker.count
        while start < line.count {
            while start < line.count, line[start] == UInt8(ascii: " ") { start += 1 }
            var end = start
            while end < line.count, line[end] != UInt8(ascii: " ") { end += 1 }
            if end - start > wanted.count, line[start..<(start + wanted.count)].elementsEqual(wanted) {
                frameTime = try parseTime(line, from: start + wanted.count, to: end)
            }
            start = end
        }
        return true
    }

    private static let timeMarker: [UInt8] = Array("X\(Y4MHeader.timeParameter)=".utf8)

    /// The seconds in `line[from..<to]`, through `strtod` on the line's own memory (no allocation).
    private func parseTime(_ line: UnsafeMutableRawBufferPointer, from: Int, to: Int) throws(Y4MError) -> Double {
        let saved = frameLine[to]
        frameLine[to] = 0
        defer { frameLine[to] = saved }
        let text = frameLine.baseAddress!.assumingMemoryBound(to: CChar.self) + from
        var end: UnsafeMutablePointer<CChar>?
        let value = strtod(text, &end)
        guard let end, end == text + (to - from), value.isFinite else {
            throw fail("X\(Y4MHeader.timeParameter)= is not a number of seconds, e.g. X\(Y4MHeader.timeParameter)=12.345678")
        }
        return value
    }

    /// Reads the `FRAME` line into `frameLine`, checking its start; its length with the newline,
    /// nil at a clean end of file.
    private func readFrameLineBytes() throws(Y4MError) -> Int? {
        let marker = Self.frameMarker
        var length = 0
        while true {
            let byte: UInt8
            switch try nextByte() {
            case .byte(let next): byte = next
            case .endOfFile where length == 0: return nil
            case .endOfFile:
                throw fail("the file ends inside the FRAME line, after \(length) bytes: the file is cut short")
            }
            if length < marker.count {
                guard byte == marker[length] else {
                    throw fail(
                        "expected 'FRAME' but found \(printableExcerpt(marker[..<length] + [byte])): "
                            + "the previous frame's size does not match the header, or the file is damaged")
                }
            } else if length == marker.count && byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\n") {
                throw fail("expected a space or end of line after 'FRAME' but found \(printableExcerpt([byte]))")
            }
            frameLine[length] = byte
            length += 1
            if byte == UInt8(ascii: "\n") { return length }
            guard length < Self.maximumFrameLineLength else {
                throw fail("no end of line within \(Self.maximumFrameLineLength) bytes of 'FRAME': the file is damaged")
            }
        }
    }

    /// Fills the frame buffer: first from the read-ahead, then straight from the file.
    private func readFrameBytes() throws(Y4MError) {
        let destination = frame.bytes
        let buffered = min(pending.count, destination.count)
        if buffered > 0 {
            destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: readAhead[pending.prefix(buffered)]))
            pending = pending.dropFirst(buffered)
        }
        var got = buffered
        do {
            got += try fd.readFully(into: UnsafeMutableRawBufferPointer(rebasing: destination[buffered...]))
        } catch {
            throw .system(path, frame: framesRead, error)
        }
        guard got == destination.count else {
            throw fail(
                "truncated: \(got) of \(destination.count) bytes: the file ends inside this frame "
                    + "(cut short, or still being written); frames before it are whole")
        }
    }

    private func fail(_ reason: String) -> Y4MError { Y4MError(path: path, frame: framesRead, reason: reason) }
}
