/// Writes 8-bit 4:2:0 frames to a YUV4MPEG2 (`.y4m`) file, atomically.
///
/// Frames go to a temporary file beside `path`, renamed onto it by `finish()`: a reader never
/// sees a half-written file, and a writer dropped without `finish()` removes its temporary file.
/// The header records the range (`XCOLORRANGE`, as ffmpeg writes it), the matrix
/// (`XEYEDROPPER_MATRIX`, Eyedropper's own) and, for a recording, the camera's controls; each
/// frame may carry the time it was taken (`FRAME XEYEDROPPER_TIME=...`), so that a recording read
/// back gives the timestamps the camera gave. ffmpeg and mpv read such a file as any other.
public final class Y4MWriter {
    public let path: String
    public let header: Y4MHeader
    /// Frames written so far.
    public private(set) var framesWritten = 0

    private let file: AtomicFile
    /// The first failure: the temporary file is then gone, and every later call reports it.
    private var failure: Y4MError?
    /// Chroma planes in I420 order, for buffers of the other layouts: allocated once.
    private var chroma: UnsafeMutableRawBufferPointer?
    /// A lent frame packed as I420: allocated once.
    private var packed: UnsafeMutableRawBufferPointer?

    /// `controls`: a camera's, name to value, kept in the header (`XEYEDROPPER_CONTROLS`).
    public init(
        path: String, width: Int, height: Int, colorimetry: Colorimetry,
        frameRate: Y4MFrameRate = Y4MFrameRate(numerator: 30, denominator: 1), controls: [String: Int] = [:]
    ) throws(Y4MError) {
        guard (1...Y4MHeader.maximumDimension).contains(width), (1...Y4MHeader.maximumDimension).contains(height) else {
            throw .header(
                path,
                "cannot write frame size \(width)x\(height): width and height must be "
                    + "from 1 to \(Y4MHeader.maximumDimension)")
        }
        self.path = path
        header = Y4MHeader(width: width, height: height, frameRate: frameRate, colorimetry: colorimetry, controls: controls)
        do {
            file = try AtomicFile(path: path)
            try file.write(header.line)
        } catch {
            throw .system(path, frame: nil, error, writing: true)
        }
    }

    deinit {
        chroma?.deallocate()
        packed?.deallocate()
    }

    /// Appends `frame` (any layout and strides, the header's size) as I420, with the time it
    /// was taken as the frame's `XEYEDROPPER_TIME` parameter when given. The frame's colorimetry
    /// must be the header's: a stream has one.
    public func write(_ frame: borrowing PlanarFrame, time: Double? = nil) throws(Y4MError) {
        precondition(
            frame.width == header.width && frame.height == header.height,
            "\(path): frame is \(frame.width)x\(frame.height), the stream \(header.width)x\(header.height)")
        let bytes = packed ?? .allocate(byteCount: header.frameByteCount, alignment: 64)
        packed = bytes
        Self.pack(frame.geometry, into: bytes)
        try append(UnsafeRawBufferPointer(bytes), time: time)
    }

    /// The `FRAME` line of a frame taken at `time` (nil: none said), newline included.
    public static func frameLine(time: Double?) -> String {
        time.map { "FRAME X\(Y4MHeader.timeParameter)=\($0)\n" } ?? "FRAME\n"
    }

    /// Copies `frame`'s planes into `bytes` (`Y4MHeader.frameByteCount` of them) as I420: for a
    /// writer of its own (serve's recordings, over HTTP).
    package static func packI420(_ frame: borrowing PlanarFrame, into bytes: UnsafeMutableRawBufferPointer) {
        precondition(bytes.count >= PlanarFrame.packedByteCount(layout: .i420, width: frame.width, height: frame.height))
        pack(frame.geometry, into: bytes)
    }

    /// The frame line and its bytes, or the first failure.
    private func append(_ bytes: UnsafeRawBufferPointer, time: Double?) throws(Y4MError) {
        try appendFrame { () throws(SystemCallError) in
            try file.write(Self.frameLine(time: time))
            try file.write(bytes)
        }
    }

    /// Runs `writes`, the writes of one frame, once no write has failed; the first failure is
    /// kept, thrown now and by every later call, and the file abandoned: a partial frame must
    /// never be renamed into place.
    private func appendFrame(_ writes: () throws(SystemCallError) -> Void) throws(Y4MError) {
        if let failure { throw failure }
        do {
            try writes()
        } catch {
            file.abandon()
            let failed = Y4MError.system(path, frame: framesWritten, error, writing: true)
            failure = failed
            throw failed
        }
        framesWritten += 1
    }

    /// Copies the frame's planes, row by row, into I420 order.
    private static func pack(_ geometry: FrameGeometry, into bytes: UnsafeMutableRawBufferPointer) {
        let (width, height) = (geometry.width, geometry.height)
        let (chromaWidth, chromaHeight) = ((width + 1) / 2, (height + 1) / 2)
        let out = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        for row in 0..<height {
            (out + row * width).update(from: geometry.luma + row * geometry.lumaStride, count: width)
        }
        let cbOut = out + width * height, crOut = cbOut + chromaWidth * chromaHeight
        for row in 0..<chromaHeight {
            let cb = geometry.cb + row * geometry.chromaStride, cr = geometry.cr + row * geometry.chromaStride
            if geometry.chromaStep == 1 {
                (cbOut + row * chromaWidth).update(from: cb, count: chromaWidth)
                (crOut + row * chromaWidth).update(from: cr, count: chromaWidth)
            } else {
                for column in 0..<chromaWidth {
                    cbOut[row * chromaWidth + column] = cb[column * 2]
                    crOut[row * chromaWidth + column] = cr[column * 2]
                }
            }
        }
    }

    /// Appends the frame in `buffer`, which must have the header's size; any layout.
    public func write(_ buffer: FrameBuffer) throws(Y4MError) {
        precondition(
            buffer.width == header.width && buffer.height == header.height,
            "\(path): frame is \(buffer.width)x\(buffer.height), the stream \(header.width)x\(header.height)")
        let bytes = UnsafeRawBufferPointer(buffer.bytes)
        try appendFrame { () throws(SystemCallError) in
            try file.write("FRAME\n")
            if buffer.layout == .i420 {
                try file.write(bytes)
            } else {
                let lumaBytes = header.width * header.height
                try file.write(UnsafeRawBufferPointer(rebasing: bytes[..<lumaBytes]))
                try file.write(UnsafeRawBufferPointer(i420Chroma(of: buffer)))
            }
        }
    }

    /// Flushes the file and renames it onto `path`; call once, after the last `write`.
    public func finish() throws(Y4MError) {
        if let failure { throw failure }
        do {
            try file.commit()
        } catch {
            throw .system(path, frame: nil, error, writing: true)
        }
    }

    /// The Cb plane then the Cr plane of `buffer`, whatever its layout.
    private func i420Chroma(of buffer: FrameBuffer) -> UnsafeMutableRawBufferPointer {
        let planeBytes = ((header.width + 1) / 2) * ((header.height + 1) / 2)
        let planes = chroma ?? .allocate(byteCount: 2 * planeBytes, alignment: 64)
        chroma = planes
        let source = buffer.bytes[(header.width * header.height)...]
        let start = source.startIndex
        switch buffer.layout {
        case .i420:
            planes.copyMemory(from: UnsafeRawBufferPointer(rebasing: source))
        case .yv12:
            for index in 0..<planeBytes {
                planes[index] = source[start + planeBytes + index]
                planes[planeBytes + index] = source[start + index]
            }
        case .nv12, .nv21:
            let cbFirst = buffer.layout == .nv12 ? 0 : 1
            for index in 0..<planeBytes {
                planes[index] = source[start + 2 * index + cbFirst]
                planes[planeBytes + index] = source[start + 2 * index + 1 - cbFirst]
            }
        }
        return planes
    }
}
