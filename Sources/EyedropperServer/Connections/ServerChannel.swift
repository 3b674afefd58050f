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
    /// needs after the HTTP decoder, and Hummingbird's own idle timeout for keep-alive. TLS is
    /// NIOSSL's handler, as in HummingbirdTLS's `TLSChannel`, but with a context made at the
    /// start, where its errors can name the files (`TLSChannel` makes its own from a configuration),
    /// and replaced by a reload: each connection takes the one current when it is accepted.
    static func eyedropper(timeouts: ClientTimeouts, tls: LiveSettings?, counters: ConnectionCounters) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            let http = HTTP1Channel(
                responder: responder,
                configuration: .init(additionalChannelHandlers: [RequestProgressSignal()], idleTimeout: TimeAmount(timeouts.idle)))
            return FrontHandlersChannel(http) {
                let timeout = ClientTimeoutHandler(timeouts, counters: counters)
                // The certificate in use as the connection begins: it keeps it through a reload.
                guard let context = tls?.settings.tls?.context else { return [timeout] }
                return [timeout, NIOSSLServerHandler(context: context)]
            }
        }
    }
}

/// `Base` with `handlers()` (made anew for each connection) at the front of its pipeline, in order.
struct FrontHandlersChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let handlers: @Sendable () -> [any ChannelHandler]

    init(_ base: Base, handlers: @escaping @Sendable () -> [any ChannelHandler]) {
        self.base = base
        self.handlers = handlers
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandlers(handlers())
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
    public let exitStatus: Int32
}

extension ServeSettings.TLSFiles {
    /// NIOSSL's server context from the two files; every failure names the file.
    func context() throws(TLSFileError) -> NIOSSLContext {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        let certificateBytes = try read(certificatePath, what: "certificate (--tls-cert)")
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(certificateBytes)
        } catch {
            throw TLSFileError(
                description: "the certificate (--tls-cert) \(certificatePath) is not a PEM certificate: \(error)", exitStatus: 65)
        }
        guard !chain.isEmpty else {
            throw TLSFileError(description: "the certificate (--tls-cert) \(certificatePath) holds no PEM certificate", exitStatus: 65)
        }
        let keyBytes = try read(keyPath, what: "private key (--tls-key)")
        do {
            key = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem)
        } catch {
            throw TLSFileError(description: "the private key (--tls-key) \(keyPath) is not a PEM private key: \(error)", exitStatus: 65)
        }
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw TLSFileError(
                description:
                    "the certificate \(certificatePath) and the private key \(keyPath) cannot serve TLS together (is the key the certificate's?): \(error)",
                exitStatus: 65)
        }
    }

    private func read(_ path: String, what: String) throws(TLSFileError) -> [UInt8] {
        do {
            return try FileDescriptor.readWholeFile(path)
        } catch {
            throw TLSFileError(description: "cannot read the \(what) \(path): \(error.text)", exitStatus: error.inputExitStatus)
        }
    }
}

extension TLSFileError: ExitStatusError {}
