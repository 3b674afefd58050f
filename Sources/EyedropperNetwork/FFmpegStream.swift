internal import CFFmpeg
import Eyedropper
import EyedropperCapture

#if canImport(Glibc)
    import Glibc
#endif

/// One network camera's stream, demuxed by libavformat and decoded by libavcodec on the reading
/// thread (no thread of its own, no queue): each frame is lent in the decoder's own planes, no
/// copy, with the colorimetry the stream says in that frame (H.264's VUI, JPEG's JFIF).
///
/// Every wait (connecting, each packet) ends within `timeoutMilliseconds`, or when `isStopped`
/// says so, through libavformat's interrupt callback. Not `Sendable`: one thread reads it.
final class FFmpegStream: NetworkStream {
    let url: String
    private(set) var stream = ""
    private let timeoutMilliseconds: Int
    /// FFmpeg's functions, loaded at the first stream opened.
    private let av: ed_ffmpeg
    private let watchdog: Watchdog
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var decoder: UnsafeMutablePointer<AVCodecContext>?
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>
    private var streamIndex: Int32 = -1
    /// The first frame, decoded at the open to check it: lent by the first `withNextFrame`.
    private var pending = false
    /// Whether the input has ended: the decoder is then drained of the frames it holds.
    private var draining = false

    init(url: String, timeoutMilliseconds: Int, isStopped: @escaping () -> Bool) throws(CaptureError) {
        self.url = url
        self.timeoutMilliseconds = timeoutMilliseconds
        watchdog = Watchdog(isStopped: isStopped)
        av = try FFmpegLibrary.load(for: url)
        guard let packet = av.av_packet_alloc(), let frame = av.av_frame_alloc() else {
            preconditionFailure("av_packet_alloc, av_frame_alloc: out of memory")
        }
        self.packet = packet
        self.frame = frame
        // A failure here releases all through deinit: every stored property is set.
        try open()
        try decodeFirstFrame()
    }

    deinit { close() }

    func withNextFrame(_ body: (borrowing PlanarFrame, _ timestamp: Double) throws -> Void) throws {
        if pending {
            pending = false
        } else {
            av.av_frame_unref(frame)
            try decodeFrame()
        }
        let timestamp = Self.monotonicSeconds()
        try lend(body, timestamp: timestamp)
    }

    // MARK: Opening

    private func open() throws(CaptureError) {
        var context = av.avformat_alloc_context()
        context?.pointee.interrupt_callback = AVIOInterruptCB(
            callback: { opaque in Unmanaged<Watchdog>.fromOpaque(opaque!).takeUnretainedValue().interrupts ? 1 : 0 },
            opaque: Unmanaged.passUnretained(watchdog).toOpaque())
        var options: OpaquePointer?
        defer { av.av_dict_free(&options) }
        let microseconds = String(timeoutMilliseconds * 1000)
        // TCP for RTSP: a 1080p key frame is hundreds of UDP packets, and one lost is a damaged frame.
        if url.lowercased().hasPrefix("rtsp") { _ = av.av_dict_set(&options, "rtsp_transport", "tcp", 0) }
        _ = av.av_dict_set(&options, "timeout", microseconds, 0)
        _ = av.av_dict_set(&options, "rw_timeout", microseconds, 0)
        watchdog.arm(milliseconds: timeoutMilliseconds)
        var status = av.avformat_open_input(&context, url, nil, &options)
        guard status >= 0, let context else {
            throw FFmpegError.opening(url, status, timedOut: watchdog.expired, milliseconds: timeoutMilliseconds, av)
        }
        format = context
        watchdog.arm(milliseconds: timeoutMilliseconds)
        status = av.avformat_find_stream_info(context, nil)
        guard status >= 0 else { throw FFmpegError.opening(url, status, timedOut: watchdog.expired, milliseconds: timeoutMilliseconds, av) }
        var codec: UnsafePointer<AVCodec>?
        streamIndex = av.av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0)
        guard streamIndex >= 0, let codec, let parameters = context.pointee.streams[Int(streamIndex)]?.pointee.codecpar else {
            throw CaptureError(
                device: url,
                kind: .unsupportedStream(
                    streamIndex == ed_averror_decoder_not_found()
                        ? "its video is in a codec this FFmpeg cannot decode" : "it has no video stream"))
        }
        guard let decoder = av.avcodec_alloc_context3(codec) else { preconditionFailure("avcodec_alloc_context3: out of memory") }
        self.decoder = decoder
        _ = av.avcodec_parameters_to_context(decoder, parameters)
        // Slices in parallel, never frames: frame threads hold frames back, a frame a thread.
        decoder.pointee.thread_type = FF_THREAD_SLICE
        decoder.pointee.thread_count = 0
        status = av.avcodec_open2(decoder, codec, nil)
        guard status >= 0 else {
            throw CaptureError(device: url, kind: .unsupportedStream("its decoder cannot start: \(FFmpegError.text(status, av))"))
        }
    }

    /// Decodes the first frame, so that a stream that cannot become 4:2:0 frames is refused at
    /// the open, and says what was opened.
    private func decodeFirstFrame() throws(CaptureError) {
        try decodeFrame()
        pending = true
        guard let layout = Self.layout(frame.pointee.format) else {
            let name = av.av_get_pix_fmt_name(AVPixelFormat(rawValue: frame.pointee.format)).map { String(cString: $0) } ?? "unknown"
            throw CaptureError(
                device: url,
                kind: .unsupportedStream(
                    "its frames are \(name), not 8-bit 4:2:0: Eyedropper reads 4:2:0 planes (YUV 4:2:0, NV12, NV21); set the camera's stream to 4:2:0 (H.264 main profile, or MJPEG 4:2:0)"
                ))
        }
        let codec = av.avcodec_get_name(decoder!.pointee.codec_id).map { String(cString: $0) } ?? "video"
        let (colorimetry, said) = colorimetry()
        stream =
            "\(frame.pointee.width)x\(frame.pointee.height) \(codec) decoded to \(layout.fourCC) by libavcodec, read in place, "
            + "\(colorimetry) (\(said ? "as the stream says" : "assumed: the stream does not say; give --matrix/--range"))"
    }

    // MARK: Reading

    /// Reads packets and feeds the decoder until it gives a frame (into `frame`).
    private func decodeFrame() throws(CaptureError) {
        guard let format, let decoder else { preconditionFailure("read after close") }
        while true {
            let received = av.avcodec_receive_frame(decoder, frame)
            if received >= 0 { return }
            guard received == ed_averror_again(), !draining else {
                throw FFmpegError.reading(url, received, timedOut: false, milliseconds: timeoutMilliseconds, av)
            }
            watchdog.arm(milliseconds: timeoutMilliseconds)
            let read = av.av_read_frame(format, packet)
            if read < 0 {
                guard read == ed_averror_eof() else {
                    throw FFmpegError.reading(url, read, timedOut: watchdog.expired, milliseconds: timeoutMilliseconds, av)
                }
                // The end of the input: what the decoder holds is still given, then the end.
                draining = true
                _ = av.avcodec_send_packet(decoder, nil)
                continue
            }
            defer { av.av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            // A damaged packet (data lost on the way) is skipped: the decoder resumes at the next.
            _ = av.avcodec_send_packet(decoder, packet)
        }
    }

    /// Lends `frame`'s planes, where the decoder left them.
    private func lend(_ body: (borrowing PlanarFrame, Double) throws -> Void, timestamp: Double) throws {
        let decoded = frame.pointee
        guard let layout = Self.layout(decoded.format) else {
            throw CaptureError(device: url, kind: .unsupportedStream("its frames changed to a format that is not 4:2:0"))
        }
        let (width, height) = (Int(decoded.width), Int(decoded.height))
        let chromaRows = (height + 1) / 2
        func plane(_ data: UnsafeMutablePointer<UInt8>?, _ stride: Int32, rows: Int) -> Plane {
            Plane(bytes: UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : Int(stride) * rows), stride: Int(stride))
        }
        let planar: PlanarFrame
        do {
            let luma = plane(decoded.data.0, decoded.linesize.0, rows: height)
            let first = plane(decoded.data.1, decoded.linesize.1, rows: chromaRows)
            let second = layout.planeCount == 3 ? plane(decoded.data.2, decoded.linesize.2, rows: chromaRows) : nil
            planar = try PlanarFrame(
                layout: layout, width: width, height: height, colorimetry: colorimetry().colorimetry, planes: luma, first, second)
        } catch {
            throw CaptureError(device: url, kind: .unusableFormat(error.description))
        }
        try body(planar, timestamp)
    }

    /// The frame's matrix and range as the stream says them, and whether it said both: else
    /// BT.601 for JPEG's full-range formats and below 720 lines, BT.709 from 720 lines, limited
    /// range but for JPEG's.
    private func colorimetry() -> (colorimetry: Colorimetry, said: Bool) {
        let decoded = frame.pointee
        let jpeg = decoded.format == AV_PIX_FMT_YUVJ420P.rawValue
        let matrix: YCbCrMatrix? =
            switch decoded.colorspace {
            case AVCOL_SPC_BT709: .bt709
            case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M, AVCOL_SPC_SMPTE240M: .bt601
            case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: .bt2020
            default: nil
            }
        let range: ColorRange? =
            switch decoded.color_range {
            case AVCOL_RANGE_JPEG: .full
            case AVCOL_RANGE_MPEG: .limited
            default: jpeg ? .full : nil
            }
        let assumed = Colorimetry(
            matrix: matrix ?? (jpeg || decoded.height < 720 ? .bt601 : .bt709), range: range ?? .limited)
        return (assumed, matrix != nil && range != nil)
    }

    /// The 4:2:0 layouts read in place: planar (FFmpeg's yuv420p, and yuvj420p, the same planes
    /// in full range) and semi-planar.
    static func layout(_ format: Int32) -> PixelLayout? {
        switch format {
        case AV_PIX_FMT_YUV420P.rawValue, AV_PIX_FMT_YUVJ420P.rawValue: .i420
        case AV_PIX_FMT_NV12.rawValue: .nv12
        case AV_PIX_FMT_NV21.rawValue: .nv21
        default: nil
        }
    }

    private static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private func close() {
        av.avcodec_free_context(&decoder)
        av.avformat_close_input(&format)
        var packet: UnsafeMutablePointer<AVPacket>? = self.packet
        av.av_packet_free(&packet)
        var frame: UnsafeMutablePointer<AVFrame>? = self.frame
        av.av_frame_free(&frame)
    }
}

/// Ends libavformat's waits: past a deadline, or when the source is stopped. Read by the
/// interrupt callback on the reading thread, the only thread that arms it.
private final class Watchdog {
    private let isStopped: () -> Bool
    private var deadline: UInt64 = .max
    /// Whether the last wait ended because the deadline passed.
    private(set) var expired = false

    init(isStopped: @escaping () -> Bool) { self.isStopped = isStopped }

    func arm(milliseconds: Int) {
        deadline = Self.now() + UInt64(milliseconds) * 1_000_000
        expired = false
    }

    var interrupts: Bool {
        if Self.now() > deadline { expired = true }
        return expired || isStopped()
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
