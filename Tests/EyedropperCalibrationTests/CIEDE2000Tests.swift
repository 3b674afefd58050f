import Eyedropper
import EyedropperCalibration
import Testing

/// Sharma, Wu and Dalal (2005), Table 1: the 34 published pairs (L1, a1, b1, L2, a2, b2, ΔE00),
/// chosen to exercise every branch of the formula (hue wrap-around, zero chroma, the mean-hue
/// rule near 180 degrees apart). Also the pairs PaletteTests checks its lower bound on.
let sharmaPairs: [(CIELab, CIELab, Double)] = [
    (50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425),
    (50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615),
    (50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412),
    (50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669),
    (50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461),
    (50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065),
    (50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492),
    (50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977),
    (50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030),
    (50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000),
    (60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644),
    (63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630),
    (61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731),
    (35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645),
    (22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373),
    (36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146),
    (90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441),
    (90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381),
    (6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377),
    (2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082),
].map { (CIELab(l: $0.0, a: $0.1, b: $0.2), CIELab(l: $0.3, a: $0.4, b: $0.5), $0.6) }

@Suite struct CIEDE2000Tests {
    @Test func equalsSharmasPublishedPairsToTheFourthDecimal() {
        #expect(sharmaPairs.count == 34)
        for (index, (first, second, expected)) in sharmaPairs.enumerated() {
            // Both orders: the formula is symmetric, and an implementation that is not fails here.
            let forward = first.deltaE2000(second), backward = second.deltaE2000(first)
            #expect(abs(forward - expected) <= 1e-4, "pair \(index + 1): \(forward), published \(expected)")
            #expect(abs(backward - expected) <= 1e-4, "pair \(index + 1) reversed: \(backward), published \(expected)")
        }
    }

    @Test func isZeroForEqualColours() {
        for (first, _, _) in sharmaPairs { #expect(first.deltaE2000(first) == 0) }
    }
}

@Suite struct ColorConversionTests {
    @Test func whitesMapToLStar100() {
        let lab = CIEXYZ.d50.lab(white: .d50)
        #expect(abs(lab.l - 100) < 1e-12 && abs(lab.a) < 1e-12 && abs(lab.b) < 1e-12)
        // sRGB white is D65; Bradford takes it to D50's white exactly.
        let white = SRGB.xyzD50(RGB8(r: 255, g: 255, b: 255))
        #expect(abs(white.x - CIEXYZ.d50.x) < 1e-9 && abs(white.y - 100) < 1e-9 && abs(white.z - CIEXYZ.d50.z) < 1e-9)
    }

    /// sRGB's primaries in D50 L*a*b* (Bradford), as Lindbloom's calculator gives them.
    @Test func srgbPrimariesMatchPublishedD50Lab() {
        let cases: [(RGB8, CIELab)] = [
            (RGB8(r: 255, g: 0, b: 0), CIELab(l: 54.29, a: 80.80, b: 69.89)),
            (RGB8(r: 0, g: 255, b: 0), CIELab(l: 87.82, a: -79.29, b: 80.99)),
            (RGB8(r: 0, g: 0, b: 255), CIELab(l: 29.57, a: 68.30, b: -112.03)),
        ]
        for (color, expected) in cases {
            let lab = SRGB.xyzD50(color).lab(white: .d50)
            #expect(
                abs(lab.l - expected.l) < 0.02 && abs(lab.a - expected.a) < 0.02 && abs(lab.b - expected.b) < 0.02,
                "\(color.hex): \(lab)")
        }
    }

    @Test func labAndXYZRoundTrip() {
        for (first, second, _) in sharmaPairs {
            for lab in [first, second] {
                let back = CIEXYZ(lab, white: .d50).lab(white: .d50)
                #expect(abs(back.l - lab.l) < 1e-9 && abs(back.a - lab.a) < 1e-9 && abs(back.b - lab.b) < 1e-9)
            }
        }
    }

    @Test func calibratedColourOfAnSRGBColourGivesItBack() {
        for hex in [RGB8(r: 12, g: 200, b: 99), RGB8(r: 255, g: 255, b: 255), RGB8(r: 1, g: 2, b: 3)] {
            let color = CalibratedColor(xyz: SRGB.xyzD50(hex))
            #expect(color.inGamut)
            #expect(color.srgb8 == hex, "\(hex.hex) came back as \(color.srgb8.hex)")
            #expect(abs(color.srgb.x - Double(hex.r)) < 1e-6)
        }
    }

    @Test func outOfGamutIsClampedAndFlagged() {
        // Spectral green-cyan: far outside sRGB, with negative red.
        let color = CalibratedColor(xyz: CIEXYZ(CIELab(l: 60, a: -90, b: -10), white: .d50))
        #expect(!color.inGamut)
        #expect(color.srgb.x == 0)
        #expect(color.srgb.y > 0 && color.srgb.y <= 255 && color.srgb.z <= 255)
    }
}
