internal import CV4L2
import Eyedropper

/// What a driver says about a format's colours (`struct v4l2_pix_format`), and the matrix and
/// range Eyedropper converts with because of it.
public struct DriverColorimetry: Hashable, Sendable, CustomStringConvertible {
    public var colorspace: UInt32
    public var ycbcrEncoding: UInt32
    public var quantization: UInt32

    public init(colorspace: UInt32, ycbcrEncoding: UInt32, quantization: UInt32) {
        self.colorspace = colorspace
        self.ycbcrEncoding = ycbcrEncoding
        self.quantization = quantization
    }

    init(_ format: v4l2_pix_format) {
        self.init(colorspace: format.colorspace, ycbcrEncoding: UInt32(format.ycbcr_enc), quantization: UInt32(format.quantization))
    }

    /// The matrix and range, by the kernel's documented defaults where the driver says "default"
    /// (V4L2_MAP_YCBCR_ENC_DEFAULT and V4L2_MAP_QUANTIZATION_DEFAULT in videodev2.h): BT.709
    /// for Rec. 709 and DCI-P3, BT.2020 for BT.2020, else BT.601; full range for the JPEG
    /// colorspace, else limited.
    public var colorimetry: Colorimetry {
        var encoding = ycbcrEncoding
        if encoding == V4L2_YCBCR_ENC_DEFAULT.rawValue {
            encoding =
                switch colorspace {
                case V4L2_COLORSPACE_REC709.rawValue, V4L2_COLORSPACE_DCI_P3.rawValue: V4L2_YCBCR_ENC_709.rawValue
                case V4L2_COLORSPACE_BT2020.rawValue: V4L2_YCBCR_ENC_BT2020.rawValue
                default: V4L2_YCBCR_ENC_601.rawValue
                }
        }
        let matrix: YCbCrMatrix =
            switch encoding {
            case V4L2_YCBCR_ENC_709.rawValue, V4L2_YCBCR_ENC_XV709.rawValue: .bt709
            case V4L2_YCBCR_ENC_BT2020.rawValue, V4L2_YCBCR_ENC_BT2020_CONST_LUM.rawValue: .bt2020
            default: .bt601  // 601, xvYCC 601, SMPTE 240M (close to 601; Eyedropper has no 240M matrix)
            }
        let range: ColorRange =
            switch quantization {
            case V4L2_QUANTIZATION_FULL_RANGE.rawValue: .full
            case V4L2_QUANTIZATION_LIM_RANGE.rawValue: .limited
            default: colorspace == V4L2_COLORSPACE_JPEG.rawValue ? .full : .limited
            }
        return Colorimetry(matrix: matrix, range: range)
    }

    public var description: String {
        "colorspace \(colorspace), ycbcr_enc \(ycbcrEncoding), quantization \(quantization)"
    }

    /// What libv4l2's MJPEG/JPEG -> YU12 conversion produces whatever the camera said: it
    /// decodes with libjpeg, whose YCbCr is BT.601 full range (JFIF).
    static let jpegDecoded = Colorimetry.bt601Full
}
