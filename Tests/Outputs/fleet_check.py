#!/usr/bin/env python3
"""A fleet of three `eyedropper serve` hosts, one Mosquitto and one Prometheus, each host in a
network namespace of its own (Tests/Outputs/fleet-tests.sh makes them and runs this in the hub's).

usage: fleet_check.py EYEDROPPER RULES WORKDIR NETNS_1 NETNS_2 NETNS_3

Starts Debian's mosquitto (persistence off) and prometheus (scraping 10.77.0.11-13:8080 every
second, RULES loaded) on 10.77.0.1, subscribes with paho-mqtt to every host's samples and status
from the start, starts `serve --source testpattern --fps 10` in each host's namespace under the
topic eyedropper/host-N/testpattern, and checks:
  - all three say online and Prometheus scrapes all three (up 1), with no alert pending or firing;
  - host 2 killed with SIGKILL: its retained status becomes offline (the broker's last will,
    within 1.5 times serve's 20 s keepalive), Prometheus' up for it becomes 0 within two scrape
    intervals, and EyedropperHostDown becomes pending (its `for:` is a minute) for it alone;
  - host 1 reloads (SIGHUP) meanwhile: its status says so, and the checks below hold it to every
    frame and one online through it;
  - host 2 started again: online again, up 1 again, the alert gone;
  - host 2 cut off the network (its bridge port down, so no FIN reaches the broker): up 0 within
    two scrape intervals, offline by the will once 1.5 keepalives have passed (Mosquitto 2.0 looks
    every 5 to 6 s: within 37 s); its port back up: online again and up 1;
  - host 2 publishes with --mqtt-qos 1 (the subscriber takes QoS 1 too): every frame it captured
    across the cut reaches the subscriber once the link is back (at least once: repeats allowed),
    none dropped from its queue; an event-stream client reading host 2's /api/v1/samples through
    the cut reconnects with Last-Event-ID and misses no event;
  - hosts 1 and 3 publish every frame throughout: their frame numbers run from 0 to the last with
    none missing or repeated, and they kept publishing during the outage (at least half of 10 a
    second: a bound on "kept going", not a speed target).
Prints the figures: samples per host in each phase, the seconds from the kill (and the cut) to
offline and to up 0, and from the restart (and the return) to online and up 1. One PASS or FAIL line per
check; the exit status is 1 if any failed.
"""
import datetime
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

import paho.mqtt.client as mqtt

EYEDROPPER, RULES, WORK = sys.argv[1:4]
NAMESPACES = sys.argv[4:7]
HUB = "10.77.0.1"
HOSTS = [f"10.77.0.1{i}" for i in (1, 2, 3)]
INSTANCES = [f"{address}:8080" for address in HOSTS]
TOPICS = [f"eyedropper/host-{i}/testpattern" for i in (1, 2, 3)]
SCRAPE = 1.0  # seconds, Prometheus' scrape and evaluation interval here
KEEPALIVE = 20  # serve's MQTT keepalive (MQTTSettings.keepAlive): a will within 1.5 times it
FPS = 10
failures = []
processes = []


def check(name, ok, detail=""):
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + detail), flush=True)
    if not ok:
        failures.append(name)
    return ok


def start(name, command):
    log = open(os.path.join(WORK, name + ".log"), "a")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    processes.append(process)
    return process


def wait_until(condition, seconds, step=0.05):
    """Polls `condition` until it returns something true, up to `seconds`: (value, seconds taken)."""
    begun = time.monotonic()
    while True:
        value = condition()
        if value or time.monotonic() - begun > seconds:
            return value, time.monotonic() - begun
        time.sleep(step)


def reachable(address, port):
    try:
        socket.create_connection((address, port), timeout=0.2).close()
        return True
    except OSError:
        return False


def prometheus(path, **query):
    url = f"http://{HUB}:9090{path}" + ("?" + urllib.parse.urlencode(query) if query else "")
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())["data"]


def up():
    """Prometheus' newest `up` per instance of the job."""
    return {r["metric"]["instance"]: r["value"][1] for r in prometheus("/api/v1/query", query='up{job="eyedropper"}')["result"]}


def up_samples(instance, seconds=30):
    """(scrape time in seconds since 1970, value) of `up` for `instance` over the last `seconds`."""
    result = prometheus("/api/v1/query", query=f'up{{job="eyedropper",instance="{instance}"}}[{seconds}s]')["result"]
    return [(float(t), value) for t, value in result[0]["values"]] if result else []


def seconds(rfc3339):
    """Seconds since 1970 of an RFC 3339 time as Prometheus writes it (UTC, up to nanoseconds)."""
    whole, _, fraction = rfc3339.rstrip("Z").partition(".")
    return datetime.datetime.fromisoformat(whole + "+00:00").timestamp() + float("0." + (fraction or "0"))


def alerts():
    """(alertname, instance, state) of every alert pending or firing."""
    return {(a["labels"]["alertname"], a["labels"].get("instance"), a["state"]) for a in prometheus("/api/v1/alerts")["alerts"]}


class Subscriber:
    """paho-mqtt on every host's samples and status; keeps (arrival, host index, kind, payload)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.messages = []
        subscribed = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe(
            [(topic + "/samples", 1) for topic in TOPICS] + [(topic + "/status", 1) for topic in TOPICS])
        self.client.on_subscribe = lambda c, u, mid, rc, p: subscribed.set()
        self.client.on_message = self.received
        self.client.connect(HUB, 1883)
        self.client.loop_start()
        if not subscribed.wait(5):
            raise SystemExit("the subscriber could not subscribe")

    def received(self, client, userdata, message):
        now = time.monotonic()
        host, kind = TOPICS.index(message.topic.rsplit("/", 1)[0]), message.topic.rsplit("/", 1)[1]
        with self.lock:
            self.messages.append((now, host, kind, message.payload))

    def taken(self):
        with self.lock:
            return list(self.messages)

    def statuses(self, host, since=0.0):
        return [(t, payload.decode()) for t, h, kind, payload in self.taken() if h == host and kind == "status" and t >= since]

    def frames(self, host):
        """(arrival, frame number) of every sample line of `host`."""
        return [(t, json.loads(payload)["frame"]) for t, h, kind, payload in self.taken() if h == host and kind == "samples"]

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


def status(instance):
    try:
        with urllib.request.urlopen(f"http://{instance}/api/v1/status", timeout=1) as answer:
            return json.load(answer)
    except OSError:
        return None


def retained_status(topic):
    got = []
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    client.on_connect = lambda c, u, f, rc, p: c.subscribe(topic + "/status", 1)
    client.on_message = lambda c, u, m: got.append((m.payload.decode(), m.retain))
    client.connect(HUB, 1883)
    client.loop_start()
    wait_until(lambda: got, 3)
    client.loop_stop()
    client.disconnect()
    return got[0] if got else None


def serve(index):
    # Host 2, the one cut off, publishes at least once: what the cut held back arrives after it.
    qos = ["--mqtt-qos", "1"] if index == 1 else []
    return start(f"host-{index + 1}", [
        "ip", "netns", "exec", NAMESPACES[index], EYEDROPPER, "serve", "--source", "testpattern", "--fps", str(FPS),
        "--size", "320x240", "--listen", INSTANCES[index], "--no-auth",
        "--mqtt", f"mqtt://{HUB}", "--mqtt-topic", TOPICS[index]] + qos)


class EventClient:
    """An event-stream client of /api/v1/samples that reconnects as a browser's EventSource does:
    a second after the stream ends or stalls (no byte for `stall` seconds), with Last-Event-ID, the
    last id it had. Keeps every event id in order of arrival, and the number of connections."""

    def __init__(self, instance, stall=3.0):
        self.instance, self.stall = instance, stall
        self.lock = threading.Lock()
        self.ids, self.connections, self.last = [], 0, None
        self.stopping = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        import http.client
        while not self.stopping:
            host, port = self.instance.split(":")
            try:
                connection = http.client.HTTPConnection(host, int(port), timeout=self.stall)
                headers = {"Last-Event-ID": str(self.last)} if self.last is not None else {}
                connection.request("GET", "/api/v1/samples", headers=headers)
                response = connection.getresponse()
                with self.lock:
                    self.connections += 1
                while not self.stopping:
                    line = response.fp.readline()
                    if not line:
                        break
                    if line.startswith(b"id: "):
                        number = int(line[4:])
                        with self.lock:
                            self.ids.append(number)
                            self.last = number
                connection.close()
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(1)

    def taken(self):
        with self.lock:
            return list(self.ids), self.connections

    def close(self):
        self.stopping = True


def last_frame_gaps(frames):
    """What is wrong with a run of frame numbers that should be 0, 1, 2, ...: '' when nothing."""
    numbers = [number for _, number in frames]
    if not numbers:
        return "no frames"
    if numbers[0] != 0:
        return f"the first frame is {numbers[0]}, not 0"
    wrong = [(a, b) for a, b in zip(numbers, numbers[1:]) if b != a + 1]
    return f"{len(wrong)} breaks, the first {wrong[:5]}" if wrong else ""


def main():
    with open(os.path.join(WORK, "mosquitto.conf"), "w") as f:
        f.write(f"listener 1883 {HUB}\nallow_anonymous true\npersistence false\nuser root\n")
    start("mosquitto", ["mosquitto", "-c", os.path.join(WORK, "mosquitto.conf")])
    with open(os.path.join(WORK, "prometheus.yml"), "w") as f:
        json.dump({  # YAML is a superset of JSON
            "global": {"scrape_interval": f"{SCRAPE:g}s", "evaluation_interval": f"{SCRAPE:g}s", "scrape_timeout": "900ms"},
            "rule_files": [RULES],
            "scrape_configs": [{"job_name": "eyedropper", "static_configs": [{"targets": INSTANCES}]}],
        }, f, indent=2)
    start("prometheus", ["prometheus", "--config.file", os.path.join(WORK, "prometheus.yml"),
                         "--storage.tsdb.path", os.path.join(WORK, "prometheus-data"),
                         "--web.listen-address", f"{HUB}:9090"])
    _, took = wait_until(lambda: reachable(HUB, 1883), 10)
    check("mosquitto listens on 10.77.0.1:1883", reachable(HUB, 1883), f"not after {took:.1f} s")

    def ready():
        try:
            return urllib.request.urlopen(f"http://{HUB}:9090/-/ready", timeout=1).status == 200
        except OSError:
            return False

    ok, took = wait_until(ready, 30, 0.2)
    if not check("prometheus is ready on 10.77.0.1:9090 with the alert rules loaded",
                 ok and any(rule.get("name") == "EyedropperHostDown" for group in prometheus("/api/v1/rules")["groups"]
                            for rule in group["rules"]), f"ready {ok} after {took:.1f} s"):
        return

    sub = Subscriber()
    hosts = [serve(index) for index in range(3)]
    everyone_up, took = wait_until(lambda: up() == {instance: "1" for instance in INSTANCES}, 20, 0.2)
    online, _ = wait_until(lambda: all(sub.statuses(h) and sub.statuses(h)[-1][1] == "online" for h in range(3)), 10)
    check("all three hosts say online and Prometheus scrapes them (up 1)", everyone_up and online,
          f"up {up()}, statuses {[sub.statuses(h) for h in range(3)]}")
    time.sleep(3 * SCRAPE)  # the rules evaluated a few times over the three
    check("no alert pending or firing while the three are healthy", not alerts(), f"{sorted(alerts())}")

    time.sleep(5)
    killed, killed_at = time.monotonic(), time.time()
    hosts[1].send_signal(signal.SIGKILL)  # ip netns exec has exec'd serve: this is serve
    hosts[1].wait()
    # Prometheus first, timed by its own samples: the first `up` of 0 after the kill, scraped when.
    down, _ = wait_until(lambda: up().get(INSTANCES[1]) == "0", 2 * SCRAPE + 2, 0.05)
    zero = next((t for t, value in up_samples(INSTANCES[1]) if t > killed_at and value == "0"), None)
    to_down = zero - killed_at if zero else float("nan")
    check(f"host 2 killed: Prometheus' up for it is 0 within two scrape intervals ({2 * SCRAPE:g} s)",
          down and zero is not None and to_down <= 2 * SCRAPE, f"up {up()}, the first 0 scraped {to_down:.2f} s after the kill")
    others_up = {instance: value for instance, value in up().items() if instance != INSTANCES[1]}
    check("host 2 killed: the other two are still up", others_up == {INSTANCES[0]: "1", INSTANCES[2]: "1"}, f"{others_up}")
    pending, _ = wait_until(lambda: any(a[:2] == ("EyedropperHostDown", INSTANCES[1]) for a in alerts()), 3 * SCRAPE, 0.05)
    now = alerts()
    active = next((seconds(a["activeAt"]) for a in prometheus("/api/v1/alerts")["alerts"]
                   if a["labels"]["alertname"] == "EyedropperHostDown"), float("nan"))
    check("host 2 killed: EyedropperHostDown is pending (or firing) for it, and no other alert",
          pending and {a[:2] for a in now} == {("EyedropperHostDown", INSTANCES[1])}
          and {a[2] for a in now} <= {"pending", "firing"}, f"{sorted(now)}")
    offline, _ = wait_until(lambda: any(s == "offline" for _, s in sub.statuses(1, killed)), 1.5 * KEEPALIVE)
    to_offline = next((t - killed for t, s in sub.statuses(1, killed) if s == "offline"), float("nan"))
    retained = retained_status(TOPICS[1])
    check(f"host 2 killed: its retained status says offline (the broker's last will) within 1.5 x {KEEPALIVE} s",
          offline and retained == ("offline", True), f"statuses since the kill {sub.statuses(1, killed)}, retained {retained}")
    print(f"figures: from the kill to offline {to_offline:.3f} s, to up 0 {to_down:.2f} s (the scrape's time),"
          f" to the alert pending {active - killed_at:.2f} s (its activeAt)", flush=True)

    # Meanwhile host 1 reloads (SIGHUP, as `systemctl reload` sends): its MQTT connection and its
    # frames must go on through it, which the checks at the end hold it to (every frame, online once).
    hosts[0].send_signal(signal.SIGHUP)

    def reloads():
        try:
            with urllib.request.urlopen(f"http://{INSTANCES[0]}/api/v1/status", timeout=1) as answer:
                return (json.load(answer).get("reload") or {}).get("count")
        except OSError:
            return None

    reloaded, _ = wait_until(lambda: reloads() == 1, 5, 0.1)
    check("host 1 reloaded (SIGHUP) while host 2 was down: its status says reload 1", reloaded, f"reload count {reloads()}")
    time.sleep(max(0.0, killed + 8 - time.monotonic()))
    restarted, restarted_at = time.monotonic(), time.time()
    hosts[1] = serve(1)
    back, _ = wait_until(lambda: any(s == "online" for _, s in sub.statuses(1, restarted)), 10)
    to_online = next((t - restarted for t, s in sub.statuses(1, restarted) if s == "online"), float("nan"))
    again, _ = wait_until(lambda: up().get(INSTANCES[1]) == "1", 10, 0.05)
    one = next((t for t, value in up_samples(INSTANCES[1]) if t > restarted_at and value == "1"), None)
    to_up = one - restarted_at if one else float("nan")
    check("host 2 started again: Prometheus' up for it is 1", again, f"up {up()}")
    cleared, _ = wait_until(lambda: not alerts(), 3 * SCRAPE, 0.1)
    check("host 2 started again: no alert pending or firing", cleared, f"{sorted(alerts())}")
    retained = retained_status(TOPICS[1])
    check("host 2 started again: its retained status says online", back and retained == ("online", True),
          f"statuses since the restart {sub.statuses(1, restarted)}, retained {retained}")
    print(f"figures: from the restart to online {to_online:.2f} s, to up 1 {to_up:.2f} s", flush=True)
    time.sleep(3)

    # Host 2 vanishes from the network (its port on the bridge down): no FIN, so the broker says
    # its will only when 1.5 keepalives pass without a packet; then the port comes back. An event
    # stream client reads it throughout.
    events = EventClient(INSTANCES[1])
    wait_until(lambda: len(events.taken()[0]) >= 2 * FPS, 10)
    cut, cut_at = time.monotonic(), time.time()
    subprocess.run(["ip", "link", "set", "h2", "down"], check=True)
    gone, _ = wait_until(lambda: up().get(INSTANCES[1]) == "0", 2 * SCRAPE + 2, 0.05)
    zero = next((t for t, value in up_samples(INSTANCES[1]) if t > cut_at and value == "0"), None)
    cut_to_down = zero - cut_at if zero else float("nan")
    check(f"host 2 cut off the network: Prometheus' up for it is 0 within two scrape intervals ({2 * SCRAPE:g} s)",
          gone and zero is not None and cut_to_down <= 2 * SCRAPE, f"up {up()}, the first 0 scraped {cut_to_down:.2f} s after the cut")
    # Mosquitto 2.0 looks at keepalives every 5 to 6 s (whole seconds): up to 7 s after 1.5 of them.
    bound = 1.5 * KEEPALIVE + 7
    offline, _ = wait_until(lambda: any(s == "offline" for _, s in sub.statuses(1, cut)), bound + 3)
    cut_to_offline = next((t - cut for t, s in sub.statuses(1, cut) if s == "offline"), float("nan"))
    check(f"host 2 cut off the network: its status says offline (the will) within 1.5 x {KEEPALIVE} s of keepalive (+7 s)",
          offline and cut_to_offline <= bound, f"statuses since the cut {sub.statuses(1, cut)}")
    rejoined, rejoined_at = time.monotonic(), time.time()
    subprocess.run(["ip", "link", "set", "h2", "up"], check=True)
    back, _ = wait_until(lambda: any(s == "online" for _, s in sub.statuses(1, rejoined)), 30, 0.1)
    rejoined_to_online = next((t - rejoined for t, s in sub.statuses(1, rejoined) if s == "online"), float("nan"))
    again, _ = wait_until(lambda: up().get(INSTANCES[1]) == "1", 2 * SCRAPE + 2, 0.05)
    one = next((t for t, value in up_samples(INSTANCES[1]) if t > rejoined_at and value == "1"), None)
    check("host 2 back on the network: it says online again (libmosquitto reconnects) and up is 1",
          back and again, f"statuses since {sub.statuses(1, rejoined)}, up {up()}")
    print(f"figures: from the cut to up 0 {cut_to_down:.2f} s, to offline {cut_to_offline:.1f} s; from the return to"
          f" online {rejoined_to_online:.1f} s, to up 1 {(one - rejoined_at) if one else float('nan'):.2f} s", flush=True)
    # The stream client back too, and past the frames of the cut.
    newest = lambda: (status(INSTANCES[1]) or {}).get("framesCaptured", 0)
    caught_up, _ = wait_until(lambda: events.taken()[1] >= 2 and (events.taken()[0] or [-1])[-1] >= newest() - 2, 20, 0.2)
    ids, connections = events.taken()
    events.close()
    first, last = (ids[0], ids[-1]) if ids else (0, -1)
    missing = sorted(set(range(first, last + 1)) - set(ids))
    check("an event-stream client cut off with host 2 for the whole cut reconnected with Last-Event-ID and missed no event",
          caught_up and connections >= 2 and not missing and len(ids) == len(set(ids)),
          f"{connections} connections, events {first} to {last}, missing {missing[:10]} ({len(missing)}),"
          f" repeated {len(ids) - len(set(ids))}")
    print(f"figures: event stream across the cut: {connections} connections, events {first} to {last}, {len(missing)} missing",
          flush=True)
    mqtt_status = (status(INSTANCES[1]) or {}).get("mqtt") or {}
    check("host 2 (QoS 1): nothing dropped from its queue across the cut", mqtt_status.get("dropped") == 0, f"{mqtt_status}")
    time.sleep(2)

    for process in hosts:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)
    time.sleep(0.5)  # the last lines in flight
    sub.close()
    phases = [("before the kill", 0, killed), ("killed", killed, restarted), ("restarted", restarted, cut),
              ("cut off", cut, rejoined), ("back", rejoined, float("inf"))]
    print(f"figures: host 2 killed for {restarted - killed:.1f} s, cut off the network for {rejoined - cut:.1f} s;"
          f" sample lines received per host in each phase ({', '.join(name for name, _, _ in phases)}):", flush=True)
    for host in range(3):
        frames = sub.frames(host)
        counts = [sum(1 for t, _ in frames if begin <= t < end) for _, begin, end in phases]
        print(f"  host {host + 1} ({TOPICS[host]}): {' / '.join(map(str, counts))}, frames"
              f" {frames[0][1] if frames else '-'} to {frames[-1][1] if frames else '-'}", flush=True)
        if host == 1:
            first = [f for f in frames if f[0] < killed]
            second = [f for f in frames if restarted <= f[0] < cut]
            check("host 2: every frame published before the kill and after the restart (until the cut), each run 0 on with none missing",
                  not last_frame_gaps(first) and not last_frame_gaps(second),
                  f"before: {last_frame_gaps(first) or 'none'}; after: {last_frame_gaps(second) or 'none'}")
            later = [number for t, number in frames if t >= cut]
            across = set(range(second[-1][1] + 1, max(later) + 1)) if second and later else set()
            lost = sorted(across - set(later))
            check("host 2 (QoS 1): every frame captured across the network cut reached the subscriber once the link was back",
                  bool(later) and not lost, f"{len(lost)} of {len(across)} missing, the first {lost[:10]}")
            if second and later:
                print(f"  host 2 across the cut: frames {second[-1][1] + 1} to {max(later)} captured,"
                      f" {len(set(later) & across)} of them received, {len(later) - len(set(later))} twice (QoS 1: at least once)",
                      flush=True)
            continue
        check(f"host {host + 1}: every frame published throughout, 0 to the last with none missing or repeated",
              not last_frame_gaps(frames), last_frame_gaps(frames))
        check(f"host {host + 1}: kept publishing through host 2's outages (at least half of {FPS} a second)",
              counts[1] >= 0.5 * FPS * (restarted - killed) and counts[3] >= 0.5 * FPS * (rejoined - cut),
              f"{counts[1]} lines in {restarted - killed:.1f} s, {counts[3]} in {rejoined - cut:.1f} s")
        check(f"host {host + 1}: said online once and offline once, at its SIGTERM at the end",
              [s for _, s in sub.statuses(host)] == ["online", "offline"], f"{sub.statuses(host)}")

if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # a failure to set up is a failure, said as one
        check("fleet: the test ran to its end", False, repr(error))
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
    print(f"{len(failures)} failed" if failures else "all fleet checks passed", flush=True)
    sys.exit(1 if failures else 0)
