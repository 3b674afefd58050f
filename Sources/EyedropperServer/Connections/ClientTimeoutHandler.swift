import NIOCore
import NIOHTTPTypes

/// The stall and header clocks of one connection, first in its pipeline (before TLS and the HTTP
/// decoder), where bytes arrive and writability changes are first seen.
///
/// - Header: the first byte read while no request is open starts the clock; `RequestProgress`
///   `.headReceived`, from `RequestProgressSignal` after the HTTP decoder, stops it. Bytes read
///   while a request is open (its body, a pipelined request) start nothing.
/// - Stall: runs while the channel is unwritable, or while the client's advertised receive window
///   says its application is not reading (`PeerWindow`, sampled once a second while a request is
///   open): it starts when either says so and stops when neither does.
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
    private var unwritable = false
    /// The last verdict of `peerWindow` that was one: not taking.
    private var windowStalled = false
    private var peerWindow = PeerWindow()
    private var windowSampler: Scheduled<Void>?

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
            if windowSampler == nil { scheduleWindowSample(context: context) }
        case .responseEnded:
            openRequests = max(0, openRequests - 1)
            if openRequests == 0 {
                windowSampler?.cancel()
                windowSampler = nil
                windowStalled = false
                updateStallClock(context: context)
            }
        }
        promise?.succeed()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        unwritable = !context.channel.isWritable
        updateStallClock(context: context)
        context.fireChannelWritabilityChanged()
    }

    /// Samples the client's receive window in a second, and so on while a request is open (a
    /// socket option call and a future completed at once, per second and connection; nothing per
    /// write).
    private func scheduleWindowSample(context: ChannelHandlerContext) {
        guard peerWindow.usable, context.channel is any SocketOptionProvider else { return }
        windowSampler = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(1)) { [self] in
            windowSampler = nil
            guard openRequests > 0, let sample = TCPInfo.of(context.channel) else { return }
            sample.assumeIsolated().whenSuccess { [self] info in
                switch peerWindow.observe(info) {
                case .taking: windowStalled = false
                case .notTaking: windowStalled = true
                case .none: break
                }
                updateStallClock(context: context)
            }
            if openRequests > 0, windowSampler == nil { scheduleWindowSample(context: context) }
        }
    }

    /// Runs the stall clock while the channel is unwritable or the window says not taking.
    private func updateStallClock(context: ChannelHandlerContext) {
        if !unwritable, !windowStalled {
            stallClock?.cancel()
            stallClock = nil
        } else if stallClock == nil {
            stallClock = context.eventLoop.assumeIsolated().scheduleTask(in: stall) { [counters] in
                counters.countStall()
                context.close(promise: nil)
            }
        }
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
        windowSampler?.cancel()
        windowSampler = nil
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
