extension Duration {
    /// The duration in seconds, for arithmetic and printing (`ContinuousClock` gives `Duration`s).
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
