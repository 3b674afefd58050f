import Foundation

/// One `NAME=VALUE` asked for: a control named as v4l2-ctl names it (or by a former name, or by
/// its id, e.g. `0x00980900`), and a value as text: a number, a menu entry's index or label,
/// `true`/`false` for a boolean, or a string control's text. Checked against a device's controls
/// only when applied.
public struct ControlSetting: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    public let value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// `NAME=VALUE`, or several joined by commas (`brightness=10,contrast=20`), as `--control` takes them.
    public static func parseList(_ text: String) throws(ControlError) -> [ControlSetting] {
        try text.split(separator: ",", omittingEmptySubsequences: false).map { (part) throws(ControlError) in
            guard let equals = part.firstIndex(of: "="), equals != part.startIndex else {
                throw ControlError(device: nil, .malformed(String(part)))
            }
            return ControlSetting(name: String(part[..<equals]), value: String(part[part.index(after: equals)...]))
        }
    }

    public var description: String { "\(name)=\(value)" }
}

/// A setting checked against a device: the control it names and the value to write.
package struct ResolvedSetting: Hashable, Sendable {
    package let control: CameraControl
    package let value: CameraControl.Value
    /// As asked, for messages.
    package let asked: ControlSetting
}

extension CameraControl {
    /// `setting`'s value for this control, checked against its type, range, step and menu.
    package func resolve(_ setting: ControlSetting, device: String) throws(ControlError) -> ResolvedSetting {
        func invalid(_ expected: String) -> ControlError {
            ControlError(device: device, .invalidValue(setting, expected: expected))
        }
        if flags.contains(.readOnly) { throw ControlError(device: device, .readOnly(name)) }
        guard isScalar || kind == .button else { throw ControlError(device: device, .notSettable(name, kind: kind.rawValue)) }
        let text = String(setting.value.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        switch kind {
        case .string:  // as given, spaces and all
            let length = Int64(setting.value.utf8.count)
            guard length >= minimum, length <= maximum, step <= 1 || (length - minimum) % Int64(step) == 0 else {
                throw invalid("text of \(minimum) to \(maximum) bytes" + (step > 1 ? " in steps of \(step)" : ""))
            }
            return ResolvedSetting(control: self, value: .text(setting.value), asked: setting)
        case .button:
            return ResolvedSetting(control: self, value: .integer(1), asked: setting)
        case .bool:
            let value: Int64? =
                switch text.lowercased() {
                case "1", "true", "on", "yes": 1
                case "0", "false", "off", "no": 0
                default: nil
                }
            guard let value else { throw invalid("0 or 1 (false or true)") }
            return ResolvedSetting(control: self, value: .integer(value), asked: setting)
        case .menu, .intmenu:
            let byIndex = Self.integer(text).flatMap { index in menu.first { $0.index == index } }
            let normalised = Self.name(forLabel: text)
            let byLabel = menu.first { $0.label.lowercased() == text.lowercased() || Self.name(forLabel: $0.label) == normalised }
            guard let entry = byIndex ?? (kind == .menu ? byLabel : nil) else {
                let entries = menu.map { "\($0.index) (\($0.label))" }.joined(separator: ", ")
                throw invalid("one of \(entries)")
            }
            return ResolvedSetting(control: self, value: .integer(entry.index), asked: setting)
        case .bitmask:
            guard let value = Self.integer(text), value >= 0, value & ~maximum == 0 else {
                throw invalid("a bit mask within 0x\(String(maximum, radix: 16))")
            }
            return ResolvedSetting(control: self, value: .integer(value), asked: setting)
        default:  // int, int64
            guard let value = Self.integer(text) else { throw invalid("a whole number from \(rangeText)") }
            guard value >= minimum, value <= maximum else { throw invalid("\(rangeText)") }
            guard step <= 1 || UInt64(value - minimum) % step == 0 else { throw invalid("\(rangeText)") }
            return ResolvedSetting(control: self, value: .integer(value), asked: setting)
        }
    }

    /// "0 to 255", with the step when it is not 1.
    var rangeText: String { "\(minimum) to \(maximum)" + (step > 1 ? " in steps of \(step)" : "") }

    /// A decimal or 0x-hexadecimal integer.
    static func integer(_ text: String) -> Int64? {
        if text.lowercased().hasPrefix("0x") { return Int64(text.dropFirst(2), radix: 16) }
        if text.lowercased().hasPrefix("-0x") { return Int64(text.dropFirst(3), radix: 16).map { -$0 } }
        return Int64(text)
    }
}

/// A control's value as a JSON file or request body gives it: a whole number, `true`/`false`, or
/// a string (a menu entry's label, or a string control's text).
public struct ControlValueText: Decodable, Hashable, Sendable {
    public let text: String

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            text = "\(number)"
        } else if let flag = try? container.decode(Bool.self) {
            text = flag ? "1" : "0"
        } else if let string = try? container.decode(String.self) {
            text = string
        } else {
            throw DecodingError.typeMismatch(
                String.self,
                .init(
                    codingPath: decoder.codingPath, debugDescription: "a control's value is a whole number, true or false, or a string"))
        }
    }
}

extension ControlSetting {
    /// The settings of a JSON object of names and values, in name order (automatic controls are
    /// applied first whatever the order).
    public static func settings(_ object: [String: ControlValueText]) -> [ControlSetting] {
        object.keys.sorted().map { ControlSetting(name: $0, value: object[$0]!.text) }
    }

    /// The settings of `json`, a JSON object of names and values (a `--controls` file, a `PUT`
    /// body); throws the decoder's error for anything else.
    public static func settings(json: Data) throws -> [ControlSetting] {
        settings(try JSONDecoder().decode([String: ControlValueText].self, from: json))
    }
}
