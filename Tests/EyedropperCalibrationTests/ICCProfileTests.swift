import Eyedropper
import EyedropperCalibration
import EyedropperTestSupport
import Testing

/// `ICCProfile`'s bytes read back by a parser of the test's own, written from the ICC
/// specification (ICC.1:2001-04, version 2.4), not from the writer.
@Suite struct ICCProfileTests {
    let profile: CameraProfile
    let bytes: [UInt8]

    init() throws {
        profile = try simulatedProfile(colorimetry: Colorimetry(matrix: .bt601, range: .limited), width: 640, height: 480)
        bytes = ICCProfile.bytes(profile, description: "eyedropper desk.json")
    }

    func uint16(_ offset: Int) -> Int { Int(bytes[offset]) << 8 | Int(bytes[offset + 1]) }
    func uint32(_ offset: Int) -> Int { uint16(offset) << 16 | uint16(offset + 2) }
    func signature(_ offset: Int) -> String { String(decoding: bytes[offset..<offset + 4], as: UTF8.self) }
    func s15Fixed16(_ offset: Int) -> Double { Double(Int32(bitPattern: UInt32(uint32(offset)))) / 65536 }

    /// Each tag's signature, offset and size, from the tag table after the 128-byte header.
    var tags: [String: (offset: Int, size: Int)] {
        var found: [String: (offset: Int, size: Int)] = [:]
        for index in 0..<uint32(128) {
            let entry = 132 + 12 * index
            found[signature(entry)] = (uint32(entry + 4), uint32(entry + 8))
        }
        return found
    }

    @Test func theHeaderIsAVersion2InputProfileFromRGBToLabD50() {
        // The size written before the tags were padded, or without the tag table, is not the count.
        #expect(uint32(0) == bytes.count)
        // A header field left out or doubled moves 'acsp' off byte 36.
        #expect(signature(36) == "acsp")
        #expect(uint32(8) == 0x0240_0000)
        #expect([signature(12), signature(16), signature(20)] == ["scnr", "RGB ", "Lab "])
        // The date is the profile's, 2026-11-23T21:05:00Z (a field out of order is another date).
        #expect((24..<36).filter { $0 % 2 == 0 }.map(uint16) == [2026, 11, 23, 21, 5, 0])
        // The illuminant is D50 exactly as the specification writes it; D65 (0.9505, 1, 1.089) or
        // a fixed point other than 16.16 is not.
        #expect([uint32(68), uint32(72), uint32(76)] == [0xF6D6, 0x1_0000, 0xD32D])
        #expect(bytes[84..<128].allSatisfy { $0 == 0 })
    }

    @Test func theTagsAreTheFourOfAnInputProfileAlignedAndApart() throws {
        let tags = tags
        #expect(Set(tags.keys) == ["desc", "cprt", "wtpt", "A2B0"])
        // Unaligned or overlapping tags (a size used as the next offset without padding, an
        // offset counted from the tag table instead of the file's start) fail here.
        let spans = tags.values.sorted { $0.offset < $1.offset }
        #expect(spans.first?.offset == 132 + 12 * 4)
        for (span, next) in zip(spans, spans.dropFirst()) {
            #expect(span.offset % 4 == 0 && span.offset + span.size <= next.offset && next.offset - span.offset - span.size < 4)
        }
        #expect(spans.last.map { $0.offset + $0.size <= bytes.count && bytes.count - $0.offset - $0.size < 4 } == true)
        let desc = try #require(tags["desc"])
        #expect(signature(desc.offset) == "desc")
        let count = uint32(desc.offset + 8)
        #expect(String(decoding: bytes[(desc.offset + 12)..<(desc.offset + 12 + count)], as: UTF8.self) == "eyedropper desk.json\0")
        // The Unicode and ScriptCode parts: 4 + 4 + 2 + 1 + 67 bytes; without them Argyll refuses the tag.
        #expect(desc.size == 12 + count + 78)
        // The media white is the PCS's D50: one of D65 would shift every colour a reader adapts.
        let white = try #require(tags["wtpt"])
        #expect(signature(white.offset) == "XYZ " && white.size == 20)
        #expect([uint32(white.offset + 8), uint32(white.offset + 12), uint32(white.offset + 16)] == [0xF6D6, 0x1_0000, 0xD32D])
        #expect(signature(try #require(tags["cprt"]).offset) == "text")
    }

    @Test func theTableHoldsTheCalibratedLabWithRedSlowest() throws {
        let lut = try #require(tags["A2B0"]).offset
        let points = ICCProfile.defaultSize
        #expect(signature(lut) == "mft2")
        #expect(Array(bytes[(lut + 8)..<(lut + 11)]) == [3, 3, UInt8(points)])
        // The matrix must be the identity when the input is not XYZ.
        #expect((0..<9).map { s15Fixed16(lut + 12 + 4 * $0) } == [1, 0, 0, 0, 1, 0, 0, 0, 1])
        // Identity curves of 2 entries before and after the table.
        #expect([uint16(lut + 48), uint16(lut + 50)] == [2, 2])
        let clut = lut + 52 + 3 * 2 * 2
        #expect((0..<6).map { uint16(lut + 52 + 2 * $0) } == [0, 0xFFFF, 0, 0xFFFF, 0, 0xFFFF])
        #expect(try #require(tags["A2B0"]).size == clut - lut + points * points * points * 6 + 12)

        // The PCS's L*a*b* is relative to D50 as the ICC gives it in XYZ.
        let iccD50 = CIEXYZ(x: 96.42, y: 100, z: 82.49)
        // Grid points with every coordinate different (red 8, green 16, blue 24 is not red 24,
        // green 16, blue 8), so a table in .cube's order (red fastest) fails.
        let step = 255.0 / Double(points - 1)
        // The v2 16-bit legacy encoding: L* 0xFF00 at 100, a* and b* 0x8000 at 0 and 256 a unit.
        // L* over 0xFFFF (100 x 65535 / 65280) instead would be off by 0.39% of L*.
        func entry(_ r: Int, _ g: Int, _ b: Int) -> CIELab {
            let offset = clut + 6 * ((r * points + g) * points + b)
            return CIELab(
                l: Double(uint16(offset)) * 100 / 0xFF00, a: Double(uint16(offset + 2)) / 256 - 128,
                b: Double(uint16(offset + 4)) / 256 - 128)
        }
        for (r, g, b) in [(8, 16, 24), (24, 16, 8), (16, 16, 16), (20, 6, 12), (10, 14, 12)] {
            let decoded = entry(r, g, b)
            let color = profile.calibrated((Double(r) * step, Double(g) * step, Double(b) * step))
            let expected = color.xyz.lab(white: iccD50)
            #expect((0.5...99).contains(expected.l) && abs(expected.a) < 120 && abs(expected.b) < 120, "grid \(r), \(g), \(b)")
            // Within half a step of the encoding: 1/1305.6 in L*, 1/512 in a* and b*. The
            // colours relative to D65 instead would be units away.
            #expect(abs(decoded.l - expected.l) <= 0.5 / 652.8 + 1e-9, "grid \(r), \(g), \(b): \(decoded) vs \(expected)")
            #expect(abs(decoded.a - expected.a) <= 1.0 / 512 + 1e-9, "grid \(r), \(g), \(b): \(decoded) vs \(expected)")
            #expect(abs(decoded.b - expected.b) <= 1.0 / 512 + 1e-9, "grid \(r), \(g), \(b): \(decoded) vs \(expected)")
            // And what sample --profile prints (relative to D50 as xy, up to 0.02 away in b*) is
            // within 0.02.
            #expect(decoded.deltaE2000(color.lab) < 0.02, "grid \(r), \(g), \(b): \(decoded) vs \(color.lab)")
        }
        // Camera red 4, green 28, blue 10 of 32 lies far outside any real colour (a* -811): it
        // is clamped to the encoding's -128, not wrapped round to a large positive a*.
        let outside = profile.calibrated((4 * step, 28 * step, 10 * step)).xyz.lab(white: iccD50)
        #expect(outside.a < -128 && entry(4, 28, 10).a == -128)
        #expect(abs(entry(4, 28, 10).l - outside.l) <= 0.5 / 652.8 + 1e-9)
    }
}
