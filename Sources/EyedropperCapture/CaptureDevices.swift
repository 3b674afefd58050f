internal import CV4L2
import Eyedropper
import SystemPackage

/// A video capture device node.
public struct CaptureDeviceInfo: Hashable, Codable, Sendable {
    public let path: String
    /// The product name the driver reports ("HD Pro Webcam C920", "vivid").
    public let card: String
    public let driver: String
    /// Where it is attached ("usb-0000:00:14.0-1", "platform:vivid-000").
    public let bus: String
}

/// One pixel format a device offers, with its frame sizes and rates.
public struct CaptureFormat: Hashable, Codable, Sendable {
    /// How Eyedropper reads frames of this format.
    public enum Support: String, Hashable, Codable, Sendable {
        /// A 4:2:0 layout the driver itself delivers: frames are read in place.
        case native
        /// Anything else, or a format libv4l2 emulates: libv4l2 converts it to YU12 first.
        case converted
    }

    /// Frame sizes: a list, or a range with a step.
    public enum Sizes: Hashable, Codable, Sendable {
        /// One size and the frame rates offered at it (for a range of intervals, its two ends).
        case discrete(width: Int, height: Int, fps: [Double])
        case stepwise(minWidth: Int, maxWidth: Int, stepWidth: Int, minHeight: Int, maxHeight: Int, stepHeight: Int)
    }

    /// The V4L2 four-character code ("YU12", "MJPG").
    public let fourCC: String
    public let description: String
    /// Whether libv4l2 synthesises the format by converting another.
    public let emulated: Bool
    public let sizes: [Sizes]

    public init(fourCC: String, description: String, emulated: Bool, sizes: [Sizes]) {
        self.fourCC = fourCC
        self.description = description
        self.emulated = emulated
        self.sizes = sizes
    }

    /// The layout Eyedropper reads in place, for the four native 4:2:0 codes.
    public var layout: PixelLayout? { PixelLayout.allCases.first { $0.fourCC == fourCC } }

    public var support: Support { layout != nil && !emulated ? .native : .converted }
}

/// Finding capture devices and what they offer.
public enum CaptureDevices {
    /// The video capture devices under `directory`, in node order. Nodes that cannot be opened or
    /// that do not capture video (output, metadata, VBI, radio, touch) are left out.
    public static func list(directory: String = "/dev") -> [CaptureDeviceInfo] {
        let numbers = V4L2Calls.directoryEntries(directory).compactMap { name -> Int? in
            name.hasPrefix("video") ? Int(name.dropFirst(5)) : nil
        }
        return numbers.sorted().compactMap { try? info(device: "\(directory)/video\($0)") }
    }

    /// The device node `device`, if it captures video. The corresponding ioctl is `VIDIOC_QUERYCAP`.
    public static func info(device: String) throws(CaptureError) -> CaptureDeviceInfo {
        try withDevice(device, converting: false) { fd throws(CaptureError) in try capability(fd, device: device) }
    }

    /// Every pixel format `device` offers through libv4l2, with sizes and frame rates. The
    /// corresponding ioctls are `VIDIOC_ENUM_FMT`, `VIDIOC_ENUM_FRAMESIZES` and
    /// `VIDIOC_ENUM_FRAMEINTERVALS`.
    public static func formats(device: String) throws(CaptureError) -> [CaptureFormat] {
        _ = try info(device: device)
        return try withDevice(device, converting: true) { fd throws(CaptureError) in
            var formats: [CaptureFormat] = []
            var description = v4l2_fmtdesc()
            description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            while try onDevice(
                device, "VIDIOC_ENUM_FMT",
                { () throws(Errno) in
                    try V4L2Calls.enumerate(fd, ED_VIDIOC_ENUM_FMT, &description)
                })
            {
                formats.append(
                    CaptureFormat(
                        fourCC: fourCC(description.pixelformat), description: cString(description.description),
                        emulated: description.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0,
                        sizes: try sizes(fd, device: device, pixelFormat: description.pixelformat)))
                description.index += 1
            }
            return formats
        }
    }

    private static func sizes(_ fd: Int32, device: String, pixelFormat: UInt32) throws(CaptureError) -> [CaptureFormat.Sizes] {
        var size = v4l2_frmsizeenum()
        size.pixel_format = pixelFormat
        var sizes: [CaptureFormat.Sizes] = []
        while try onDevice(
            device, "VIDIOC_ENUM_FRAMESIZES",
            { () throws(Errno) in
                try V4L2Calls.enumerate(fd, ED_VIDIOC_ENUM_FRAMESIZES, &size)
            })
        {
            if size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                let (width, height) = (size.discrete.width, size.discrete.height)
                sizes.append(
                    .discrete(
                        width: Int(width), height: Int(height),
                        fps: try rates(fd, device: device, pixelFormat: pixelFormat, width: width, height: height)))
                size.index += 1
            } else {
                // Stepwise and continuous ranges come as the one and only entry.
                let range = size.stepwise
                sizes.append(
                    .stepwise(
                        minWidth: Int(range.min_width), maxWidth: Int(range.max_width), stepWidth: Int(range.step_width),
                        minHeight: Int(range.min_height), maxHeight: Int(range.max_height), stepHeight: Int(range.step_height)))
                break
            }
        }
        return sizes
    }

    /// Frames per second at one size, fastest first; a range of intervals gives its two ends.
    private static func rates(
        _ fd: Int32, device: String, pixelFormat: UInt32, width: UInt32, height: UInt32
    ) throws(CaptureError) -> [Double] {
        var interval = v4l2_frmivalenum()
        interval.pixel_format = pixelFormat
        interval.width = width
        interval.height = height
        var rates: [Double] = []
        func fps(_ fraction: v4l2_fract) -> Double? {
            fraction.numerator == 0 ? nil : Double(fraction.denominator) / Double(fraction.numerator)
        }
        while try onDevice(
            device, "VIDIOC_ENUM_FRAMEINTERVALS",
            { () throws(Errno) in
                try V4L2Calls.enumerate(fd, ED_VIDIOC_ENUM_FRAMEINTERVALS, &interval)
            })
        {
            if interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                if let rate = fps(interval.discrete) { rates.append(rate) }
                interval.index += 1
            } else {
                rates += [fps(interval.stepwise.min), fps(interval.stepwise.max)].compactMap { $0 }
                break
            }
        }
        return rates.sorted(by: >)
    }

    /// Opens `device`, through libv4l2 when `converting`, for the length of `body`.
    private static func withDevice<R>(
        _ device: String, converting: Bool, _ body: (Int32) throws(CaptureError) -> R
    ) throws(CaptureError) -> R {
        let fd = try onDevice(device, "open", { () throws(Errno) in try V4L2Calls.open(device, converting: converting) })
        defer { V4L2Calls.close(fd) }
        return try body(fd)
    }

    /// The device's capabilities; throws unless it captures video.
    private static func capability(_ fd: Int32, device: String) throws(CaptureError) -> CaptureDeviceInfo {
        var capability = v4l2_capability()
        try onDevice(device, "VIDIOC_QUERYCAP", { () throws(Errno) in try V4L2Calls.ioctl(fd, ED_VIDIOC_QUERYCAP, &capability) })
        // device_caps describes this node; capabilities the whole device (all its nodes).
        let nodeCaps =
            capability.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0
            ? capability.device_caps : capability.capabilities
        guard nodeCaps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 else {
            throw CaptureError(device: device, kind: .notCaptureDevice)
        }
        return CaptureDeviceInfo(
            path: device, card: cString(capability.card), driver: cString(capability.driver),
            bus: cString(capability.bus_info))
    }

    /// The four characters of a V4L2 pixel format code, first byte first; bit 31 marks the
    /// big-endian variant of a format (v4l2_fourcc_be), written "-BE" as v4l2-ctl does.
    static func fourCC(_ code: UInt32) -> String {
        let bigEndian: UInt32 = 1 << 31
        let characters = String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: (code & ~bigEndian) >> (8 * $0)) }, as: UTF8.self)
        return code & bigEndian != 0 ? characters + "-BE" : characters
    }
}
