import Eyedropper

/// Why a camera control cannot be set, naming the device, the control and what to do.
public struct ControlError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// Text that is not `NAME=VALUE`.
        case malformed(String)
        /// No control of that name (or former name, or id) on the device.
        case unknown(String)
        /// A value of the wrong kind, outside the range, off the step, or not in the menu.
        case invalidValue(ControlSetting, expected: String)
        case readOnly(String)
        /// Inactive: an automatic control governs it now (`automatic` names it, when known).
        case inactive(String, automatic: String?)
        /// A button, array or compound control: not something Eyedropper sets.
        case notSettable(String, kind: String)
        /// Controls asked for a source that is not a camera.
        case notACamera(String)
        /// A controls file that is missing (`missing`), unreadable or not a JSON object of names
        /// and values.
        case file(path: String, reason: String, missing: Bool)
        /// The driver refused a value Eyedropper found valid, or a control could not be read.
        case failed(ControlSetting, SystemCallError)
    }

    /// The device the control belongs to; nil where none is known yet.
    public let device: String?
    public let kind: Kind

    public init(device: String?, _ kind: Kind) {
        self.device = device
        self.kind = kind
    }

    /// Whether the fault is in what was asked (a usage error, exit 64) rather than in the device
    /// (exit 74) or a controls file (exit 66 or 65).
    public var isUsage: Bool {
        switch kind {
        case .failed, .file: false
        default: true
        }
    }

    /// The control the error is about, named as asked; nil where it is about no one control.
    public var control: String? {
        switch kind {
        case let .unknown(name), let .readOnly(name), let .inactive(name, _), let .notSettable(name, _): name
        case let .invalidValue(setting, _), let .failed(setting, _): setting.name
        case .malformed, .notACamera, .file: nil
        }
    }

    public var description: String {
        let prefix = device.map { "\($0): " } ?? ""
        let listing = "`eyedropper controls\(device.map { " --device \($0)" } ?? "")` lists them"
        return prefix
            + {
                switch kind {
                case let .malformed(text):
                    "--control \(text): give NAME=VALUE, e.g. brightness=128 (several: brightness=128,contrast=32)"
                case let .unknown(name):
                    "no control '\(name)': \(listing)"
                case let .invalidValue(setting, expected):
                    "\(setting.name)=\(setting.value) is not a value it takes: give \(expected)"
                case let .readOnly(name):
                    "\(name) is read-only: the camera sets it, it cannot be set"
                case let .inactive(name, automatic):
                    "\(name) is inactive: "
                        + (automatic.map { "\($0) governs it now; switch that off first (\($0)=0, or --lock)" }
                            ?? "another control governs it now; \(listing) with their flags")
                case let .notSettable(name, kind):
                    "\(name) is a \(kind) control, which eyedropper does not set (v4l2-ctl can)"
                case let .notACamera(source):
                    "\(source) is not a camera: camera controls (--control, --controls, --lock) need a capture device (--source /dev/videoN)"
                case let .file(path, reason, _):
                    "\(path): \(reason)"
                case let .failed(setting, failure):
                    "the driver refused \(setting): \(failure)"
                }
            }()
    }
}

extension ControlError: ExitStatusError {
    /// 64 for what was asked (an unknown control, a value it does not take), 74 for a driver
    /// that refuses, 66 or 65 for a controls file missing or not a JSON object.
    public var exitStatus: Int32 {
        if isUsage { return 64 }
        if case let .file(_, _, missing) = kind { return missing ? 66 : 65 }
        return 74
    }
}
