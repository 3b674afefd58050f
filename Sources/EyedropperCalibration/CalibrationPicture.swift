import Eyedropper

/// What `calibrate --picture` draws, for a person to check a calibration at a glance: the frame
/// with each patch's sampling window outlined and numbered (a window on the wrong patch shows at
/// once), above a grid of the 24 patches, reference beside corrected, each with its Delta E.
///
/// Pixels only: the command encodes the picture (JPEG, PPM).
public enum CalibrationPicture {
    /// One patch's sampling window in the frame, in pixels.
    public struct Window: Hashable, Sendable {
        /// The patch, 1...24 row by row from the chart's top left.
        public var number: Int
        /// The pixel column of the window's centre.
        public var centerX: Int
        /// The pixel row of the window's centre.
        public var centerY: Int
        /// The window is (2r+1) x (2r+1) pixels, clipped to the frame.
        public var radius: Int
        /// False when the patch was left out of the fit (clipped or not uniform): outlined and
        /// numbered in the warning colour.
        public var used: Bool
        /// The patch's outline, its four corners in pixels, drawn as a thin light line; empty
        /// draws none.
        public var patch: [SIMD2<Double>]

        public init(number: Int, centerX: Int, centerY: Int, radius: Int, used: Bool, patch: [SIMD2<Double>] = []) {
            self.number = number
            self.centerX = centerX
            self.centerY = centerY
            self.radius = radius
            self.used = used
            self.patch = patch
        }
    }

    /// One patch in the grid below the frame.
    public struct Swatch: Hashable, Sendable {
        /// The patch, 1...24 row by row from the chart's top left: where its cell is in the grid.
        public var number: Int
        /// The reference colour shown as sRGB.
        public var reference: RGB8
        /// The camera's corrected colour as sRGB; nil when the patch was not measured usably
        /// (the swatch is then hatched grey).
        public var corrected: RGB8?
        /// CIEDE2000 between them; nil when `corrected` is nil. Above `deltaEWarning` the cell's
        /// border and caption are in the warning colour.
        public var deltaE: Double?

        public init(number: Int, reference: RGB8, corrected: RGB8?, deltaE: Double?) {
            self.number = number
            self.reference = reference
            self.corrected = corrected
            self.deltaE = deltaE
        }
    }

    /// The Delta E above which a patch's cell is marked in the warning colour: a difference an
    /// observer sees at a glance.
    public static let deltaEWarning = 3.0

    /// The colours the picture draws with.
    package enum Palette {
        /// The outline's inner ring and the backing of text: shows on light patches.
        package static let dark = RGB8(r: 0, g: 0, b: 0)
        /// The outline's outer ring and text: shows on dark patches and the chart's black surround.
        package static let light = RGB8(r: 255, g: 255, b: 255)
        /// An unused window's inner ring and label backing, the border and caption of a cell above
        /// `deltaEWarning`.
        package static let warning = RGB8(r: 255, g: 0, b: 0)
        /// Around the grid's cells.
        package static let background = RGB8(r: 48, g: 48, b: 48)
        /// The stripes of a swatch that was not measured: neutral, and no flat colour.
        package static let hatch = (RGB8(r: 96, g: 96, b: 96), RGB8(r: 160, g: 160, b: 160))
    }

    /// The frame with every window outlined and numbered, above a 6 x 4 grid of the swatches
    /// (left half reference, right half corrected, number and Delta E written in the cell).
    ///
    /// As wide as the frame, and `Layout.gridHeight` rows taller. Outlines, numbers and anything
    /// else drawn for a window stay within the frame's rows; the pixels inside the windows are
    /// put back last, so what was measured is shown as it was even where windows crowd. Patches
    /// without a swatch leave their cell empty.
    public static func render(frame: RGBImage, windows: [Window], swatches: [Swatch]) -> RGBImage {
        for window in windows {
            precondition((1...24).contains(window.number), "window number \(window.number) is not a patch of a 24-patch chart (1...24)")
            precondition(window.radius >= 0, "window \(window.number) has a negative radius \(window.radius)")
        }
        var numbers = Set<Int>()
        for swatch in swatches {
            precondition((1...24).contains(swatch.number), "swatch number \(swatch.number) is not a patch of a 24-patch chart (1...24)")
            precondition(numbers.insert(swatch.number).inserted, "two swatches for patch \(swatch.number): each cell holds one")
            precondition(swatch.corrected != nil || swatch.deltaE == nil, "swatch \(swatch.number) has a Delta E but no corrected colour")
            if let deltaE = swatch.deltaE {
                precondition(
                    (0...1000).contains(deltaE), "swatch \(swatch.number)'s Delta E \(deltaE) is not a CIEDE2000 between real colours")
            }
        }

        let layout = Layout(frameWidth: frame.width, frameHeight: frame.height)
        var canvas = Canvas(frame, rowsBelow: layout.gridHeight, background: Palette.background)
        // Unused windows last, so a warning is never covered by a neighbour's outline.
        let ordered = windows.filter(\.used) + windows.filter { !$0.used }
        for window in windows { drawPatch(of: window, on: &canvas, layout) }
        for window in ordered { drawOutline(of: window, on: &canvas, layout) }
        for window in ordered { drawLabel(of: window, on: &canvas, layout) }
        for window in windows { canvas.restore(layout.interior(of: window), from: frame) }
        for swatch in swatches { drawCell(of: swatch, on: &canvas, layout) }
        return canvas.image
    }

    /// The patch's edges, one light pixel wide: on the chart's dark gaps, where the patch ends.
    static func drawPatch(of window: Window, on canvas: inout Canvas, _ layout: Layout) {
        let corners = window.patch
        for (index, start) in corners.enumerated() {
            let end = corners[(index + 1) % corners.count], d = end - start
            let steps = max(1, Int((2 * max(abs(d.x), abs(d.y))).rounded(.up)))
            for step in 0...steps {
                let p = start + d * (Double(step) / Double(steps))
                guard p.x.isFinite, p.y.isFinite, abs(p.x) < 1e6, abs(p.y) < 1e6 else { continue }
                let box = PixelBox(x: Int(p.x.rounded(.down)), y: Int(p.y.rounded(.down)), width: 1, height: 1)
                canvas.fill(box, Palette.light, clip: layout.frame)
            }
        }
    }

    /// Two rings just outside the window: the inner one dark (red when unused), the outer one light.
    static func drawOutline(of window: Window, on canvas: inout Canvas, _ layout: Layout) {
        let ring = layout.ringWidth
        canvas.ring(layout.outline(of: window), thickness: ring, Palette.light, clip: layout.frame)
        canvas.ring(
            layout.interior(of: window).expanded(by: ring), thickness: ring,
            window.used ? Palette.dark : Palette.warning, clip: layout.frame)
    }

    /// The window's number, light on a dark (red when unused) box.
    static func drawLabel(of window: Window, on canvas: inout Canvas, _ layout: Layout) {
        let label = layout.label(of: window)
        canvas.fill(label.box, window.used ? Palette.dark : Palette.warning, clip: layout.frame)
        canvas.write(label.text, x: label.textX, y: label.textY, scale: label.scale, Palette.light, clip: layout.frame)
    }

    /// One cell of the grid: the swatches, the number, the caption, and when the patch is off a
    /// border and caption in the warning colour.
    static func drawCell(of swatch: Swatch, on canvas: inout Canvas, _ layout: Layout) {
        let number = swatch.number
        let content = layout.content(number)
        let isOff = swatch.deltaE.map { $0 > deltaEWarning } ?? false
        if isOff {
            canvas.ring(layout.cell(number), thickness: layout.border, Palette.warning, clip: layout.cell(number))
        }
        canvas.fill(layout.reference(number), swatch.reference, clip: content)
        if let corrected = swatch.corrected {
            canvas.fill(layout.corrected(number), corrected, clip: content)
        } else {
            canvas.hatch(layout.corrected(number), Palette.hatch.0, Palette.hatch.1, stripe: 2 * layout.unit, clip: content)
        }
        let label = layout.numberLabel(number)
        canvas.fill(label.box, Palette.dark, clip: layout.reference(number))
        canvas.write(label.text, x: label.textX, y: label.textY, scale: label.scale, Palette.light, clip: layout.reference(number))
        let caption = layout.deltaELabel(number, deltaE: swatch.deltaE)
        canvas.fill(caption.box, isOff ? Palette.warning : Palette.dark, clip: content)
        canvas.write(caption.text, x: caption.textX, y: caption.textY, scale: caption.scale, Palette.light, clip: caption.box)
    }
}
