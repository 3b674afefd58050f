import Eyedropper

/// An RGB image being drawn on: one buffer, allocated when the canvas is made. Every operation
/// is clipped to a box the caller gives and to the canvas, so a shape that reaches past an edge
/// is cut there and never wraps into the next row.
struct Canvas {
    let width: Int
    let height: Int
    /// R, G, B bytes, rows tightly packed.
    private(set) var pixels: [UInt8]

    /// `image` on top, then `rowsBelow` rows of `background`.
    init(_ image: RGBImage, rowsBelow: Int, background: RGB8) {
        precondition(rowsBelow >= 0, "cannot add \(rowsBelow) rows below an image")
        width = image.width
        height = image.height + rowsBelow
        var pixels = [UInt8]()
        pixels.reserveCapacity(3 * width * height)
        pixels.append(contentsOf: image.pixels)
        for _ in 0..<(width * rowsBelow) {
            pixels.append(background.r)
            pixels.append(background.g)
            pixels.append(background.b)
        }
        self.pixels = pixels
    }

    /// Every pixel of the canvas.
    var bounds: PixelBox { PixelBox(x: 0, y: 0, width: width, height: height) }

    /// The finished picture.
    var image: RGBImage { RGBImage(width: width, height: height, pixels: pixels) }

    /// Paints every pixel of `box` that lies in `clip`.
    mutating func fill(_ box: PixelBox, _ color: RGB8, clip: PixelBox) {
        let area = box.intersection(clip).intersection(bounds)
        guard !area.isEmpty else { return }
        for y in area.y..<area.bottom {
            var offset = 3 * (y * width + area.x)
            for _ in 0..<area.width {
                pixels[offset] = color.r
                pixels[offset + 1] = color.g
                pixels[offset + 2] = color.b
                offset += 3
            }
        }
    }

    /// Paints a ring `thickness` pixels wide along the inside of `box`'s edges.
    mutating func ring(_ box: PixelBox, thickness: Int, _ color: RGB8, clip: PixelBox) {
        let band = min(thickness, box.width, box.height)
        fill(PixelBox(x: box.x, y: box.y, width: box.width, height: band), color, clip: clip)
        fill(PixelBox(x: box.x, y: box.bottom - band, width: box.width, height: band), color, clip: clip)
        let sideHeight = box.height - 2 * band
        fill(PixelBox(x: box.x, y: box.y + band, width: band, height: sideHeight), color, clip: clip)
        fill(PixelBox(x: box.right - band, y: box.y + band, width: band, height: sideHeight), color, clip: clip)
    }

    /// Fills `box` with stripes rising to the right, `stripe` pixels wide, alternately `first`
    /// and `second`: a pattern no flat colour can be mistaken for.
    mutating func hatch(_ box: PixelBox, _ first: RGB8, _ second: RGB8, stripe: Int, clip: PixelBox) {
        precondition(stripe > 0, "a hatch stripe must be at least a pixel wide, not \(stripe)")
        let area = box.intersection(clip).intersection(bounds)
        guard !area.isEmpty else { return }
        for y in area.y..<area.bottom {
            var offset = 3 * (y * width + area.x)
            for x in area.x..<area.right {
                let color = ((x + y) / stripe) % 2 == 0 ? first : second
                pixels[offset] = color.r
                pixels[offset + 1] = color.g
                pixels[offset + 2] = color.b
                offset += 3
            }
        }
    }

    /// Draws `text`'s inked dots in `color`, each `scale` x `scale` pixels, the first glyph's
    /// top-left dot at (`x`, `y`). The pixels between dots are left as they are.
    mutating func write(_ text: String, x: Int, y: Int, scale: Int, _ color: RGB8, clip: PixelBox) {
        precondition(scale > 0, "text must be drawn at a scale of at least 1, not \(scale)")
        var left = x
        for character in text.utf8 {
            let glyph = BitmapFont.glyph(character)
            for (row, bits) in glyph.enumerated() where bits != 0 {
                for column in 0..<BitmapFont.glyphWidth where bits & (1 << (BitmapFont.glyphWidth - 1 - column)) != 0 {
                    fill(PixelBox(x: left + column * scale, y: y + row * scale, width: scale, height: scale), color, clip: clip)
                }
            }
            left += BitmapFont.advance * scale
        }
    }

    /// Puts back `image`'s own pixels in `box`: `image` must be the one the canvas was made from.
    mutating func restore(_ box: PixelBox, from image: RGBImage) {
        precondition(
            image.width == width && image.height <= height,
            "a \(image.width)x\(image.height) image is not the top of this \(width)x\(height) canvas")
        let area = box.intersection(PixelBox(x: 0, y: 0, width: image.width, height: image.height))
        guard !area.isEmpty else { return }
        for y in area.y..<area.bottom {
            let start = 3 * (y * width + area.x), end = start + 3 * area.width
            pixels.replaceSubrange(start..<end, with: image.pixels[start..<end])
        }
    }
}
