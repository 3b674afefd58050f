import Eyedropper
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import ServiceLifecycle

/// The application's answer to a request: its head and its whole body.
struct TestResponse: Sendable {
    let head: HTTPResponse
    let body: ByteBuffer
    var status: HTTPResponse.Status { head.status }
    var headers: HTTPFields { head.headerFields }
}

/// Requests handed straight to an application's responder, in process: no socket, no HTTP
/// parsing, each answered as the server's connection would ask for it (a request context on a
/// channel of its own, the body written out whole); a responder that throws is answered 500. Not
/// a client of the wire: the server's own network behaviour is tested from outside (Tests/Serve,
/// CLITests).
struct InProcessClient: Sendable {
    let respond: @Sendable (Request, Logger) async throws -> Response
    let logger: Logger
    /// Sent with every request, in place of any the request has of the same name.
    var fields: HTTPFields = [:]

    /// This client, sending `fields` with every request (e.g. a token in Authorization).
    func sending(_ fields: HTTPFields) -> InProcessClient {
        var client = self
        for field in fields { client.fields[field.name] = field.value }
        return client
    }

    /// `uri`'s answer to `method` with `headers` and `body` (its Content-Length set).
    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil)
        async throws -> TestResponse
    {
        var headers = headers
        for field in fields { headers[field.name] = field.value }
        if let body { headers[.contentLength] = String(body.readableBytes) }
        let request = Request(
            head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: headers),
            body: RequestBody(buffer: body ?? ByteBuffer())
        )
        let response: Response
        do {
            response = try await respond(request, logger)
        } catch {
            response = Response(status: .internalServerError)
        }
        let writer = CollectingWriter()
        try await response.body.write(writer)
        return TestResponse(head: response.head, body: writer.collected.withLock { $0 })
    }

    /// The body as the response writes it.
    private struct CollectingWriter: ResponseBodyWriter {
        let collected = Locked(ByteBuffer())
        func write(_ buffer: ByteBuffer) async throws { collected.withLock { _ = $0.writeImmutableBuffer(buffer) } }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}

extension ApplicationProtocol {
    /// Runs `test` with a client of this application's responder, its services running meanwhile
    /// (and its processes to run before a server, run first), then shuts them down.
    func test<Value: Sendable>(_ test: @Sendable (InProcessClient) async throws -> Value) async throws -> Value {
        let responder = try await self.responder
        let client = InProcessClient(
            respond: { request, logger in
                let context = Context(source: ApplicationRequestContextSource(channel: NIOAsyncTestingChannel(), logger: logger))
                return try await responder.respond(to: request, context: context)
            },
            logger: logger)
        let services = self.services, processes = self.processesRunBeforeServerStart
        if services.isEmpty {
            for process in processes { try await process() }
            return try await test(client)
        }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            let (started, start) = AsyncStream.makeStream(of: Void.self)
            let serviceGroup = ServiceGroup(
                configuration: .init(services: services + [StartedService(start: start)], logger: logger))
            group.addTask { try await serviceGroup.run() }
            do {
                for process in processes { try await process() }
                // A shutdown before the group runs its services would leave them never run: wait.
                for await _ in started {}
                let value = try await test(client)
                await serviceGroup.triggerGracefulShutdown()
                return value
            } catch {
                await serviceGroup.triggerGracefulShutdown()
                throw error
            }
        }
    }
}

/// Says that the service group runs its services, then waits for its shutdown.
private struct StartedService: Service {
    let start: AsyncStream<Void>.Continuation
    func run() async throws {
        start.finish()
        try? await gracefulShutdown()
    }
}
