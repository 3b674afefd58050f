internal import CV4L2
import Eyedropper
import SystemPackage

extension CaptureSession {
    /// Agrees a format and frame rate: a 4:2:0 layout the device delivers itself when there is
    /// one (or the one asked for), otherwise YU12 converted by libv4l2. The corresponding ioctls
    /// are `VIDIOC_S_FMT`, `VIDIOC_G_FMT`, `VIDIOC_S_PARM` and `VIDIOC_G_PARM`.
    static func negotiate(
        _ fd: Int32, device: String, request: CaptureRequest, formats: [CaptureFormat]
    ) throws(CaptureError) -> CaptureAgreement {
        let fourCC = try pixelFormat(asking: request.pixelFormat, from: formats, device: device)

        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        try onDevice(device, "VIDIOC_G_FMT") { () throws(Errno) in try V4L2Calls.ioctl(fd, ED_VIDIOC_G_FMT, &format) }
        if let width = request.width { format.fmt.pix.width = UInt32(width) }
        if let height = request.height { format.fmt.pix.height = UInt32(height) }
        format.fmt.pix.pixelformat = code(fourCC)
        format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        try onDevice(device, "VIDIOC_S_FMT") { () throws(Errno) in try V4L2Calls.ioctl(fd, ED_VIDIOC_S_FMT, &format) }
        let pix = format.fmt.pix
        let agreedFourCC = CaptureDevices.fourCC(pix.pixelformat)
        guard let layout = PixelLayout.allCases.first(where: { $0.fourCC == agreedFourCC }) else {
            throw CaptureError(device: device, kind: .noAcceptableFormat("asked for \(fourCC), the driver chose \(agreedFourCC)"))
        }

        // libv4l2 reports the converted format; the device's own is what a plain descriptor sees.
        let source = (try? rawFormat(device)) ?? pix
        let sourceFourCC = CaptureDevices.fourCC(source.pixelformat)
        let driverColorimetry = DriverColorimetry(source)
        let colorimetry =
            sourceFourCC == "MJPG" || sourceFourCC == "JPEG"
            ? DriverColorimetry.jpegDecoded : driverColorimetry.colorimetry

        return CaptureAgreement(
            width: Int(pix.width), height: Int(pix.height), layout: layout, sourceFourCC: sourceFourCC,
            driverColorimetry: driverColorimetry, colorimetry: colorimetry,
            fps: try frameRate(fd, device: device, asked: request.fps),
            lumaStride: Int(pix.bytesperline) > 0 ? Int(pix.bytesperline) : Int(pix.width))
    }

    /// The FourCC to set: the native 4:2:0 format asked for, else (nothing asked) the first
    /// native one the device offers, else YU12, which libv4l2 makes from whatever the device
    /// sends (including a non-4:2:0 format asked for). Throws when the device does not offer
    /// what was asked.
    public static func pixelFormat(asking asked: String?, from formats: [CaptureFormat], device: String) throws(CaptureError) -> String {
        let asked = asked?.uppercased()
        if let asked, !formats.contains(where: { $0.fourCC == asked }) {
            throw CaptureError(
                device: device,
                kind: .noAcceptableFormat(
                    "it does not offer \(asked) (it offers \(formats.map(\.fourCC).joined(separator: ", ")))"))
        }
        let native = formats.filter { $0.support == .native }
        let chosen = native.first { $0.fourCC == asked } ?? (asked == nil ? native.first : nil)
        return chosen?.fourCC ?? PixelLayout.i420.fourCC
    }

    /// Sets the frame rate when one is asked for, and returns the one in force.
    private static func frameRate(_ fd: Int32, device: String, asked: Double?) throws(CaptureError) -> Double? {
        var parameters = v4l2_streamparm()
        parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        if let asked, asked > 0 {
            // A frame interval of 1000 / (fps * 1000) s keeps fractional rates such as 29.97.
            parameters.parm.capture.timeperframe = v4l2_fract(numerator: 1000, denominator: UInt32((asked * 1000).rounded()))
            try onDevice(device, "VIDIOC_S_PARM") { () throws(Errno) in try V4L2Calls.ioctl(fd, ED_VIDIOC_S_PARM, &parameters) }
        }
        guard (try? V4L2Calls.ioctl(fd, ED_VIDIOC_G_PARM, &parameters)) != nil else { return nil }
        let interval = parameters.parm.capture.timeperframe
        return interval.numerator == 0 ? nil : Double(interval.denominator) / Double(interval.numerator)
    }

    /// The device's own current format, through a plain descriptor that libv4l2 does not touch.
    private static func rawFormat(_ device: String) throws(Errno) -> v4l2_pix_format {
        let fd = try V4L2Calls.open(device, converting: false)
        defer { V4L2Calls.close(fd) }
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        try V4L2Calls.ioctl(fd, ED_VIDIOC_G_FMT, &format)
        return format.fmt.pix
    }

    private static func code(_ fourCC: String) -> UInt32 {
        fourCC.utf8.prefix(4).enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }
}
