/// How a YCbCr 4:2:0 frame lies in memory. Chroma planes are ceil(width/2) x ceil(height/2) samples.
public enum PixelLayout: String, CaseIterable, Codable, Hashable, Sendable {
    /// Y plane, Cb plane, Cr plane (V4L2 `YU12`, also called I420).
    case i420
    /// Y plane, Cr plane, Cb plane (V4L2 `YV12`).
    case yv12
    /// Y plane, one plane of Cb, Cr pairs (V4L2 `NV12`).
    case nv12
    /// Y plane, one plane of Cr, Cb pairs (V4L2 `NV21`).
    case nv21

    /// The number of planes: 3 for the planar layouts, 2 for the semi-planar ones.
    public var planeCount: Int { isSemiPlanar ? 2 : 3 }

    /// Whether Cb and Cr share one interleaved plane.
    public var isSemiPlanar: Bool { self == .nv12 || self == .nv21 }

    /// The V4L2 four-character code.
    public var fourCC: String {
        switch self {
        case .i420: "YU12"
        case .yv12: "YV12"
        case .nv12: "NV12"
        case .nv21: "NV21"
        }
    }

    /// The name of plane `index` (in memory order), for error messages.
    func planeName(_ index: Int) -> String {
        switch (self, index) {
        case (_, 0): "Y"
        case (.i420, 1), (.yv12, 2): "Cb"
        case (.i420, _), (.yv12, _): "Cr"
        case (.nv12, _): "CbCr"
        case (.nv21, _): "CrCb"
        }
    }

    /// Bytes in one row of plane `index` of a frame `width` pixels wide.
    func rowBytes(plane index: Int, width: Int) -> Int {
        let chromaWidth = (width + 1) / 2
        return index == 0 ? width : (isSemiPlanar ? 2 * chromaWidth : chromaWidth)
    }

    /// Rows in plane `index` of a frame `height` pixels high.
    func rows(plane index: Int, height: Int) -> Int {
        index == 0 ? height : (height + 1) / 2
    }

    /// The stride of plane `index` in a packed buffer, as V4L2 single-buffer formats lay it out:
    /// chroma strides are half the luma stride, or all of it when interleaved, rounded up so an
    /// odd width's last chroma sample fits.
    func packedStride(plane index: Int, lumaStride: Int) -> Int {
        if index == 0 { return lumaStride }
        return isSemiPlanar ? (lumaStride + 1) & ~1 : (lumaStride + 1) / 2
    }
}
