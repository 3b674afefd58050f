import Eyedropper
import SystemPackage

/// Why a capture device cannot be used, naming the device and what to do.
public struct CaptureError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        case notFound
        case permissionDenied
        case notCaptureDevice
        case busy
        case disconnected
        case timeout(milliseconds: Int)
        /// Frames came, but libv4l2 converted none of them in that time.
        case unconverted(frames: Int, milliseconds: Int)
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

    public var description: String {
        switch kind {
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
        case let .unconverted(frames, milliseconds):
            "\(device): \(frames) frames came in \(milliseconds) ms and libv4l2 converted none of them (a frame it cannot decode?): try another --size, or `eyedropper formats --device \(device)` for the formats it offers"
        case let .noAcceptableFormat(detail):
            "\(device): no usable format: \(detail); `eyedropper formats --device \(device)` lists what it offers"
        case let .unusableFormat(detail):
            "\(device): the driver's format does not describe a whole frame: \(detail)"
        case let .failed(failure):
            "\(device): \(failure)"  // `<operation> failed: <strerror text>`
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
    /// 66 for a device that is missing, not a camera or offering nothing usable, 77 for
    /// permissions, 74 for busy, gone, silent or failing.
    public var exitStatus: Int32 {
        switch kind {
        case .notFound, .notCaptureDevice, .noAcceptableFormat: 66
        case .permissionDenied: 77
        case .busy, .disconnected, .timeout, .unconverted, .unusableFormat, .failed: 74
        }
    }
}
