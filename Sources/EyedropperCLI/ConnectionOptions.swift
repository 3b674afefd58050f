import ArgumentParser
import Eyedropper
import EyedropperServer

/// `serve`'s timeouts and TLS.
struct ConnectionOptions: ParsableArguments {
    @Option(
        name: .customLong("stall-timeout"),
        help: ArgumentHelp(
            "Cut off a client that has taken nothing for this long (a stream whose viewer stopped reading): its stream place is freed.",
            valueName: "SECONDS"))
    var stall: Double = ClientTimeouts().stall.inSeconds

    @Option(
        name: .customLong("header-timeout"),
        help: ArgumentHelp(
            "Cut off a connection whose request line and headers are not complete this long after their first byte (and a TLS handshake that stops).",
            valueName: "SECONDS"))
    var header: Double = ClientTimeouts().header.inSeconds

    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp(
            "Close a keep-alive connection that has no request for this long.", valueName: "SECONDS"))
    var idle: Double = ClientTimeouts().idle.inSeconds

    @Option(
        name: .customLong("tls-cert"),
        help: ArgumentHelp(
            "Serve HTTPS with this PEM certificate (chain: the server's first); needs --tls-key.", valueName: "FILE"))
    var certificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "FILE"))
    var key: String?

    func validate() throws {
        for (name, value) in [("--stall-timeout", stall), ("--header-timeout", header), ("--idle-timeout", idle)] {
            guard value.isFinite, value > 0, value <= 86_400 else {
                throw ValidationError("\(name) must be more than 0 and at most 86400 seconds, got \(value)")
            }
        }
        switch (certificate, key) {
        case (.some, nil): throw ValidationError("--tls-cert needs --tls-key, the certificate's private key")
        case (nil, .some): throw ValidationError("--tls-key needs --tls-cert, the certificate it belongs to")
        default: break
        }
    }

    var timeouts: ClientTimeouts {
        var timeouts = ClientTimeouts()
        timeouts.stall = .seconds(stall)
        timeouts.header = .seconds(header)
        timeouts.idle = .seconds(idle)
        return timeouts
    }

    var tls: ServeSettings.TLSFiles? {
        guard let certificate, let key else { return nil }
        return ServeSettings.TLSFiles(certificatePath: certificate, keyPath: key)
    }
}
