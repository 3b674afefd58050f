import ArgumentParser
import Eyedropper
import EyedropperCapture
import Foundation

/// `eyedropper controls`: a camera's controls, as v4l2-ctl lists them, and saving them to a file
/// `--controls FILE` sets again.
struct Controls: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a camera's controls (exposure, white balance, gain, ...) or save their values.",
        discussion: """
            Lists every control of the device in v4l2-ctl's words (`v4l2-ctl -L`): name, id, \
            type (int, int64, bool, menu, intmenu, button, bitmask, string, u8, u16, u32, area), \
            range, step, default, current value, menu entries and flags (inactive: an automatic \
            control governs it now; volatile: the camera changes it itself). --format json prints \
            one array of objects {"name","id","type","min","max","step","default","value","menu",\
            "flags"}; "value" is left out where it cannot be read, "menu" for all but menus.

            Set them on any command that opens a camera with --control NAME=VALUE (repeatable), \
            --controls FILE (a JSON object of names and values, as --save writes it) and --lock \
            (automatic exposure, white balance and gain switched off at the values they settled on).
            """
    )

    @Option(help: ArgumentHelp("The capture device (default: the first one).", valueName: "PATH"))
    var device: String?

    @Option(help: "text (like v4l2-ctl -L) or json (one array).")
    var format: ListingFormat = .text

    @Option(
        help: ArgumentHelp(
            "Write the values of the controls that can be set (not read-only, inactive or buttons) to FILE as JSON, for --controls FILE.",
            valueName: "FILE"))
    var save: String?

    func run() throws {
        guard let path = device ?? CaptureDevices.list().first?.path else {
            throw CommandFailure("no capture device found: plug a camera in, or give --device PATH", status: 66)
        }
        let controls = try CameraControls.list(device: path)
        if let save {
            let saved = controls.filter(\.isSaved)
            let text = JSONText.object(saved.map { ($0.name, $0.value!.json) }) + "\n"
            try Array(text.utf8).withUnsafeBytes { try AtomicWrite.write($0, to: save) }
            StandardError.writeLine("eyedropper: \(path): \(saved.count) control values written to \(save)")
            return
        }
        switch format {
        case .text: print(Self.text(controls), terminator: "")
        case .json: print(controls.json)
        }
    }

    /// The listing as `v4l2-ctl -L` prints it: a heading per class, one line per control, menu
    /// entries indented below.
    static func text(_ controls: [CameraControl]) -> String {
        var out = "", className: String?
        for control in controls {
            if control.className != className {
                className = control.className
                out += "\n\(control.className)\n\n"
            }
            let typeName = "(" + (control.kind == .string ? "str" : control.kind.rawValue) + ")"
            var line = padded(control.name, 31, left: true) + " " + hex(Int64(control.id)) + " " + padded(typeName, 9, left: false) + ":"
            switch control.kind {
            case .int, .int64, .u8, .u16, .u32:
                line += " min=\(control.minimum) max=\(control.maximum) step=\(control.step) default=\(control.defaultValue)"
            case .string: line += " min=\(control.minimum) max=\(control.maximum) step=\(control.step)"
            case .bool: line += " default=\(control.defaultValue)"
            case .menu, .intmenu: line += " min=\(control.minimum) max=\(control.maximum) default=\(control.defaultValue)"
            case .bitmask: line += " max=\(hex(control.maximum)) default=\(hex(control.defaultValue))"
            case .button, .area, .other: break
            }
            if !control.dimensions.isEmpty {
                line += " dims=" + control.dimensions.map { "[\($0)]" }.joined()
            } else if let value = control.value {
                switch (control.kind, value) {
                case let (.string, .text(text)): line += " value='\(text)'"
                case let (.bitmask, .integer(number)): line += " value=\(hex(number))"
                case let (.menu, .integer(number)): line += " value=\(number)" + (control.menuLabel(number).map { " (\($0))" } ?? "")
                case let (.intmenu, .integer(number)):
                    line +=
                        " value=\(number)"
                        + (control.menu.first { $0.index == number }?.integer.map { " (\($0) 0x\(String($0, radix: 16)))" } ?? "")
                default: line += " value=\(value)"
                }
            }
            if !control.flags.isEmpty { line += " flags=" + control.flags.names.joined(separator: ", ") }
            out += line + "\n"
            for entry in control.menu {
                out += "\t\t\t\t\(entry.index): " + (entry.integer.map { "\($0) (0x\(String($0, radix: 16)))" } ?? entry.label) + "\n"
            }
        }
        return out
    }

    /// `text` padded with spaces to `width`, on the left (right-aligned) or the right.
    private static func padded(_ text: String, _ width: Int, left: Bool) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return left ? padding + text : text + padding
    }

    /// `0x` and 8 hexadecimal digits, as C's `%#8.8x` writes a 32-bit value.
    private static func hex(_ value: Int64) -> String {
        let digits = String(UInt32(truncatingIfNeeded: value), radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    /// The settings of a `--controls` file: a JSON object of names and values.
    static func settings(file path: String) throws -> [ControlSetting] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let missing = (error as NSError).code == NSFileReadNoSuchFileError
            throw ControlError(device: nil, .file(path: path, reason: missing ? "no such file" : "cannot be read", missing: missing))
        }
        do {
            return try ControlSetting.settings(json: data)
        } catch {
            throw ControlError(
                device: nil,
                .file(
                    path: path, reason: "not a JSON object of control names and values, e.g. {\"brightness\": 128, \"auto_exposure\": 1}",
                    missing: false))
        }
    }
}

extension CameraControl {
    /// Whether `controls --save` writes it: a single value that can be read and set now.
    var isSaved: Bool {
        value != nil && dimensions.isEmpty && kind != .button
            && flags.isDisjoint(with: [.readOnly, .inactive, .writeOnly, .volatile])
    }
}
