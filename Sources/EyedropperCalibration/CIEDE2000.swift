import Eyedropper

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension CIELab {
    /// The CIEDE2000 colour difference to `other` (CIE 142-2001, with kL = kC = kH = 1), as
    /// Sharma, Wu and Dalal (2005) give it step by step: "The CIEDE2000 color-difference
    /// formula: implementation notes, supplementary test data, and mathematical observations",
    /// Color Research & Application 30(1), 21-30. Symmetric, 0 for equal colours.
    ///
    /// About 1 JND at 1.0; 2.0 is a common tolerance for a visual match.
    public func deltaE2000(_ other: CIELab) -> Double {
        let (l1, a1, b1) = (l, a, b)
        let (l2, a2, b2) = (other.l, other.a, other.b)
        // Step 1: a* stretched by G, which depends on the mean chroma, then C' and h'.
        let meanChroma = ((a1 * a1 + b1 * b1).squareRoot() + (a2 * a2 + b2 * b2).squareRoot()) / 2
        let meanChroma7 = pow(meanChroma, 7)
        let g = 0.5 * (1 - (meanChroma7 / (meanChroma7 + Self.twentyFive7)).squareRoot())
        let a1p = (1 + g) * a1, a2p = (1 + g) * a2
        let c1p = (a1p * a1p + b1 * b1).squareRoot(), c2p = (a2p * a2p + b2 * b2).squareRoot()
        let h1p = Self.hueDegrees(b1, a1p), h2p = Self.hueDegrees(b2, a2p)
        // Step 2: the differences. A colour without chroma has no hue: its hue difference is 0.
        let deltaL = l2 - l1
        let deltaC = c2p - c1p
        let chromaProduct = c1p * c2p
        var deltaH = 0.0
        if chromaProduct != 0 {
            deltaH = h2p - h1p
            if deltaH > 180 { deltaH -= 360 } else if deltaH < -180 { deltaH += 360 }
        }
        let deltaBigH = 2 * chromaProduct.squareRoot() * sin(Self.radians(deltaH / 2))
        // Step 3: the weights at the mean lightness, chroma and hue.
        let meanL = (l1 + l2) / 2
        let meanCp = (c1p + c2p) / 2
        var meanH = h1p + h2p
        if chromaProduct != 0 {
            if abs(h1p - h2p) > 180 { meanH += meanH < 360 ? 360 : -360 }
            meanH /= 2
        }
        let t =
            1 - 0.17 * cos(Self.radians(meanH - 30)) + 0.24 * cos(Self.radians(2 * meanH))
            + 0.32 * cos(Self.radians(3 * meanH + 6)) - 0.20 * cos(Self.radians(4 * meanH - 63))
        let hueOffset = (meanH - 275) / 25
        let deltaTheta = 30 * exp(-hueOffset * hueOffset)
        let meanCp7 = pow(meanCp, 7)
        let rc = 2 * (meanCp7 / (meanCp7 + Self.twentyFive7)).squareRoot()
        let lOffset = (meanL - 50) * (meanL - 50)
        let sl = 1 + 0.015 * lOffset / (20 + lOffset).squareRoot()
        let sc = 1 + 0.045 * meanCp
        let sh = 1 + 0.015 * meanCp * t
        let rt = -sin(Self.radians(2 * deltaTheta)) * rc
        let (lTerm, cTerm, hTerm) = (deltaL / sl, deltaC / sc, deltaBigH / sh)
        return (lTerm * lTerm + cTerm * cTerm + hTerm * hTerm + rt * cTerm * hTerm).squareRoot()
    }

    /// 25^7, the chroma at which G and R_C are half their extremes.
    private static let twentyFive7 = 6_103_515_625.0

    /// The hue angle in degrees, 0..<360; 0 where a and b are both 0.
    @inline(__always)
    private static func hueDegrees(_ b: Double, _ a: Double) -> Double {
        if a == 0 && b == 0 { return 0 }
        let degrees = atan2(b, a) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }

    @inline(__always)
    private static func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
}
