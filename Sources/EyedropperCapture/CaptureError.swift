import Eyedropper
import SystemPackage

/// Why a capture device or a network camera cannot be used, naming it and what to do.
public struct CaptureError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// A network camera's address that answers nothing (refused, no route, no such host,
        /// no answer in time): what the library said.
        case unreachable(String)
        /// A network camera's stream that stopped or broke: its camera, or its server, is gone.
        case streamLost(String)
        /// A network camera's stream that cannot become 4:2:0 frames (its codec or chroma).
        case unsupportedStream(String)
        /// The libraries that decode network cameras are not installed: what the dynamic linker
        /// said, and the packages that install them.
        case decoderMissing(String)
        case notFound
        case permissionDenied
        case notCaptureDevice
        case busy
        case disconnected
        case timeout(milliseconds: Int)
        /// No format the device offers can become 4:2:0 frames.
        case noAcceptableFormat(String)
        /// The driver's agreed format does not describe a whole frame.
        case unusableFormat(String)
        /// Any other failed call: its name ("VIDIOC_QBUF", "mmap") and swift-system's `Errno`.
        case failed(SystemCallError)
    }

    public let device: String
    public let kind: Kind
    /// The failed system call behind it, if one failed.
    public let systemCall: SystemCallError?

    public init(device: String, kind: Kind) {
        self.device = device
        self.kind = kind
        systemCall = nil
    }

    /// The error for a failed call on `device`, with the common causes named.
    public init(device: String, _ failure: SystemCallError) {
        self.device = device
        kind =
            switch failure.errno {
            case .noSuchFileOrDirectory: .notFound
            case .permissionDenied: .permissionDenied
            case .resourceBusy: .busy
            case .operationNotSupportedByDevice: .disconnected  // ENODEV
            case .inappropriateIOCTLForDevice: .notCaptureDevice  // ENOTTY: the node takes no V4L2 ioctls
            default: .failed(failure)
            }
        systemCall = failure
    }

    /// The error for `errno` from `operation` on `device`, with the common causes named.
    public init(device: String, operation: String, _ errno: Errno) {
        self.init(device: device, SystemCallError(operation: operation, errno: errno))
    }

    /// Whether `device` is a network camera's URL rather than a device node.
    var isNetwork: Bool { device.contains("://") }

    public var description: String {
        if isNetwork { return networkDescription }
        return switch kind {
        case .notFound:
            "\(device): no such device: is the camera plugged in? `eyedropper devices` lists the ones there are"
        case .permissionDenied:
            "\(device): permission denied: add your user to the 'video' group (sudo usermod -aG video $USER) and log in again"
        case .notCaptureDevice:
            "\(device): not a video capture device (an output, metadata or other node): `eyedropper devices` lists capture devices"
        case .busy:
            "\(device): busy: another program is using the camera; close it and try again"
        case .disconnected:
            "\(device): the device went away (unplugged?)"
        case let .timeout(milliseconds):
            "\(device): no frame within \(milliseconds) ms: is another program holding the camera, or is it covered and slowed to a crawl?"
        case let .noAcceptableFormat(detail):
            "\(device): no usable format: \(detail); `eyedropper formats --device \(device)` lists what it offers"
        case let .unusableFormat(detail):
            "\(device): the driver's format does not describe a whole frame: \(detail)"
        case let .failed(failure):
            "\(device): \(failure)"  // `<operation> failed: <strerror text>`
        case let .unreachable(detail):
            "\(device): cannot be reached (\(detail)): is the camera on, and are its address, port and path right?"
        case let .streamLost(detail):
            "\(device): the stream stopped (\(detail))"
        case let .unsupportedStream(detail), let .decoderMissing(detail):
            "\(device): \(detail)"
        }
    }

    /// A network camera's errors, in terms of addresses and streams rather than devices.
    private var networkDescription: String {
        return switch kind {
        case .notFound:
            "\(device): no such stream on the server (404): check the path, e.g. rtsp://HOST:554/stream1 as the camera's manual gives it"
        case .permissionDenied:
            "\(device): the camera refused the credentials (401): give them in the URL, e.g. rtsp://USER:PASSWORD@HOST/..."
        case let .unreachable(detail):
            "\(device): cannot be reached (\(detail)): is the camera on, and are its address, port and path right?"
        case let .streamLost(detail):
            "\(device): the stream stopped (\(detail)): the camera or its server went away"
        case let .timeout(milliseconds):
            "\(device): no frame within \(milliseconds) ms: the stream stalled (network, or the camera)"
        case let .unsupportedStream(detail), let .noAcceptableFormat(detail), let .unusableFormat(detail),
            let .decoderMissing(detail):
            "\(device): \(detail)"
        case .busy:
            "\(device): the server is busy (too many clients?): try again later"
        case .disconnected:
            "\(device): the stream stopped: the camera or its server went away"
        case .notCaptureDevice:
            "\(device): not a video stream"
        case let .failed(failure):
            "\(device): \(failure)"
        }
    }
}

/// Runs a system call on `device`, naming the device and the operation if it fails.
@discardableResult
func onDevice<R>(_ device: String, _ operation: String, _ body: () throws(Errno) -> R) throws(CaptureError) -> R {
    do {
        return try body()
    } catch {
        throw CaptureError(device: device, SystemCallError(operation: operation, errno: error))
    }
}

extension CaptureError: ExitStatusError {
    /// 66 for a device or stream that is missing, not a camera or offering nothing usable, 77
    /// for permissions, 74 for busy, gone, silent or failing, 69 for a network camera that
    /// cannot be reached or whose decoder (FFmpeg) is not installed, 65 for a stream that cannot
    /// become 4:2:0 frames.
    public var exitStatus: Int32 {
        switch kind {
        case .notFound, .notCaptureDevice, .noAcceptableFormat: 66
        case .permissionDenied: 77
        case .busy, .disconnected, .timeout, .unusableFormat, .failed, .streamLost: 74
        case .unreachable, .decoderMissing: 69
        case .unsupportedStream: 65
        }
    }
}
