/// Writes 8-bit 4:2:0 frames to a YUV4MPEG2 (`.y4m`) file, atomically.
///
/// Frames go to a temporary file beside `path`, renamed onto it by `finish()`: a reader never
/// sees a half-written file, and a writer dropped without `finish()` removes its temporary file.
/// The header records the range (`XCOLORRANGE`); the matrix cannot be recorded, and readers
/// (including `Y4MReader`) infer it from the height.
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

    public init(
        path: String, width: Int, height: Int, colorimetry: Colorimetry,
        frameRate: Y4MFrameRate = Y4MFrameRate(numerator: 30, denominator: 1)
    ) throws(Y4MError) {
        guard (1...Y4MHeader.maximumDimension).contains(width), (1...Y4MHeader.maximumDimension).contains(height) else {
            throw .header(
                path,
                "cannot write frame size \(width)x\(height): width and height must be "
                    + "from 1 to \(Y4MHeader.maximumDimension)")
        }
        self.path = path
        header = Y4MHeader(width: width, height: height, frameRate: frameRate, colorimetry: colorimetry)
        do {
            file = try AtomicFile(path: path)
            try file.write(header.line)
        } catch {
            throw .system(path, frame: nil, error, writing: true)
        }
    }

    deinit { chroma?.deallocate() }

    /// Appends the frame in `buffer`, which must have the header's size; any layout.
    public func write(_ buffer: FrameBuffer) throws(Y4MError) {
        precondition(
            buffer.width == header.width && buffer.height == header.height,
            "\(path): frame is \(buffer.width)x\(buffer.height), the stream \(header.width)x\(header.height)")
        if let failure { throw failure }
        let bytes = UnsafeRawBufferPointer(buffer.bytes)
        do {
            try file.write("FRAME\n")
            if buffer.layout == .i420 {
                try file.write(bytes)
            } else {
                let lumaBytes = header.width * header.height
                try file.write(UnsafeRawBufferPointer(rebasing: bytes[..<lumaBytes]))
                try file.write(UnsafeRawBufferPointer(i420Chroma(of: buffer)))
            }
        } catch {
            // A partial frame must never be renamed into place.
            file.abandon()
            let failed = Y4MError.system(path, frame: framesWritten, error, writing: true)
            failure = failed
            throw failed
        }
        framesWritten += 1
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
