import Eyedropper

/// A rectangle of whole pixels: `x`, `y` its top-left pixel, possibly outside an image or empty,
/// so that layouts can be computed freely and clipped once, where they are drawn.
package struct PixelBox: Hashable, Sendable, CustomStringConvertible {
    package var x: Int
    package var y: Int
    package var width: Int
    package var height: Int

    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The box of pixels within `radius` of (`centerX`, `centerY`): (2r+1) x (2r+1).
    package init(centerX: Int, centerY: Int, radius: Int) {
        self.init(x: centerX - radius, y: centerY - radius, width: 2 * radius + 1, height: 2 * radius + 1)
    }

    /// One past the last column.
    package var right: Int { x + width }
    /// One past the last row.
    package var bottom: Int { y + height }
    /// No pixel at all.
    package var isEmpty: Bool { width <= 0 || height <= 0 }

    /// The box grown by `amount` pixels on every side (shrunk when negative).
    package func expanded(by amount: Int) -> PixelBox {
        PixelBox(x: x - amount, y: y - amount, width: width + 2 * amount, height: height + 2 * amount)
    }

    /// The pixels in both boxes; empty (zero size) when they do not meet.
    package func intersection(_ other: PixelBox) -> PixelBox {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(self.right, other.right), bottom = min(self.bottom, other.bottom)
        return PixelBox(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    package func contains(x: Int, y: Int) -> Bool {
        x >= self.x && x < right && y >= self.y && y < bottom
    }

    package var description: String { "\(width)x\(height) at (\(x), \(y))" }
}
