import EyedropperCapture
import Foundation
import Testing

/// Camera-control rules that need no device: names, former names, values checked against a
/// control's type, range, step and menu. (Against a real driver: Tests/VM/guest-controls.sh.)
@Suite struct ControlSettingTests {
    private func control(
        _ name: String, id: UInt32 = 0x0098_F902, kind: CameraControl.Kind = .int, minimum: Int64 = 0, maximum: Int64 = 255,
        step: UInt64 = 1, flags: CameraControl.Flags = [], menu: [CameraControl.MenuEntry] = [], dimensions: [UInt32] = []
    ) -> CameraControl {
        CameraControl(
            name: name, label: name, id: id, kind: kind, minimum: minimum, maximum: maximum, step: step, defaultValue: minimum,
            flags: flags, value: .integer(minimum), menu: menu, dimensions: dimensions, className: "User Controls")
    }

    private func value(_ control: CameraControl, _ text: String) throws -> CameraControl.Value {
        try control.resolve(ControlSetting(name: control.name, value: text), device: "/dev/video0").value
    }

    private func refusal(_ control: CameraControl, _ text: String) -> String? {
        do {
            _ = try control.resolve(ControlSetting(name: control.name, value: text), device: "/dev/video0")
            return nil
        } catch {
            return error.description
        }
    }

    /// v4l2-ctl's names: lower case, each run of other characters one underscore, none at the ends.
    @Test func namesAreV4l2CtlsNames() {
        #expect(CameraControl.name(forLabel: "White Balance, Automatic") == "white_balance_automatic")
        #expect(CameraControl.name(forLabel: "Exposure Time, Absolute") == "exposure_time_absolute")
        #expect(CameraControl.name(forLabel: "Read-Only Integer 32 Bits") == "read_only_integer_32_bits")
        #expect(CameraControl.name(forLabel: "U8 2x3x4x5 Array") == "u8_2x3x4x5_array")
        #expect(CameraControl.name(forLabel: "  (Leading) and trailing!  ") == "leading_and_trailing")
    }

    /// Former names (before Linux 5.16) find the control by id; so do ids, in hex or decimal.
    @Test func formerNamesAndIdsFindTheControl() {
        let listing = [
            control("brightness", id: 0x0098_0900), control("auto_exposure", id: 0x009A_0901, kind: .menu),
            control("exposure_time_absolute", id: 0x009A_0902), control("white_balance_automatic", id: 0x0098_090C, kind: .bool),
            control("exposure_dynamic_framerate", id: 0x009A_0903, kind: .bool),
            control("focus_automatic_continuous", id: 0x009A_090C, kind: .bool),
        ]
        let found = { (name: String) in CameraControls.control(named: name, in: listing)?.name }
        #expect(found("exposure_auto") == "auto_exposure")
        #expect(found("exposure_absolute") == "exposure_time_absolute")
        #expect(found("white_balance_temperature_auto") == "white_balance_automatic")
        #expect(found("exposure_auto_priority") == "exposure_dynamic_framerate")
        #expect(found("focus_auto") == "focus_automatic_continuous")
        #expect(found("0x00980900") == "brightness")
        #expect(found("9963776") == "brightness")
        #expect(found("auto_exposure") == "auto_exposure")
        #expect(found("hue_auto") == nil)  // a former name of a control this listing lacks
        #expect(found("Brightness") == nil)  // names are exact, as v4l2-ctl prints them
    }

    @Test func integersAreCheckedAgainstRangeAndStep() throws {
        let even = control("even", minimum: -10, maximum: 250, step: 4)
        #expect(try value(even, "-2") == .integer(-2))
        #expect(try value(even, "0x12") == .integer(18))
        #expect(try value(even, " 250 ") == .integer(250))
        #expect(refusal(even, "0") == "/dev/video0: even=0 is not a value it takes: give -10 to 250 in steps of 4")
        #expect(refusal(even, "254") == "/dev/video0: even=254 is not a value it takes: give -10 to 250 in steps of 4")
        #expect(refusal(even, "-14") == "/dev/video0: even=-14 is not a value it takes: give -10 to 250 in steps of 4")
        #expect(
            refusal(even, "high") == "/dev/video0: even=high is not a value it takes: give a whole number from -10 to 250 in steps of 4")
        #expect(refusal(even, "") == "/dev/video0: even= is not a value it takes: give a whole number from -10 to 250 in steps of 4")
        let wide = control("wide", kind: .int64, minimum: .min, maximum: .max)
        #expect(try value(wide, "-9223372036854775808") == .integer(.min))
    }

    @Test func booleansMenusMasksAndStrings() throws {
        let flag = control("flag", kind: .bool, maximum: 1)
        #expect(try value(flag, "true") == .integer(1))
        #expect(try value(flag, "Off") == .integer(0))
        #expect(refusal(flag, "2") == "/dev/video0: flag=2 is not a value it takes: give 0 or 1 (false or true)")
        let menu = control(
            "auto_exposure", kind: .menu, minimum: 0, maximum: 3,
            menu: [
                .init(index: 0, label: "Auto Mode"), .init(index: 1, label: "Manual Mode"),
                .init(index: 3, label: "Aperture Priority Mode"),
            ])
        #expect(try value(menu, "1") == .integer(1))
        #expect(try value(menu, "manual mode") == .integer(1))
        #expect(try value(menu, "aperture_priority_mode") == .integer(3))
        #expect(
            refusal(menu, "2")
                == "/dev/video0: auto_exposure=2 is not a value it takes: give one of 0 (Auto Mode), 1 (Manual Mode), 3 (Aperture Priority Mode)"
        )
        let integers = control(
            "integer_menu", kind: .intmenu, minimum: 0, maximum: 1,
            menu: [
                .init(index: 0, label: "5", integer: 5), .init(index: 1, label: "8", integer: 8),
            ])
        #expect(try value(integers, "1") == .integer(1))  // by index, as v4l2-ctl
        // An integer menu's numbers are not indices.
        #expect(refusal(integers, "8") == "/dev/video0: integer_menu=8 is not a value it takes: give one of 0 (5), 1 (8)")
        let mask = control("bitmask", kind: .bitmask, maximum: 0x8040_2010)
        #expect(try value(mask, "0x80000010") == .integer(0x8000_0010))
        #expect(refusal(mask, "0x1") == "/dev/video0: bitmask=0x1 is not a value it takes: give a bit mask within 0x80402010")
        let text = control("string", kind: .string, minimum: 2, maximum: 4)
        #expect(try value(text, "abc") == .text("abc"))
        #expect(try value(text, "  ") == .text("  "))  // spaces are text: vivid's default is two
        #expect(refusal(text, "abcde") == "/dev/video0: string=abcde is not a value it takes: give text of 2 to 4 bytes")
        #expect(refusal(text, "a") == "/dev/video0: string=a is not a value it takes: give text of 2 to 4 bytes")
    }

    @Test func readOnlyAndArrayControlsAreRefusedByName() {
        #expect(
            refusal(control("read_only", flags: .readOnly), "1")
                == "/dev/video0: read_only is read-only: the camera sets it, it cannot be set")
        #expect(
            refusal(control("pixels", kind: .u8, dimensions: [23, 40]), "1")
                == "/dev/video0: pixels is a u8 control, which eyedropper does not set (v4l2-ctl can)")
        #expect(refusal(control("press", kind: .button, maximum: 0), "1") == nil)
    }

    @Test func settingsAreParsedFromTheCommandLineAndFromJSON() throws {
        #expect(
            try ControlSetting.parseList("brightness=10,auto_exposure=Manual Mode")
                == [ControlSetting(name: "brightness", value: "10"), ControlSetting(name: "auto_exposure", value: "Manual Mode")])
        #expect(try ControlSetting.parseList("string=a=b") == [ControlSetting(name: "string", value: "a=b")])
        #expect(throws: ControlError(device: nil, .malformed("brightness"))) { try ControlSetting.parseList("brightness") }
        #expect(throws: ControlError(device: nil, .malformed("=3"))) { try ControlSetting.parseList("=3") }
        #expect(throws: ControlError(device: nil, .malformed(""))) { try ControlSetting.parseList("a=1,") }
        let object = try JSONDecoder().decode(
            [String: ControlValueText].self, from: Data(#"{"gain": 7, "gain_automatic": false, "auto_exposure": "Manual Mode"}"#.utf8))
        #expect(
            ControlSetting.settings(object) == [
                ControlSetting(name: "auto_exposure", value: "Manual Mode"), ControlSetting(name: "gain", value: "7"),
                ControlSetting(name: "gain_automatic", value: "0"),
            ])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([String: ControlValueText].self, from: Data(#"{"gain": 1.5}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([String: ControlValueText].self, from: Data(#"{"gain": [1]}"#.utf8))
        }
    }

    /// --lock sets a manual control to what the camera chose, brought onto the control's range and step.
    @Test func lockedValuesAreClampedOntoRangeAndStep() {
        let exposure = control("exposure_time_absolute", minimum: 3, maximum: 2046, step: 4)
        #expect(exposure.clamped(5000) == 2043)  // the last value on the step, not the maximum
        #expect(exposure.clamped(-1) == 3)
        #expect(exposure.clamped(10) == 7)
        #expect(exposure.clamped(11) == 11)
    }
}
