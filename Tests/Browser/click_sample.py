#!/usr/bin/env python3
"""The page of `eyedropper serve` in headless Chromium, driven like a person would (mouse events
through the Chrome DevTools Protocol, input and change events on the controls). Standard library
only: the protocol runs over --remote-debugging-pipe (NUL-separated JSON on fds 3 and 4), so no
WebSocket client is needed. Prints a PASS or FAIL line per check; exits 0 only when all pass.

usage: click_sample.py URL SCREENSHOT.png X,Y [X,Y ...]
    Against the test pattern (Tests/Browser/browser-tests.sh): clicks two bars and checks the
    colour, mean +- sd and clipped shown; a marker at each X,Y (the server's --at points, in
    order) and at the click; the plot receiving samples for every point.
usage: click_sample.py --token TOKEN URL SCREENSHOT.png X,Y [X,Y ...]
    Against the test pattern served with that token (--token-file): opens URL#token=TOKEN and runs
    the same checks (the picture, the clicks, the plot: every request sent with the token), and
    that the token left the address bar for this tab's sessionStorage, that the picture changes,
    and that a reload keeps working; then a new tab opened without the token shows the one line
    saying how to open the page with it (its screenshot: SCREENSHOT with -refused before .png).
usage: click_sample.py --controls [--token TOKEN] URL SCREENSHOT.png
    Against a server reading a real camera with vivid's controls (Tests/VM): sets saturation to 0
    with the page's slider and reads it back through GET /api/v1/controls; checks gain is shown
    disabled while gain_automatic is on; clicks Lock and checks gain_automatic is then 0. With a
    token, the page is opened as URL#token=TOKEN (its PUT and POST carry it) and so are the reads.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="eyedropper-chromium-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        command = (
            f'exec "{chromium}" --headless=new --no-sandbox --disable-gpu --no-first-run --mute-audio '
            f'--user-data-dir="{self.profile}" --window-size=1400,800 --remote-debugging-pipe '
            f"about:blank 3<&{to_chrome_r} 4>&{from_chrome_w}"
        )
        self.process = subprocess.Popen(
            ["sh", "-c", command], pass_fds=(to_chrome_r, from_chrome_w),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.receive()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def receive(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def open(self, url):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
        self.send("Page.enable")
        self.send("Page.navigate", {"url": url})

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, seconds=60):
        """Until `expression` is true; an exception (e.g. the page not loaded yet) is a no. The
        deadline is for a page that never gets there: what is waited for takes a moment on a quiet
        machine and is waited for, not timed, on a loaded one."""
        deadline = time.monotonic() + seconds
        last = None
        while time.monotonic() < deadline:
            try:
                value = self.evaluate(expression)
                if value:
                    return value
            except RuntimeError as error:
                last = error
            time.sleep(0.1)
        raise RuntimeError(f"timed out waiting for {expression}: {last}")

    def click(self, x, y):
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


class Checks:
    """PASS/FAIL lines, one per check, and whether all passed."""

    def __init__(self):
        self.failures = 0

    def check(self, passed, what):
        print(f"{'PASS' if passed else 'FAIL'}: {what}", flush=True)
        if not passed:
            self.failures += 1
        return passed


# The token of the server under test, for the reads this script makes beside the page's own.
TOKEN = None


def get_json(url):
    headers = {"Authorization": f"Bearer {TOKEN}"} if TOKEN else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as response:
        return json.load(response)


def centre(browser, selector):
    """The centre of the first element `selector` matches, in page pixels; None when none does."""
    return browser.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
                            " const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()")


def near(a, b, pixels=3):
    return a is not None and abs(a[0] - b[0]) <= pixels and abs(a[1] - b[1]) <= pixels


def screenshot(browser, path):
    png = browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})["data"]
    with open(path, "wb") as file:
        file.write(base64.b64decode(png))
    print(f"screenshot: {path}")


def test_pattern(url, path, points, token=None):
    checks = Checks()
    browser = Browser()
    try:
        browser.open(url + (f"#token={token}" if token else ""))
        # The picture is live: wait until the MJPEG stream has delivered a frame.
        browser.wait_for("document.getElementById('picture').naturalWidth > 0")
        if token:
            token_kept(browser, checks, url, token)
        box = browser.evaluate("(() => { const r = document.getElementById('picture').getBoundingClientRect();"
                               " return {left: r.left, top: r.top, width: r.width, height: r.height}; })()")

        # A marker at each --at point, in order, where the point is on the picture.
        browser.wait_for(f"document.querySelectorAll('.marker.point').length == {len(points)}")
        for i, (x, y) in enumerate(points):
            where = (box["left"] + x * box["width"], box["top"] + y * box["height"])
            shown = centre(browser, f'.marker.point[data-point="{i}"]')
            checks.check(near(shown, where), f"marker {i + 1} at {shown}, the point {x},{y} is at {where}")

        # Bar centres at a quarter of the height; the expected colours are the test pattern's
        # 75% bars in 8-bit BT.709 limited (magenta 191/0/192, green 0/191/0), one pixel each
        # (radius 0): sd 0, and a channel at 0 is clipped.
        clicks = [(4.5 / 8, "#bf00c0", "rgb(191, 0, 192)", "mean 191.00 0.00 192.00 ± sd 0.00 0.00 0.00", "clipped 1 · n 1"),
                  (3.5 / 8, "#00bf00", "rgb(0, 191, 0)", "mean 0.00 191.00 0.00 ± sd 0.00 0.00 0.00", "clipped 2 · n 1")]
        for count, (x, hex_code, rgb, stats, clipped) in enumerate(clicks, start=1):
            where = (box["left"] + x * box["width"], box["top"] + 0.25 * box["height"])
            browser.click(*where)
            browser.wait_for(f"document.getElementById('history').children.length == {count}")
            text = lambda id: browser.evaluate(f"document.getElementById('{id}').textContent")
            swatch = browser.evaluate("getComputedStyle(document.getElementById('swatch')).backgroundColor")
            print(f"clicked {x:.4f},0.25: hex {text('hex')}, swatch {swatch}, RGB {text('rgb')}, at {text('coords')}, "
                  f"{text('stats')!r}, {text('clipped')!r}")
            checks.check(text("hex") == hex_code, f"click {count}: hex {text('hex')}, expected {hex_code}")
            checks.check(swatch == rgb, f"click {count}: swatch {swatch}, expected {rgb}")
            checks.check(text("rgb") == rgb[4:-1], f"click {count}: RGB {text('rgb')}, expected {rgb[4:-1]}")
            checks.check(text("stats") == stats, f"click {count}: {text('stats')!r}, expected {stats!r}")
            checks.check(text("clipped") == clipped, f"click {count}: {text('clipped')!r}, expected {clipped!r}")
            marker = centre(browser, ".marker.click")
            checks.check(near(marker, where), f"click {count}: click marker at {marker}, clicked at {where}")
            checks.check(browser.evaluate("document.querySelectorAll('.marker.click').length") == 1,
                         f"click {count}: one click marker, the last click's")
        history = browser.evaluate("[...document.querySelectorAll('#history li')].map(li => li.textContent)")
        checks.check(len(history) == 2 and history[0].startswith("#00bf00") and history[1].startswith("#bf00c0"),
                     f"history lists the green then the magenta sample: {history}")

        # The plot holds samples for every point, and goes on receiving them: 20 more each (waited
        # for: at 30 fps two thirds of a second on a quiet machine, longer on a loaded one).
        browser.wait_for("window.eyedropper.plotPoints().every(n => n > 0)")
        before = browser.evaluate("window.eyedropper.plotPoints()")
        try:
            browser.wait_for(f"window.eyedropper.plotPoints().every((n, i) => n >= {json.dumps(before)}[i] + 20)")
        except RuntimeError:
            pass
        after = browser.evaluate("window.eyedropper.plotPoints()")
        checks.check(len(after) == len(points) and all(b - a >= 20 for a, b in zip(before, after)),
                     f"plot samples per point {before}, then {after}")
        # and draws them: pixels of each point's colour on the canvas.
        inked = browser.evaluate("""(() => {
            const canvas = document.getElementById('plot'), data = canvas.getContext('2d')
                .getImageData(0, 0, canvas.width, canvas.height).data;
            const colours = ['#e6194b', '#2f9e44'].map(c => [1, 3, 5].map(i => parseInt(c.slice(i, i + 2), 16)));
            return colours.map(c => { let n = 0; for (let i = 0; i < data.length; i += 4)
                if (Math.abs(data[i] - c[0]) < 30 && Math.abs(data[i + 1] - c[1]) < 30 && Math.abs(data[i + 2] - c[2]) < 30) n++;
                return n; }); })()""")[:len(points)]
        # (2.5 s of a minute is 1/24 of the width: some 30 pixels of line each, more with the band)
        checks.check(all(n >= 20 for n in inked), f"plot pixels in each point's colour: {inked}")
        shown = browser.evaluate("[...document.querySelectorAll('#points .stats')].map(e => e.textContent)")
        # --at 0.0625,0.25 is the 75% white bar and 0.9375,0.75 the ramp's light end, noiseless:
        # sd 0, nothing clipped.
        expected = ["mean 191.00 191.00 191.00 ± sd 0.00 0.00 0.00", "mean 239.00 239.00 239.00 ± sd 0.00 0.00 0.00"]
        checks.check(shown == expected[:len(points)], f"each point shows mean ± sd: {shown}")
        clipped = browser.evaluate("[...document.querySelectorAll('#points .clipped')].map(e => e.textContent)")
        checks.check(clipped == ["clipped 0 · n 1"] * len(points), f"each point shows clipped: {clipped}")
        checks.check(browser.evaluate("document.getElementById('controls-note').textContent")
                     == "This source has no camera controls.", "the controls panel says the test pattern has none")
        # Without --profile the page is as it was: no calibrated block, verdict or profile line.
        calibrated = browser.evaluate("document.querySelectorAll('.calibrated, .verdict').length"
                                      " + document.getElementById('calibration').childElementCount")
        checks.check(calibrated == 0, f"no calibrated colour, verdict or profile shown without --profile: {calibrated} elements")
        screenshot(browser, path)
        if token:
            # A reload in the same tab: the token comes from sessionStorage now.
            browser.send("Page.reload")
            browser.wait_for("document.readyState == 'complete' && !!window.eyedropper")
            browser.wait_for("document.getElementById('picture').naturalWidth > 0")
            browser.wait_for("window.eyedropper.plotPoints().every(n => n > 0)")
            checks.check(browser.evaluate("document.getElementById('access').hidden"), "after a reload: no 401 line")
            token_kept(browser, checks, url, token)
            refused(browser, checks, url, path.replace(".png", "-refused.png"))
    finally:
        browser.close()
    return checks.failures


def token_kept(browser, checks, url, token):
    """The token left the address bar for sessionStorage, and the picture is a stream of frames."""
    address = browser.evaluate("location.href")
    checks.check(address == url and "token" not in address, f"the address bar no longer holds the token: {address}")
    stored = browser.evaluate("sessionStorage.getItem('eyedropper-token')")
    checks.check(stored == token, "the token is kept in this tab's sessionStorage")
    first = browser.evaluate("document.getElementById('picture').src")
    try:
        browser.wait_for(f"document.getElementById('picture').src != {json.dumps(first)}")
        changed = True
    except RuntimeError:
        changed = False
    checks.check(first.startswith("blob:") and changed, f"the picture is frame after frame read with the token ({first[:40]}...)")
    checks.check(browser.evaluate("document.getElementById('access').hidden"), "no 401 line with the token")


def refused(browser, checks, url, path):
    """A new tab (its own sessionStorage) opened without the token: the line saying how to open it."""
    browser.open(url)
    try:
        browser.wait_for("!document.getElementById('access').hidden")
    except RuntimeError:
        pass
    line = browser.evaluate("document.getElementById('access').hidden ? '' : document.getElementById('access').textContent")
    print(f"without the token the page says: {line!r}")
    checks.check(line == f"This server needs its token: open the page as {url}#token=TOKEN, with the token of "
                 "eyedropper serve's --token-file or EYEDROPPER_TOKEN.", f"without the token, one line on how to open the page: {line!r}")
    checks.check(browser.evaluate("document.getElementById('picture').naturalWidth") == 0, "and no picture")
    screenshot(browser, path)


def set_range(browser, name, value):
    """Moves the slider of control `name` to `value` as a drag would end: input, then change."""
    browser.evaluate(f"""(() => {{ const input = document.getElementById('input-{name}');
        input.focus(); input.value = {json.dumps(str(value))};
        input.dispatchEvent(new Event('input', {{bubbles: true}}));
        input.dispatchEvent(new Event('change', {{bubbles: true}})); }})()""")


def listing(url):
    return {control["name"]: control for control in get_json(url + "api/v1/controls")}


def controls(url, path):
    checks = Checks()
    browser = Browser()
    try:
        browser.open(url + (f"#token={TOKEN}" if TOKEN else ""))
        browser.wait_for("!!window.eyedropper && window.eyedropper.controlsLoaded() > 0"
                         " && !!document.getElementById('input-saturation')")

        set_range(browser, "saturation", 0)
        # Until the PUT is answered: the row then says what was read back, or the error.
        browser.wait_for("!['', 'setting…'].includes(document.querySelector('#control-saturation .note').textContent)")
        note = browser.evaluate("document.querySelector('#control-saturation .note').textContent")
        value = listing(url)["saturation"].get("value")
        checks.check(value == 0, f"saturation set to 0 with the slider: GET /api/v1/controls says {value}, the page says {note!r}")
        checks.check(note == "read back 0", f"the page shows the value read back: {note!r}")

        controls_now = listing(url)
        automatic = controls_now.get("gain_automatic", {}).get("value")
        inactive = "inactive" in controls_now.get("gain", {}).get("flags", [])
        checks.check(automatic == 1 and inactive, f"gain_automatic is on ({automatic}) and gain inactive ({inactive}) before Lock")
        browser.wait_for("!!document.getElementById('input-gain')")
        disabled = browser.evaluate("document.getElementById('input-gain').disabled")
        greyed = browser.evaluate("document.getElementById('control-gain').classList.contains('inactive')")
        checks.check(disabled and greyed, f"gain is shown disabled ({disabled}) and greyed ({greyed}) while gain_automatic is on")

        browser.evaluate("document.getElementById('lock').scrollIntoView({block: 'center'})")
        browser.click(*centre(browser, "#lock"))
        browser.wait_for("!['', 'locking…'].includes(document.getElementById('controls-note').textContent)")
        note = browser.evaluate("document.getElementById('controls-note').textContent")
        after = listing(url)
        automatic = after.get("gain_automatic", {}).get("value")
        checks.check(automatic == 0, f"after Lock gain_automatic is {automatic}; the page says {note!r}")
        checks.check(note.startswith("locked: ") and "gain_automatic=0" in note, f"the page says what it locked: {note!r}")
        try:
            enabled = bool(browser.wait_for("!document.getElementById('input-gain').disabled"))
        except RuntimeError:  # the wait timed out: gain stayed disabled
            enabled = False
        checks.check(enabled, "gain is enabled once locked")
        screenshot(browser, path)
    finally:
        browser.close()
    return checks.failures


def finish(run):
    """Runs the checks (`run` returns how many failed), prints the verdict and exits: 0 when all
    passed, 1 when one failed or a step could not run at all (a timeout, a page error)."""
    try:
        failures = run()
    except Exception as error:
        print(f"FAIL: {error}", flush=True)
        sys.exit(1)
    print(f"FAIL: {failures} checks failed" if failures else "PASS: all checks passed")
    sys.exit(1 if failures else 0)


def main():
    arguments = sys.argv[1:]
    global TOKEN
    if arguments[:1] == ["--controls"] and len(arguments) == 5 and arguments[1] == "--token":
        TOKEN = arguments[2]
        finish(lambda: controls(arguments[3], arguments[4]))
    elif arguments[:1] == ["--controls"] and len(arguments) == 3:
        finish(lambda: controls(arguments[1], arguments[2]))
    elif arguments[:1] == ["--token"] and len(arguments) >= 5:
        token, url = arguments[1], arguments[2] if arguments[2].endswith("/") else arguments[2] + "/"
        points = [tuple(float(v) for v in point.split(",")) for point in arguments[4:]]
        finish(lambda: test_pattern(url, arguments[3], points, token))
    elif len(arguments) >= 3 and arguments[0] not in ("--controls", "--token"):  # the checks per point need a point
        url = arguments[0] if arguments[0].endswith("/") else arguments[0] + "/"
        points = [tuple(float(v) for v in point.split(",")) for point in arguments[2:]]
        finish(lambda: test_pattern(url, arguments[1], points))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(64)


if __name__ == "__main__":
    main()
