/// The controls Eyedropper knows by id: names the kernel has since changed, and the automatic
/// controls with the manual ones they govern.
enum ControlNames {
    // V4L2_CID_* from linux/v4l2-controls.h: stable numbers, part of the kernel's ABI.
    static let brightness: UInt32 = 0x0098_0900
    static let hue: UInt32 = 0x0098_0903
    static let autoWhiteBalance: UInt32 = 0x0098_090C
    static let redBalance: UInt32 = 0x0098_090E
    static let blueBalance: UInt32 = 0x0098_090F
    static let exposure: UInt32 = 0x0098_0911
    static let autoGain: UInt32 = 0x0098_0912
    static let gain: UInt32 = 0x0098_0913
    static let hueAuto: UInt32 = 0x0098_0919
    static let whiteBalanceTemperature: UInt32 = 0x0098_091A
    static let autoBrightness: UInt32 = 0x0098_0920
    static let exposureAuto: UInt32 = 0x009A_0901
    static let exposureAbsolute: UInt32 = 0x009A_0902
    static let exposureAutoPriority: UInt32 = 0x009A_0903
    static let focusAbsolute: UInt32 = 0x009A_090A
    static let focusAuto: UInt32 = 0x009A_090C

    /// Names controls had before Linux 5.16 renamed them (and v4l2-ctl with them), so that saved
    /// settings and habits from older systems keep working: looked up by id, not by label.
    static let formerNames: [String: UInt32] = [
        "exposure_auto": exposureAuto,
        "exposure_absolute": exposureAbsolute,
        "exposure_auto_priority": exposureAutoPriority,
        "white_balance_temperature_auto": autoWhiteBalance,
        "focus_auto": focusAuto,
        "hue_auto": hueAuto,
    ]

    /// An automatic control, the value that switches it off (manual), and the manual controls it
    /// governs, whose values the camera picks while it is on.
    struct Automatic: Sendable {
        let id: UInt32
        let manualValue: Int64
        let governs: [UInt32]
    }

    /// Auto exposure's "Manual Mode" is menu entry 1 (V4L2_EXPOSURE_MANUAL); the others are
    /// booleans, off at 0.
    static let automatics: [Automatic] = [
        Automatic(id: exposureAuto, manualValue: 1, governs: [exposureAbsolute, exposure]),
        Automatic(id: autoGain, manualValue: 0, governs: [gain]),
        Automatic(id: autoWhiteBalance, manualValue: 0, governs: [whiteBalanceTemperature, redBalance, blueBalance]),
        Automatic(id: focusAuto, manualValue: 0, governs: [focusAbsolute]),
        Automatic(id: hueAuto, manualValue: 0, governs: [hue]),
        Automatic(id: autoBrightness, manualValue: 0, governs: [brightness]),
    ]

    static func isAutomatic(_ id: UInt32) -> Bool { automatics.contains { $0.id == id } }

    /// The automatic control that governs `id`, if Eyedropper knows one.
    static func automatic(governing id: UInt32) -> Automatic? { automatics.first { $0.governs.contains(id) } }
}
