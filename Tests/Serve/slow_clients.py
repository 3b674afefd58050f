"""Clients that hold `eyedropper serve` without moving, against a running server.

    slow_clients.py stalled URL PID STALL_SECONDS [ROUNDS]
        Rounds of 20 stream clients that read the response head and then stop reading (more than
        --max-streams 16). Each round: once the stalled ones are cut off, a new viewer must get 200
        and a whole JPEG part; status must count 16 more stalled streams. The
        server's RSS (/proc/PID/status) is sampled after each round: the last may not exceed the
        first by more than 4 MiB (so ROUNDS is at least 2). Nor may a place free before
        STALL_SECONDS - 0.25 s: the stalled clients are not to be cut off early.
    slow_clients.py half URL HEADER_SECONDS [COUNT]
        COUNT (300) connections send half a request head and wait. Meanwhile a keep-alive client
        samples (after one sample that warms the connection); every sample must be answered
        sooner than HEADER_SECONDS, the time a sample waiting behind the half requests would take.
        Each half request must be closed by the server, not before HEADER_SECONDS - 0.25 s after
        it was sent, and status must count COUNT more header timeouts.
    slow_clients.py handshake URL HEADER_SECONDS
        A TLS client that sends the first bytes of its hello and waits is closed, not before
        HEADER_SECONDS - 0.25 s after them.
    slow_clients.py events URL STALL_SECONDS [SECONDS]
        Two clients of the event stream (/api/v1/samples) with the kernel's default buffers: one
        reads the response head and then nothing, one reads everything every 2 s. The one that
        reads nothing must be cut off (status counts one more stalled stream), not before
        STALL_SECONDS - 0.25 s after its head; the one that reads every 2 s must still be served,
        with no close, after SECONDS (40), and status must count that one stall only. (The kernel accepts all the non-reader is sent: only its receive window, which
        shrinks while it does not read, can show the server that it is not taking the stream.)
    slow_clients.py idle URL IDLE_SECONDS
        A keep-alive connection that makes one request and says nothing more is closed, not
        before IDLE_SECONDS - 0.25 s after its response.

URL is http://127.0.0.1:PORT or https://...; https is trusted with the CA file in $EYEDROPPER_CA.
A bearer token in $EYEDROPPER_TOKEN is sent with every request. Prints what it measured and exits
1 with the reason on the first expectation that fails.

Timeouts are held to their lower bound only: a timer never fires early, on a quiet machine or a
loaded one, but on a loaded one it may fire late. What the clients wait for (a close, a place, a
part) is waited for, up to LATE seconds past the timeout: a deadline for what never comes, not
a time it is given. serve's timeouts to the nanosecond are EyedropperServerTests' job, on a clock
the test moves.
"""
import json
import os
import selectors
import socket
import ssl
import sys
import time
import urllib.parse

#: How long past its timeout a close, a free place or a part is waited for before the test fails.
LATE = 30

BOUNDARY = b"--eyedropperframe"


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


class Server:
    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        self.host, self.port, self.tls = parts.hostname, parts.port, parts.scheme == "https"
        self.context = ssl.create_default_context(cafile=os.environ.get("EYEDROPPER_CA")) if self.tls else None
        token = os.environ.get("EYEDROPPER_TOKEN")
        self.auth = f"Authorization: Bearer {token}\r\n".encode() if token else b""

    def connect(self, receive_buffer=None):
        raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer:
            # A client whose own buffers hold little: what the server sees as "taken" is then
            # what the client read.
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        raw.settimeout(10)
        raw.connect((self.host, self.port))
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return self.context.wrap_socket(raw, server_hostname=self.host) if self.tls else raw

    def request(self, path):
        return f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\n".encode() + self.auth + b"\r\n"

    def status(self):
        connection = self.connect()
        connection.sendall(self.request("/api/v1/status").replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
        data = b""
        while chunk := connection.recv(65536):
            data += chunk
        connection.close()
        head, _, body = data.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            fail(f"/api/v1/status answered {head.splitlines()[0]!r}")
        if b"transfer-encoding: chunked" in head.lower():
            body = dechunk(body)
        return json.loads(body)


def dechunk(body):
    out = b""
    while body:
        size, _, rest = body.partition(b"\r\n")
        size = int(size, 16)
        if size == 0:
            break
        out += rest[:size]
        body = rest[size + 2:]
    return out


def read_head(connection):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(4096)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def read_response(connection):
    """A whole response with a Content-Length: its head and body."""
    head, body = read_head(connection)
    length = next((int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")), None)
    if length is None:
        fail(f"a response without Content-Length: {head[:80]!r}")
    while len(body) < length:
        chunk = connection.recv(65536)
        if not chunk:
            fail("the connection closed inside a response body")
        body += chunk
    return head, body


def resident_bytes(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    fail(f"no VmRSS for pid {pid}")


def whole_jpeg_part(connection, rest):
    """Reads until one whole part of the MJPEG stream has arrived; returns its JPEG bytes."""
    data = rest
    deadline = time.monotonic() + LATE
    while time.monotonic() < deadline:
        start = data.find(BOUNDARY)
        if start >= 0:
            header_end = data.find(b"\r\n\r\n", start)
            if header_end >= 0:
                headers = data[start:header_end].decode("latin-1").split("\r\n")
                length = next(int(h.split(":")[1]) for h in headers if h.lower().startswith("content-length"))
                body = data[header_end + 4:header_end + 4 + length]
                if len(body) == length:
                    return body
        chunk = connection.recv(65536)
        if not chunk:
            break
        data += chunk
    fail(f"the new viewer got no whole JPEG part within {LATE} s")


def stalled(server, pid, stall_seconds, rounds):
    if rounds < 2:
        fail("stalled needs 2 rounds or more: the RSS of one round has nothing to be compared with")
    rss = []
    for round_number in range(1, rounds + 1):
        before = server.status()["stalledStreamsClosed"]
        clients, refused, first_head = [], 0, None
        for _ in range(20):
            client = server.connect(receive_buffer=16384)
            asked = time.monotonic()
            client.sendall(server.request("/api/v1/stream.mjpg"))
            head, _ = read_head(client)
            if head.startswith(b"HTTP/1.1 200"):
                # The first client's stall clock starts no sooner than its request: a place freed
                # before that plus the timeout is freed early, however long the other 19 took.
                first_head = first_head or asked
                clients.append(client)  # and never read again
            elif head.startswith(b"HTTP/1.1 503"):
                refused += 1
                client.close()
            else:
                fail(f"a stream client got {head[:40]!r}")
        if len(clients) != 16 or refused != 4:
            fail(f"round {round_number}: {len(clients)} streams and {refused} refused of 20, expected 16 and 4 (--max-streams 16)")
        stalled_at = time.monotonic()
        while True:
            viewer = server.connect()
            viewer.sendall(server.request("/api/v1/stream.mjpg"))
            head, rest = read_head(viewer)
            waited = time.monotonic() - stalled_at
            if head.startswith(b"HTTP/1.1 200"):
                if time.monotonic() - first_head < stall_seconds - 0.25:
                    fail(f"round {round_number}: a stream place was free {time.monotonic() - first_head:.2f} s after the first "
                         f"stream was asked for, before --stall-timeout {stall_seconds}")
                jpeg = whole_jpeg_part(viewer, rest)
                viewer.close()
                if not jpeg.startswith(b"\xff\xd8") or not jpeg.endswith(b"\xff\xd9"):
                    fail("the new viewer's part is not a whole JPEG")
                break
            viewer.close()
            if not head.startswith(b"HTTP/1.1 503"):
                fail(f"a new viewer got {head[:40]!r}")
            if waited > stall_seconds + LATE:
                fail(f"round {round_number}: no stream place for a new viewer {waited:.2f} s after 16 clients stalled "
                     f"(--stall-timeout {stall_seconds} + {LATE} s)")
            time.sleep(0.1)
        # The other 15 stalled a little later, each on its own clock.
        while (closed := server.status()["stalledStreamsClosed"] - before) < 16 and time.monotonic() < stalled_at + stall_seconds + LATE:
            time.sleep(0.1)
        for client in clients:
            client.close()
        if closed != 16:
            fail(f"round {round_number}: status counted {closed} stalled streams closed within --stall-timeout + {LATE} s, expected the 16")
        # Every place free again (the viewer's too) before the RSS is read: the round's clients gone.
        deadline = time.monotonic() + LATE
        while server.status()["streamClients"] > 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        rss.append(resident_bytes(pid))
        print(f"round {round_number}: a new viewer streamed {waited:.2f} s after 16 clients stalled "
              f"(--stall-timeout {stall_seconds}); RSS {rss[-1] / 2**20:.1f} MiB")
    growth = rss[-1] - rss[0]
    if growth > 4 * 2**20:
        fail(f"RSS grew {growth / 2**20:.1f} MiB from round 1 to round {rounds}: {[round(r / 2**20, 1) for r in rss]}")
    print(f"stalled: ok; RSS after each round {[round(r / 2**20, 1) for r in rss]} MiB")


def half(server, header_seconds, count):
    before = server.status()["headerTimeouts"]
    sampler = server.connect()
    latencies = []

    def sample():
        started = time.monotonic()
        sampler.sendall(server.request("/api/v1/sample?at=0.5,0.5&radius=2"))
        head, _ = read_response(sampler)
        latencies.append((time.monotonic() - started, started - first_sent))
        if not head.startswith(b"HTTP/1.1 200"):
            fail(f"a sample during the half requests got {head[:40]!r}")

    # One sample first, not timed: the connection's first request is not what is measured.
    first_sent = time.monotonic()
    sample()
    latencies.clear()
    selector = selectors.DefaultSelector()
    sent_at = {}
    first_sent = time.monotonic()
    for index in range(count):
        connection = server.connect()
        sent_at[connection] = time.monotonic()
        connection.sendall(server.request("/api/v1/sample").split(b"\r\n", 1)[0] + b"\r\nHost: x\r\n")
        connection.setblocking(False)
        selector.register(connection, selectors.EVENT_READ)
        if index % 30 == 0:
            sample()
    closed_after = []
    deadline = time.monotonic() + header_seconds + LATE
    while sent_at and time.monotonic() < deadline:
        sample()
        for key, _ in selector.select(timeout=0.005):
            connection = key.fileobj
            try:
                data = connection.recv(4096)
            except (ConnectionResetError, ssl.SSLError):
                data = b""
            except (BlockingIOError, ssl.SSLWantReadError):
                continue
            if data:
                fail(f"a half request was answered instead of closed: {data[:60]!r}")
            closed_after.append(time.monotonic() - sent_at.pop(connection))
            selector.unregister(connection)
            connection.close()
    if sent_at:
        fail(f"{len(sent_at)} of {count} half requests still open {header_seconds + LATE} s after they were sent")
    early, late = min(closed_after), max(closed_after)
    if early < header_seconds - 0.25:
        fail(f"half requests closed after {early:.2f} to {late:.2f} s, before --header-timeout {header_seconds} s")
    counted = server.status()["headerTimeouts"] - before
    if counted != count:
        fail(f"status counted {counted} header timeouts, expected {count}")
    latencies.sort()
    slowest, slowest_at = latencies[-1][0] * 1000, latencies[-1][1]
    print(f"half: {count} half requests closed {early:.2f} to {late:.2f} s after sending (--header-timeout {header_seconds}); "
          f"{len(latencies)} samples meanwhile: median {latencies[len(latencies) // 2][0] * 1000:.2f} ms, "
          f"p99 {latencies[int(len(latencies) * 0.99)][0] * 1000:.2f} ms, max {slowest:.2f} ms "
          f"(sent {slowest_at:.2f} s after the first half request)")
    return slowest


def tcp_state_and_window_scale(connection):
    """The socket's TCP state (linux/tcp.h: 1 established, 8 close-wait) and its own advertised
    window scale (tcpi_rcv_wscale)."""
    info = connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)
    return info[0], info[6] >> 4


def events(server, stall_seconds, seconds):
    before = server.status()["stalledStreamsClosed"]

    def open_stream():
        connection = server.connect()
        connection.sendall(server.request("/api/v1/samples"))
        head, rest = read_head(connection)
        if not head.startswith(b"HTTP/1.1 200"):
            fail(f"the event stream answered {head[:40]!r}")
        return connection, rest

    silent_since = time.monotonic()  # before its request: its stall clock cannot start sooner
    silent, _ = open_stream()
    reader, rest = open_stream()
    _, scale = tcp_state_and_window_scale(silent)
    read_bytes, reads, cut_after = len(rest), 0, None
    reader.setblocking(False)
    next_read = silent_since + 2
    while (elapsed := time.monotonic() - silent_since) < seconds:
        time.sleep(0.25)
        if time.monotonic() >= next_read:
            next_read += 2
            got = 0
            try:  # what has arrived, not what goes on arriving (an event every frame)
                while got < 10 * 2**20:
                    chunk = reader.recv(65536)
                    if not chunk:
                        fail(f"the client that reads every 2 s was cut off {time.monotonic() - silent_since:.1f} s after it started")
                    got += len(chunk)
            except (BlockingIOError, ssl.SSLWantReadError):
                pass
            if got == 0:  # nothing yet: waited for, as a client would
                reader.setblocking(True)
                reader.settimeout(LATE)
                try:
                    chunk = reader.recv(65536)
                except (TimeoutError, socket.timeout):
                    chunk = None
                reader.setblocking(False)
                if not chunk:
                    fail(f"the client that reads every 2 s got nothing for {LATE} s or was cut off "
                         f"({time.monotonic() - silent_since:.1f} s after it started)")
                got = len(chunk)
            read_bytes, reads = read_bytes + got, reads + 1
        if cut_after is None and server.status()["stalledStreamsClosed"] > before:
            cut_after = time.monotonic() - silent_since
            state, _ = tcp_state_and_window_scale(silent)
            print(f"events: the client that reads nothing was cut off within {cut_after:.2f} s of its head "
                  f"(its TCP state then: {state}; 8 is close-wait)")
            if cut_after < stall_seconds - 0.25:
                fail(f"the client that reads nothing was cut off {cut_after:.1f} s after its head, before "
                     f"--stall-timeout {stall_seconds} - 0.25 s (its window scale: {scale})")
        if cut_after is None and elapsed > stall_seconds + LATE:
            fail(f"the client that reads nothing was not cut off within --stall-timeout {stall_seconds} + {LATE} s "
                 f"(its advertised window scale: {scale}; 9 or more hides it)")
    counted = server.status()["stalledStreamsClosed"] - before
    if counted != 1:
        fail(f"status counted {counted} stalled streams, expected the one client that reads nothing")
    silent.close()
    reader.close()
    print(f"PASS events: the client that reads nothing (window scale {scale}) was cut off {cut_after:.2f} s after its head "
          f"(--stall-timeout {stall_seconds}); the one that reads every 2 s read {reads} times, {read_bytes / (time.monotonic() - silent_since) / 1000:.1f} kB/s, "
          f"for {seconds:.0f} s, not cut off")


def closed_after(connection, seconds, what, started):
    """Waits for the server to close `connection`; fails if it does so before `seconds` from
    `started` (less a quarter of a second), or not within LATE seconds after. `started`: before
    what starts the server's clock was sent, so that a client slow to get here cannot make an
    early close look late enough."""
    connection.settimeout(seconds + LATE)
    try:
        data = connection.recv(4096)
    except (ConnectionResetError, ssl.SSLError):
        data = b""
    waited = time.monotonic() - started
    if data:
        fail(f"{what} got bytes instead of being closed: {data[:60]!r}")
    if waited < seconds - 0.25:
        fail(f"{what} was closed {waited:.2f} s after, before {seconds} s")
    return waited


def handshake(server, header_seconds):
    raw = socket.create_connection((server.host, server.port))
    started = time.monotonic()
    raw.sendall(bytes.fromhex("160301020001"))  # a TLS record header and the first byte of a ClientHello
    waited = closed_after(raw, header_seconds, "a half TLS handshake", started)
    print(f"handshake: a half TLS handshake was closed {waited:.2f} s after its first bytes (--header-timeout {header_seconds})")


def idle(server, idle_seconds):
    connection = server.connect()
    started = time.monotonic()
    connection.sendall(server.request("/api/v1/status"))
    head, _ = read_response(connection)
    if not head.startswith(b"HTTP/1.1 200"):
        fail(f"/api/v1/status answered {head[:40]!r}")
    waited = closed_after(connection, idle_seconds, "a keep-alive connection left idle after its response", started)
    print(f"idle: a keep-alive connection was closed {waited:.2f} s after its response (--idle-timeout {idle_seconds})")


if __name__ == "__main__":
    command, url = sys.argv[1], sys.argv[2]
    server = Server(url)
    if command == "stalled":
        stalled(server, int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]) if len(sys.argv) > 5 else 3)
    elif command == "half":
        # What this catches: samples waiting behind the half requests, which would then take the
        # header timeout itself. It is not a speed target (those are in Benchmarks/): on a quiet
        # machine a sample takes under a millisecond, and with the background builds on both
        # cores 12 to 19 ms.
        header_seconds = float(sys.argv[3])
        slowest = half(server, header_seconds, int(sys.argv[4]) if len(sys.argv) > 4 else 300)
        if slowest >= header_seconds * 1000:
            fail(f"a sample took {slowest:.0f} ms while the half requests were open: as long as --header-timeout, waiting behind them")
    elif command == "handshake":
        handshake(server, float(sys.argv[3]))
    elif command == "events":
        events(server, float(sys.argv[3]), float(sys.argv[4]) if len(sys.argv) > 4 else 40)
    elif command == "idle":
        idle(server, float(sys.argv[3]))
    else:
        fail(f"unknown command {command}")
