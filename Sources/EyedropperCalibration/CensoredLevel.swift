import Eyedropper

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a patch's channel would read were its values not clamped to 0...255: a near-black patch's
/// noise is cut off at 0 (a dark camera curve puts the chart's black at 2 to 5 of 255), a white
/// patch's at 255, and the mean of what is left is pulled towards the middle. Its noise is taken to
/// be normal: the mean and spread of the values read, clamped, say which normal they were cut from
/// (a censored, or Tobit, normal). So a patch clipped in part still says what it can; one with half
/// or more of a channel's values clipped does not (nil), and is left out.
package enum CensoredLevel {
    /// The mean of the normal whose values, clamped to `floor...ceiling`, have `mean` and `sd`; nil
    /// when it lies beyond a bound (half or more of the values at it) or cannot be told.
    package static func level(mean: Double, sd: Double, floor: Double = 0, ceiling: Double = 255) -> Double? {
        // A bound more than 5 sd away clips a fraction below 3e-7 of the values: nothing to undo.
        let belowRoom = mean - floor, aboveRoom = ceiling - mean
        if belowRoom <= aboveRoom {
            guard belowRoom > 5 * sd else { return uncensored(distance: belowRoom, sd: sd).map { floor + $0 } }
        } else {
            guard aboveRoom > 5 * sd else { return uncensored(distance: aboveRoom, sd: sd).map { ceiling - $0 } }
        }
        return mean
    }

    /// For values of a normal N(μ, σ²) clamped at a bound: `distance`, their mean's distance from
    /// it, and `sd`, their spread; the distance of μ from the bound.
    ///
    /// With α = μ/σ (μ measured from the bound, inwards), the clamped values' mean is
    /// σ (α Φ(α) + φ(α)) and their mean square σ² ((α² + 1) Φ(α) + α φ(α)): the square of the one
    /// over the other depends on α alone and rises with it, so α is found by bisection, then σ
    /// and μ. nil for α < 0 (μ beyond the bound) or values that are all at it.
    static func uncensored(distance: Double, sd: Double) -> Double? {
        guard distance > 0, sd > 0, distance.isFinite, sd.isFinite else { return nil }
        let meanSquare = sd * sd + distance * distance
        let observed = distance * distance / meanSquare
        func ratio(_ a: Double) -> Double {
            let (cdf, pdf) = (normalCDF(a), normalPDF(a))
            let m = a * cdf + pdf
            return m * m / ((a * a + 1) * cdf + a * pdf)
        }
        // ratio(0) = (1/2π) / (1/2) = 1/π: a mean at the bound, half the values clipped.
        guard observed > ratio(0) else { return nil }
        var (low, high) = (0.0, 40.0)
        for _ in 0..<80 {
            let middle = (low + high) / 2
            if ratio(middle) < observed { low = middle } else { high = middle }
        }
        let alpha = (low + high) / 2
        let sigma = distance / (alpha * normalCDF(alpha) + normalPDF(alpha))
        return alpha * sigma
    }

    static func normalCDF(_ x: Double) -> Double { 0.5 * erfc(-x / 2.0.squareRoot()) }
    static func normalPDF(_ x: Double) -> Double { exp(-x * x / 2) / (2 * Double.pi).squareRoot() }
}
