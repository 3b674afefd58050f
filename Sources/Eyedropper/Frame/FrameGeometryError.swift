/// A frame or an output buffer whose declared geometry does not fit its memory.
public enum FrameGeometryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Width or height is zero or negative.
    case nonPositiveSize(width: Int, height: Int)
    /// A row stride shorter than the bytes one row needs.
    case strideTooShort(plane: String, stride: Int, rowBytes: Int)
    /// A buffer that ends before the last byte the declared size needs.
    case bufferTooSmall(plane: String, bytes: Int, needed: Int)
    /// A layout given the wrong number of planes.
    case wrongPlaneCount(layout: PixelLayout, given: Int)
    /// Separate Cb and Cr planes with different strides.
    case chromaStridesDiffer(first: Int, second: Int)

    public var description: String {
        switch self {
        case let .nonPositiveSize(width, height):
            "frame size \(width)x\(height) is not positive: width and height must both be at least 1"
        case let .strideTooShort(plane, stride, rowBytes):
            "\(plane) plane: row stride \(stride) is shorter than one row of \(rowBytes) bytes"
        case let .bufferTooSmall(plane, bytes, needed):
            "\(plane) plane: buffer holds \(bytes) bytes but the declared size needs \(needed)"
        case let .wrongPlaneCount(layout, given):
            "layout \(layout.rawValue) has \(layout.planeCount) planes, \(given) given"
        case let .chromaStridesDiffer(first, second):
            "the two chroma planes have strides \(first) and \(second): they must be equal"
        }
    }
}

extension FrameGeometryError: ExitStatusError {
    public var exitStatus: Int32 { 64 }
}
