import Eyedropper

/// A camera profile as an ICC input profile (version 2.4, class `scnr`), as darktable, GIMP,
/// ArgyllCMS and Little CMS read one: from the camera's RGB, as Eyedropper converts a frame (0...1
/// for levels 0...255), to CIE L*a*b* in the profile connection space (PCS, D50).
///
/// Version 2 rather than 4: every reader takes it, and v4 would add only a `chad` tag (identity
/// here, the colours being D50 already) and a profile ID. The one colour tag, `A2B0`, is a
/// `lut16Type` (`mft2`): identity matrix and curves around a CLUT sampled from
/// `CameraProfile.calibrated`, so the reader's interpolation between grid points is the only
/// difference from `sample --profile`. Big-endian throughout, every tag at a 4-byte boundary.
public enum ICCProfile {
    /// Points a side of the CLUT: 33, as `CubeLUT`.
    public static let defaultSize = 33

    /// The PCS white, D50 as the ICC gives it in XYZ (0.9642, 1, 0.8249), Y = 100. The CLUT holds
    /// L*a*b* relative to it, so a reader that goes back to XYZ gets `calibrated`'s XYZ; Eyedropper's
    /// own L*a*b* is relative to D50 as xy (0.3457, 0.3585), 0.02 away in b* at most.
    public static let pcsWhite = CIEXYZ(x: 96.42, y: 100, z: 82.49)

    /// The profile's bytes, a CLUT of `size` points a side (2...255); `description` names it in
    /// the readers' lists, and `profile.created` gives the header's date.
    public static func bytes(_ profile: CameraProfile, size: Int = defaultSize, description: String) -> [UInt8] {
        precondition((2...255).contains(size), "an ICC lut16 CLUT has 2 to 255 points a side, not \(size)")
        let tags: [(signature: String, data: [UInt8])] = [
            ("desc", textDescription(description)),
            ("cprt", text("No copyright, use freely.")),
            ("wtpt", xyz(pcsWhite)),
            ("A2B0", lut16(profile, size: size)),
        ]
        let tableEnd = 128 + 4 + 12 * tags.count
        var table = Writer(), data = Writer()
        table.uint32(UInt32(tags.count))
        for tag in tags {
            table.signature(tag.signature)
            table.uint32(UInt32(tableEnd + data.bytes.count))
            table.uint32(UInt32(tag.data.count))
            data.bytes += tag.data
            data.pad()
        }
        var header = Writer()
        header.uint32(UInt32(128 + table.bytes.count + data.bytes.count))  // the profile's size
        header.uint32(0)  // preferred CMM: none
        header.uint32(0x0240_0000)  // version 2.4.0
        header.signature("scnr")  // input device
        header.signature("RGB ")  // data colour space
        header.signature("Lab ")  // PCS
        for field in dateTime(profile.created) { header.uint16(field) }
        header.signature("acsp")
        header.bytes += [UInt8](repeating: 0, count: 4 + 4 + 4 + 4 + 8)  // platform, flags, maker, model, attributes
        header.uint32(0)  // rendering intent: perceptual (A2B0 serves every intent)
        header.xyzNumber(pcsWhite)  // the PCS illuminant, D50
        header.uint32(0)  // creator
        header.bytes += [UInt8](repeating: 0, count: 16 + 28)  // profile ID (v4 only), reserved
        return header.bytes + table.bytes + data.bytes
    }

    /// `lut16Type`: 3 inputs, 3 outputs, the identity matrix (the input is not XYZ), 2-entry
    /// identity input and output curves, and the CLUT with the first input (red) varying slowest
    /// and blue fastest: the opposite of `.cube`. Each entry is L*a*b* in the PCS's 16-bit legacy
    /// encoding, that of version 2 and of every `lut16Type`: L* 0...100 as 0...0xFF00 (652.8 a
    /// unit), a* and b* -128...127.996 as (v + 128) x 256. What lies beyond (camera RGB brighter
    /// than the chart's white reaches L* 100.39 at 0xFFFF) is clamped.
    static func lut16(_ profile: CameraProfile, size: Int) -> [UInt8] {
        var lut = Writer()
        lut.signature("mft2")
        lut.uint32(0)
        lut.bytes += [3, 3, UInt8(size), 0]
        for row in 0..<3 {
            for column in 0..<3 { lut.s15Fixed16(row == column ? 1 : 0) }
        }
        lut.uint16(2)  // input table entries
        lut.uint16(2)  // output table entries
        let identityCurves: [UInt16] = [0, 0xFFFF, 0, 0xFFFF, 0, 0xFFFF]
        for value in identityCurves { lut.uint16(value) }
        lut.bytes.reserveCapacity(lut.bytes.count + size * size * size * 6 + 12)
        let step = 255.0 / Double(size - 1)
        for r in 0..<size {
            for g in 0..<size {
                for b in 0..<size {
                    let lab = profile.calibrated((Double(r) * step, Double(g) * step, Double(b) * step)).xyz.lab(white: pcsWhite)
                    lut.uint16(encoded(lab.l * 652.8))
                    lut.uint16(encoded((lab.a + 128) * 256))
                    lut.uint16(encoded((lab.b + 128) * 256))
                }
            }
        }
        for value in identityCurves { lut.uint16(value) }
        return lut.bytes
    }

    /// `value` rounded to the nearest of 0...0xFFFF.
    private static func encoded(_ value: Double) -> UInt16 {
        UInt16(min(max(value.rounded(), 0), 65535))
    }

    /// `textDescriptionType`: the ASCII text (NUL-terminated), then an empty Unicode and an empty
    /// ScriptCode description, which still take their 67 bytes.
    static func textDescription(_ string: String) -> [UInt8] {
        let ascii = asciiBytes(string)
        var tag = Writer()
        tag.signature("desc")
        tag.uint32(0)
        tag.uint32(UInt32(ascii.count))
        tag.bytes += ascii
        tag.uint32(0)  // Unicode language
        tag.uint32(0)  // Unicode count
        tag.uint16(0)  // ScriptCode code
        tag.bytes += [UInt8](repeating: 0, count: 1 + 67)  // ScriptCode count, its string
        return tag.bytes
    }

    /// `textType`: NUL-terminated ASCII.
    static func text(_ string: String) -> [UInt8] {
        var tag = Writer()
        tag.signature("text")
        tag.uint32(0)
        tag.bytes += asciiBytes(string)
        return tag.bytes
    }

    /// `XYZType` with one XYZNumber.
    static func xyz(_ value: CIEXYZ) -> [UInt8] {
        var tag = Writer()
        tag.signature("XYZ ")
        tag.uint32(0)
        tag.xyzNumber(value)
        return tag.bytes
    }

    /// 7-bit ASCII and a NUL: what is not (a path's `é`) becomes `?`.
    private static func asciiBytes(_ string: String) -> [UInt8] {
        string.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? UInt8($0.value) : UInt8(ascii: "?") } + [0]
    }

    /// Year, month, day, hours, minutes, seconds of `2026-11-23T21:05:00Z`; zeros if it is not that.
    private static func dateTime(_ iso8601: String) -> [UInt16] {
        let fields = iso8601.split { !$0.isNumber }.compactMap { UInt16($0) }
        return fields.count == 6 ? fields : [UInt16](repeating: 0, count: 6)
    }

    /// Big-endian bytes, appended.
    private struct Writer {
        var bytes: [UInt8] = []

        mutating func uint16(_ value: UInt16) {
            bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
        }

        mutating func uint32(_ value: UInt32) {
            uint16(UInt16(value >> 16))
            uint16(UInt16(value & 0xFFFF))
        }

        /// Four ASCII characters.
        mutating func signature(_ value: String) {
            precondition(value.utf8.count == 4, "an ICC signature is 4 characters: '\(value)'")
            bytes += value.utf8
        }

        /// s15Fixed16Number: the value x 65536, rounded, as a signed 32-bit integer.
        mutating func s15Fixed16(_ value: Double) {
            uint32(UInt32(bitPattern: Int32((value * 65536).rounded())))
        }

        /// XYZNumber: X, Y, Z with the white at 1 (Y = 100 here).
        mutating func xyzNumber(_ value: CIEXYZ) {
            s15Fixed16(value.x / 100)
            s15Fixed16(value.y / 100)
            s15Fixed16(value.z / 100)
        }

        /// Zeros to the next multiple of 4.
        mutating func pad() {
            bytes += [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4)
        }
    }
}
