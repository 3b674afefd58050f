/// One plane of a frame: memory the frame does not own, and the distance between rows.
public struct Plane {
    public var bytes: UnsafeRawBufferPointer
    public var stride: Int

    public init(bytes: UnsafeRawBufferPointer, stride: Int) {
        self.bytes = bytes
        self.stride = stride
    }

    /// Checks that `rows` rows of `rowBytes` bytes fit; the last row need not be padded to the stride.
    func validate(name: @autoclosure () -> String, rowBytes: Int, rows: Int) throws(FrameGeometryError) {
        guard stride >= rowBytes else {
            throw .strideTooShort(plane: name(), stride: stride, rowBytes: rowBytes)
        }
        let needed = stride * (rows - 1) + rowBytes
        guard bytes.count >= needed, bytes.baseAddress != nil else {
            throw .bufferTooSmall(plane: name(), bytes: bytes.count, needed: needed)
        }
    }
}
