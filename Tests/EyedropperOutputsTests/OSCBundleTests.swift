import Eyedropper
import EyedropperCalibration
import EyedropperOutputs
import EyedropperPipeline
import Testing

/// The bytes OSC 1.0 gives for a string: its characters, then the NULs written out in the
/// literal by hand (1 to 4, up to a multiple of 4), so the expected bytes owe nothing to the
/// encoder's own padding.
private func string(_ text: String) -> [UInt8] {
    precondition(text.utf8.count % 4 == 0 && text.hasSuffix("\0"), "\(text.debugDescription) is not a padded OSC string")
    return Array(text.utf8)
}

/// A big-endian int32 (or float32's bits), byte by byte.
private func word(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}

/// A sample whose patch is `pixels`: its mean is theirs, not rounded.
private func sample(_ pixels: [RGB8]) -> ColorSample {
    var statistics = PatchStatistics()
    for pixel in pixels { statistics.merge(PatchStatistics(pixel)) }
    return ColorSample(point: .center, statistics: statistics)
}

/// Mean (255, 0, 127.5): floats 1, 0, 0.5 exactly (0x3F800000, 0, 0x3F000000); rounded mean
/// (255, 0, 128), `#ff0080`.
private let halfSample = sample([RGB8(r: 255, g: 0, b: 127), RGB8(r: 255, g: 0, b: 128)])
/// Mean (191.25, 63.75, 0): floats 0.75 (0x3F400000), 0.25 (0x3E800000), 0; `#bf4000`.
private let quarterSample = sample([
    RGB8(r: 191, g: 64, b: 0), RGB8(r: 191, g: 64, b: 0), RGB8(r: 191, g: 63, b: 0), RGB8(r: 192, g: 64, b: 0),
])

/// `count` points, all `halfSample` but the last, which is `quarterSample`.
private func reading(points count: Int, lab: CIELab? = nil, time: Double = 0.5) -> Reading {
    let samples = Array(repeating: halfSample, count: count - 1) + [quarterSample]
    let calibrated = lab.map { Array(repeating: CalibratedSample(color: CalibratedColor(xyz: CIEXYZ($0))), count: count) } ?? []
    return Reading(
        frame: 0, timestamp: 0, time: time, colorimetry: .bt709Limited, width: 1, height: 1, samples: samples,
        calibrated: calibrated)
}

/// The elements of a bundle: each one's bytes after its int32 size.
private func elements(_ bundle: [UInt8]) -> [[UInt8]] {
    var (result, at) = ([[UInt8]](), 16)
    while at + 4 <= bundle.count {
        let size = bundle[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
        result.append(Array(bundle[at + 4..<min(at + 4 + size, bundle.count)]))
        at += 4 + size
    }
    // Every size word adds up to the bundle: one too large on the last element fails here.
    #expect(at == bundle.count, "the elements' sizes reach byte \(at) of \(bundle.count)")
    return result
}

@Suite struct OSCBundleTests {
    /// `#bundle`, time tag 1970-01-01 00:00:00.5 (0x83AA7E80 seconds since 1900, half a
    /// second), point 0's rgb and hex: the whole datagram, written from the spec.
    @Test func onePointIsTheBundleTheSpecGives() {
        var bundle = OSCBundle()
        #expect(bundle.write(reading(points: 1), from: 0) == 1)
        let expected: [UInt8] =
            string("#bundle\0") + word(0x83AA_7E80) + word(0x8000_0000)
            + word(40) + string("/eyedropper/0/rgb\0\0\0") + string(",fff\0\0\0\0")
            + word(0x3F40_0000) + word(0x3E80_0000) + word(0)
            + word(32) + string("/eyedropper/0/hex\0\0\0") + string(",s\0\0") + string("#bf4000\0")
        #expect(bundle.bytes == expected)
        #expect(bundle.count == 16 + 44 + 36)
    }

    /// Addresses of 17, 18, 19 and 20 characters (points 0, 10, 100, 1000: 1, 2, 3, 0 mod 4)
    /// take 3, 2, 1 and 4 NULs; with a profile, lab follows hex. Catches padding to the string's
    /// length instead of past its NUL (20 characters with no NUL), and a lab in the wrong place.
    @Test(arguments: [(0, 3), (10, 2), (100, 1), (1000, 4)])
    func addressesArePaddedPastTheirNUL(point: Int, nuls: Int) {
        let lab = CIELab(l: 50, a: 20, b: -30)
        let given = reading(points: point + 1, lab: lab)
        // The profile's colour comes back from XYZ within 1e-9, far inside float32's rounding.
        let back = given.calibrated[0].color.lab
        #expect(abs(back.l - 50) < 1e-9 && abs(back.a - 20) < 1e-9 && abs(back.b + 30) < 1e-9)
        var bundle = OSCBundle()
        #expect(bundle.write(given, from: point) == point + 1)
        func named(_ leaf: String) -> [UInt8] { string("/eyedropper/\(point)/\(leaf)" + String(repeating: "\0", count: nuls)) }
        let rgb = named("rgb") + string(",fff\0\0\0\0") + word(0x3F40_0000) + word(0x3E80_0000) + word(0)
        let hex = named("hex") + string(",s\0\0") + string("#bf4000\0")
        let labMessage = named("lab") + string(",fff\0\0\0\0") + word(0x4248_0000) + word(0x41A0_0000) + word(0xC1F0_0000)
        #expect(elements(bundle.bytes) == [rgb, hex, labMessage])
        #expect(bundle.count == 16 + 12 + rgb.count + hex.count + labMessage.count)
        #expect(OSCBundle.pointSize(point, lab: true) == bundle.count - 16)
    }

    /// With a palette, each point ends with `/eyedropper/<i>/name ,sff`: the name's UTF-8 bytes
    /// (a name of 3 bytes takes 1 NUL, one of 4 takes 4), its ΔE and margin; `unknown` past
    /// --max-delta-e. Catches a name padded short, the floats swapped, a name of another point,
    /// or `pointSize` not counting the name (which would split bundles too late).
    @Test func namesFollowEachPoint() throws {
        let lab = { (hex: RGB8) -> SIMD3<Double> in
            let lab = SRGB.xyzD50(hex).lab(white: .d50)
            return SIMD3(lab.l, lab.a, lab.b)
        }
        // The quarter sample's camera colour rounds to #bf4000: "rust" is within a tenth of a ΔE.
        let palette = try Palette(entries: [
            .init(name: "rust", lab: lab(RGB8(r: 191, g: 64, b: 0))), .init(name: "zinc", lab: lab(RGB8(r: 128, g: 128, b: 128))),
        ])
        let settings = PaletteSettings(palette: palette, maxDeltaE: 2)
        let samples = [quarterSample, halfSample]
        let names = samples.map { settings.name(PaletteSettings.cameraLab($0.statistics.mean), calibrated: false) }
        let given = Reading(
            frame: 0, timestamp: 0, time: 0.5, colorimetry: .bt709Limited, width: 1, height: 1, samples: samples,
            names: names, palette: settings)
        var bundle = OSCBundle()
        #expect(bundle.write(given, from: 0) == 2)
        let parts = elements(bundle.bytes)
        #expect(parts.count == 6)
        let rust =
            string("/eyedropper/0/name\0\0") + string(",sff\0\0\0\0") + string("rust\0\0\0\0")
            + word(Float(names[0].match.deltaE).bitPattern)
            + word(Float(names[0].margin!).bitPattern)
        #expect(names[0].entry == 0 && names[0].match.deltaE < 0.1)
        #expect(parts[2] == rust)
        #expect(names[1].entry == nil)
        let unknown =
            string("/eyedropper/1/name\0\0") + string(",sff\0\0\0\0") + string("unknown\0")
            + word(Float(names[1].match.deltaE).bitPattern) + word(Float(names[1].margin!).bitPattern)
        #expect(parts[5] == unknown)
        var first = OSCBundle()
        _ = first.write(
            Reading(
                frame: 0, timestamp: 0, time: 0.5, colorimetry: .bt709Limited, width: 1, height: 1, samples: [quarterSample],
                names: [names[0]], palette: settings), from: 0)
        #expect(OSCBundle.pointSize(0, lab: false, name: 4) == first.count - 16)
    }

    /// Two points: the first's mean 127.5 is exactly 0.5 in float32 and its rounded mean ends in
    /// 80 (halves up), lower-case hex; they come in point order.
    @Test func pointsComeInOrderWithTheirOwnValues() {
        var bundle = OSCBundle()
        #expect(bundle.write(reading(points: 2), from: 0) == 2)
        let parts = elements(bundle.bytes)
        #expect(parts.count == 4)
        #expect(parts[0] == string("/eyedropper/0/rgb\0\0\0") + string(",fff\0\0\0\0") + word(0x3F80_0000) + word(0) + word(0x3F00_0000))
        #expect(parts[1] == string("/eyedropper/0/hex\0\0\0") + string(",s\0\0") + string("#ff0080\0"))
        #expect(parts[2].starts(with: string("/eyedropper/1/rgb\0\0\0")))
    }

    /// Known instants in NTP's format: the Unix epoch is 2,208,988,800 s after NTP's, a quarter
    /// second is 2^30; 2026-11-24 04:44:30 UTC is 1,795,495,470 s after 1970.
    @Test func timeTagsAreNTPSecondsSince1900() {
        #expect(OSCTimeTag(seconds: 0).bits == 0x83AA_7E80_0000_0000)
        #expect(OSCTimeTag(seconds: 0.25).bits == 0x83AA_7E80_4000_0000)
        #expect(OSCTimeTag(seconds: 1_795_495_470.75).bits == UInt64(1_795_495_470 + 2_208_988_800) << 32 | 0xC000_0000)
        #expect(OSCTimeTag(seconds: -2_208_988_800).bits == 0)  // NTP's own epoch
        // NTP's seconds wrap in February 2036 (era 1), as receivers expect.
        #expect(OSCTimeTag(seconds: 2_085_978_496).bits == 0)
        #expect(OSCTimeTag(seconds: .nan) == .immediately)
        #expect(OSCTimeTag(seconds: -3e9) == .immediately)
        // The tag in the bundle is the reading's time, big-endian.
        var bundle = OSCBundle()
        _ = bundle.write(reading(points: 1, time: 1_795_495_470.75), from: 0)
        #expect(Array(bundle.bytes[8..<16]) == word(UInt32(1_795_495_470 + 2_208_988_800)) + word(0xC000_0000))
    }

    /// 1,000 points with a profile take 124 bytes each (three 20-byte addresses; 136 from point
    /// 1000), so a 65,507-byte datagram holds the 16-byte header and 528 of them (16 + 528 x 124
    /// = 65,488; 529 would be 65,612): the frame goes as two bundles, 0-527 and 528-999, with the
    /// same time tag, which hold together exactly the elements one unlimited bundle would.
    @Test func aFrameTooLargeForADatagramIsSplitBetweenPoints() {
        let given = reading(points: 1000, lab: CIELab(l: 50, a: 20, b: -30), time: 1_795_495_470.5)
        var bundle = OSCBundle()
        #expect(bundle.limit == 65_507)
        #expect(bundle.write(given, from: 0) == 528)
        let first = bundle.bytes
        #expect(first.count == 65_488)
        #expect(bundle.write(given, from: 528) == 1000)
        let second = bundle.bytes
        #expect(second.count == 16 + 472 * 124)
        #expect(first.prefix(16) == second.prefix(16))
        #expect(elements(first).count == 528 * 3 && elements(second).count == 472 * 3)
        #expect(elements(second).first?.starts(with: string("/eyedropper/528/rgb\0")) == true)

        var whole = OSCBundle(limit: 1 << 20)
        #expect(whole.write(given, from: 0) == 1000)
        #expect(elements(first) + elements(second) == elements(whole.bytes))
    }

    /// A limit one byte short of two points holds one a bundle; every bundle stays within it
    /// and holds a point's three messages together.
    @Test func aSmallLimitHoldsWholePointsOnly() {
        let size = OSCBundle.pointSize(0, lab: true)
        #expect(16 + 2 * size - 1 >= OSCBundle.smallestLimit)
        var bundle = OSCBundle(limit: 16 + 2 * size - 1)
        let given = reading(points: 7, lab: CIELab(l: 50, a: 20, b: -30))
        var (next, bundles) = (0, 0)
        repeat {
            next = bundle.write(given, from: next)
            bundles += 1
            #expect(bundle.count == 16 + size)
            #expect(elements(bundle.bytes).count == 3)
        } while next < 7 && bundles < 8
        #expect(bundles == 7)
    }
}
