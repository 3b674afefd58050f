import Eyedropper

extension CameraControl {
    /// This control as `eyedropper controls --format json` and the service's `GET /api/v1/controls`
    /// print it: `{"name","id","type","min","max","step","default","value","menu","flags"}` in that
    /// order; "value" left out where it cannot be read, "menu" for all but menus.
    public var json: String {
        var fields: [(String, String)] = [
            ("name", JSONText.string(name)), ("id", "\(id)"), ("type", JSONText.string(kind.rawValue)),
            ("min", "\(minimum)"), ("max", "\(maximum)"), ("step", "\(step)"), ("default", "\(defaultValue)"),
        ]
        if let value { fields.append(("value", value.json)) }
        if kind == .menu || kind == .intmenu {
            fields.append(("menu", JSONText.object(menu.map { ("\($0.index)", $0.integer.map { "\($0)" } ?? JSONText.string($0.label)) })))
        }
        fields.append(("flags", JSONText.array(flags.names.map(JSONText.string))))
        return JSONText.object(fields)
    }
}

extension CameraControl.Value {
    /// A number, or for a string control a JSON string.
    public var json: String {
        switch self {
        case let .integer(number): "\(number)"
        case let .text(text): JSONText.string(text)
        }
    }
}

extension [CameraControl] {
    /// The listing as one JSON array of `CameraControl.json` objects.
    public var json: String { JSONText.array(map(\.json)) }
}
