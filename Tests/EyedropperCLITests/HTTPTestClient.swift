import EyedropperTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A response read by `HTTPConnection`.
struct HTTPResponseRead {
    let status: Int
    let headers: [String: String]
    let body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
}

/// A bare HTTP/1.1 client over one loopback TCP connection, for tests that need to read endless
/// responses a little at a time (or stop reading, as a stalled client does).
final class HTTPConnection {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var chunked = false
    private var remainingInChunk = 0
    private var ended = false

    /// `receiveBuffer`: the socket's SO_RCVBUF in bytes (the kernel doubles it), set before it
    /// connects: a client that stops reading then fills at once, rather than after megabytes.
    init(port: Int, receiveBuffer: Int? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            close(fd)
            throw HTTPTestError("cannot connect to 127.0.0.1:\(port): errno \(errno)")
        }
    }

    deinit { close(fd) }

    /// This end's port.
    var localPort: Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Bytes the server has written to this connection that are still in its socket, not taken by
    /// this end: the `tx_queue` of the server's side in /proc/net/tcp. Nil when it is not listed.
    func queuedAtServer(serverPort: Int) -> Int? {
        // Read to its end: a file of /proc has no size to read up to.
        guard let file = FileHandle(forReadingAtPath: "/proc/net/tcp") else { return nil }
        defer { try? file.close() }
        let table = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        // "sl local_address rem_address st tx_queue:rx_queue ...", addresses as hex IP:port.
        let (local, remote) = (String(format: ":%04X", serverPort), String(format: ":%04X", localPort))
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 4, fields[1].hasSuffix(local), fields[2].hasSuffix(remote) else { continue }
            return Int(fields[4].split(separator: ":")[0], radix: 16)
        }
        return nil
    }

    /// Waits until the server's writes to this connection are held up: bytes queued at the server
    /// that stay the same while the server captures `frames` more frames (each a chance for the
    /// stream to write another part). Throws after 30 s.
    func waitUntilStalled(_ server: ServerProcess, frames: Int = 10) throws {
        var queued = -1, capturedThen = 0
        try waitUntil("the stream's writes to a client that reads nothing held up") {
            let (now, captured) = (queuedAtServer(serverPort: server.port) ?? 0, try server.framesCaptured())
            if now != queued || now == 0 { (queued, capturedThen) = (now, captured) }
            return now > 0 && captured - capturedThen >= frames
        }
    }

    /// Sends a GET (with `Authorization: AUTHORIZATION` when given) and reads the status line and headers.
    func get(_ target: String, authorization: String? = nil) throws -> (status: Int, headers: [String: String]) {
        send(target, authorization: authorization)
        while true {
            if let end = find([13, 10, 13, 10]) {
                let head = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
                buffer.removeFirst(end + 4)
                let status = Int(head[0].split(separator: " ")[1])!
                var headers: [String: String] = [:]
                for line in head.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                chunked = headers["transfer-encoding"]?.lowercased() == "chunked"
                return (status, headers)
            }
            guard try fill() else { throw HTTPTestError("connection closed before the response head") }
        }
    }

    /// Sends a GET, reading nothing.
    func send(_ target: String, authorization: String? = nil) {
        let header = authorization.map { "Authorization: \($0)\r\n" } ?? ""
        let request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(header)Connection: close\r\n\r\n"
        _ = request.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    /// Reads body bytes until `done` says the bytes so far are enough, or the body ends; returns them.
    func readBody(until done: ([UInt8]) -> Bool = { _ in false }) throws -> [UInt8] {
        var body: [UInt8] = []
        while !done(body) {
            guard let bytes = try nextBodyBytes() else { break }
            body += bytes
        }
        return body
    }

    /// The next body bytes; nil at the end of the body.
    private func nextBodyBytes() throws -> [UInt8]? {
        if ended { return nil }
        if !chunked {
            if buffer.isEmpty, try !fill() {
                ended = true
                return nil
            }
            defer { buffer.removeAll() }
            return buffer
        }
        while remainingInChunk == 0 {
            guard let lineEnd = find([13, 10]) else {
                guard try fill() else { throw HTTPTestError("connection closed inside a chunk header") }
                continue
            }
            let sizeText = String(decoding: buffer[..<lineEnd], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";")[0], radix: 16) else { throw HTTPTestError("bad chunk size \(sizeText)") }
            buffer.removeFirst(lineEnd + 2)
            if size == 0 {
                ended = true
                return nil
            }
            remainingInChunk = size + 2  // the data and its CRLF
        }
        if buffer.isEmpty, try !fill() { throw HTTPTestError("connection closed inside a chunk") }
        let take = min(remainingInChunk, buffer.count)
        var bytes = Array(buffer[..<take])
        buffer.removeFirst(take)
        remainingInChunk -= take
        if remainingInChunk < 2 { bytes.removeLast(min(bytes.count, 2 - remainingInChunk)) }  // the trailing CRLF
        return bytes
    }

    /// Whether the server closed the connection (reads end of stream) within the receive timeout.
    func isClosedByServer() -> Bool {
        while true {
            guard let more = try? fill() else { return false }
            if !more { return true }
        }
    }

    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(fd, &chunk, chunk.count, 0)
        if count < 0 { throw HTTPTestError("recv failed: errno \(errno)") }
        buffer += chunk[..<count]
        return count > 0
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for index in 0...(buffer.count - pattern.count) where Array(buffer[index..<(index + pattern.count)]) == pattern {
            return index
        }
        return nil
    }
}

/// One whole GET on a new connection.
func httpGet(port: Int, _ target: String, authorization: String? = nil) throws -> HTTPResponseRead {
    let connection = try HTTPConnection(port: port)
    let (status, headers) = try connection.get(target, authorization: authorization)
    return HTTPResponseRead(status: status, headers: headers, body: try connection.readBody())
}

struct HTTPTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `eyedropper serve` running on a free port (loopback unless `listen` says otherwise), stopped with SIGTERM when the test is done.
final class ServerProcess {
    let process = Process()
    let port: Int
    private let errors = Pipe()
    private(set) var stderr = ""

    /// `Authorization` for the requests of `get` and the wait for the first frame: the server's token.
    let authorization: String?

    /// Starts the built `eyedropper serve --listen 127.0.0.1:0` with `arguments` and waits for the
    /// line that names the port, then (`waitForFrame`) for the first frame to be published. The
    /// server has `EYEDROPPER_TOKEN` only if `environment` gives it; `token` is sent by `get`.
    init(
        _ arguments: [String], listen: String = "127.0.0.1:0", waitForFrame: Bool = true, environment: [String: String] = [:],
        token: String? = nil
    ) throws {
        process.executableURL = eyedropperExecutable
        process.arguments = ["serve", "--listen", listen] + arguments
        process.environment = serveEnvironment(environment)
        authorization = token.map { "Bearer " + $0 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        var found: Int?
        while found == nil {
            let data = errors.fileHandleForReading.availableData
            guard !data.isEmpty else { throw HTTPTestError("eyedropper serve ended before serving: \(stderr)") }
            stderr += String(decoding: data, as: UTF8.self)
            if let match = stderr.firstMatch(of: /on http:\/\/[^\/]+:(\d+)\//) { found = Int(match.1) }
        }
        port = found!
        if waitForFrame { try waitUntil("a frame captured") { (try? framesCaptured()) ?? 0 > 0 } }
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    func get(_ target: String) throws -> HTTPResponseRead { try httpGet(port: port, target, authorization: authorization) }

    /// The status's `framesCaptured`.
    func framesCaptured() throws -> Int { try get("/api/v1/status").json["framesCaptured"] as? Int ?? 0 }

    /// Sends `signal` and returns the exit status and everything written to stderr; kills the
    /// server (status SIGKILL) if it has not ended 30 seconds later: a server that stops at all
    /// stops in milliseconds, one held up by a client would wait for its --stall-timeout.
    func stop(signal: Int32 = SIGTERM) -> (status: Int32, stderr: String) {
        kill(process.processIdentifier, signal)
        let deadline = ContinuousClock.now + .seconds(30)
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            stderr += "(killed: still running 30 s after signal \(signal))\n"
        }
        process.waitUntilExit()
        stderr += String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, stderr)
    }
}

/// This process's environment for a child `eyedropper serve`, without an `EYEDROPPER_TOKEN` of the
/// person running the tests, and with `extra`.
func serveEnvironment(_ extra: [String: String]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["EYEDROPPER_TOKEN"] = nil
    return environment.merging(extra) { $1 }
}

/// Polls `condition` every 10 ms until it holds; throws, naming `what`, when it has not within
/// `seconds`. The deadline is for a test that would otherwise wait for ever: what is waited for
/// takes milliseconds on a quiet machine and is waited for, not timed, on a loaded one.
func waitUntil(_ what: String, within seconds: Int = 30, _ condition: () throws -> Bool) throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw HTTPTestError("\(what): not within \(seconds) s") }
        usleep(10_000)
    }
}
