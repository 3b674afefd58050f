import Eyedropper
import Testing

@Suite struct ColorSpacesTests {
    @Test func hsvOfPrimariesSecondariesAndGreys() {
        #expect(RGB8(r: 255, g: 0, b: 0).hsv == HSV(hue: 0, saturation: 1, value: 1))
        #expect(RGB8(r: 0, g: 255, b: 0).hsv == HSV(hue: 120, saturation: 1, value: 1))
        #expect(RGB8(r: 0, g: 0, b: 255).hsv == HSV(hue: 240, saturation: 1, value: 1))
        #expect(RGB8(r: 255, g: 255, b: 0).hsv == HSV(hue: 60, saturation: 1, value: 1))
        #expect(RGB8(r: 128, g: 128, b: 128).hsv == HSV(hue: 0, saturation: 0, value: 128.0 / 255))
        #expect(RGB8(r: 0, g: 0, b: 0).hsv == HSV(hue: 0, saturation: 0, value: 0))
        // 75% magenta: red and blue tie for the maximum.
        #expect(RGB8(r: 191, g: 0, b: 191).hsv == HSV(hue: 300, saturation: 1, value: 191.0 / 255))
    }

    @Test func hueStaysBelow360() {
        // Red with a trace of blue is the largest hue the red sector produces.
        let hue = RGB8(r: 255, g: 0, b: 1).hsv.hue
        #expect(hue > 359 && hue < 360)
    }

    /// Published sRGB/D65 values, rounded to two decimals; an independent evaluation of the same
    /// formula agrees with every one within 0.006.
    @Test(arguments: [
        (RGB8(r: 255, g: 255, b: 255), CIELab(l: 100, a: 0, b: 0)),
        (RGB8(r: 0, g: 0, b: 0), CIELab(l: 0, a: 0, b: 0)),
        (RGB8(r: 255, g: 0, b: 0), CIELab(l: 53.24, a: 80.09, b: 67.20)),
        (RGB8(r: 0, g: 255, b: 0), CIELab(l: 87.73, a: -86.18, b: 83.18)),
        (RGB8(r: 0, g: 0, b: 255), CIELab(l: 32.30, a: 79.19, b: -107.86)),
        (RGB8(r: 128, g: 128, b: 128), CIELab(l: 53.59, a: 0, b: 0)),
    ])
    func labReferenceValues(color: RGB8, expected: CIELab) {
        let lab = color.lab
        #expect(abs(lab.l - expected.l) <= 0.01, "L* \(lab.l) for \(color)")
        #expect(abs(lab.a - expected.a) <= 0.01, "a* \(lab.a) for \(color)")
        #expect(abs(lab.b - expected.b) <= 0.01, "b* \(lab.b) for \(color)")
    }

    @Test func lightnessRisesStrictlyWithGreyLevel() {
        var previous = -Double.infinity
        for level in UInt8.min...UInt8.max {
            let l = RGB8(r: level, g: level, b: level).lab.l
            #expect(l > previous, "L* \(l) at grey \(level)")
            previous = l
        }
    }
}
