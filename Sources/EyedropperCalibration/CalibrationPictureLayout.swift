import Eyedropper

extension CalibrationPicture {
    /// A line of text on its backing box: where `render` writes it and where a test reads it.
    package struct TextLabel: Hashable, Sendable {
        package var text: String
        /// The backing box, `text` and a margin of padding around it.
        package var box: PixelBox
        /// The top-left pixel of the first glyph.
        package var textX: Int
        package var textY: Int
        /// Pixels per font dot.
        package var scale: Int
    }

    /// Where the picture puts everything, from the frame's size alone: `render` draws by it and
    /// the tests look where it says.
    ///
    /// All sizes are multiples of `unit`, so the picture looks the same at any resolution: the
    /// frame on top, as it is, then a grid of 6 x 4 cells as wide as the frame allows. A cell is a
    /// border (red when the patch is off), two square swatches side by side, reference on the left
    /// and corrected on the right, the patch number in the reference's top-left corner and a caption
    /// band with the Delta E below them.
    package struct Layout: Hashable, Sendable {
        /// Patches per row and rows of the ColorChecker Classic 24.
        package static let columns = 6
        package static let rows = 4
        /// The widest caption the grid text is sized for: `dE 12.34`.
        static let widestCaption = "dE 12.34"

        package let frameWidth: Int
        package let frameHeight: Int
        /// What every size is a multiple of: 1 pixel for each 360 lines of the frame's shorter
        /// side, at least 1 (1 at 640 x 480, 2 at 1280 x 720, 3 at 1920 x 1080, 6 at 3840 x 2160).
        package let unit: Int
        /// Pixels per font dot of the grid's text: that of the window numbers, or less when a
        /// cell is too narrow for `dE 12.34` at that size; at least 1.
        package let gridTextScale: Int
        /// The first column of the grid: the columns the six cells leave over are split evenly
        /// either side.
        package let gridLeft: Int
        /// The pixels from one cell's left edge to the next one's, and from one row's top to the next one's.
        package let cellWidth: Int
        package let cellHeight: Int
        /// The pixels of one swatch, reference or corrected: a square.
        package let swatchWidth: Int
        package var swatchHeight: Int { swatchWidth }
        /// The height of the caption band under the swatches.
        package let captionHeight: Int

        package init(frameWidth: Int, frameHeight: Int) {
            precondition(frameWidth > 0 && frameHeight > 0, "a \(frameWidth)x\(frameHeight) frame has no pixels to lay out")
            self.frameWidth = frameWidth
            self.frameHeight = frameHeight
            unit = max(1, min(frameWidth, frameHeight) / 360)
            cellWidth = frameWidth / Self.columns
            gridLeft = (frameWidth - Self.columns * cellWidth) / 2
            let contentWidth = max(0, cellWidth - 2 * 2 * unit)
            let captionDots = Self.widestCaption.utf8.count * BitmapFont.advance - 1
            gridTextScale = max(1, min(2 * unit, (contentWidth - 2 * unit) / captionDots))
            swatchWidth = contentWidth / 2
            captionHeight = BitmapFont.height(scale: gridTextScale) + 2 * unit
            cellHeight = swatchWidth + captionHeight + 2 * 2 * unit  // the swatch is square
        }

        /// The pixels of one outline ring: two units, so that a JPEG with 4:2:0 chroma, which
        /// keeps one colour per 2 x 2 pixels, still shows a red ring as red.
        package var ringWidth: Int { 2 * unit }
        /// Pixels per font dot of the window numbers.
        package var labelScale: Int { 2 * unit }
        /// The thickness of a cell's border.
        package var border: Int { 2 * unit }
        /// The margin of a backing box around its text.
        package var padding: Int { unit }
        /// The rows the grid adds below the frame.
        package var gridHeight: Int { Self.rows * cellHeight }
        /// The frame's pixels in the picture: nothing drawn for a window leaves it.
        package var frame: PixelBox { PixelBox(x: 0, y: 0, width: frameWidth, height: frameHeight) }

        // MARK: The frame

        /// The pixels a window measured.
        package func interior(of window: Window) -> PixelBox {
            PixelBox(centerX: window.centerX, centerY: window.centerY, radius: window.radius)
        }

        /// The window with its outline around it: the `ringWidth` pixels just outside the window
        /// are the inner, dark ring, the next `ringWidth` the outer, light one.
        package func outline(of window: Window) -> PixelBox { interior(of: window).expanded(by: 2 * ringWidth) }

        /// The window's number on its backing box: centred above the outline, touching it, or
        /// below it when there is no room above; moved sideways to stay within the frame.
        package func label(of window: Window) -> TextLabel {
            let text = String(window.number)
            let scale = labelScale
            let width = BitmapFont.width(of: text, scale: scale) + 2 * padding
            let height = BitmapFont.height(scale: scale) + 2 * padding
            let ring = outline(of: window)
            var x = window.centerX - width / 2
            if width <= frameWidth { x = min(max(x, 0), frameWidth - width) }
            let above = ring.y - height
            let y = above >= 0 ? above : ring.bottom
            return TextLabel(
                text: text, box: PixelBox(x: x, y: y, width: width, height: height),
                textX: x + padding, textY: y + padding, scale: scale)
        }

        // MARK: The grid

        /// The whole cell of patch `number` (1...24, row by row from the top left), border included.
        package func cell(_ number: Int) -> PixelBox {
            precondition((1...Self.columns * Self.rows).contains(number), "patch \(number) is not on a 24-patch chart (1...24)")
            let index = number - 1
            return PixelBox(
                x: gridLeft + (index % Self.columns) * cellWidth, y: frameHeight + (index / Self.columns) * cellHeight,
                width: cellWidth, height: cellHeight)
        }

        /// The cell inside its border: swatches and caption.
        package func content(_ number: Int) -> PixelBox { cell(number).expanded(by: -border) }

        /// The reference colour's swatch, on the left.
        package func reference(_ number: Int) -> PixelBox {
            let content = content(number)
            return PixelBox(x: content.x, y: content.y, width: swatchWidth, height: swatchHeight)
        }

        /// The corrected colour's swatch, on the right.
        package func corrected(_ number: Int) -> PixelBox {
            let content = content(number)
            return PixelBox(x: content.x + swatchWidth, y: content.y, width: swatchWidth, height: swatchHeight)
        }

        /// The band under the swatches that holds the Delta E.
        package func caption(_ number: Int) -> PixelBox {
            let content = content(number)
            return PixelBox(x: content.x, y: content.y + swatchHeight, width: content.width, height: captionHeight)
        }

        /// The patch number on its backing box in the reference swatch's top-left corner (drawn
        /// clipped to the swatch, which a very small frame makes narrower than the box).
        package func numberLabel(_ number: Int) -> TextLabel {
            let content = content(number)
            let text = String(number)
            let box = PixelBox(
                x: content.x, y: content.y, width: BitmapFont.width(of: text, scale: gridTextScale) + 2 * padding,
                height: BitmapFont.height(scale: gridTextScale) + 2 * padding)
            return TextLabel(text: text, box: box, textX: box.x + padding, textY: box.y + padding, scale: gridTextScale)
        }

        /// `dE` and the Delta E, centred in the caption band: 2 decimals, fewer when the caption
        /// would not fit them; `dE -` when the patch was not measured.
        package func deltaELabel(_ number: Int, deltaE: Double?) -> TextLabel {
            let caption = caption(number)
            var text = "dE -"
            if let deltaE {
                for decimals in stride(from: 2, through: 0, by: -1) {
                    text = "dE " + DecimalText.fixed(deltaE, decimals)
                    if BitmapFont.width(of: text, scale: gridTextScale) <= caption.width - 2 * padding { break }
                }
            }
            let width = BitmapFont.width(of: text, scale: gridTextScale)
            let x = caption.x + (caption.width - width) / 2
            return TextLabel(text: text, box: caption, textX: x, textY: caption.y + padding, scale: gridTextScale)
        }
    }
}
