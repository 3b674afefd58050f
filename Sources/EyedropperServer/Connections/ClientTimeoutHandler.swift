import NIOCore
import NIOHTTPTypes

/// The stall and header clocks of one connection, first in its pipeline (before TLS and the HTTP
/// decoder), where bytes arrive and writability changes are first seen.
///
/// - Header: the first byte read while no request is open starts the clock; `RequestProgress`
///   `.headReceived`, from `RequestProgressSignal` after the HTTP decoder, stops it. Bytes read
///   while a request is open (its body, a pipelined request) start nothing.
/// - Stall: the channel turning unwritable starts the clock; turning writable stops it.
///
/// Either clock running out closes the connection, counted in `ConnectionCounters`. Closing ends
/// whatever the response's body was waiting on: its writer throws, and a stream's place is freed.
final class ClientTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let header: TimeAmount
    private let stall: TimeAmount
    private let counters: ConnectionCounters
    /// Requests whose head has arrived and whose response has not ended.
    private var openRequests = 0
    private var headerClock: Scheduled<Void>?
    private var stallClock: Scheduled<Void>?

    init(_ timeouts: ClientTimeouts, counters: ConnectionCounters) {
        header = TimeAmount(timeouts.header)
        stall = TimeAmount(timeouts.stall)
        self.counters = counters
    }

    /// The kernel's send buffer of each connection, asked for (Linux doubles it and stops growing
    /// it on its own). Left to itself it grows to 4 MiB on loopback, and a client that stopped
    /// reading would then go on "taking" frames into it for seconds before the stall clock even
    /// starts. 128 KiB still holds a round trip of 50 Mbit/s at 20 ms, and a frame or two.
    static let sendBufferBytes = 128 * 1024

    func handlerAdded(context: ChannelHandlerContext) {
        try? context.channel.syncOptions?.setOption(.socketOption(.so_sndbuf), value: Self.sendBufferBytes)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if openRequests == 0, headerClock == nil {
            headerClock = context.eventLoop.assumeIsolated().scheduleTask(in: header) { [counters] in
                counters.countHeaderTimeout()
                context.close(promise: nil)
            }
        }
        context.fireChannelRead(data)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let progress = event as? RequestProgress else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        switch progress {
        case .headReceived:
            openRequests += 1
            headerClock?.cancel()
            headerClock = nil
        case .responseEnded:
            openRequests = max(0, openRequests - 1)
        }
        promise?.succeed()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stallClock?.cancel()
            stallClock = nil
        } else if stallClock == nil {
            stallClock = context.eventLoop.assumeIsolated().scheduleTask(in: stall) { [counters] in
                counters.countStall()
                context.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopClocks()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopClocks()
    }

    private func stopClocks() {
        headerClock?.cancel()
        headerClock = nil
        stallClock?.cancel()
        stallClock = nil
    }
}

@available(*, unavailable)
extension ClientTimeoutHandler: Sendable {}

/// A request's progress, sent from after the HTTP decoder toward the socket, where
/// `ClientTimeoutHandler` hears it (an outbound user event passes every handler between).
enum RequestProgress: Sendable {
    case headReceived
    case responseEnded
}

/// Says `RequestProgress` as request heads arrive and responses end.
final class RequestProgressSignal: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            context.triggerUserOutboundEvent(RequestProgress.headReceived, promise: nil)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let ends = if case .end = unwrapOutboundIn(data) { true } else { false }
        context.write(data, promise: promise)
        if ends { context.triggerUserOutboundEvent(RequestProgress.responseEnded, promise: nil) }
    }
}

@available(*, unavailable)
extension RequestProgressSignal: Sendable {}
