internal import CTurboJPEG
import Eyedropper

/// A JPEG that could not be made or read.
public struct JPEGError: Error, Hashable, Sendable, CustomStringConvertible {
    public let reason: String

    public var description: String { reason }
}

/// How much colour detail a JPEG keeps: chroma at every pixel, or one sample per 2x2 block.
public enum ChromaSubsampling: String, CaseIterable, Hashable, Sendable {
    /// Full chroma: sharp colour edges survive (the test pattern at quality 95: PSNR 54 dB
    /// against the exact RGB). Larger and slower to encode.
    case s444 = "444"
    /// Chroma halved both ways, as cameras and most JPEGs do: smaller and faster, but every
    /// decoder's chroma upsampling smears saturated edges (same pattern and quality: 37 dB).
    case s420 = "420"

    var tj: Int32 { Int32(self == .s444 ? TJSAMP_444.rawValue : TJSAMP_420.rawValue) }
}

/// Compresses frames to JPEG with libturbojpeg, reusing one handle and one output buffer (grown
/// for the largest frame seen), so this type allocates nothing per frame; libturbojpeg itself
/// makes 9 small allocations per image, freed before it returns (Benchmarks/ JPEG suite: a bare
/// `tjCompress2` or `tjCompressFromYUVPlanes` makes the same 9). Not `Sendable`: one owner
/// compresses at a time.
///
/// Two paths. 4:2:0 compresses from the frame's planes (`withJPEG(_ frame:)`): they are remapped
/// into JPEG's own Y'CbCr (BT.601 full range) in the Y'CbCr domain, which costs a fraction of a
/// conversion to RGB, and libturbojpeg compresses them without converting or subsampling. 4:4:4
/// needs chroma at every pixel, which a 4:2:0 frame does not have: it compresses RGB24
/// (`withJPEG(rgb24:)`), which libturbojpeg converts back to Y'CbCr.
public final class JPEGEncoder {
    /// 1...100.
    public let quality: Int
    public let subsampling: ChromaSubsampling
    private let handle: tjhandle
    private var output: UnsafeMutablePointer<UInt8>?
    private var capacity = 0
    /// The planes path's: a frame remapped to JPEG's Y'CbCr, and the plane addresses and strides
    /// libturbojpeg reads, kept so that a call allocates no array.
    private let planeBuffer = JPEGPlaneBuffer()
    private let planePointers = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: 3)
    private let planeStrides = UnsafeMutablePointer<Int32>.allocate(capacity: 3)

    public init(quality: Int = 90, subsampling: ChromaSubsampling = .s420) throws(JPEGError) {
        guard (1...100).contains(quality) else { throw JPEGError(reason: "quality \(quality) is out of range: give 1 to 100") }
        guard let handle = tjInitCompress() else { throw JPEGError(reason: "libturbojpeg: \(String(cString: tjGetErrorStr()))") }
        self.quality = quality
        self.subsampling = subsampling
        self.handle = handle
    }

    deinit {
        if let output { tjFree(output) }
        tjDestroy(handle)
        planePointers.deallocate()
        planeStrides.deallocate()
    }

    /// Compresses an RGB24 image (rows `stride` bytes apart) with `subsampling`, and lends the JPEG
    /// bytes to `body`; they are overwritten by the next call.
    public func withJPEG<R>(
        rgb24 image: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int? = nil,
        _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R {
        let stride = stride ?? width * 3
        guard width > 0, height > 0, stride >= width * 3, image.count >= stride * (height - 1) + width * 3 else {
            throw JPEGError(reason: "a \(width)x\(height) RGB image with stride \(stride) does not fit \(image.count) bytes")
        }
        try reserveOutput(width: width, height: height)
        var destination = output
        var size = UInt(capacity)
        let status = tjCompress2(
            handle, image.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(stride), Int32(height),
            Int32(TJPF_RGB.rawValue), &destination, &size, subsampling.tj, Int32(quality),
            TJFLAG_NOREALLOC | TJFLAG_ACCURATEDCT)
        guard status == 0 else { throw JPEGError(reason: "libturbojpeg: \(String(cString: tjGetErrorStr2(handle)))") }
        return try body(UnsafeRawBufferPointer(start: destination, count: Int(size)))
    }

    /// Compresses `frame` (4:2:0 in, 4:2:0 out) from its planes, remapped with its colorimetry into
    /// JPEG's Y'CbCr in this encoder's reused buffer (or taken as they are when they already are
    /// JPEG's), and lends the JPEG bytes to `body`; they are overwritten by the next call. Throws
    /// for a 4:4:4 encoder, which needs RGB (`withJPEG(rgb24:)`).
    public func withJPEG<R>(_ frame: borrowing PlanarFrame, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        try requireFourTwoZero()
        return try planeBuffer.withPlanes(of: frame) { planes in try withJPEG(planes: planes, body) }
    }

    /// Compresses planes already in JPEG's Y'CbCr (a `JPEGPlaneBuffer`'s), as `withJPEG(_ frame:)`.
    /// The corresponding call is `tjCompressFromYUVPlanes`.
    public func withJPEG<R>(planes: borrowing JPEGPlanes, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        try requireFourTwoZero()
        try reserveOutput(width: planes.width, height: planes.height)
        planePointers[0] = planes.luma
        planePointers[1] = planes.cb
        planePointers[2] = planes.cr
        planeStrides[0] = Int32(planes.lumaStride)
        planeStrides[1] = Int32(planes.chromaStride)
        planeStrides[2] = Int32(planes.chromaStride)
        var destination = output
        var size = UInt(capacity)
        let status = tjCompressFromYUVPlanes(
            handle, planePointers, Int32(planes.width), planeStrides, Int32(planes.height), subsampling.tj,
            &destination, &size, Int32(quality), TJFLAG_NOREALLOC | TJFLAG_ACCURATEDCT)
        guard status == 0 else { throw JPEGError(reason: "libturbojpeg: \(String(cString: tjGetErrorStr2(handle)))") }
        return try body(UnsafeRawBufferPointer(start: destination, count: Int(size)))
    }

    private func requireFourTwoZero() throws(JPEGError) {
        guard subsampling == .s420 else {
            throw JPEGError(reason: "a 4:4:4 JPEG needs chroma at every pixel: compress RGB, not 4:2:0 planes")
        }
    }

    /// Grows the output buffer (only) to libturbojpeg's bound for a `width` x `height` JPEG.
    private func reserveOutput(width: Int, height: Int) throws(JPEGError) {
        let bound = Int(tjBufSize(Int32(width), Int32(height), subsampling.tj))
        guard bound > capacity else { return }
        if let output { tjFree(output) }
        output = tjAlloc(Int32(bound))
        capacity = output == nil ? 0 : bound
        guard output != nil else { throw JPEGError(reason: "cannot allocate \(bound) bytes for the JPEG") }
    }
}

/// Decompresses JPEG files to RGB24 with libturbojpeg: for checking what was written.
public enum JPEGDecoder {
    public static func decode(_ jpeg: [UInt8]) throws(JPEGError) -> RGBImage {
        guard let handle = tjInitDecompress() else { throw JPEGError(reason: "libturbojpeg: \(String(cString: tjGetErrorStr()))") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        var pixels: [UInt8] = []
        let status: Int32 = jpeg.withUnsafeBufferPointer { source in
            guard tjDecompressHeader3(handle, source.baseAddress, UInt(source.count), &width, &height, &subsampling, &colorspace) == 0,
                width > 0, height > 0
            else { return -1 }
            pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * 3)
            return pixels.withUnsafeMutableBufferPointer { rgb in
                tjDecompress2(
                    handle, source.baseAddress, UInt(source.count), rgb.baseAddress, width, 0, height,
                    Int32(TJPF_RGB.rawValue), TJFLAG_ACCURATEDCT)
            }
        }
        guard status == 0 else { throw JPEGError(reason: "not a JPEG libturbojpeg can read: \(String(cString: tjGetErrorStr2(handle)))") }
        return RGBImage(width: Int(width), height: Int(height), pixels: pixels)
    }
}

extension JPEGError: ExitStatusError {
    /// 70: libturbojpeg failing on a frame it was given is an internal failure.
    public var exitStatus: Int32 { 70 }
}
