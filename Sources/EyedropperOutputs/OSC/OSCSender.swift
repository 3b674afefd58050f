import Eyedropper

/// OSC 1.0 over UDP: per line of samples, one bundle time-tagged with the frame's time, holding
/// for each point i `/eyedropper/<i>/rgb` (three floats, mean / 255), `/eyedropper/<i>/hex` (a
/// string) and, with a profile, `/eyedropper/<i>/lab` (three floats).
///
/// TODO(osc): the encoder and the socket.
public final class OSCSender: Sendable {
    public init(host: String, port: Int) throws {
    }

    /// Sends one bundle for `reading`; never blocks.
    public func send(_ reading: SampleReading) {
    }

    public func close() {
    }
}
