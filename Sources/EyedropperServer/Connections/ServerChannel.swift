import Eyedropper
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOSSL
import SystemPackage

extension HTTPServerBuilder {
    /// HTTP/1.1, or HTTPS with `tls`, with serve's timeouts: `ClientTimeoutHandler` first in every
    /// connection's pipeline (before TLS, so a stalled handshake is timed too), the signal it
    /// needs after the HTTP decoder, and Hummingbird's own idle timeout for keep-alive.
    static func eyedropper(timeouts: ClientTimeouts, tls context: NIOSSLContext?, counters: ConnectionCounters) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            let http = HTTP1Channel(
                responder: responder,
                configuration: .init(additionalChannelHandlers: [RequestProgressSignal()], idleTimeout: TimeAmount(timeouts.idle)))
            guard let context else { return TimedChannel(http, timeouts: timeouts, counters: counters) }
            return TimedChannel(TLSServerChannel(http, context: context), timeouts: timeouts, counters: counters)
        }
    }
}

/// `Base` with a `ClientTimeoutHandler` at the front of its pipeline.
struct TimedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let timeouts: ClientTimeouts
    let counters: ConnectionCounters

    init(_ base: Base, timeouts: ClientTimeouts, counters: ConnectionCounters) {
        self.base = base
        self.timeouts = timeouts
        self.counters = counters
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(ClientTimeoutHandler(timeouts, counters: counters))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// `Base` behind TLS, with one `NIOSSLContext` for every connection (as HummingbirdTLS's
/// `TLSChannel`, which makes its context from a configuration; this takes one made at the start,
/// where its errors can name the files).
struct TLSServerChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let context: NIOSSLContext

    init(_ base: Base, context: NIOSSLContext) {
        self.base = base
        self.context = context
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// A certificate or key for `--tls-cert` / `--tls-key` that cannot be used: missing (exit 66),
/// unreadable (77 for permission), or not PEM of the right kind, or the two not a pair (65).
public struct TLSFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String
    public let status: Int32
}

extension ServeConfiguration.TLSFiles {
    /// NIOSSL's server context from the two files; every failure names the file.
    func context() throws(TLSFileError) -> NIOSSLContext {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        let certificateBytes = try read(certificatePath, what: "certificate (--tls-cert)")
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(certificateBytes)
        } catch {
            throw TLSFileError(description: "the certificate (--tls-cert) \(certificatePath) is not a PEM certificate: \(error)", status: 65)
        }
        guard !chain.isEmpty else {
            throw TLSFileError(description: "the certificate (--tls-cert) \(certificatePath) holds no PEM certificate", status: 65)
        }
        let keyBytes = try read(keyPath, what: "private key (--tls-key)")
        do {
            key = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem)
        } catch {
            throw TLSFileError(description: "the private key (--tls-key) \(keyPath) is not a PEM private key: \(error)", status: 65)
        }
        let configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw TLSFileError(
                description: "the certificate \(certificatePath) and the private key \(keyPath) cannot serve TLS together (is the key the certificate's?): \(error)",
                status: 65)
        }
    }

    private func read(_ path: String, what: String) throws(TLSFileError) -> [UInt8] {
        do {
            return try FileDescriptor.readWholeFile(path)
        } catch {
            let status: Int32 = switch error.errno {
            case .noSuchFileOrDirectory: 66
            case .permissionDenied: 77
            default: 65
            }
            throw TLSFileError(description: "cannot read the \(what) \(path): \(error.text)", status: status)
        }
    }
}
