import Eyedropper

/// A 5 x 7 dot font for the few characters a picture labels things with: digits, '.', '-', space,
/// and "dE" (Delta E, as ASCII). Each dot is drawn as a square of `scale` pixels, so the same text
/// reads on a 640 x 480 frame and on a 3840 x 2160 one.
package enum BitmapFont {
    /// Dots across one glyph.
    package static let glyphWidth = 5
    /// Dots down one glyph.
    package static let glyphHeight = 7
    /// Dots from one glyph's left edge to the next one's: the glyph and one blank column.
    package static let advance = 6

    /// The characters the font has, in the order of `drawings`.
    package static let characters = Array("0123456789.- dE".utf8)

    /// Each glyph as seven rows of five dots, '#' inked: the font as it looks.
    static let drawings: [[StaticString]] = [
        [".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."],  // 0
        ["..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."],  // 1
        [".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"],  // 2
        ["#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."],  // 3
        ["...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."],  // 4
        ["#####", "#....", "####.", "....#", "....#", "#...#", ".###."],  // 5
        ["..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."],  // 6
        ["#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."],  // 7
        [".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."],  // 8
        [".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."],  // 9
        [".....", ".....", ".....", ".....", ".....", ".##..", ".##.."],  // .
        [".....", ".....", ".....", "#####", ".....", ".....", "....."],  // -
        [".....", ".....", ".....", ".....", ".....", ".....", "....."],  // space
        ["....#", "....#", ".##.#", "#..##", "#...#", "#...#", ".####"],  // d
        ["#####", "#....", "#....", "####.", "#....", "#....", "#####"],  // E
    ]

    /// Each glyph as seven rows, bit 4 the leftmost dot: built once from `drawings`.
    static let glyphs: [[UInt8]] = drawings.map { rows in
        rows.map { row in
            precondition(row.utf8CodeUnitCount == glyphWidth, "a glyph row is not \(glyphWidth) dots: \(row)")
            var bits: UInt8 = 0
            for index in 0..<glyphWidth where row.utf8Start[index] == UInt8(ascii: "#") {
                bits |= 1 << (glyphWidth - 1 - index)
            }
            return bits
        }
    }

    /// The rows of `character`'s glyph, bit 4 the leftmost dot.
    package static func glyph(_ character: UInt8) -> [UInt8] {
        guard let index = characters.firstIndex(of: character) else {
            preconditionFailure(
                "the font has no glyph for \(Unicode.Scalar(character).escaped(asASCII: true)): only \(String(decoding: characters, as: UTF8.self))"
            )
        }
        return glyphs[index]
    }

    /// Whether the dot at (`column`, `row`) of `character` is inked.
    package static func isInked(_ character: UInt8, column: Int, row: Int) -> Bool {
        glyph(character)[row] & (1 << (glyphWidth - 1 - column)) != 0
    }

    /// The width in pixels of `text` at `scale`: no blank column after the last glyph.
    package static func width(of text: String, scale: Int) -> Int {
        let count = text.utf8.count
        return count == 0 ? 0 : (count * advance - 1) * scale
    }

    /// The height in pixels of a line at `scale`.
    package static func height(scale: Int) -> Int { glyphHeight * scale }
}
