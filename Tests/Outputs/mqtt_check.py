#!/usr/bin/env python3
"""`eyedropper sample` and `serve` publishing to a real Mosquitto broker (Tests/Outputs/mqtt-tests.sh).

usage: mqtt_check.py EYEDROPPER WORKDIR CHART_Y4M PROFILE TARGET X,Y X,Y

Starts Debian's mosquitto on free loopback ports (plain, with a password file, with TLS) and
subscribes with paho-mqtt, an MQTT client of its own, to check:
  - every line `sample --format json` prints arrives on PREFIX/samples byte for byte, in order
    (QoS 0 and 1; with --profile and --target; with --average, --format csv and --mqtt-every);
  - a wrong port or an unknown host exits 69, refused credentials 77, a missing --mqtt-ca 66,
    each with one line on stderr and nothing on stdout; a password from EYEDROPPER_MQTT_PASSWORD
    and mqtts:// with --mqtt-ca work;
  - serve's retained status: online, offline after SIGTERM, offline by the last will after SIGKILL;
  - the broker stopped for 5 s: serve's capture keeps its rate, publishing resumes, drops are
    counted (status and /metrics) and said on stderr once each way;
  - Home Assistant discovery: each point's sensor config announced again when a reload changes
    what it describes;
  - Home Assistant discovery: each point's sensor config, its templates rendered by Jinja2 (as
    Home Assistant renders them) against a published line;
  - a fleet: two serve processes, two sources, one broker, each under its own default topic.
Each check prints PASS or FAIL with what was wrong; the exit status is 1 if any failed.
"""
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import jinja2
import paho.mqtt.client as mqtt

EYEDROPPER, WORK, CHART, PROFILE, TARGET, POINT_A, POINT_B = sys.argv[1:8]
HOST = socket.gethostname()
failures = []


def check(name, ok, detail=""):
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + detail), flush=True)
    if not ok:
        failures.append(name)
    return ok


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """mosquitto on 127.0.0.1:port with `extra` configuration lines; restartable on the same port."""

    def __init__(self, name, extra=()):
        self.port = free_port()
        self.conf = os.path.join(WORK, name + ".conf")
        self.log = os.path.join(WORK, name + ".log")
        lines = [f"listener {self.port} 127.0.0.1", "persistence false", *extra]
        if os.geteuid() == 0:
            lines.append("user root")  # else it drops to `mosquitto`, who cannot read our files
        if not any(line.startswith(("allow_anonymous", "password_file")) for line in extra):
            lines.append("allow_anonymous true")
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.start()

    def start(self):
        self.process = subprocess.Popen(["mosquitto", "-c", self.conf], stdout=open(self.log, "a"), stderr=subprocess.STDOUT)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit(f"mosquitto did not start: {open(self.log).read()}")

    def stop(self):
        self.process.terminate()
        self.process.wait()

    @property
    def url(self):
        return f"mqtt://127.0.0.1:{self.port}"


class Subscriber:
    """paho-mqtt on `topics`; every message kept in order as (topic, payload bytes, retained)."""

    def __init__(self, port, *topics, tls_ca=None, user=None, password=None):
        self.messages = queue.Queue()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        if user:
            self.client.username_pw_set(user, password)
        if tls_ca:
            self.client.tls_set(ca_certs=tls_ca)
        subscribed = queue.Queue()
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe([(t, 1) for t in topics])
        self.client.on_subscribe = lambda c, u, mid, rc, p: subscribed.put(True)
        self.client.on_message = lambda c, u, m: self.messages.put((m.topic, m.payload, m.retain))
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        subscribed.get(timeout=5)

    def take(self, count, seconds=10, topic=None):
        """Up to `count` messages (on `topic`, if given) within `seconds`."""
        got, deadline = [], time.time() + seconds
        while len(got) < count and time.time() < deadline:
            try:
                message = self.messages.get(timeout=max(0.01, deadline - time.time()))
            except queue.Empty:
                break
            if topic is None or message[0] == topic:
                got.append(message)
        return got

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


def run(arguments, env=None):
    result = subprocess.run([EYEDROPPER, *arguments], capture_output=True, env={**os.environ, **(env or {})}, timeout=60)
    return result.returncode, result.stdout, result.stderr.decode()


def lines_of(stdout):
    return [line for line in stdout.split(b"\n") if line]


def published_sample(broker, topic, arguments, compare_with=None, env=None, qos=None, **subscriber):
    """Runs `sample ARGUMENTS --mqtt-topic TOPIC` with a subscriber on TOPIC/samples; returns
    (status, printed lines or those of `compare_with`, payloads received, stderr)."""
    sub = Subscriber(broker.port, topic + "/samples", **subscriber)
    status, stdout, stderr = run([*arguments, "--mqtt-topic", topic] + (["--mqtt-qos", qos] if qos else []), env)
    expected = lines_of(stdout) if compare_with is None else compare_with
    got = [payload for _, payload, _ in sub.take(len(expected), seconds=10)]
    got += [payload for _, payload, _ in sub.take(1, seconds=0.5)]  # and nothing more
    sub.close()
    return status, expected, got, stderr


def first_difference(expected, got):
    for index, (a, b) in enumerate(zip(expected, got)):
        if a != b:
            return f"line {index}: printed {a[:120]!r}, received {b[:120]!r}"
    return f"printed {len(expected)} lines, received {len(got)}"


def check_error(name, arguments, status, needle, env=None):
    code, stdout, stderr = run(arguments, env)
    lines = stderr.strip().split("\n")
    check(name, code == status and stdout == b"" and len(lines) == 1 and needle in lines[0],
          f"exit {code} (want {status}), stdout {stdout[:80]!r}, stderr {stderr!r}")


class Serve:
    """`eyedropper serve` on a free port; `status()` reads /api/v1/status."""

    def __init__(self, name, arguments):
        self.log = os.path.join(WORK, name + ".log")
        self.process = subprocess.Popen([EYEDROPPER, "serve", "--listen", "127.0.0.1:0", *arguments],
                                        stdout=subprocess.DEVNULL, stderr=open(self.log, "w"))
        self.port = None
        for _ in range(100):
            text = open(self.log).read()
            if "serving " in text:
                self.port = int(text.split("http://127.0.0.1:")[1].split("/")[0])
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        raise SystemExit(f"serve did not start: {open(self.log).read()}")

    def get(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=5) as response:
            return response.read().decode()

    def status(self):
        return json.loads(self.get("/api/v1/status"))

    def stop(self, sig=signal.SIGTERM):
        self.process.send_signal(sig)
        return self.process.wait(timeout=10)

    def stderr(self):
        return open(self.log).read()


def retained_status(port, topic, seconds=3):
    sub = Subscriber(port, topic + "/status")
    got = sub.take(1, seconds)
    sub.close()
    return got[0][1].decode() if got else None


def wait_for_status(port, topic, value, seconds):
    """Watches TOPIC/status until it says `value`, up to `seconds`; returns the seconds it took."""
    sub = Subscriber(port, topic + "/status")
    start = time.time()
    try:
        while time.time() - start < seconds:
            for _, payload, _ in sub.take(1, seconds=0.2):
                if payload.decode() == value:
                    return time.time() - start
        return None
    finally:
        sub.close()


def main():
    broker = Broker("plain")
    points = ["--at", "0.1,0.5", "--at", "0.5,0.5", "--at", "0.9,0.9", "--radius", "2"]

    # 1. Byte for byte, in order: QoS 0 and 1, a profile and target, blocks as csv every 2nd.
    for qos in ("0", "1"):
        status, expected, got, stderr = published_sample(
            broker, f"t/qos{qos}", ["sample", "--source", "testpattern", "--frames", "300", *points,
                                    "--mqtt", broker.url, "--format", "json"], qos=qos)
        check(f"sample QoS {qos}: all 300 printed lines arrive byte for byte, in order, and nothing else",
              status == 0 and len(expected) == 300 and got == expected, f"exit {status}; {first_difference(expected, got)}; {stderr}")
    calibrated = ["sample", "--source", CHART, "--matrix", "bt601", "--profile", PROFILE, "--target", TARGET,
                  "--at", POINT_A, "--at", POINT_B, "--radius", "4"]
    _, without_mqtt, _ = run(calibrated)
    status, expected, got, stderr = published_sample(broker, "t/calibrated", [*calibrated, "--mqtt", broker.url], qos="1")
    check("sample --profile --target: lines with calibrated colours and deltaE arrive byte for byte, as printed without --mqtt",
          status == 1 and expected == lines_of(without_mqtt) and all(b'"deltaE":' in line for line in expected) and got == expected,
          f"exit {status} (1: the second point is off target); {first_difference(expected, got)}; {stderr}")
    blocks = ["sample", "--source", "testpattern", "--frames", "43", "--average", "5", *points]
    _, json_blocks, _ = run([*blocks, "--format", "json"])
    every_second = lines_of(json_blocks)[::2]
    status, expected, got, stderr = published_sample(
        broker, "t/blocks", [*blocks, "--format", "csv", "--mqtt", broker.url, "--mqtt-every", "2"], compare_with=every_second)
    check("sample --average 5 --format csv --mqtt-every 2: the JSON of blocks 0, 2, 4, ... (the last one short) arrives",
          status == 0 and len(expected) == 5 and b'"frames":3' in expected[-1] and got == expected,
          f"exit {status}; {first_difference(expected, got)}; {stderr}")
    check("the retained status of a finished sample is offline", retained_status(broker.port, "t/blocks") == "offline")

    # 2. Errors at the start: one line, a sysexits status, nothing streamed.
    check_error("a port where no broker listens: exit 69", ["sample", "--source", "testpattern", "--mqtt", f"mqtt://127.0.0.1:{free_port()}"],
                69, "Connection refused")
    check_error("an unknown host: exit 69", ["sample", "--source", "testpattern", "--mqtt", "mqtt://no-such-host.invalid"], 69, "no-such-host.invalid")
    passwords = os.path.join(WORK, "passwords")
    subprocess.run(["mosquitto_passwd", "-c", "-b", passwords, "camera", "right horse"], check=True, capture_output=True)
    os.chmod(passwords, 0o600)
    guarded = Broker("guarded", ["allow_anonymous false", f"password_file {passwords}"])
    check_error("a wrong password: exit 77", ["sample", "--source", "testpattern", "--mqtt", f"mqtt://camera:wrong@127.0.0.1:{guarded.port}"],
                77, "refused the connection")
    check_error("no credentials where they are needed: exit 77", ["sample", "--source", "testpattern", "--mqtt", guarded.url], 77, "not authorised")
    status, expected, got, stderr = published_sample(
        guarded, "t/password", ["sample", "--source", "testpattern", "--frames", "5", "--mqtt", f"mqtt://camera@127.0.0.1:{guarded.port}"],
        env={"EYEDROPPER_MQTT_PASSWORD": "right horse"}, user="camera", password="right horse")
    check("the password from EYEDROPPER_MQTT_PASSWORD (a user without one in the URL) is accepted",
          status == 0 and len(expected) == 5 and got == expected, f"exit {status}; {stderr}")
    refused = run(["sample", "--source", "testpattern", "--mqtt", f"mqtt://camera:wrong@127.0.0.1:{guarded.port}"])
    check("the password never shows in what is said, accepted or refused (77)",
          "right horse" not in stderr and refused[0] == 77 and "wrong" not in refused[2], f"{stderr}; {refused}")
    guarded.stop()

    tls = os.path.join(WORK, "tls")
    os.makedirs(tls, exist_ok=True)
    openssl = ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2"]
    subprocess.run([*openssl, "-subj", "/CN=Eyedropper test CA", "-keyout", f"{tls}/ca.key", "-out", f"{tls}/ca.pem"], check=True, capture_output=True)
    subprocess.run(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=127.0.0.1",
                    "-keyout", f"{tls}/server.key", "-out", f"{tls}/server.csr"], check=True, capture_output=True)
    with open(f"{tls}/san.ext", "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    subprocess.run(["openssl", "x509", "-req", "-in", f"{tls}/server.csr", "-CA", f"{tls}/ca.pem", "-CAkey", f"{tls}/ca.key",
                    "-CAcreateserial", "-days", "2", "-extfile", f"{tls}/san.ext", "-out", f"{tls}/server.pem"], check=True, capture_output=True)
    secure = Broker("tls", [f"cafile {tls}/ca.pem", f"certfile {tls}/server.pem", f"keyfile {tls}/server.key"])
    status, expected, got, stderr = published_sample(
        secure, "t/tls", ["sample", "--source", "testpattern", "--frames", "5", "--mqtt", f"mqtts://127.0.0.1:{secure.port}", "--mqtt-ca", f"{tls}/ca.pem"],
        tls_ca=f"{tls}/ca.pem")
    check("mqtts:// with --mqtt-ca: lines arrive", status == 0 and len(expected) == 5 and got == expected, f"exit {status}; {stderr}")
    check_error("mqtts:// to a broker whose CA is not trusted: exit 69",
                ["sample", "--source", "testpattern", "--mqtt", f"mqtts://127.0.0.1:{secure.port}"], 69, "TLS")
    check_error("--mqtt-ca naming no file: exit 66",
                ["sample", "--source", "testpattern", "--mqtt", f"mqtts://127.0.0.1:{secure.port}", "--mqtt-ca", f"{tls}/none.pem"], 66, "none.pem")
    secure.stop()

    # 3. serve: online, offline at SIGTERM, the last will at SIGKILL.
    serve = Serve("serve-term", ["--source", "testpattern", "--mqtt", broker.url, "--mqtt-topic", "t/term"])
    check("serve says online (retained)", retained_status(broker.port, "t/term") == "online")
    code = serve.stop()
    check("serve stopped by SIGTERM exits 0 and says offline", code == 0 and retained_status(broker.port, "t/term") == "offline",
          f"exit {code}; {serve.stderr()}")
    serve = Serve("serve-kill", ["--source", "testpattern", "--mqtt", broker.url, "--mqtt-topic", "t/kill"])
    check("a second serve says online", retained_status(broker.port, "t/kill") == "online")
    watcher = Subscriber(broker.port, "t/kill/status")
    watcher.take(1, 2)  # the retained online
    killed = time.time()
    serve.stop(signal.SIGKILL)
    will = watcher.take(1, 5)
    watcher.close()
    check("killed (SIGKILL), its last will turns the status offline within 2 s",
          bool(will) and will[0][1] == b"offline" and time.time() - killed < 2, f"{will}")

    # 4. The broker away for 5 s.
    serve = Serve("serve-outage", ["--source", "testpattern", "--mqtt", broker.url, "--mqtt-topic", "t/outage", "--mqtt-queue", "30",
                                   "--mqtt-qos", "1"])
    sub = Subscriber(broker.port, "t/outage/samples")
    before = sub.take(30, 5)
    sub.close()
    numbers = [json.loads(payload)["frame"] for _, payload, _ in before]
    check("serve publishes a line per frame: 30 lines of consecutive frames",
          len(before) == 30 and numbers == list(range(numbers[0], numbers[0] + 30)), f"{len(before)} lines in 5 s: frames {numbers}")
    broker.stop()
    rates, frames, away = [], serve.status()["framesCaptured"], []
    for _ in range(10):
        time.sleep(0.5)
        status = serve.status()
        rates.append((status["framesCaptured"] - frames) * 2)
        frames = status["framesCaptured"]
        away.append(status["mqtt"]["connected"])
    check("while the broker is away, status says not connected", not any(away[1:]), f"{away}")
    broker.start()
    sub = Subscriber(broker.port, "t/outage/samples")
    after = sub.take(10, 15)
    sub.close()
    status = serve.status()
    metrics = serve.get("/metrics")
    check("while the broker was away, capture kept its rate (30 a second from the test pattern: at least 20 in every half second, x2)",
          min(rates) >= 20 and status["framesDropped"] == 0, f"frames a second, each half second: {rates}; dropped {status['framesDropped']}")
    check("after the broker is back, publishing resumes (10 lines within 15 s)", len(after) == 10, f"{len(after)} lines")
    last_before = json.loads(before[-1][1])["frame"] if before else 0
    first_after = json.loads(after[0][1])["frame"] if after else 0
    check("the queue kept the newest lines: the first after the return is more than a queue (30) past the last before",
          first_after > last_before + 30, f"last frame before {last_before}, first after {first_after}")
    mqtt_status = status["mqtt"]
    check("drops are counted in status: more than 5 s of frames less the queue of 30",
          mqtt_status["connected"] and mqtt_status["dropped"] >= 5 * 30 - 30 - 30, f"{mqtt_status}")
    dropped_metric = [line for line in metrics.split("\n") if line.startswith("eyedropper_mqtt_dropped_total ")]
    check("and in /metrics (eyedropper_mqtt_dropped_total, at least status' figure)",
          len(dropped_metric) == 1 and int(float(dropped_metric[0].split()[1])) >= mqtt_status["dropped"], f"{dropped_metric}")
    serve.stop()
    said = serve.stderr()
    check("stderr says once that the broker was lost and once that it is back",
          said.count("mqtt: lost ") == 1 and said.count("again after") == 1, said)

    # 5. Home Assistant discovery, rendered as Home Assistant renders it.
    serve = Serve("serve-discovery", ["--source", CHART, "--matrix", "bt601", "--profile", PROFILE, "--target", TARGET,
                                      "--at", POINT_A, "--at", POINT_B, "--radius", "4", "--mqtt", broker.url,
                                      "--mqtt-topic", "t/ha", "--mqtt-discovery",
                                      "--palette", "Packaging/palettes/colorchecker-classic-24.json"])
    sub = Subscriber(broker.port, "homeassistant/sensor/eyedropper_t_ha/+/config", "t/ha/samples")
    messages = sub.take(3, 5)
    sub.close()
    configs = {topic: json.loads(payload) for topic, payload, retained in messages if topic.startswith("homeassistant/") and retained}
    lines = [json.loads(payload) for topic, payload, _ in messages if topic == "t/ha/samples"]
    check("discovery: a retained config per point", sorted(configs) == [f"homeassistant/sensor/eyedropper_t_ha/point_{i}/config" for i in (0, 1)],
          f"{sorted(configs)}")
    if len(configs) == 2 and lines:
        environment = jinja2.Environment()
        line = lines[0]
        for index in (0, 1):
            config = configs[f"homeassistant/sensor/eyedropper_t_ha/point_{index}/config"]
            sample = line["samples"][index]
            state = environment.from_string(config["value_template"]).render(value_json=line)
            attributes = json.loads(environment.from_string(config["json_attributes_template"]).render(value_json=line))
            nearest = sample["nearest"]
            check(f"discovery point {index}: the state is its hex; the attributes rgb, calibrated lab, deltaE and its name",
                  state == sample["hex"] and attributes == {"rgb": [sample["r"], sample["g"], sample["b"]],
                                                            "lab": sample["calibrated"]["lab"], "deltaE": sample["deltaE"],
                                                            "name": nearest["name"], "nameDeltaE": nearest["deltaE"],
                                                            "nameMargin": nearest["margin"]}
                  and config["state_topic"] == config["json_attributes_topic"] == "t/ha/samples"
                  and config["availability_topic"] == "t/ha/status",
                  f"state {state}, attributes {attributes}, sample {sample}, config {config}")
    else:
        check("discovery: a line arrived beside the configs", False, f"{len(configs)} configs, {len(lines)} lines")
    serve.stop()

    # 5b. The sensors follow serve's settings: a reload (SIGHUP) that takes the profile and target
    # away announces them again at once, without the calibrated lab and deltaE.
    configuration = os.path.join(WORK, "discovery.conf")
    common = (f"source {CHART}\nmatrix bt601\nat {POINT_A}\nradius 4\nmqtt {broker.url}\nmqtt-topic t/hb\n"
              "mqtt-discovery\n")
    with open(configuration, "w") as f:
        f.write(common + f"profile {PROFILE}\ntarget {TARGET}\n")
    serve = Serve("serve-discovery-reload", ["--config", configuration])
    sub = Subscriber(broker.port, "homeassistant/sensor/eyedropper_t_hb/+/config")
    before = [json.loads(payload)["json_attributes_template"] for _, payload, _ in sub.take(1, 5)]
    with open(configuration, "w") as f:
        f.write(common)
    serve.process.send_signal(signal.SIGHUP)
    after = [json.loads(payload)["json_attributes_template"] for _, payload, _ in sub.take(1, 5)]
    sub.close()
    check("discovery follows a reload: with the profile the attributes have lab and deltaE, announced again without them once it is gone",
          len(before) == 1 and "'lab'" in before[0] and "'deltaE'" in before[0]
          and len(after) == 1 and "'lab'" not in after[0] and "'deltaE'" not in after[0] and "'rgb'" in after[0],
          f"before {before}, after {after}")
    serve.stop()

    # 6. A fleet: two cameras (sources), one broker, default topics.
    one = Serve("fleet-testpattern", ["--source", "testpattern", "--mqtt", broker.url, "--mqtt-discovery"])
    two = Serve("fleet-chart", ["--source", CHART, "--matrix", "bt601", "--mqtt", broker.url, "--mqtt-discovery"])
    topics = [f"eyedropper/{HOST}/testpattern", f"eyedropper/{HOST}/chart"]
    sub = Subscriber(broker.port, "eyedropper/+/+/samples", "eyedropper/+/+/status", "homeassistant/sensor/+/+/config")
    messages = sub.take(150, 4)
    per_topic = {topic: sum(1 for t, _, _ in messages if t == topic + "/samples") for topic in topics}
    online = {t for t, p, _ in messages if t.endswith("/status") and p == b"online"}
    check("fleet: both serve processes publish lines under their own default topic, and say online",
          all(count >= 30 for count in per_topic.values()) and online == {t + "/status" for t in topics}, f"{per_topic}, {online}")
    nodes = ["eyedropper_" + re.sub(r"[^A-Za-z0-9-]", "_", topic) for topic in topics]
    unique_ids = {json.loads(p)["unique_id"] for t, p, _ in messages if t.startswith("homeassistant/") and t.split("/")[2] in nodes}
    check("fleet: their Home Assistant sensors have distinct ids, one per camera's point",
          unique_ids == {nodes[0] + "_0", nodes[1] + "_0"}, f"{unique_ids}")
    one.stop(signal.SIGKILL)
    sub.take(10_000, 0.5)
    messages = sub.take(150, 3)
    sub.close()
    statuses = {t: p for t, p, _ in messages if t.endswith("/status")}
    still = sum(1 for t, _, _ in messages if t == topics[1] + "/samples")
    check("fleet: one killed, its status goes offline while the other keeps publishing",
          statuses.get(topics[0] + "/status") != b"online" and topics[1] + "/status" not in statuses and still >= 30
          and retained_status(broker.port, topics[0]) == "offline",
          f"statuses {statuses}, {still} lines from the other")
    two.stop()
    broker.stop()
    print(f"{len(failures)} failed" if failures else "all MQTT checks passed", flush=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
