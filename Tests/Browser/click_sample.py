#!/usr/bin/env python3
"""Loads the `eyedropper serve` page in headless Chromium, clicks bars of the live test pattern
like a person would (mouse events through the Chrome DevTools Protocol) and checks the colour the
page then shows; saves a screenshot. Standard library only: the protocol runs over
--remote-debugging-pipe (NUL-separated JSON on fds 3 and 4), so no WebSocket client is needed.

usage: click_sample.py URL SCREENSHOT.png
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


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

    def wait_for(self, expression, seconds=15):
        """Until `expression` is true; an exception (e.g. the page not loaded yet) is a no."""
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


def main():
    url, screenshot = sys.argv[1], sys.argv[2]
    browser = Browser()
    failures = []
    try:
        browser.open(url)
        # The picture is live: wait until the MJPEG stream has delivered a frame.
        browser.wait_for("document.getElementById('picture').naturalWidth > 0")
        box = browser.evaluate("(() => { const r = document.getElementById('picture').getBoundingClientRect();"
                               " return {left: r.left, top: r.top, width: r.width, height: r.height}; })()")
        # Bar centres at a quarter of the height; the expected colours are the test pattern's
        # 75% bars in 8-bit BT.709 limited (magenta 191/0/192, green 0/191/0).
        clicks = [(4.5 / 8, "#bf00c0", "rgb(191, 0, 192)"), (3.5 / 8, "#00bf00", "rgb(0, 191, 0)")]
        for count, (x, hex_code, rgb) in enumerate(clicks, start=1):
            browser.click(box["left"] + x * box["width"], box["top"] + 0.25 * box["height"])
            browser.wait_for(f"document.getElementById('history').children.length == {count}")
            shown = browser.evaluate("document.getElementById('hex').textContent")
            swatch = browser.evaluate("getComputedStyle(document.getElementById('swatch')).backgroundColor")
            numbers = browser.evaluate("document.getElementById('rgb').textContent")
            coordinates = browser.evaluate("document.getElementById('coords').textContent")
            print(f"clicked {x:.4f},0.25: hex {shown}, swatch {swatch}, RGB {numbers}, at {coordinates}")
            if shown != hex_code:
                failures.append(f"click {count}: the page shows {shown}, expected {hex_code}")
            if swatch != rgb:
                failures.append(f"click {count}: the swatch is {swatch}, expected {rgb}")
            if numbers != rgb[4:-1]:
                failures.append(f"click {count}: RGB reads {numbers}, expected {rgb[4:-1]}")
        history = browser.evaluate("[...document.querySelectorAll('#history li')].map(li => li.textContent)")
        print(f"history: {history}")
        if len(history) != 2 or not history[0].startswith("#00bf00") or not history[1].startswith("#bf00c0"):
            failures.append(f"history should list the green then the magenta sample: {history}")
        png = browser.send("Page.captureScreenshot", {"format": "png"})["data"]
        with open(screenshot, "wb") as file:
            file.write(base64.b64decode(png))
        print(f"screenshot: {screenshot}")
    finally:
        browser.close()
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
