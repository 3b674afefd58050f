/// Why a capture device cannot be used, naming the device and what to do.
public struct CaptureError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        case notFound
        case permissionDenied
        case notCaptureDevice
        case busy
        case disconnected
        case failed(operation: String, Errno)
    }

    public let device: String
    public let kind: Kind

    public init(device: String, kind: Kind) {
        self.device = device
        self.kind = kind
    }

    /// The error for `errno` from `operation` on `device`, with the common cases named.
    init(device: String, operation: String, _ errno: Errno) {
        let kind: Kind = switch errno {
        case .notFound: .notFound
        case .permissionDenied: .permissionDenied
        case .busy: .busy
        case .noDevice: .disconnected
        case .notATypewriter: .notCaptureDevice  // ENOTTY: the node takes no V4L2 ioctls
        default: .failed(operation: operation, errno)
        }
        self.init(device: device, kind: kind)
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
        case let .failed(operation, errno):
            "\(device): \(operation) failed: \(errno)"
        }
    }
}
