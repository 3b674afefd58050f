#!/usr/bin/env python3
"""eyedropper's OSC output against python-osc, a peer that shares no code with it (Tests/Outputs/osc-tests.sh).

usage: osc_check.py sample EYEDROPPER LINES BUNDLES [SAMPLE ARGS...]
    Receives on a free UDP port of 127.0.0.1 while `EYEDROPPER sample ARGS --format json --osc
    127.0.0.1:PORT` runs, then checks that it printed LINES lines, each sent as BUNDLES bundles,
    and every frame's bundles against the JSON line printed for it.
usage: osc_check.py serve EYEDROPPER SECONDS [SERVE ARGS...]
    The same against `EYEDROPPER serve --listen 127.0.0.1:0 ARGS --osc ...`, stopped with SIGTERM
    once it has sent half of SECONDS' frames (waited for, not timed); on a still source every
    frame's samples are those of /api/v1/sample.
usage: osc_check.py oscdump DUMP JSONL LINES
    liblo's oscdump output DUMP (one line per message: `SECONDS.FRACTION ADDRESS TYPES VALUES`)
    against the JSON lines of the same run, which must be LINES.
usage: osc_check.py free-port
    Prints a UDP port of 127.0.0.1 that was free a moment ago (for oscdump, which needs one).
usage: osc_check.py wait-listening PORT
    Returns once a UDP socket is bound to PORT (oscdump started in the background).
usage: osc_check.py wait-dump DUMP JSONL
    Returns once DUMP holds as many messages as the JSON lines of JSONL were sent as.

What is checked, for every frame: its bundle (or, for a frame too large for one datagram, its
bundles, all with one time tag, split between points, each at most 65,507 bytes) parses as an OSC
1.0 bundle; the time tag lies within the run's wall-clock time (and a second either side) and
never goes back; the messages are exactly, with a white reference, /eyedropper/reference first
(ffffi: the JSON's reference gains, deltaE, applied), then /eyedropper/<i>/rgb (type tag fff),
/hex (s), with a profile /lab (fff) and with a palette /name (sff: the JSON's nearest name, deltaE
and margin), for every point i in order; rgb is the JSON's mean / 255 (the JSON rounds
the mean to 2 decimals: within 0.005 / 255, and float32's rounding), hex is the JSON's hex, lab
the JSON's calibrated lab (within 0.005 and float32's rounding). There are as many frames as
lines.
"""
import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

from pythonosc.osc_bundle import OscBundle
from pythonosc.parsing import osc_types

NTP_UNIX = 2_208_988_800
DATAGRAM_LIMIT = 65_507
RGB_TOLERANCE = 0.005 / 255 + 2**-24  # the JSON's rounding, and float32's (below 1)
LAB_TOLERANCE = 0.005 + 100 * 2**-24  # the JSON's rounding, and float32's (|L*a*b*| below 200)
GAIN_TOLERANCE = 0.00005 + 4 * 2**-24  # the JSON's 4 decimals, and float32's (gains below 4)
DELTA_E_TOLERANCE = 0.005 + 200 * 2**-24  # the JSON's 2 decimals, and float32's


class Checks:
    def __init__(self):
        self.failures = 0

    def check(self, condition, message):
        if not condition:
            self.failures += 1
            if self.failures <= 20:
                print("FAIL: " + message, file=sys.stderr)
        return condition


class Receiver:
    """A UDP socket on a free port of 127.0.0.1, read on a thread of its own."""

    def __init__(self):
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        # Room for a burst (sample reads the test pattern as fast as it can): as root past
        # net.core.rmem_max (SO_RCVBUFFORCE), else up to it.
        try:
            self.socket.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_RCVBUFFORCE", 33), 8 << 20)
        except PermissionError:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.socket.bind(("127.0.0.1", 0))
        self.socket.settimeout(0.2)
        self.port = self.socket.getsockname()[1]
        self.datagrams = []
        self.stopping = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stopping:
            try:
                self.datagrams.append(self.socket.recv(70_000))
            except socket.timeout:
                pass

    def stop(self):
        """Once the sender has ended: everything it sent is queued here by then (loopback UDP is
        delivered as it is sent), so what is left is read without waiting."""
        self.stopping = True
        self.thread.join()
        self.socket.setblocking(False)
        while True:
            try:
                self.datagrams.append(self.socket.recv(70_000))
            except BlockingIOError:
                break
        self.socket.close()
        return self.datagrams


def time_tag(dgram):
    """The bundle's time tag as Unix seconds, from its raw 64 bits (not python-osc's reading)."""
    bits = int.from_bytes(dgram[8:16], "big")
    return (bits >> 32) - NTP_UNIX + (bits & 0xFFFFFFFF) / 2**32


def type_tag(message):
    """The type tag string of a python-osc message, without its comma."""
    _, index = osc_types.get_string(message.dgram, 0)
    tags, _ = osc_types.get_string(message.dgram, index)
    return tags[1:] if tags.startswith(",") else "?" + tags


def expected_messages(line):
    """(address, type tags, check) for every message a frame's JSON line calls for, in order."""
    messages = []
    reference = line.get("reference")
    if reference is not None:
        # The gains (4 decimals in the JSON), the drift (2; null for a black patch, NaN in OSC), applied.
        delta_e = float("nan") if reference["deltaE"] is None else reference["deltaE"]
        messages.append(("/eyedropper/reference", "ffffi", [*reference["gains"], delta_e, int(reference["applied"])],
                         [GAIN_TOLERANCE] * 3 + [DELTA_E_TOLERANCE, 0]))
    for i, sample in enumerate(line["samples"]):
        mean = [v / 255 for v in sample["mean"]]
        messages.append((f"/eyedropper/{i}/rgb", "fff", mean, RGB_TOLERANCE))
        messages.append((f"/eyedropper/{i}/hex", "s", [sample["hex"]], 0))
        if "calibrated" in sample:
            messages.append((f"/eyedropper/{i}/lab", "fff", sample["calibrated"]["lab"], LAB_TOLERANCE))
        nearest = sample.get("nearest")
        if nearest is not None:
            # The name, its ΔE and the margin (2 decimals in the JSON; null is NaN in OSC).
            margin = float("nan") if nearest["margin"] is None else nearest["margin"]
            messages.append((f"/eyedropper/{i}/name", "sff", [nearest["name"], nearest["deltaE"], margin],
                             [0, DELTA_E_TOLERANCE, DELTA_E_TOLERANCE]))
    return messages


def close(got, value, tolerance):
    """Within `tolerance`; NaN only where NaN is expected."""
    if value != value:
        return got != got
    return abs(got - value) <= tolerance


def frames_of(datagrams, checks):
    """The datagrams grouped into frames: consecutive bundles with one time tag."""
    frames = []
    for number, dgram in enumerate(datagrams):
        checks.check(len(dgram) <= DATAGRAM_LIMIT, f"datagram {number}: {len(dgram)} bytes, more than {DATAGRAM_LIMIT}")
        if not checks.check(OscBundle.dgram_is_bundle(dgram), f"datagram {number} is not a bundle: {dgram[:16]!r}"):
            continue
        try:
            bundle = OscBundle(dgram)
        except Exception as error:  # python-osc's ParseError and what a misaligned parse raises
            checks.check(False, f"datagram {number} does not parse as a bundle: {error}")
            continue
        tag = dgram[8:16]
        if frames and frames[-1]["tag"] == tag:
            frames[-1]["bundles"].append(bundle)
        else:
            frames.append({"tag": tag, "time": time_tag(dgram), "bundles": [bundle]})
    return frames


def compare_frame(checks, what, frame, line):
    messages = [m for bundle in frame["bundles"] for m in bundle]
    expected = expected_messages(line)
    checks.check(len(messages) == len(expected), f"{what}: {len(messages)} messages, the JSON line calls for {len(expected)}")
    for message, (address, tags, values, tolerance) in zip(messages, expected):
        got = list(message.params)
        checks.check(message.address == address, f"{what}: address {message.address!r}, expected {address!r}")
        checks.check(type_tag(message) == tags, f"{what}: {address} has type tags {type_tag(message)!r}, expected {tags!r}")
        if tags == "s":
            checks.check(got == values, f"{what}: {address} {got}, the JSON's {values}")
        elif tags == "sff":
            checks.check(len(got) == 3 and got[0] == values[0]
                         and all(close(g, v, t) for g, v, t in zip(got[1:], values[1:], tolerance[1:])),
                         f"{what}: {address} {got}, the JSON's {values}")
        else:
            tolerances = tolerance if isinstance(tolerance, list) else [tolerance] * len(values)
            checks.check(len(got) == len(values) and all(close(g, v, t) for g, v, t in zip(got, values, tolerances)),
                         f"{what}: {address} {got}, the JSON's {values} (within {tolerances})")
    # Split between points: a bundle never ends inside a point (its rgb without its hex).
    for before, after in zip(frame["bundles"], frame["bundles"][1:]):
        last, first = before.content(before.num_contents - 1).address, after.content(0).address
        checks.check(first.endswith("/rgb") and int(first.split("/")[2]) == int(last.split("/")[2]) + 1,
                     f"{what}: a bundle ends with {last} and the next starts with {first}")


def compare_run(checks, frames, lines, started, ended, bundles_per_frame=None):
    checks.check(len(frames) == len(lines), f"{len(frames)} frames of bundles, {len(lines)} JSON lines")
    previous = float("-inf")
    for number, (frame, line) in enumerate(zip(frames, lines)):
        what = f"frame {number}"
        checks.check(started - 1 <= frame["time"] <= ended + 1,
                     f"{what}: time tag {frame['time']:.6f}, the run went from {started:.3f} to {ended:.3f}")
        checks.check(frame["time"] >= previous, f"{what}: time tag {frame['time']:.6f} before the last, {previous:.6f}")
        previous = frame["time"]
        if bundles_per_frame is not None:
            checks.check(len(frame["bundles"]) == bundles_per_frame, f"{what}: {len(frame['bundles'])} bundles, expected {bundles_per_frame}")
        compare_frame(checks, what, frame, line)


def sample(eyedropper, expected_lines, bundles_per_frame, arguments):
    checks = Checks()
    receiver = Receiver()
    started = time.time()
    run = subprocess.run([eyedropper, "sample", *arguments, "--format", "json", "--osc", f"127.0.0.1:{receiver.port}"],
                         capture_output=True, text=True)
    ended = time.time()
    datagrams = receiver.stop()
    if not checks.check(run.returncode == 0, f"sample exited {run.returncode}: {run.stderr.strip()}"):
        return 1
    lines = [json.loads(text) for text in run.stdout.splitlines()]
    checks.check(len(lines) == expected_lines, f"sample printed {len(lines)} lines, expected {expected_lines}")
    frames = frames_of(datagrams, checks)
    points = len(lines[0]["samples"]) if lines else 0
    calibrated = bool(lines) and "calibrated" in lines[0]["samples"][0]
    split = any(len(f["bundles"]) > 1 for f in frames)
    bundles = max((len(f["bundles"]) for f in frames), default=0)
    compare_run(checks, frames, lines, started, ended, bundles_per_frame=bundles_per_frame)
    shown = " ".join(arguments)
    shown = shown if len(shown) < 200 else shown[:200] + "..."
    print(f"sample {shown}: {len(frames)} frames, {len(datagrams)} bundles ({bundles} a frame{', split' if split else ''}), "
          f"{points} points{', calibrated' if calibrated else ''}: {'ok' if checks.failures == 0 else f'{checks.failures} FAILURES'}")
    return 1 if checks.failures else 0


def serve(eyedropper, seconds, arguments):
    checks = Checks()
    receiver = Receiver()
    started = time.time()
    server = subprocess.Popen([eyedropper, "serve", "--listen", "127.0.0.1:0", *arguments, "--osc", f"127.0.0.1:{receiver.port}"],
                              stderr=subprocess.PIPE, text=True)
    log, port = [], None
    for text in server.stderr:
        log.append(text)
        found = re.search(r"on https?://127\.0\.0\.1:(\d+)/", text)
        if found:
            port = int(found.group(1))
            break
    if not checks.check(port is not None, "serve did not start: " + "".join(log)):
        server.kill()
        return 1
    threading.Thread(target=lambda: log.extend(server.stderr), daemon=True).start()
    # 30 frames a second from the test pattern: half of `seconds` of them sent, waited for (up to a
    # minute), not timed.
    wanted = 15 * seconds
    try:
        line = latest_sample(port)
        deadline = time.monotonic() + 60
        while True:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/status", timeout=30) as response:
                osc_status = json.loads(response.read()).get("osc")
            if (osc_status or {}).get("sent", 0) >= wanted or time.monotonic() > deadline:
                break
            time.sleep(0.1)
    finally:
        server.send_signal(signal.SIGTERM)
        status = server.wait(timeout=20)
    ended = time.time()
    datagrams = receiver.stop()
    checks.check(status == 0, f"serve exited {status}: {''.join(log)}")
    # status' "osc": the peer, the bundles sent (each one received here, later or at once), none failed.
    checks.check(osc_status is not None and osc_status["peer"] == f"127.0.0.1:{receiver.port}" and osc_status["failed"] == 0
                 and wanted <= osc_status["sent"] <= len(datagrams),
                 f"status osc {osc_status}, {len(datagrams)} datagrams received")
    frames = frames_of(datagrams, checks)
    checks.check(len(frames) >= wanted, f"{len(frames)} frames, {wanted:g} wanted")
    compare_run(checks, frames, [line] * len(frames), started, ended, bundles_per_frame=1)
    print(f"serve {' '.join(arguments)}: {len(frames)} frames in {ended - started:.1f} s, each against /api/v1/sample: "
          f"{'ok' if checks.failures == 0 else f'{checks.failures} FAILURES'}")
    return 1 if checks.failures else 0


def latest_sample(port):
    """/api/v1/sample, once the first frame is in (503 before; waited for up to a minute)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/sample", timeout=30) as response:
                return json.load(response)
        except urllib.error.HTTPError as error:
            if error.code != 503:
                raise
            time.sleep(0.1)
    raise RuntimeError("/api/v1/sample answered 503 for a minute")


def oscdump(dump, jsonl, expected_lines):
    """oscdump prints `%08x.%08x path types` and each value (floats %f, strings quoted)."""
    checks = Checks()
    lines = [json.loads(text) for text in open(jsonl)]
    checks.check(len(lines) == expected_lines, f"sample printed {len(lines)} lines, expected {expected_lines}")
    frames = []
    for text in open(dump):
        found = re.fullmatch(r"([0-9a-f]{8})\.([0-9a-f]{8}) (\S+) (\S+)((?: \S+)*)\n", text)
        if not checks.check(found is not None, f"oscdump printed {text!r}"):
            continue
        tag, address, tags, values = found.group(1) + found.group(2), found.group(3), found.group(4), found.group(5).split()
        if not frames or frames[-1][0] != tag:
            frames.append((tag, []))
        frames[-1][1].append((address, tags, values))
    checks.check(len(frames) == len(lines), f"oscdump shows {len(frames)} time tags, the run printed {len(lines)} lines")
    previous = 0
    for number, ((tag, messages), line) in enumerate(zip(frames, lines)):
        value = int(tag, 16)
        checks.check(value >= previous, f"frame {number}: time tag {tag} before the last")
        previous = value
        expected = expected_messages(line)
        checks.check(len(messages) == len(expected), f"frame {number}: oscdump shows {len(messages)} messages, expected {len(expected)}")
        for (address, tags, values), (want_address, want_tags, want, tolerance) in zip(messages, expected):
            checks.check(address == want_address and tags == want_tags, f"frame {number}: {address} {tags}, expected {want_address} {want_tags}")
            if tags == "s":
                checks.check(values == [f'"{want[0]}"'], f"frame {number}: {address} {values}, expected {want}")
            else:  # %f: 6 decimals; %d
                tolerances = tolerance if isinstance(tolerance, list) else [tolerance] * len(want)
                checks.check(len(values) == len(want)
                             and all(close(float(g), v, t + 5e-7) for g, v, t in zip(values, want, tolerances)),
                             f"frame {number}: {address} {values}, expected {want}")
    print(f"oscdump: {len(frames)} frames, {sum(len(m) for _, m in frames)} messages: "
          f"{'ok' if checks.failures == 0 else f'{checks.failures} FAILURES'}")
    return 1 if checks.failures else 0


def udp_bound(port):
    """Whether a UDP socket is bound to `port` (/proc/net/udp: local address hex IP:PORT)."""
    with open("/proc/net/udp") as table:
        return any(line.split()[1].endswith(f":{port:04X}") for line in list(table)[1:])


def wait_listening(port):
    """Until something listens on UDP `port` (oscdump, started in the background), up to a minute."""
    deadline = time.monotonic() + 60
    while not udp_bound(int(port)):
        if time.monotonic() > deadline:
            print(f"nothing listens on UDP port {port} after a minute", file=sys.stderr)
            return 1
        time.sleep(0.05)
    return 0


def wait_dump(dump, jsonl):
    """Until oscdump has printed every message the run's lines say were sent (it reads them from
    its socket after the run has ended), up to a minute."""
    expected = sum(len(expected_messages(json.loads(text))) for text in open(jsonl))
    deadline = time.monotonic() + 60
    while (printed := sum(1 for _ in open(dump))) < expected and time.monotonic() < deadline:
        time.sleep(0.05)
    return 0


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        print(probe.getsockname()[1])
    return 0


def main():
    arguments = sys.argv[1:]
    if arguments[:1] == ["sample"] and len(arguments) >= 4:
        return sample(arguments[1], int(arguments[2]), int(arguments[3]), arguments[4:])
    if arguments[:1] == ["serve"] and len(arguments) >= 3:
        return serve(arguments[1], float(arguments[2]), arguments[3:])
    if arguments[:1] == ["oscdump"] and len(arguments) == 4:
        return oscdump(arguments[1], arguments[2], int(arguments[3]))
    if arguments == ["free-port"]:
        return free_port()
    if arguments[:1] == ["wait-listening"] and len(arguments) == 2:
        return wait_listening(arguments[1])
    if arguments[:1] == ["wait-dump"] and len(arguments) == 3:
        return wait_dump(arguments[1], arguments[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
