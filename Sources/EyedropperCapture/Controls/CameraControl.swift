internal import CV4L2

/// One control of a capture device (brightness, auto exposure, ...) as `VIDIOC_QUERY_EXT_CTRL`
/// describes it, with its value when it has one that can be read: what `eyedropper controls`
/// lists, in v4l2-ctl's vocabulary.
public struct CameraControl: Hashable, Sendable {
    /// The control's type, named as v4l2-ctl names it (but `string`, where v4l2-ctl says `str`).
    public enum Kind: String, Hashable, Sendable {
        case int, bool, menu, button, int64, string, bitmask, intmenu, u8, u16, u32, area
        /// A type Eyedropper has no name for (codec parameters and the like): listed, never set.
        case other

        init(_ type: UInt32) {
            self =
                switch type {
                case V4L2_CTRL_TYPE_INTEGER.rawValue: .int
                case V4L2_CTRL_TYPE_BOOLEAN.rawValue: .bool
                case V4L2_CTRL_TYPE_MENU.rawValue: .menu
                case V4L2_CTRL_TYPE_BUTTON.rawValue: .button
                case V4L2_CTRL_TYPE_INTEGER64.rawValue: .int64
                case V4L2_CTRL_TYPE_STRING.rawValue: .string
                case V4L2_CTRL_TYPE_BITMASK.rawValue: .bitmask
                case V4L2_CTRL_TYPE_INTEGER_MENU.rawValue: .intmenu
                case V4L2_CTRL_TYPE_U8.rawValue: .u8
                case V4L2_CTRL_TYPE_U16.rawValue: .u16
                case V4L2_CTRL_TYPE_U32.rawValue: .u32
                case V4L2_CTRL_TYPE_AREA.rawValue: .area
                default: .other
                }
        }
    }

    /// The `V4L2_CTRL_FLAG_*` bits, named as v4l2-ctl names them.
    public struct Flags: OptionSet, Hashable, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let disabled = Flags(rawValue: 0x0001)
        public static let grabbed = Flags(rawValue: 0x0002)
        public static let readOnly = Flags(rawValue: 0x0004)
        public static let update = Flags(rawValue: 0x0008)
        public static let inactive = Flags(rawValue: 0x0010)
        public static let slider = Flags(rawValue: 0x0020)
        public static let writeOnly = Flags(rawValue: 0x0040)
        public static let volatile = Flags(rawValue: 0x0080)
        public static let hasPayload = Flags(rawValue: 0x0100)
        public static let executeOnWrite = Flags(rawValue: 0x0200)
        public static let modifyLayout = Flags(rawValue: 0x0400)
        public static let dynamicArray = Flags(rawValue: 0x0800)

        static let names: [(Flags, String)] = [
            (.disabled, "disabled"), (.grabbed, "grabbed"), (.readOnly, "read-only"), (.update, "update"),
            (.inactive, "inactive"), (.slider, "slider"), (.writeOnly, "write-only"), (.volatile, "volatile"),
            (.hasPayload, "has-payload"), (.executeOnWrite, "execute-on-write"), (.modifyLayout, "modify-layout"),
            (.dynamicArray, "dynamic-array"),
        ]

        /// "slider", "inactive", "read-only", ... in v4l2-ctl's order.
        public var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }
    }

    /// A control's value: a number for every type but `string`.
    public enum Value: Hashable, Sendable, CustomStringConvertible {
        case integer(Int64)
        case text(String)

        public var description: String {
            switch self {
            case let .integer(value): "\(value)"
            case let .text(text): text
            }
        }
    }

    /// One entry of a menu: its label, or for an integer menu its integer.
    public struct MenuEntry: Hashable, Sendable {
        public let index: Int64
        public let label: String
        /// An integer menu's value (its label is that number, written out).
        public let integer: Int64?

        public init(index: Int64, label: String, integer: Int64? = nil) {
            self.index = index
            self.label = label
            self.integer = integer
        }
    }

    /// v4l2-ctl's name: the driver's label in lower case, runs of anything but letters and
    /// digits made one `_` ("White Balance, Automatic" is `white_balance_automatic`).
    public let name: String
    /// The driver's own label.
    public let label: String
    public let id: UInt32
    public let kind: Kind
    public let minimum: Int64
    public let maximum: Int64
    public let step: UInt64
    public let defaultValue: Int64
    public let flags: Flags
    /// The current value; nil for buttons, write-only and array (compound) controls, or when the
    /// driver would not say.
    public internal(set) var value: Value?
    /// A menu's entries (indices the driver skips are left out); empty for other types.
    public let menu: [MenuEntry]
    /// An array control's dimensions; empty for a single value.
    public let dimensions: [UInt32]
    /// The class heading it is listed under ("User Controls", "Camera Controls").
    public let className: String

    public init(
        name: String, label: String, id: UInt32, kind: Kind, minimum: Int64, maximum: Int64, step: UInt64,
        defaultValue: Int64, flags: Flags, value: Value?, menu: [MenuEntry], dimensions: [UInt32], className: String
    ) {
        self.name = name
        self.label = label
        self.id = id
        self.kind = kind
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.defaultValue = defaultValue
        self.flags = flags
        self.value = value
        self.menu = menu
        self.dimensions = dimensions
        self.className = className
    }

    /// The label made into v4l2-ctl's name.
    public static func name(forLabel label: String) -> String {
        var name = "", pendingUnderscore = false
        for character in label.unicodeScalars {
            if ("a"..."z").contains(character) || ("A"..."Z").contains(character) || ("0"..."9").contains(character) {
                if pendingUnderscore { name += "_" }
                pendingUnderscore = false
                name += String(character).lowercased()
            } else if !name.isEmpty {
                pendingUnderscore = true
            }
        }
        return name
    }

    /// Whether it holds one value Eyedropper can set (not a button, array or compound control).
    package var isScalar: Bool {
        dimensions.isEmpty && [.int, .bool, .menu, .int64, .string, .bitmask, .intmenu].contains(kind)
    }

    /// The menu entry's label for `value`, if it is a menu.
    public func menuLabel(_ value: Int64) -> String? {
        menu.first { $0.index == value }?.label
    }
}
