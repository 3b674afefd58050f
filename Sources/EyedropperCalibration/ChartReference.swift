import Eyedropper

/// What a chart's 24 patches measure, in CIE L*a*b* relative to D50 (2 degree observer), numbered
/// 1-24 row by row from the top left of the chart held upright (dark skin first, black last).
public struct ChartReference: Hashable, Sendable, Codable {
    /// Where the values come from, e.g. "ColorChecker24 - After November 2014".
    public let name: String
    /// Patch 1 first.
    public let lab: [CIELab]

    /// Patches on a ColorChecker Classic: 4 rows of 6.
    public static let patchCount = 24
    public static let columns = 6
    public static let rows = 4
    /// The six neutral patches, white (19) to black (24), as 0-based indices.
    public static let neutralIndices = 18..<24

    /// The largest |a*| or |b*| a patch may have: no printed or painted colour comes near it
    /// (sRGB's primaries stay within 108). Larger values, finite as they may be, overflow the fit
    /// and the colour differences into NaN.
    public static let maximumAB = 200.0

    /// `lab` must hold 24 values with L* in 0...100 and a*, b* within ±`maximumAB`.
    public init(name: String, lab: [CIELab]) throws(ChartReferenceError) {
        guard lab.count == Self.patchCount else { throw .patchCount(lab.count) }
        let ab = -Self.maximumAB...Self.maximumAB
        for (index, value) in lab.enumerated() {
            guard (0...100).contains(value.l), ab.contains(value.a), ab.contains(value.b) else {
                throw .value(patch: index + 1, value)
            }
        }
        // The neutrals linearise the tone curve: each must be darker than the one before.
        for index in Self.neutralIndices.dropFirst() where lab[index].l >= lab[index - 1].l {
            throw .neutralsNotDescending(patch: index + 1)
        }
        self.name = name
        self.lab = lab
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .name)
        let triples = try container.decode([[Double]].self, forKey: .lab)
        var lab: [CIELab] = []
        for (index, triple) in triples.enumerated() {
            guard triple.count == 3 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .lab, in: container, debugDescription: "patch \(index + 1) has \(triple.count) numbers, not L*, a*, b*")
            }
            lab.append(CIELab(l: triple[0], a: triple[1], b: triple[2]))
        }
        do {
            try self.init(name: name, lab: lab)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .lab, in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(lab.map { [$0.l, $0.a, $0.b] }, forKey: .lab)
    }

    private enum CodingKeys: String, CodingKey { case name, lab }

    /// The ColorChecker Classic (and Calibrite's, the same chart) made after November 2014:
    /// X-Rite's published L*a*b* (D50, 2 degree), the values colour-science ships as
    /// "ColorChecker24 - After November 2014" (colour.CCS_COLOURCHECKERS; colour-science 0.4.x,
    /// colour/characterisation/datasets/colour_checkers/chromaticity_coordinates.py).
    public static let colorChecker2014 = try! ChartReference(
        name: "ColorChecker24 - After November 2014",
        lab: [
            (37.54, 14.37, 14.92), (64.66, 19.27, 17.50), (49.32, -3.82, -22.54),
            (43.46, -12.74, 22.72), (54.94, 9.61, -24.79), (70.48, -32.26, -0.37),
            (62.73, 35.83, 56.50), (39.43, 10.75, -45.17), (50.57, 48.64, 16.67),
            (30.10, 22.54, -20.87), (71.77, -24.13, 58.19), (71.51, 18.24, 67.37),
            (28.37, 15.42, -49.80), (54.38, -39.72, 32.27), (42.43, 51.05, 28.62),
            (81.80, 2.67, 80.41), (50.63, 51.28, -14.12), (49.57, -29.71, -28.32),
            (95.19, -1.03, 2.93), (81.29, -0.57, 0.44), (66.89, -0.75, -0.06),
            (50.76, -0.13, 0.14), (35.63, -0.46, -0.48), (20.64, 0.07, -0.46),
        ].map { CIELab(l: $0.0, a: $0.1, b: $0.2) })

    /// The ColorChecker's patch names, patch 1 first.
    public static let patchNames = [
        "dark skin", "light skin", "blue sky", "foliage", "blue flower", "bluish green",
        "orange", "purplish blue", "moderate red", "purple", "yellow green", "orange yellow",
        "blue", "green", "red", "yellow", "magenta", "cyan",
        "white 9.5", "neutral 8", "neutral 6.5", "neutral 5", "neutral 3.5", "black 2",
    ]
}

/// A reference that cannot be a chart's: why, and which patch.
public enum ChartReferenceError: Error, Hashable, Sendable, CustomStringConvertible {
    case patchCount(Int)
    case value(patch: Int, CIELab)
    case neutralsNotDescending(patch: Int)

    public var description: String {
        switch self {
        case .patchCount(let count):
            "a ColorChecker reference has 24 L*a*b* values, patch 1 (dark skin) first; this one has \(count)"
        case .value(let patch, let lab):
            "patch \(patch)'s L*a*b* (\(lab.l), \(lab.a), \(lab.b)) is not a colour: L* must be in 0...100, a* and b* within ±\(Int(ChartReference.maximumAB))"
        case .neutralsNotDescending(let patch):
            "patch \(patch) is not darker than patch \(patch - 1): patches 19-24 are the neutral row, white to black"
        }
    }
}

extension ChartReferenceError: ExitStatusError {
    /// 65: a reference is read from a file.
    public var exitStatus: Int32 { 65 }
}
