internal import CV4L2
import Eyedropper
import SystemPackage

/// The controls of one camera as Eyedropper keeps them: the settings asked for (on the command
/// line, from a file, by the service's API, or by locking), applied each time the camera opens,
/// so they survive an unplug and another program changing them in between.
///
/// `Sendable`: the capture applies the settings as it opens the camera while the service sets
/// others from its own threads, each on a descriptor of its own; one lock orders them.
public final class CameraControls: Sendable {
    public let device: String
    /// `Locked`, not `Mutex`: the thread sanitizer sees its lock (see `Locked`).
    private let state: Locked<State>

    private struct State {
        /// Applied in this order (automatic controls first) at every open.
        var settings: [ControlSetting]
        /// What the driver did differently from what was asked, at the last application.
        var warnings: [String] = []
    }

    public init(device: String, settings: [ControlSetting] = []) {
        self.device = device
        state = Locked(State(settings: settings))
    }

    /// The settings applied at every open: those asked for, then those set or locked since.
    public var settings: [ControlSetting] { state.withLock { $0.settings } }

    /// Where the driver kept a value other than the one asked ("brightness: asked 101, the driver
    /// kept 100"), at the last time settings were applied.
    public var warnings: [String] { state.withLock { $0.warnings } }

    // MARK: - Listing

    /// Every control of `device`, in the driver's order; opened plainly, as v4l2-ctl opens it.
    public static func list(device: String) throws -> [CameraControl] {
        try withDescriptor(device) { fd in try list(fd, device: device) }
    }

    /// The integer controls that can be set and their values now, by name, as a profile keeps
    /// them; empty for a file or the test pattern, or a camera that cannot be opened.
    public static func integerValues(of source: SourceName) -> [String: Int] {
        guard case let .camera(device) = source, let controls = try? list(device: device) else { return [:] }
        return integerValues(controls)
    }

    /// The integer controls of the open device `fd`, as `integerValues(of:)`.
    static func integerValues(fd: Int32, device: String) -> [String: Int] {
        (try? list(fd, device: device)).map(integerValues) ?? [:]
    }

    private static func integerValues(_ controls: [CameraControl]) -> [String: Int] {
        var values: [String: Int] = [:]
        for control in controls {
            if case let .integer(value) = control.value, !control.flags.contains(.readOnly) { values[control.name] = Int(value) }
        }
        return values
    }

    /// Every control the descriptor's device has, disabled ones and class headings left out.
    static func list(_ fd: Int32, device: String) throws(CaptureError) -> [CameraControl] {
        var controls: [CameraControl] = []
        var id: UInt32 = 0, className = ""
        while let query = try onDevice(device, "VIDIOC_QUERY_EXT_CTRL", { () throws(Errno) in try V4L2Calls.nextControl(fd, after: id) }) {
            id = query.id
            if query.type == V4L2_CTRL_TYPE_CTRL_CLASS.rawValue {
                className = cString(query.name)
                continue
            }
            if query.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) != 0 { continue }
            controls.append(control(query, fd: fd, className: className))
        }
        return controls
    }

    /// The control `query` describes, with its menu and its current value.
    private static func control(_ query: v4l2_query_ext_ctrl, fd: Int32, className: String) -> CameraControl {
        let kind = CameraControl.Kind(query.type), flags = CameraControl.Flags(rawValue: query.flags)
        let dimensions = withUnsafeBytes(of: query.dims) { Array($0.bindMemory(to: UInt32.self).prefix(Int(query.nr_of_dims))) }
        var menu: [CameraControl.MenuEntry] = []
        if kind == .menu || kind == .intmenu, query.maximum - query.minimum < 4096 {
            for index in query.minimum...query.maximum {
                guard let entry = try? V4L2Calls.menuEntry(fd, control: query.id, index: UInt32(index)) else { continue }
                menu.append(
                    kind == .menu
                        ? CameraControl.MenuEntry(index: index, label: entry.label, integer: nil)
                        : CameraControl.MenuEntry(index: index, label: "\(entry.value)", integer: entry.value))
            }
        }
        let label = cString(query.name)
        var control = CameraControl(
            name: CameraControl.name(forLabel: label), label: label, id: query.id, kind: kind,
            minimum: query.minimum, maximum: query.maximum, step: query.step, defaultValue: query.default_value,
            flags: flags, value: nil, menu: menu, dimensions: dimensions, className: className)
        control.value = readableValue(control, fd: fd)
        return control
    }

    /// The current value, if the control has one to read: not a button, write-only or array
    /// control; nil also when the driver will not say.
    private static func readableValue(_ control: CameraControl, fd: Int32) -> CameraControl.Value? {
        guard control.isScalar, !control.flags.contains(.writeOnly) else { return nil }
        if control.kind == .string {
            return (try? V4L2Calls.controlString(fd, id: control.id, maximum: Int(control.maximum))).map { .text($0) }
        }
        guard let value = try? V4L2Calls.controlValue(fd, id: control.id, is64: control.kind == .int64) else { return nil }
        // A bit mask's 32 bits are unsigned: 0x80002000 is 2147491840, not negative.
        return .integer(control.kind == .bitmask ? Int64(UInt32(truncatingIfNeeded: value)) : value)
    }

    // MARK: - Setting

    /// Sets `settings` on the camera now (on a descriptor of its own) and keeps them for every
    /// later open, each replacing an earlier setting of the same control. Returns the controls
    /// set, as read back. Throws a `ControlError` (nothing is set when a setting is not valid) or
    /// a `CaptureError` for a device that cannot be opened.
    @discardableResult
    public func set(_ settings: [ControlSetting]) throws -> [CameraControl] {
        try state.withLock { state in
            try Self.withDescriptor(device) { fd in
                let (applied, listing, warnings) = try Self.apply(settings, fd: fd, device: device)
                state.settings = Self.merge(state.settings, with: applied.map(\.asked), listing: listing)
                state.warnings = warnings
                return applied.map { setting in
                    var control = setting.control
                    control.value = Self.readableValue(control, fd: fd)
                    return control
                }
            }
        }
    }

    /// Applies the kept settings to an open camera (the capture's own descriptor, before it
    /// streams). Returns the warnings: values the driver kept other than those asked.
    @discardableResult
    func apply(fd: Int32) throws -> [String] {
        try state.withLock { state in
            let (_, _, warnings) = try Self.apply(state.settings, fd: fd, device: device)
            state.warnings = warnings
            return warnings
        }
    }

    /// Checks every setting against the device's controls before setting any, then sets them
    /// automatic controls first (a manual value is refused while its automatic control is on),
    /// reading each back. Returns the settings made, the listing they were checked against, and
    /// the warnings.
    private static func apply(
        _ settings: [ControlSetting], fd: Int32, device: String
    ) throws -> (applied: [ResolvedSetting], listing: [CameraControl], warnings: [String]) {
        guard !settings.isEmpty else { return ([], [], []) }
        let listing = try list(fd, device: device)
        let resolved = try settings.map { (setting) throws(ControlError) in
            guard let control = control(named: setting.name, in: listing) else {
                throw ControlError(device: device, .unknown(setting.name))
            }
            return try control.resolve(setting, device: device)
        }
        let ordered =
            resolved.filter { ControlNames.isAutomatic($0.control.id) } + resolved.filter { !ControlNames.isAutomatic($0.control.id) }
        let switchesAutomatic = ordered.contains { ControlNames.isAutomatic($0.control.id) }
        // Inactive now and nothing here to change that: refused before anything is set.
        if !switchesAutomatic, let inactive = ordered.first(where: { $0.control.flags.contains(.inactive) }) {
            throw inactiveError(inactive.control, listing: listing, device: device)
        }
        var warnings: [String] = []
        for setting in ordered {
            let now = try onDevice(device, "VIDIOC_QUERY_EXT_CTRL") { () throws(Errno) in
                try V4L2Calls.queryControl(fd, id: setting.control.id)
            }
            if now.flags & UInt32(V4L2_CTRL_FLAG_INACTIVE) != 0, setting.control.kind != .button {
                throw inactiveError(setting.control, listing: listing, device: device)
            }
            if let warning = try write(setting, fd: fd, device: device) { warnings.append(warning) }
        }
        return (resolved, listing, warnings)
    }

    /// Writes one setting and reads it back: a warning when the driver kept another value.
    private static func write(_ setting: ResolvedSetting, fd: Int32, device: String) throws(ControlError) -> String? {
        let control = setting.control
        do {
            switch setting.value {
            case let .text(text):
                try V4L2Calls.setControlString(fd, id: control.id, text)
            case let .integer(value):
                _ = try V4L2Calls.controlValue(fd, id: control.id, is64: control.kind == .int64, set: value)
            }
        } catch {
            throw ControlError(device: device, .failed(setting.asked, SystemCallError(operation: "VIDIOC_S_EXT_CTRLS", errno: error)))
        }
        guard control.kind != .button, !control.flags.contains(.writeOnly), let kept = readableValue(control, fd: fd),
            kept != setting.value
        else { return nil }
        let shown = { (value: CameraControl.Value) in
            if control.kind == .menu, case let .integer(index) = value, let label = control.menuLabel(index) {
                "\(value) (\(label))"
            } else {
                "\(value)"
            }
        }
        return "\(device): \(control.name): asked \(shown(setting.value)), the driver kept \(shown(kept))"
    }

    private static func inactiveError(_ control: CameraControl, listing: [CameraControl], device: String) -> ControlError {
        let automatic = ControlNames.automatic(governing: control.id).flatMap { automatic in listing.first { $0.id == automatic.id } }
        return ControlError(device: device, .inactive(control.name, automatic: automatic?.name))
    }

    /// The control `name` means: v4l2-ctl's name, a former name of it, or its id (`0x00980900`).
    package static func control(named name: String, in listing: [CameraControl]) -> CameraControl? {
        if let control = listing.first(where: { $0.name == name }) { return control }
        let id = ControlNames.formerNames[name] ?? CameraControl.integer(name).flatMap { UInt32(exactly: $0) }
        return id.flatMap { id in listing.first { $0.id == id } }
    }

    /// `kept` with each setting of a control in `newer` replaced by the newer one, at the end;
    /// settings name their controls as `listing` does.
    private static func merge(_ kept: [ControlSetting], with newer: [ControlSetting], listing: [CameraControl]) -> [ControlSetting] {
        let newerIDs = Set(newer.compactMap { control(named: $0.name, in: listing)?.id })
        return kept.filter { setting in control(named: setting.name, in: listing).map { !newerIDs.contains($0.id) } ?? true } + newer
    }

    // MARK: - Locking

    /// Switches each automatic control the camera has (exposure, gain, white balance, focus, hue,
    /// brightness) off and sets the manual controls it governs to the values the camera had
    /// settled on, read from them just before; keeps the result for every later open. Returns
    /// the settings made, e.g. `gain_automatic=0`, `gain=133`. Automatic controls already off
    /// are left as they are.
    @discardableResult
    func lock(fd: Int32) throws -> [ControlSetting] {
        try state.withLock { state in
            let (locked, listing) = try Self.lock(fd: fd, device: device)
            state.settings = Self.merge(state.settings, with: locked, listing: listing)
            return locked
        }
    }

    /// `lock(fd:)` on a descriptor of its own: the service's Lock, while the capture runs.
    @discardableResult
    public func lockNow() throws -> [ControlSetting] {
        try Self.withDescriptor(device) { fd in try lock(fd: fd) }
    }

    /// The settings made, and the listing (read before them) they name their controls by.
    private static func lock(fd: Int32, device: String) throws -> (settings: [ControlSetting], listing: [CameraControl]) {
        let listing = try list(fd, device: device)
        var locked: [ControlSetting] = []
        for automatic in ControlNames.automatics {
            guard let control = listing.first(where: { $0.id == automatic.id }), control.isScalar,
                !control.flags.contains(.readOnly), !control.flags.contains(.inactive),
                control.value != .integer(automatic.manualValue)
            else { continue }
            // The values the camera chose, read now (volatile controls are read from the device).
            let manual = automatic.governs.compactMap { id in listing.first { $0.id == id && $0.isScalar } }
            let settled = manual.map { (control: $0, value: try? V4L2Calls.controlValue(fd, id: $0.id, is64: $0.kind == .int64)) }
            let off = ControlSetting(name: control.name, value: "\(automatic.manualValue)")
            _ = try write(try control.resolve(off, device: device), fd: fd, device: device)
            locked.append(off)
            for (partner, value) in settled {
                guard let value else { continue }
                let now = try onDevice(device, "VIDIOC_QUERY_EXT_CTRL") { () throws(Errno) in try V4L2Calls.queryControl(fd, id: partner.id)
                }
                guard now.flags & UInt32(V4L2_CTRL_FLAG_READ_ONLY | V4L2_CTRL_FLAG_INACTIVE) == 0 else { continue }
                let setting = ControlSetting(name: partner.name, value: "\(partner.clamped(value))")
                _ = try write(try partner.resolve(setting, device: device), fd: fd, device: device)
                locked.append(setting)
            }
        }
        return (locked, listing)
    }

    // MARK: - Descriptors

    /// Opens `device` plainly (controls need no libv4l2), lends the descriptor, closes it.
    private static func withDescriptor<R>(_ device: String, _ body: (Int32) throws -> R) throws -> R {
        let fd = try onDevice(device, "open") { () throws(Errno) in try V4L2Calls.open(device, converting: false) }
        defer { V4L2Calls.close(fd) }
        return try body(fd)
    }
}

extension CameraControl {
    /// `value` brought into the range, onto the step.
    package func clamped(_ value: Int64) -> Int64 {
        let inRange = Swift.min(Swift.max(value, minimum), maximum)
        guard step > 1 else { return inRange }
        return minimum + (inRange - minimum) / Int64(step) * Int64(step)
    }
}
