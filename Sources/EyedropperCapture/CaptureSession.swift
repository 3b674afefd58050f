internal import CV4L2
import Eyedropper
import SystemPackage

/// What to ask a camera for; anything left nil is the device's choice.
public struct CaptureRequest: Hashable, Sendable {
    public var width: Int?
    public var height: Int?
    public var fps: Double?
    /// A FourCC ("NV12", "YUYV", "MJPG"). Default: a 4:2:0 format the device delivers itself,
    /// else YU12 converted by libv4l2.
    public var pixelFormat: String?
    /// mmap buffers the driver cycles through.
    public var buffers = 4
    /// Frames to drop at the start, while the camera settles its exposure.
    public var skip = 0
    /// The longest wait for one frame, in milliseconds.
    public var timeoutMilliseconds: Int32 = 2000

    public init(width: Int? = nil, height: Int? = nil, fps: Double? = nil, pixelFormat: String? = nil, skip: Int = 0) {
        self.width = width
        self.height = height
        self.fps = fps
        self.pixelFormat = pixelFormat
        self.skip = skip
    }
}

/// What the device agreed to, which may differ from what was asked.
public struct CaptureAgreement: Hashable, Sendable {
    public let width: Int
    public let height: Int
    /// The 4:2:0 layout frames arrive in.
    public let layout: PixelLayout
    /// What the device itself sends; differs from `layout.fourCC` when libv4l2 converts.
    public let sourceFourCC: String
    public let driverColorimetry: DriverColorimetry
    /// The matrix and range the frames are in, from the driver's fields (or libv4l2's JPEG decoding).
    public let colorimetry: Colorimetry
    public let fps: Double?
    public let lumaStride: Int

    /// Whether frames are read in place (zero copy) rather than converted by libv4l2.
    public var isNative: Bool { sourceFourCC == layout.fourCC }
}

/// Time and order of a captured frame, from the driver.
public struct CapturedFrameInfo: Hashable, Sendable {
    public let sequence: UInt32
    /// Seconds, on the driver's clock (monotonic for most drivers).
    public let timestamp: Double
}

/// One device streaming through mmap buffers. Not `Sendable`: one worker owns a session.
public final class CaptureSession {
    public let device: String
    public let agreed: CaptureAgreement
    /// Frames dropped because a newer one was already waiting (the consumer was slower).
    public private(set) var framesDropped = 0
    /// Frames the driver flagged as damaged (V4L2_BUF_FLAG_ERROR), dropped.
    public private(set) var damagedFrames = 0
    /// The descriptor, for the camera's controls (`CameraControls`): opened through libv4l2.
    let fd: Int32
    private let timeoutMilliseconds: Int32
    private var mappings: [UnsafeMutableRawBufferPointer] = []
    private var skipRemaining: Int
    private var streaming = false

    /// Opens `device`, agrees a format and rate, lends the descriptor to `prepare` (to set
    /// controls before any frame), maps buffers and starts streaming. Throws a `CaptureError`, or
    /// what `prepare` throws.
    public init(device: String, request: CaptureRequest = CaptureRequest(), prepare: (Int32) throws -> Void = { _ in }) throws {
        let formats = try CaptureDevices.formats(device: device)
        self.device = device
        self.timeoutMilliseconds = request.timeoutMilliseconds
        self.skipRemaining = request.skip
        let fd = try onDevice(device, "open") { () throws(Errno) in try V4L2Calls.open(device, converting: true) }
        do {
            agreed = try Self.negotiate(fd, device: device, request: request, formats: formats)
            try prepare(fd)
        } catch {
            V4L2Calls.close(fd)
            throw error
        }
        self.fd = fd
        do {
            try startStreaming(buffers: request.buffers)
        } catch {
            release()
            throw error
        }
    }

    deinit { release() }

    /// Waits for a frame and lends the newest one to `body`: when several are waiting (the
    /// consumer is slower than the camera) the older ones go back to the driver, counted in
    /// `framesDropped`. Throws `CaptureError` (timeout, unplugged) or what `body` throws.
    public func withNextFrame<R>(_ body: (borrowing PlanarFrame, CapturedFrameInfo) throws -> R) throws -> R {
        while true {
            var buffer = try newestBuffer()
            if buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 {
                damagedFrames += 1
                try requeue(&buffer)
                continue
            }
            if skipRemaining > 0 {
                skipRemaining -= 1
                try requeue(&buffer)
                continue
            }
            let mapping = mappings[Int(buffer.index)]
            let used = buffer.bytesused > 0 ? Int(buffer.bytesused) : mapping.count
            let info = CapturedFrameInfo(
                sequence: buffer.sequence,
                timestamp: Double(buffer.timestamp.tv_sec) + Double(buffer.timestamp.tv_usec) / 1e6)
            let result: R
            do {
                let frame = try PlanarFrame(
                    layout: agreed.layout, width: agreed.width, height: agreed.height, colorimetry: agreed.colorimetry,
                    packedIn: UnsafeRawBufferPointer(rebasing: mapping[..<min(used, mapping.count)]),
                    lumaStride: agreed.lumaStride)
                result = try body(frame, info)
            } catch {
                try? requeue(&buffer)  // the first error is the one to report
                if let geometry = error as? FrameGeometryError {
                    throw CaptureError(device: device, kind: .unusableFormat(geometry.description))
                }
                throw error
            }
            // The buffer goes back to the driver only after `body`: the frame was its memory.
            try requeue(&buffer)
            return result
        }
    }

    /// Dequeues buffers until none is waiting and returns the newest; waits for one first. Each
    /// dequeue follows a `poll` that said a buffer is ready (the first waits, the others do not):
    /// libv4l2 prints "error dequeuing buf" on stderr for every `VIDIOC_DQBUF` that finds none.
    private func newestBuffer() throws(CaptureError) -> v4l2_buffer {
        var newest: v4l2_buffer?
        while true {
            let wait = newest == nil ? timeoutMilliseconds : 0
            let ready = try onDevice(device, "poll") { () throws(Errno) in try V4L2Calls.waitReadable(fd, milliseconds: wait) }
            guard ready, let buffer = try dequeue() else {
                if let newest { return newest }
                if ready { continue }  // woken, but nothing to take: wait again
                throw CaptureError(device: device, kind: .timeout(milliseconds: Int(timeoutMilliseconds)))
            }
            if var older = newest {
                try requeue(&older)
                framesDropped += 1
            }
            newest = buffer
        }
    }

    /// The next filled buffer, or nil when none is waiting (EAGAIN: a result, not an error).
    /// The corresponding ioctl is `VIDIOC_DQBUF`.
    private func dequeue() throws(CaptureError) -> v4l2_buffer? {
        var buffer = Self.buffer(index: 0)
        do {
            try V4L2Calls.ioctl(fd, ED_VIDIOC_DQBUF, &buffer)
            return buffer
        } catch  where error == .resourceTemporarilyUnavailable {  // EAGAIN
            return nil
        } catch {
            throw CaptureError(device: device, operation: "VIDIOC_DQBUF", error)
        }
    }

    /// The corresponding ioctl is `VIDIOC_QBUF`.
    private func requeue(_ buffer: inout v4l2_buffer) throws(CaptureError) {
        try onDevice(device, "VIDIOC_QBUF") { () throws(Errno) in try V4L2Calls.ioctl(fd, ED_VIDIOC_QBUF, &buffer) }
    }

    private func startStreaming(buffers count: Int) throws(CaptureError) {
        var request = v4l2_requestbuffers()
        request.count = UInt32(max(2, count))
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try onDevice(device, "VIDIOC_REQBUFS") { () throws(Errno) in try V4L2Calls.ioctl(fd, ED_VIDIOC_REQBUFS, &request) }
        for index in 0..<Int(request.count) {
            var buffer = Self.buffer(index: UInt32(index))
            try onDevice(device, "VIDIOC_QUERYBUF") { () throws(Errno) in try V4L2Calls.ioctl(fd, ED_VIDIOC_QUERYBUF, &buffer) }
            let length = Int(buffer.length)
            let address = try onDevice(device, "mmap") { () throws(Errno) in
                try V4L2Calls.map(fd, length: length, offset: Int64(buffer.m.offset))
            }
            mappings.append(UnsafeMutableRawBufferPointer(start: address, count: length))
            try requeue(&buffer)
        }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try onDevice(device, "VIDIOC_STREAMON") { () throws(Errno) in try V4L2Calls.ioctl(fd, ED_VIDIOC_STREAMON, &type) }
        streaming = true
    }

    /// Stops streaming, unmaps the buffers and closes the device; safe on every path.
    private func release() {
        if streaming {
            var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            try? V4L2Calls.ioctl(fd, ED_VIDIOC_STREAMOFF, &type)
            streaming = false
        }
        for mapping in mappings { V4L2Calls.unmap(mapping.baseAddress!, length: mapping.count) }
        mappings = []
        if fd >= 0 { V4L2Calls.close(fd) }
    }

    private static func buffer(index: UInt32) -> v4l2_buffer {
        var buffer = v4l2_buffer()
        buffer.index = index
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        return buffer
    }
}
