/// How a calibration found the camera's tone curve.
public enum CurveSource: String, Hashable, Sendable, Codable, CaseIterable {
    /// A curve for each channel through the six neutral patches (`ToneCurve.fit`).
    case neutrals
    /// One shape for the three channels, each scaled, through every usable patch's channel at what
    /// the best 3 x 3 says it reads linear (`ToneCurve.shared`): the colour patches read levels
    /// between and below the neutrals', where a curve can bend unseen by six greys.
    case patches
    /// Measured from the chart at several exposures (`calibrate --bracket`, `ResponseRecovery`).
    case measured
}
