#!/usr/bin/env python3
"""The page's Record button in headless Chromium (Tests/Browser/browser-tests.sh).

usage: record_page.py URL SCREENSHOT.png X,Y [X,Y ...]
    Against `eyedropper serve --source testpattern` with those --at points: holds the Record
    button down with the mouse until a few frames have come, releases it, and takes the file the
    page saves. Checks that the page names it and its frame count; that the file is that many
    whole frames (a frame the release cut short left out) under a header with the camera's
    colorimetry, each frame with its time; that ffprobe, another program, counts the same frames;
    and that `eyedropper sample --source FILE` reads it back as one line per frame, each with
    its frame's recorded time and the colours the server reads at the points.

Standard library only, like click_sample.py; ffprobe and eyedropper ($EYEDROPPER, default
.build/release/eyedropper) on the side.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from click_sample import Browser, Checks, finish, get_json, screenshot  # noqa: E402

# Frames are held in the page until the button is released: a few is enough (1280x720, 1.4 MB each).
HOLD_MEGABYTES = 5


def read_y4m(path):
    """The header's words and each whole frame's tags; the bytes left after the last whole one."""
    with open(path, "rb") as file:
        data = file.read()
    end = data.index(b"\n")
    header = data[:end].decode().split()
    width = int(next(w[1:] for w in header if w.startswith("W")))
    height = int(next(w[1:] for w in header if w.startswith("H")))
    size = width * height + 2 * ((width + 1) // 2) * ((height + 1) // 2)
    frames, at = [], end + 1
    while at < len(data):
        line_end = data.find(b"\n", at)
        if line_end < 0 or line_end + 1 + size > len(data):
            break
        frames.append(data[at:line_end].decode().split())
        at = line_end + 1 + size
    return header, frames, len(data) - at


def record(url, path, points):
    checks = Checks()
    downloads = tempfile.mkdtemp(prefix="eyedropper-downloads-")
    browser = Browser()
    try:
        browser.send("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads}, session=False)
        browser.open(url)
        # The status line above the button filled (it is empty, and the button higher, until the
        # first status comes), so that the button is where it stays.
        browser.wait_for("document.getElementById('picture').naturalWidth > 0"
                         " && document.getElementById('status').textContent.includes(' fps')")
        # The button in view, and the mouse over it.
        x, y = browser.wait_for("""(() => { const b = document.getElementById('record');
            b.scrollIntoView({block: 'center'});
            const r = b.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
            return document.elementFromPoint(x, y) === b ? [x, y] : null; })()""")
        browser.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
        browser.send("Input.dispatchMouseEvent", {"type": "mousePressed", "x": x, "y": y, "button": "left", "clickCount": 1})
        # Until enough has come, or the page says the recording could not start or stopped.
        try:
            held = browser.wait_for(f"""(() => {{ const t = document.getElementById('record-note').textContent;
                const m = /recording… (\\d+) MB/.exec(t);
                return (m && +m[1] >= {HOLD_MEGABYTES}) || /^(not recorded|recording stopped)/.test(t) ? t : null; }})()""")
        except RuntimeError:
            state = browser.evaluate("document.getElementById('record-note').textContent + ' (aria-pressed '"
                                     " + document.getElementById('record').getAttribute('aria-pressed') + ')'")
            raise RuntimeError(f"the button held for a minute: the page says {state!r}")
        print(f"while held, the page says: {held}")
        pressed = browser.evaluate("document.getElementById('record').getAttribute('aria-pressed')")
        checks.check(pressed == "true", f"the button shows pressed while held: aria-pressed {pressed}")
        browser.send("Input.dispatchMouseEvent", {"type": "mouseReleased", "x": x, "y": y, "button": "left", "clickCount": 1})
        note = browser.wait_for("(() => { const t = document.getElementById('record-note').textContent;"
                                " return t.startsWith('saved ') ? t : null; })()")
        print(f"the page says: {note}")
        said = re.match(r"saved (eyedropper-[0-9TZ-]+\.y4m): (\d+) frames", note)
        if not checks.check(said is not None, f"the page names the file and its frames: {note!r}"):
            return checks.failures
        name, frames = said.group(1), int(said.group(2))
        file = os.path.join(downloads, name)
        # Chromium writes the download as NAME.crdownload and renames it when it is whole. The
        # deadline is for a download that never comes, not a time it is given.
        deadline = time.monotonic() + 60
        while not os.path.isfile(file) and time.monotonic() < deadline:
            time.sleep(0.1)
        screenshot(browser, path)
    finally:
        browser.close()
    if not checks.check(os.path.isfile(file), f"the download is {file}: {sorted(os.listdir(downloads))}"):
        return checks.failures

    header, tags, left = read_y4m(file)
    print(f"header: {' '.join(header)}; {len(tags)} frames")
    checks.check(len(tags) == frames and frames >= 2 and left == 0,
                 f"the file is {len(tags)} whole frames and {left} bytes more; the page said {frames}")
    checks.check("XEYEDROPPER_MATRIX=BT709" in header and "XCOLORRANGE=LIMITED" in header,
                 f"the header carries the test pattern's colorimetry (BT.709, limited): {' '.join(header)}")
    times = [float(next((t.split("=", 1)[1] for t in tag if t.startswith("XEYEDROPPER_TIME=")), "nan")) for tag in tags]
    checks.check(all(b > a for a, b in zip(times, times[1:])) and times == times,
                 f"each frame carries its time, rising: {times[:4]}...")
    probe = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                            "stream=nb_read_frames", "-of", "csv=p=0", file], capture_output=True, text=True)
    checks.check(probe.stdout.strip() == str(frames), f"ffprobe reads {probe.stdout.strip()!r} frames ({probe.stderr.strip()[:200]})")

    command = [os.environ.get("EYEDROPPER", ".build/release/eyedropper"), "sample", "--source", file, "--format", "json"]
    command += [f"--at={point}" for point in points]
    replay = subprocess.run(command, capture_output=True, text=True)
    lines = [json.loads(line) for line in replay.stdout.splitlines()]
    checks.check(replay.returncode == 0 and len(lines) == frames,
                 f"sample --source reads {len(lines)} lines back (exit {replay.returncode}): {replay.stderr.strip()[-200:]}")
    checks.check([line["timestamp"] for line in lines] == times[: len(lines)],
                 f"each line's timestamp is its frame's recorded time: {[line['timestamp'] for line in lines][:4]}...")
    served = [sample["hex"] for sample in get_json(url + "api/v1/sample")["samples"]]
    replayed = sorted({tuple(sample["hex"] for sample in line["samples"]) for line in lines})
    checks.check(replayed == [tuple(served)], f"the replayed colours at the points {replayed}, the server's {served}")
    shutil.rmtree(downloads, ignore_errors=True)
    return checks.failures


def main():
    arguments = sys.argv[1:]
    if len(arguments) < 3:
        print(__doc__, file=sys.stderr)
        sys.exit(64)
    url = arguments[0] if arguments[0].endswith("/") else arguments[0] + "/"
    finish(lambda: record(url, arguments[1], arguments[2:]))


if __name__ == "__main__":
    main()
