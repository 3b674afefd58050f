import Eyedropper
import EyedropperCalibration
import EyedropperTestSupport
import Foundation
import Testing

/// A colour spread over L*a*b* as cameras see it: L* in `lightness`, chroma up to 130 (denser
/// near grey), any hue.
private func randomLab(_ random: inout TestRandom, lightness: ClosedRange<Double> = 0...100) -> SIMD3<Double> {
    let l = Double.random(in: lightness, using: &random)
    let chroma = 130 * Double.random(in: 0...1, using: &random).squareRoot()
    let hue = Double.random(in: 0..<(2 * .pi), using: &random)
    return SIMD3(l, chroma * cos(hue), chroma * sin(hue))
}

private func lab(_ value: SIMD3<Double>) -> CIELab { CIELab(l: value.x, a: value.y, b: value.z) }

/// What `match` must give, written the plain way: every entry ranked by (ΔE00, entry number);
/// the first, then the first whose L*a*b* differs from it.
private func reference(_ palette: Palette, _ query: SIMD3<Double>) -> PaletteMatch {
    let distances = palette.entries.map { lab($0.lab).deltaE2000(lab(query)) }
    let ranked = distances.indices.sorted { (distances[$0], $0) < (distances[$1], $1) }
    let nearest = ranked[0]
    let next = ranked.first { palette.entries[$0].lab != palette.entries[nearest].lab }
    return PaletteMatch(
        entry: Int32(nearest), deltaE: distances[nearest], next: Int32(next ?? -1), nextDeltaE: next.map { distances[$0] } ?? .nan)
}

/// Equal field by field, NaN equal to NaN (`==` on `PaletteMatch` says NaN differs from itself).
private func same(_ x: PaletteMatch, _ y: PaletteMatch) -> Bool {
    x.entry == y.entry && x.next == y.next && (x.deltaE == y.deltaE || (x.deltaE.isNaN && y.deltaE.isNaN))
        && (x.nextDeltaE == y.nextDeltaE || (x.nextDeltaE.isNaN && y.nextDeltaE.isNaN))
}

private func randomPalette(_ count: Int, seed: UInt64) throws -> Palette {
    var random = TestRandom(seed: seed)
    return try Palette(entries: (0..<count).map { Palette.Entry(name: "c\($0)", lab: randomLab(&random)) })
}

/// The repository's Packaging/palettes directory.
private let palettes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Packaging/palettes").path

@Suite struct PaletteBoundTests {
    /// Catches a bound that is above ΔE00 anywhere (a T range too narrow, R_T's sin 60° left out,
    /// a sign wrong in ΔH'^2): the search would pass over the true nearest entry.
    @Test func lowerBoundNeverExceedsDeltaE2000OnAMillionRandomPairs() {
        var random = TestRandom(seed: 26)
        var violations: [(SIMD3<Double>, SIMD3<Double>, Double, Double)] = []
        var tight = 0
        let count = 1_000_000
        for index in 0..<count {
            // Half far apart over the whole space (L* a little outside 0...100, as calibrated
            // colours can be); half near each other, where names are decided.
            let first = randomLab(&random, lightness: -10...110)
            let second: SIMD3<Double> =
                index.isMultiple(of: 2)
                ? randomLab(&random, lightness: -10...110)
                : first
                    + SIMD3(
                        Double.random(in: -4...4, using: &random), Double.random(in: -6...6, using: &random),
                        Double.random(in: -6...6, using: &random))
            let exact = lab(first).deltaE2000(lab(second))
            let bound = Palette.deltaE2000LowerBound(lab(first), lab(second))
            if bound > exact * (1 + 1e-12) + 1e-12, violations.count < 5 { violations.append((first, second, bound, exact)) }
            if bound >= 0.5 * exact { tight += 1 }
        }
        #expect(violations.isEmpty, "bound above ΔE00: \(violations)")
        // Catches a bound that is correct but useless (0, or |ΔL*| alone): the search would still
        // be exact, but compute ΔE00 for most entries. Measured: about 90% are within half.
        #expect(tight > count * 3 / 4, "only \(tight) of \(count) bounds are at least half of ΔE00")
    }

    /// The same on the pairs chosen to reach every branch of the formula (zero chroma, hue
    /// wrap-around, mean hues 180° apart), both ways round.
    @Test func lowerBoundNeverExceedsDeltaE2000OnSharmasPairs() {
        for (index, (first, second, _)) in sharmaPairs.enumerated() {
            for (x, y) in [(first, second), (second, first)] {
                let exact = x.deltaE2000(y), bound = Palette.deltaE2000LowerBound(x, y)
                #expect(bound <= exact * (1 + 1e-12), "pair \(index + 1): bound \(bound), ΔE00 \(exact)")
            }
        }
    }
}

@Suite struct PaletteMatchTests {
    /// Catches any search that prunes wrongly, breaks ties differently from file order, or lets
    /// an alias of the nearest be `next`: random palettes of 1, 2, 24 and 1000 entries against
    /// the plain ranking, over random queries (L* -10...110), queries at the entries themselves
    /// (ΔE 0) and at entries nudged.
    @Test(arguments: [1, 2, 24, 1000])
    func matchEqualsBruteForceOnRandomPalettes(size: Int) throws {
        let palette = try randomPalette(size, seed: UInt64(size))
        var random = TestRandom(seed: 99)
        var queries = (0..<3000).map { _ in randomLab(&random, lightness: -10...110) }
        queries += palette.entries.map(\.lab)
        queries += palette.entries.prefix(500).map { $0.lab + SIMD3(0.3, -0.2, 0.1) }
        var mismatches: [String] = []
        for query in queries {
            let found = palette.match(query), expected = reference(palette, query)
            if !same(found, expected) && mismatches.count < 5 { mismatches.append("\(query): \(found), expected \(expected)") }
            if !same(palette.matchByBruteForce(query), expected) && mismatches.count < 5 {
                mismatches.append("brute force at \(query): \(palette.matchByBruteForce(query))")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    /// Catches ties broken by L* order instead of entry number, and aliases counted as `next`: a
    /// palette on a coarse grid has many entries at equal ΔE00 from a grid query, and repeated
    /// colours under other names.
    @Test func matchEqualsBruteForceWithTiesAndAliases() throws {
        var random = TestRandom(seed: 7)
        var entries: [Palette.Entry] = []
        for index in 0..<600 {
            let value = SIMD3(
                Double(Int.random(in: 3...9, using: &random) * 10), Double(Int.random(in: -3...3, using: &random) * 10),
                Double(Int.random(in: -3...3, using: &random) * 10))
            entries.append(Palette.Entry(name: "g\(index)", lab: value))
        }
        let palette = try Palette(entries: entries)
        #expect(palette.colourCount < palette.count, "the grid should repeat colours")
        var queries: [SIMD3<Double>] = []
        for l in stride(from: 25.0, through: 95, by: 5) {
            for a in stride(from: -35.0, through: 35, by: 5) {
                for b in stride(from: -35.0, through: 35, by: 5) { queries.append(SIMD3(l, a, b)) }
            }
        }
        var mismatches: [String] = []
        for query in queries {
            let found = palette.match(query), expected = reference(palette, query)
            if !same(found, expected) && mismatches.count < 5 { mismatches.append("\(query): \(found), expected \(expected)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    /// Two grey entries equally far above and below a grey query: ΔE00 ties exactly (S_L is
    /// symmetric about 50), and the lower entry number wins even though it is the one with the
    /// greater L* (scanned first or not). Catches ties broken by search order.
    @Test func anExactTieGoesToTheFirstEntry() throws {
        let palette = try Palette(entries: [
            .init(name: "lighter", lab: SIMD3(60, 0, 0)), .init(name: "darker", lab: SIMD3(40, 0, 0)),
        ])
        let found = palette.match(SIMD3(50, 0, 0))
        #expect(found.entry == 0 && found.next == 1)
        #expect(found.deltaE == found.nextDeltaE)
    }

    /// Aliases: the first named is the match, and `next` is the nearest other colour, not the
    /// alias (which would give a margin of 0 between two names of one colour).
    @Test func anAliasIsNeverNext() throws {
        let palette = try Palette(entries: [
            .init(name: "blue", lab: SIMD3(30, 68, -112)), .init(name: "aqua", lab: SIMD3(91, -48, -14)),
            .init(name: "cyan", lab: SIMD3(91, -48, -14)),
        ])
        #expect(palette.count == 3 && palette.colourCount == 2)
        let found = palette.match(SIMD3(91, -48, -14))
        #expect(found.entry == 1 && found.deltaE == 0 && found.next == 0)
    }

    /// One colour, however many names: no `next`, NaN for its ΔE.
    @Test func aPaletteOfOneColourHasNoNext() throws {
        let palette = try Palette(entries: [.init(name: "a", lab: SIMD3(50, 10, 10)), .init(name: "b", lab: SIMD3(50, 10, 10))])
        let found = palette.match(SIMD3(20, 0, 0))
        #expect(found.entry == 0 && found.next == -1 && found.nextDeltaE.isNaN)
        #expect(found.deltaE == CIELab(l: 50, a: 10, b: 10).deltaE2000(CIELab(l: 20, a: 0, b: 0)))
    }

    /// A colour that is not a number matches entry 0 at NaN instead of trapping or giving -1.
    @Test func aColourThatIsNotANumberMatchesNothingInParticular() throws {
        let palette = try randomPalette(24, seed: 3)
        let found = palette.match(SIMD3(.nan, 0, 0))
        #expect(found.entry == 0 && found.deltaE.isNaN && found.next == -1)
    }
}

@Suite struct PaletteFileTests {
    func load(_ text: String, name: String = "palette.txt") throws -> Palette {
        let scratch = try ScratchDirectory()
        try ScratchDirectory.write(Array(text.utf8), to: scratch.file(name))
        return try Palette.load(path: scratch.file(name))
    }

    /// The error `text` gives (nil if it loads), with the scratch path replaced by `palette.txt`.
    func error(_ text: String) throws -> PaletteFileError? {
        do {
            _ = try load(text)
            return nil
        } catch let error as PaletteFileError {
            guard case .malformed(let path, let location, let reason) = error else { return error }
            return .malformed(path: path.map { URL(fileURLWithPath: $0).lastPathComponent }, at: location, reason: reason)
        }
    }

    func targetLab(_ hex: String) throws -> SIMD3<Double> {
        let lab = try ColorTarget(parsing: hex).lab
        return SIMD3(lab.l, lab.a, lab.b)
    }

    /// JSON with every colour form mixed: hex and whole sRGB values give exactly `--target`'s
    /// L*a*b* (catches a second, slightly different conversion), lab is taken as given, and
    /// fractional sRGB lies between its neighbours.
    @Test func jsonMixesLabSRGBAndHex() throws {
        let palette = try load(
            #"""
              [{"name": "red", "hex": "#FF0000"}, {"name": "also red", "srgb": [255, 0, 0]},
               {"name": "mid", "lab": [50, -3.5, 20.25]}, {"name": "half", "srgb": [127.5, 127.5, 127.5]},
               {"name": "127", "srgb": [127, 127, 127]}, {"name": "128", "hex": "#808080"}]
            """#)
        #expect(palette.count == 6 && palette.colourCount == 5)
        let (red, grey) = (try targetLab("#ff0000"), try targetLab("#808080"))
        #expect(palette.lab(0) == red && palette.lab(1) == palette.lab(0))
        #expect(palette.lab(2) == SIMD3(50, -3.5, 20.25))
        #expect(palette.lab(3).x > palette.lab(4).x && palette.lab(3).x < palette.lab(5).x)
        #expect(palette.lab(5) == grey)
        #expect(palette.name(2) == "mid")
    }

    /// The three CSV forms, with a byte order mark, CRLF, blank lines, spaces around numbers and
    /// quoted names holding commas, quotes and a line break; each names the same colours.
    @Test func csvInEachForm() throws {
        let hex = try load("\u{FEFF}name,hex\r\n\"red, pure\",#ff0000\r\n\r\n\"say \"\"grey\"\"\", #808080\r\n\"two\nlines\",#000000\r\n")
        #expect((0..<3).map { hex.name(Int32($0)) } == ["red, pure", "say \"grey\"", "two\nlines"])
        let (red, grey) = (try targetLab("#ff0000"), try targetLab("#808080"))
        #expect(hex.lab(0) == red && hex.lab(1) == grey)
        let srgb = try load("name,srgb_r,srgb_g,srgb_b\nred,255,0,0\n\ngrey, 128 ,128,128\n")
        #expect(srgb.entries.map(\.lab) == Array(hex.entries.map(\.lab).prefix(2)))
        let lab = try load("lab_l,lab_a,lab_b,name\n50,-3.5,20.25,mid\n")  // columns in any order
        #expect(lab.name(0) == "mid" && lab.lab(0) == SIMD3(50, -3.5, 20.25))
    }

    /// Catches a missing file reported as damaged (65) or without its path.
    @Test func aMissingFileIsExit66AndNamesThePath() throws {
        let scratch = try ScratchDirectory()
        #expect {
            try Palette.load(path: scratch.file("none.json"))
        } throws: { error in
            guard let error = error as? PaletteFileError else { return false }
            return error.exitStatus == 66 && error.description.contains(scratch.file("none.json"))
                && error.description.contains("check the path")
        }
    }

    /// A directory given for the file: 65, and says to give a file.
    @Test func aDirectoryIsExit65() throws {
        let scratch = try ScratchDirectory()
        #expect {
            try Palette.load(path: scratch.path)
        } throws: { error in
            guard let error = error as? PaletteFileError else { return false }
            return error.exitStatus == 65 && error.description.contains("give the path of a file")
        }
    }

    /// A file the user may not read: 77. Root reads any file, so this is skipped when run as root.
    @Test(.enabled(if: geteuid() != 0, "root can read a file of mode 000")) func anUnreadableFileIsExit77() throws {
        let scratch = try ScratchDirectory()
        try ScratchDirectory.write(Array("[]".utf8), to: scratch.file("p.json"))
        chmod(scratch.file("p.json"), 0)
        #expect {
            try Palette.load(path: scratch.file("p.json"))
        } throws: { error in (error as? PaletteFileError)?.exitStatus == 77 }
    }

    /// Each damaged file: the message names the file, where (entry or line), the value and what
    /// to do, and the status is 65. Catches an error that names the wrong entry or line (CSV
    /// lines counted without the blank one, entries from 0) or falls through to another status.
    @Test func eachDamagedFileSaysWhereAndWhat() throws {
        let cases: [(String, PaletteFileError.Location?, String)] = [
            ("[{\"name\": \"red\", \"hex\": \"#ff0000\"},", nil, "not a JSON array of entries"),
            ("[{\"name\": \"red\", \"hex\": \"#ff0000\"}, 3]", .entry(2), "it is not an object"),
            ("[{\"name\": \"red\", \"hex\": \"#ff00\"}]", .entry(1), "\"red\": the hex colour \"#ff00\" is not #rrggbb"),
            ("[{\"name\": \"red\", \"rgb\": [1, 2, 3]}]", .entry(1), "a field \"rgb\" that palettes do not have"),
            ("[{\"hex\": \"#ff0000\"}]", .entry(1), "it has no \"name\""),
            ("[{\"name\": \"red\", \"hex\": \"#ff0000\", \"lab\": [1, 2, 3]}]", .entry(1), "\"red\" has \"hex\" and \"lab\""),
            ("[{\"name\": \"red\", \"srgb\": [256, 0, 0]}]", .entry(1), "give three numbers in 0...255"),
            (
                "[{\"name\": \"a\", \"hex\": \"#ff0000\"}, {\"name\": \"b\", \"hex\": \"#00ff00\"}, {\"name\": \"a\", \"hex\": \"#0000ff\"}]",
                .entry(3),
                "the name \"a\" is also entry 1: give each entry its own name"
            ),
            ("[{\"name\": \"Unknown\", \"hex\": \"#ff0000\"}]", .entry(1), "is kept for colours too far from every entry"),
            ("[{\"name\": \"\", \"hex\": \"#ff0000\"}]", .entry(1), "the name is empty"),
            ("[{\"name\": \"white+\", \"lab\": [100.5, 0, 0]}]", .entry(1), "\"white+\"'s L* is 100.5: L* must be in 0...100"),
            ("[]", nil, "it has no entries"),
            ("name,lab_l,lab_a\nred,50,1\n", .line(1), "no column lab_b"),
            ("colour,hex\nred,#ff0000\n", .line(1), "has no column name"),
            ("name,hex\nred,#ff0000\n\nred,#00ff00\n", .line(4), "the name \"red\" is also line 2"),
            ("name,hex\nred,#ff0000\ngreen,#00ff00,x\n", .line(3), "it has 3 fields, the header 2"),
            ("name,lab_l,lab_a,lab_b\nred,fifty,1,2\n", .line(2), "\"red\": lab_l, lab_a, lab_b are fifty, 1, 2: give three numbers"),
            ("name,hex\n\"red,#ff0000\n", .line(2), "a quoted field is never closed"),
        ]
        for (text, location, reason) in cases {
            let found = try error(text)
            guard case .malformed("palette.txt", let foundLocation, let foundReason) = found else {
                Issue.record("\(text): \(String(describing: found))")
                continue
            }
            #expect(foundLocation == location && foundReason.contains(reason), "\(text): \(found!)")
            #expect(found!.exitStatus == 65)
            #expect(found!.description.hasPrefix("the palette palette.txt" + (location.map { ", \($0)," } ?? "")))
        }
    }

    /// More than 100 000 entries is refused, naming the count; exactly that many loads.
    @Test func theEntryLimit() throws {
        let entries = (0...Palette.maximumCount).map { Palette.Entry(name: "c\($0)", lab: SIMD3(Double($0 % 101), 0, 0)) }
        #expect(
            throws: PaletteFileError.malformed(
                path: nil, at: nil, reason: "it has 100001 entries, more than 100000: split it, or keep the colours you use")
        ) {
            try Palette(entries: entries)
        }
        #expect(try Palette(entries: Array(entries.dropLast())).count == Palette.maximumCount)
    }

    /// Names that need escaping in JSON (quote, backslash, control characters) and non-ASCII
    /// ones: `jsonName` parses back to the name (catches a missing escape or a \u that is not
    /// JSON), `csvName` read back by the CSV reader gives the name (catches quoting left out),
    /// and the UTF-8 view holds its bytes.
    @Test func namesRoundTrip() throws {
        let names = ["say \"hi\"", "back\\slash", "tab\tnew\nline\u{01}", "grün", "日本の赤", "a,b", "🎨", "plain"]
        let palette = try Palette(entries: names.enumerated().map { .init(name: $1, lab: SIMD3(Double($0), 0, 0)) })
        var csv = "name,lab_l,lab_a,lab_b\n"
        for index in names.indices {
            let entry = Int32(index)
            let parsed = try JSONSerialization.jsonObject(with: Data(palette.jsonName(entry).utf8), options: .fragmentsAllowed)
            #expect(parsed as? String == names[index], "\(palette.jsonName(entry))")
            #expect(palette.withUTF8Name(entry) { Array($0) } == Array(names[index].utf8))
            csv += "\(palette.csvName(entry)),\(index),0,0\n"
        }
        #expect(palette.csvName(7) == "plain" && palette.csvName(5) == "\"a,b\"")
        #expect(palette.longestNameUTF8 == names.map(\.utf8.count).max())
        #expect(try load(csv).entries.map(\.name) == names)
    }
}

@Suite struct ShippedPaletteTests {
    /// CSS Color 4's named colours: 148 names, 139 colours (aqua/cyan, fuchsia/magenta and seven
    /// gray/grey pairs); a pixel of exactly #ff0000 is "red" at ΔE 0, and #00ffff is "aqua"
    /// (first in the file) with a `next` that is not its alias.
    @Test func cssNamedColours() throws {
        let palette = try Palette.load(path: "\(palettes)/css-named-colors.json")
        #expect(palette.count == 148 && palette.colourCount == 139)
        let red = palette.match(try PaletteFileTests().targetLab("#ff0000"))
        #expect(palette.name(red.entry) == "red" && red.deltaE == 0)
        let aqua = palette.match(try PaletteFileTests().targetLab("#00ffff"))
        #expect(palette.name(aqua.entry) == "aqua" && aqua.deltaE == 0 && palette.name(aqua.next) != "cyan")
        #expect(palette.entries.map(\.name) == palette.entries.map(\.name).sorted())
    }

    /// The ColorChecker palette holds ChartReference's names and published values, exactly
    /// (one home for the numbers: a change to either side fails here).
    @Test func colorCheckerMatchesChartReference() throws {
        let palette = try Palette.load(path: "\(palettes)/colorchecker-classic-24.json")
        #expect(palette.entries.map(\.name) == ChartReference.patchNames)
        #expect(palette.entries.map(\.lab) == ChartReference.colorChecker2014.lab.map { SIMD3($0.l, $0.a, $0.b) })
    }
}
