import Eyedropper
import EyedropperCalibration
import EyedropperTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

private typealias Window = CalibrationPicture.Window
private typealias Swatch = CalibrationPicture.Swatch
private typealias Layout = CalibrationPicture.Layout
private typealias Palette = CalibrationPicture.Palette

/// A frame whose every pixel differs from its neighbours', so a pixel drawn over or moved shows.
private func patternFrame(width: Int, height: Int) -> RGBImage {
    var pixels = [UInt8]()
    pixels.reserveCapacity(3 * width * height)
    for y in 0..<height {
        for x in 0..<width {
            pixels += [UInt8(truncatingIfNeeded: x * 7 + y), UInt8(truncatingIfNeeded: y * 5 + x / 3), UInt8(truncatingIfNeeded: x ^ y)]
        }
    }
    return RGBImage(width: width, height: height, pixels: pixels)
}

/// The ColorChecker Classic 24's colours as sRGB, patch 1 first: distinct, and what the grid shows.
private let chartColors: [RGB8] = [
    (115, 82, 68), (194, 150, 130), (98, 122, 157), (87, 108, 67), (133, 128, 177), (103, 189, 170),
    (214, 126, 44), (80, 91, 166), (193, 90, 99), (94, 60, 108), (157, 188, 64), (224, 163, 46),
    (56, 61, 150), (70, 148, 73), (175, 54, 60), (231, 199, 31), (187, 86, 149), (8, 133, 161),
    (243, 243, 242), (200, 200, 200), (160, 160, 160), (122, 122, 121), (85, 85, 85), (52, 52, 52),
].map { RGB8(r: $0.0, g: $0.1, b: $0.2) }

/// A corrected colour unlike every reference colour: the reference with its channels rotated.
private func correctedColor(_ number: Int) -> RGB8 {
    let reference = chartColors[number - 1]
    return RGB8(r: reference.g, g: reference.b, b: reference.r &+ 1)
}

/// Every pixel of `box` for which `isWrong` says so, as "(x, y) colour", the first few.
private func wrongPixels(in image: RGBImage, _ box: PixelBox, _ isWrong: (Int, Int, RGB8) -> Bool) -> [String] {
    var wrong = [String]()
    for y in box.y..<box.bottom {
        for x in box.x..<box.right {
            let color = image.pixel(x: x, y: y)
            if isWrong(x, y, color) && wrong.count < 5 { wrong.append("(\(x), \(y)) \(color)") }
        }
    }
    return wrong
}

/// The text at `label`'s place read back dot by dot against the font: a dot is inked when all
/// its pixels are light and blank when none is; a glyph the font does not draw, or a dot half
/// inked, reads as "?".
private func read(_ label: CalibrationPicture.TextLabel, in image: RGBImage) -> String {
    var text = ""
    for slot in 0..<label.text.utf8.count {
        var dots = [Bool]()
        var mixed = false
        for row in 0..<BitmapFont.glyphHeight {
            for column in 0..<BitmapFont.glyphWidth {
                let left = label.textX + (slot * BitmapFont.advance + column) * label.scale, top = label.textY + row * label.scale
                var light = 0
                for y in top..<(top + label.scale) {
                    for x in left..<(left + label.scale) where image.pixel(x: x, y: y) == Palette.light { light += 1 }
                }
                mixed = mixed || (light != 0 && light != label.scale * label.scale)
                dots.append(light != 0)
            }
        }
        let match = BitmapFont.characters.first { character in
            (0..<dots.count).allSatisfy {
                dots[$0] == BitmapFont.isInked(character, column: $0 % BitmapFont.glyphWidth, row: $0 / BitmapFont.glyphWidth)
            }
        }
        text += mixed ? "?" : match.map { String(UnicodeScalar($0)) } ?? "?"
    }
    return text
}

/// How far (x, y) lies outside `box`, in the larger of the two directions; 0 inside.
private func distance(_ x: Int, _ y: Int, outside box: PixelBox) -> Int {
    max(0, box.x - x, x - (box.right - 1), box.y - y, y - (box.bottom - 1))
}

@Suite struct CalibrationPictureTests {
    /// The picture is the frame, unchanged, above a grid of 24 cells that lies whole within it,
    /// and the unit grows with the frame. Catches a grid height not added or too short for the
    /// last row, a frame copied shifted or with a wrong stride, cells overlapping, and sizes that
    /// stay at 640 x 480's on a 4K frame.
    @Test(arguments: [(640, 480, 1), (1280, 720, 2), (1920, 1080, 3), (3840, 2160, 6), (97, 61, 1), (1, 1, 1)])
    func pictureIsTheFrameAboveTheGrid(width: Int, height: Int, unit: Int) {
        let frame = patternFrame(width: width, height: height)
        let picture = CalibrationPicture.render(frame: frame, windows: [], swatches: [])
        let layout = Layout(frameWidth: width, frameHeight: height)
        #expect(layout.unit == unit)
        #expect(picture.width == width)
        #expect(picture.height == height + layout.gridHeight)
        #expect(layout.gridHeight > 0)
        #expect(Array(picture.pixels.prefix(frame.pixels.count)) == frame.pixels)
        #expect(layout.cellWidth == width / 6)
        for number in 1...24 {
            let cell = layout.cell(number)
            #expect(cell.x >= 0 && cell.right <= width && cell.y >= height && cell.bottom <= picture.height, "cell \(number): \(cell)")
            if number % 6 != 0 { #expect(layout.cell(number + 1).x == cell.right) }
            if number <= 18 { #expect(layout.cell(number + 6).y == cell.bottom) }
        }
    }

    /// The outline is two rings of `ringWidth` pixels just outside the window, dark then light, and
    /// the window's own pixels (what was measured) are untouched, as is everything past the rings
    /// but the label. Catches an outline drawn over the window, a gap or overlap of a pixel, the
    /// rings swapped, and a thickness that does not scale.
    @Test(arguments: [(640, 480), (1280, 720), (3840, 2160)])
    func outlineRingsSitJustOutsideTheWindow(width: Int, height: Int) {
        let frame = patternFrame(width: width, height: height)
        let layout = Layout(frameWidth: width, frameHeight: height)
        let window = Window(number: 8, centerX: width / 2, centerY: height / 2, radius: 10, used: true)
        let picture = CalibrationPicture.render(frame: frame, windows: [window], swatches: [])
        let interior = PixelBox(centerX: window.centerX, centerY: window.centerY, radius: window.radius)
        let ring = layout.ringWidth
        #expect(ring == 2 * layout.unit)
        let label = layout.label(of: window).box
        let wrong = wrongPixels(in: picture, interior.expanded(by: 2 * ring + 3)) { x, y, color in
            let distance = distance(x, y, outside: interior)
            if distance == 0 { return color != frame.pixel(x: x, y: y) }
            if distance <= ring { return color != Palette.dark }
            if distance <= 2 * ring { return color != Palette.light }
            return !label.contains(x: x, y: y) && color != frame.pixel(x: x, y: y)
        }
        #expect(wrong.isEmpty, "ring \(ring): \(wrong)")
    }

    /// An unused window's inner ring and label box are in the warning colour; a used one shows
    /// none of it. Catches `used` ignored or read the wrong way round.
    @Test func unusedWindowIsOutlinedInRed() {
        let frame = patternFrame(width: 640, height: 480)
        let layout = Layout(frameWidth: 640, frameHeight: 480)
        let used = Window(number: 1, centerX: 100, centerY: 200, radius: 12, used: true)
        let unused = Window(number: 2, centerX: 400, centerY: 200, radius: 12, used: false)
        let picture = CalibrationPicture.render(frame: frame, windows: [used, unused], swatches: [])
        let innerRing = { (window: Window) in
            { (x: Int, y: Int) in
                (1...layout.ringWidth).contains(distance(x, y, outside: layout.interior(of: window)))
            }
        }
        let unusedRing = wrongPixels(in: picture, layout.outline(of: unused)) { x, y, color in
            innerRing(unused)(x, y) && color != Palette.warning
        }
        #expect(unusedRing.isEmpty, "\(unusedRing)")
        let unusedLabel = wrongPixels(in: picture, layout.label(of: unused).box) { _, _, color in
            color != Palette.warning && color != Palette.light
        }
        #expect(unusedLabel.isEmpty, "\(unusedLabel)")
        let usedRing = wrongPixels(in: picture, layout.outline(of: used)) { x, y, color in
            innerRing(used)(x, y) && color != Palette.dark
        }
        #expect(usedRing.isEmpty, "\(usedRing)")
        let usedLabel = wrongPixels(in: picture, layout.label(of: used).box) { _, _, color in
            color != Palette.dark && color != Palette.light
        }
        #expect(usedLabel.isEmpty, "\(usedLabel)")
    }

    /// A window at an edge or corner, or partly or wholly outside the frame, is cut at the frame:
    /// nothing changes but pixels of the frame within its rings or label. Catches an outline that
    /// wraps to the next or previous row, spills into the grid, or indexes past the buffer.
    @Test(arguments: [(0, 0, 3), (63, 47, 3), (63, 10, 5), (0, 30, 5), (-5, -5, 2), (70, 20, 10), (31, 47, 0), (31, 0, 30)])
    func windowAtTheEdgeIsClippedToTheFrame(x: Int, y: Int, radius: Int) {
        let frame = patternFrame(width: 64, height: 48)
        let layout = Layout(frameWidth: 64, frameHeight: 48)
        let window = Window(number: 24, centerX: x, centerY: y, radius: radius, used: false)
        let plain = CalibrationPicture.render(frame: frame, windows: [], swatches: [])
        let picture = CalibrationPicture.render(frame: frame, windows: [window], swatches: [])
        #expect(picture.width == plain.width && picture.height == plain.height)
        let rings = layout.outline(of: window)
        let label = layout.label(of: window).box
        let interior = layout.interior(of: window)
        let wrong = wrongPixels(in: picture, PixelBox(x: 0, y: 0, width: picture.width, height: picture.height)) { x, y, color in
            let drawable = y < 48 && (rings.contains(x: x, y: y) || label.contains(x: x, y: y)) && !interior.contains(x: x, y: y)
            return !drawable && color != plain.pixel(x: x, y: y)
        }
        #expect(wrong.isEmpty, "\(wrong)")
        // The part of the rings inside the frame is drawn.
        let ring = rings.intersection(layout.frame)
        if !ring.isEmpty, !interior.contains(x: ring.x, y: ring.y), !label.contains(x: ring.x, y: ring.y) {
            #expect(picture.pixel(x: ring.x, y: ring.y) != plain.pixel(x: ring.x, y: ring.y))
        }
    }

    /// Each cell shows its patch's reference colour on the left and the corrected colour on the
    /// right, both whole but for the number's box, however the swatches are ordered. Catches the
    /// halves swapped, cells placed by array order instead of patch number, and text or borders
    /// drawn over the colours.
    @Test(arguments: [(640, 480), (1920, 1080), (97, 61)])
    func gridCellsHoldReferenceLeftAndCorrectedRight(width: Int, height: Int) {
        let layout = Layout(frameWidth: width, frameHeight: height)
        let swatches = (1...24).reversed().map {
            Swatch(number: $0, reference: chartColors[$0 - 1], corrected: correctedColor($0), deltaE: 4.5)
        }
        let picture = CalibrationPicture.render(frame: patternFrame(width: width, height: height), windows: [], swatches: swatches)
        #expect(layout.swatchWidth * 2 * 10 >= layout.cellWidth * 9 - 40 * layout.unit, "swatches leave the cell mostly empty")
        for number in 1...24 {
            let reference = layout.reference(number), corrected = layout.corrected(number)
            #expect(reference.right == corrected.x && reference.y == corrected.y && !reference.isEmpty)
            let numberBox = layout.numberLabel(number).box
            let left = wrongPixels(in: picture, reference) { x, y, color in
                !numberBox.contains(x: x, y: y) && color != chartColors[number - 1]
            }
            let right = wrongPixels(in: picture, corrected) { _, _, color in color != correctedColor(number) }
            #expect(left.isEmpty && right.isEmpty, "patch \(number): reference \(left), corrected \(right)")
        }
    }

    /// Window numbers are drawn with the font's glyphs, in order, where the layout says: 17 reads
    /// "17", 12 and 21 read as themselves and look different. The font's 1 and 7 are checked
    /// against drawings made here, and all ten digits differ. Catches the glyph table shifted or
    /// a digit drawn twice, the digits of a number reversed, and text at the wrong place or scale.
    @Test(arguments: [(640, 480), (3840, 2160)])
    func windowNumbersAreWrittenInTheFontsGlyphs(width: Int, height: Int) {
        func drawing(_ character: Character) -> [String] {
            (0..<7).map { row in
                String((0..<5).map { BitmapFont.isInked(UInt8(ascii: character.unicodeScalars.first!), column: $0, row: row) ? "#" : "." })
            }
        }
        #expect(drawing("1") == ["..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."])
        #expect(drawing("7") == ["#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."])
        #expect(Set("0123456789".map(drawing)).count == 10)

        let frame = RGBImage(width: width, height: height, pixels: [UInt8](repeating: 128, count: 3 * width * height))
        let layout = Layout(frameWidth: width, frameHeight: height)
        let windows = [(17, 0.2), (12, 0.5), (21, 0.8)].map {
            Window(number: $0.0, centerX: Int($0.1 * Double(width)), centerY: height / 2, radius: 8, used: true)
        }
        let picture = CalibrationPicture.render(frame: frame, windows: windows, swatches: [])
        for window in windows {
            #expect(read(layout.label(of: window), in: picture) == String(window.number))
        }
        let labels = windows.map { layout.label(of: $0) }
        let twelve = labels[1], twentyOne = labels[2]
        func ink(_ label: CalibrationPicture.TextLabel) -> [RGB8] {
            (0..<label.box.height).flatMap { dy in (0..<label.box.width).map { picture.pixel(x: label.box.x + $0, y: label.box.y + dy) } }
        }
        #expect(twelve.box.width == twentyOne.box.width && ink(twelve) != ink(twentyOne))
        // The label sits just above the outline, centred on the window.
        let outline = layout.outline(of: windows[0])
        #expect(labels[0].box.bottom == outline.y)
        #expect(abs(labels[0].box.x + labels[0].box.width / 2 - windows[0].centerX) <= 1)
    }

    /// Each cell's number and caption read back: the number, then `dE` and the Delta E to 2
    /// decimals, `dE -` when not measured. Catches captions put in the wrong cell, the wrong
    /// decimals or rounding, and text clipped by the caption band.
    @Test(arguments: [(640, 480), (3840, 2160)])
    func gridTextReadsNumberAndDeltaE(width: Int, height: Int) {
        let layout = Layout(frameWidth: width, frameHeight: height)
        // + 0.006: the third decimal rounds up, so truncating would read one hundredth low.
        let deltaE = { (number: Int) -> Double? in number == 5 ? nil : Double(number) * 0.53 + 0.006 }
        let swatches = (1...24).map {
            Swatch(number: $0, reference: chartColors[$0 - 1], corrected: deltaE($0) == nil ? nil : correctedColor($0), deltaE: deltaE($0))
        }
        let picture = CalibrationPicture.render(frame: patternFrame(width: width, height: height), windows: [], swatches: swatches)
        let texts = (1...24).map { number in
            read(layout.numberLabel(number), in: picture) + " " + read(layout.deltaELabel(number, deltaE: deltaE(number)), in: picture)
        }
        #expect(texts.prefix(6) == ["1 dE 0.54", "2 dE 1.07", "3 dE 1.60", "4 dE 2.13", "5 dE -", "6 dE 3.19"])
        #expect(texts[23] == "24 dE 12.73")
    }

    /// A patch that was not measured shows stripes of the two hatch greys, both, and nothing
    /// else, beside its reference colour. Catches nil drawn as the reference, as black or as the
    /// background, or as a flat grey a corrected colour could be.
    @Test func unmeasuredPatchIsHatched() {
        let layout = Layout(frameWidth: 640, frameHeight: 480)
        let swatch = Swatch(number: 22, reference: chartColors[21], corrected: nil, deltaE: nil)
        let picture = CalibrationPicture.render(frame: patternFrame(width: 640, height: 480), windows: [], swatches: [swatch])
        var seen = Set<RGB8>()
        let box = layout.corrected(22)
        for y in box.y..<box.bottom { for x in box.x..<box.right { seen.insert(picture.pixel(x: x, y: y)) } }
        #expect(seen == [Palette.hatch.0, Palette.hatch.1])
        #expect(picture.pixel(x: layout.reference(22).right - 1, y: layout.reference(22).bottom - 1) == chartColors[21])
    }

    /// A cell's border and caption are in the warning colour exactly when its Delta E is above 3,
    /// and the border stays outside the swatches. Catches the threshold taken as 3 or more, the
    /// mark missing or drawn on every cell.
    @Test func cellsAboveTheWarningAreBorderedRed() {
        let layout = Layout(frameWidth: 640, frameHeight: 480)
        let cases: [(Int, Double?, Bool)] = [
            (1, 2.99, false), (2, 3.0, false), (3, 3.01, true), (4, nil, false), (5, 25, true), (6, 0, false),
        ]
        let swatches = cases.map {
            Swatch(number: $0.0, reference: chartColors[$0.0 - 1], corrected: $0.1 == nil ? nil : correctedColor($0.0), deltaE: $0.1)
        }
        let picture = CalibrationPicture.render(frame: patternFrame(width: 640, height: 480), windows: [], swatches: swatches)
        for (number, deltaE, bordered) in cases {
            let cell = layout.cell(number), content = layout.content(number)
            let wrong = wrongPixels(in: picture, cell) { x, y, color in
                !content.contains(x: x, y: y) && color != (bordered ? Palette.warning : Palette.background)
            }
            let caption = wrongPixels(in: picture, layout.caption(number)) { _, _, color in
                color != Palette.light && color != (bordered ? Palette.warning : Palette.dark)
            }
            #expect(
                wrong.isEmpty && caption.isEmpty,
                "patch \(number), Delta E \(deltaE.map { "\($0)" } ?? "nil"): border \(wrong), caption \(caption)")
        }
    }
}

/// A camera's view of the chart, as the picture will mostly be drawn over: the 24 patches, a
/// little too warm, on a black surround on a grey table, with a window on each patch.
private struct SyntheticChart {
    let frame: RGBImage
    let windows: [Window]
    let swatches: [Swatch]

    init(width: Int, height: Int) {
        let scale = Double(width) / 640
        let pitch = Int(84 * scale), patch = Int(68 * scale)
        let left = (width - 6 * pitch) / 2, top = (height - 4 * pitch) / 2
        let surround = PixelBox(x: left - pitch / 4, y: top - pitch / 4, width: 6 * pitch + pitch / 3, height: 4 * pitch + pitch / 3)
        var pixels = [UInt8]()
        pixels.reserveCapacity(3 * width * height)
        for y in 0..<height {
            for x in 0..<width {
                var color = RGB8(r: UInt8(90 + 30 * y / height), g: UInt8(88 + 30 * y / height), b: UInt8(80 + 30 * y / height))
                if surround.contains(x: x, y: y) { color = RGB8(r: 24, g: 24, b: 26) }
                let column = (x - left) / pitch, row = (y - top) / pitch
                if x >= left, y >= top, column < 6, row < 4, (x - left) % pitch < patch, (y - top) % pitch < patch {
                    let reference = chartColors[row * 6 + column]
                    color = RGB8(r: UInt8(min(255, Int(reference.r) * 11 / 10)), g: reference.g, b: UInt8(Int(reference.b) * 8 / 10))
                }
                pixels += [color.r, color.g, color.b]
            }
        }
        frame = RGBImage(width: width, height: height, pixels: pixels)
        windows = (1...24).map { number in
            let column = (number - 1) % 6, row = (number - 1) / 6
            return Window(
                number: number, centerX: left + column * pitch + patch / 2, centerY: top + row * pitch + patch / 2,
                radius: patch / 5, used: number != 7 && number != 19)
        }
        swatches = (1...24).map { number in
            let reference = chartColors[number - 1]
            if number == 19 { return Swatch(number: number, reference: reference, corrected: nil, deltaE: nil) }
            let deltaE = number == 15 ? 4.37 : Double((number * 37) % 29) / 10
            let shift = Int(deltaE * 2)
            let corrected = RGB8(r: UInt8(max(0, Int(reference.r) - shift)), g: reference.g, b: UInt8(min(255, Int(reference.b) + shift)))
            return Swatch(number: number, reference: reference, corrected: corrected, deltaE: deltaE)
        }
    }
}

extension CalibrationPictureTests {
    /// On a chart as a camera sees it, every window's number and every cell's number and caption
    /// read back, at 640 x 480 and at 4K. With EYEDROPPER_PICTURE_DIR set, the pictures are also
    /// written there as PPM, for a person to look at after changing the drawing.
    @Test(arguments: [(640, 480), (3840, 2160)])
    func pictureOfAChartReadsBack(width: Int, height: Int) throws {
        let chart = SyntheticChart(width: width, height: height)
        let layout = Layout(frameWidth: width, frameHeight: height)
        let picture = CalibrationPicture.render(frame: chart.frame, windows: chart.windows, swatches: chart.swatches)
        for window in chart.windows {
            #expect(read(layout.label(of: window), in: picture) == String(window.number))
            let interior = layout.interior(of: window)
            let changed = wrongPixels(in: picture, interior) { x, y, color in color != chart.frame.pixel(x: x, y: y) }
            #expect(changed.isEmpty, "window \(window.number): \(changed)")
        }
        for swatch in chart.swatches {
            #expect(read(layout.numberLabel(swatch.number), in: picture) == String(swatch.number))
            #expect(
                read(layout.deltaELabel(swatch.number, deltaE: swatch.deltaE), in: picture)
                    == (swatch.deltaE.map { String(format: "dE %.2f", $0) } ?? "dE -"))  // the C library's rounding, not ours
        }
        if let directory = getenv("EYEDROPPER_PICTURE_DIR").map({ String(cString: $0) }) {
            try picture.pixels.withUnsafeBytes {
                try PPMWriter.write(
                    rgb24: $0, width: picture.width, height: picture.height, to: "\(directory)/calibration-\(width)x\(height).ppm")
            }
        }
    }
}
