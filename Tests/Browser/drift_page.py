#!/usr/bin/env python3
"""The page's light drift and colour names (`eyedropper serve --white-reference`, `--palette`) in
headless Chromium (Tests/Browser/browser-tests.sh).

usage: drift_page.py render DIR EYEDROPPER
    With the calibration venv's Python (colour-science): renders the drift run's files as
    Tests/Calibration/drift.py does (its own `render`: the simulated camera sees the chart and a
    white tile while the light goes from 50 % to 150 % and from 3500 K to 6500 K), calibrates
    DIR/profile.json on calibration.y4m with --white-reference at the tile as drift.py does, and
    writes DIR/drift-2fps.y4m: drift.y4m at 2 frames a second (only the header's rate differs),
    so that the light changes every half second while serve loops the file. Prints, for bash's
    eval, `tile` (X,Y) and `points` (four patch centres, X,Y each).
usage: drift_page.py check URL SCREENSHOT.png [PALETTE.json]
    Against serve on drift-2fps.y4m with --profile, --white-reference at the tile and --max-drift:
    the "Light drift" card is shown; `#drift-now` says what /api/v1/sample says of the same frame
    (its reference's ΔE to the hundredth, its state); the drift canvas has drawn (pixels that are
    not blank, and red ones for --max-drift's dashed line); the ΔE plotted moves (the light does).
    With PALETTE.json given (serve with --palette it), each point's `.nearest` reads the name
    /api/v1/sample gives; without, that check is SKIPPED by name.
usage: drift_page.py plain URL
    Against serve without --white-reference: the card is hidden.
usage: drift_page.py css PALETTE.json
    The shipped CSS palette against Chromium's own CSS: for each name, an element's
    `style.color = name` computes to the file's hex.

Standard library only for check, plain and css, like click_sample.py.
"""
import contextlib
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from click_sample import Browser, Checks, finish, get_json, screenshot  # noqa: E402

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
#: The patches whose names the page shows: dark skin, red, white 9.5, black 2.
POINT_PATCHES = (0, 14, 18, 23)
#: The rate the looped file is served at.
RATE = 2


def render(directory, eyedropper):
    sys.path.insert(0, os.path.join(REPOSITORY, "Tests", "Calibration"))
    from pathlib import Path

    import chart
    import drift
    from camera import Camera, Reference

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    camera = Camera(Reference(), "nikon", white_level=drift.WHITE_LEVEL)
    # One frame a light: the page shows the light changing, not the noise averaged away.
    # Their progress and commands go to stderr: stdout is the shell's, to eval.
    with contextlib.redirect_stdout(sys.stderr):
        views = drift.render(out, camera, 1, drift.CALIBRATION_FRAMES)
    tile = views["drift"].tile_point()
    corners = [views["calibration"].points()[i] for i in chart.CORNER_PATCHES]
    with contextlib.redirect_stdout(sys.stderr):
        status, _, stderr = drift.run([eyedropper, "calibrate", "--source", out / "calibration.y4m", *drift.SOURCE_OPTIONS,
                                       *drift.at_options(corners, "--corner"), "--white-reference", f"{tile[0]},{tile[1]}",
                                       "--frames", drift.CALIBRATION_FRAMES, "--out", out / "profile.json", "--format", "json"],
                                      "calibrate")
    if status != 0:
        sys.exit(f"eyedropper calibrate failed ({status}): {stderr.strip()}")
    with open(out / "drift.y4m", "rb") as source, open(out / "drift-2fps.y4m", "wb") as target:
        header = source.readline()
        assert b" F30:1 " in header, header
        target.write(header.replace(b" F30:1 ", f" F{RATE}:1 ".encode()))
        while chunk := source.read(1 << 24):
            target.write(chunk)
    points = views["drift"].points()
    print(f"tile={tile[0]},{tile[1]}")
    print("points=(" + " ".join(f"{points[i][0]},{points[i][1]}" for i in POINT_PATCHES) + ")")
    print(f"radius={drift.RADIUS}")


def page_drift(browser):
    """The page's newest drift line and the frame it is of, read at once."""
    return browser.evaluate("(() => { const e = document.getElementById('drift-now');"
                            " return {text: e.textContent, frame: Number(e.dataset.frame), className: e.className}; })()")


def canvas_pixels(browser):
    """How many of the drift canvas's pixels are drawn at all, and how many are red (R > 150,
    G and B < 90: the dashed limit and the flagged frames)."""
    return browser.evaluate("""(() => {
      const canvas = document.getElementById('drift');
      const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      let drawn = 0, red = 0, blue = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] === 0) continue;
        drawn++;
        if (data[i] > 150 && data[i + 1] < 90 && data[i + 2] < 90) red++;
        if (data[i] < 90 && data[i + 2] > 150) blue++;
      }
      return {width: canvas.width, height: canvas.height, drawn, red, blue};
    })()""")


def check(url, path, palette):
    checks = Checks()
    browser = Browser()
    try:
        browser.open(url)
        try:
            shown = bool(browser.wait_for("!document.getElementById('drift-card').hidden"))
        except RuntimeError:
            shown = False
        checks.check(shown, "the Light drift card is shown with --white-reference")
        status = get_json(url + "api/v1/status")
        reference = status.get("reference") or {}
        checks.check(reference.get("recorded") == "profile" and reference.get("model") == "bradford",
                     f"status reference: recorded {reference.get('recorded')!r}, model {reference.get('model')!r}")

        # #drift-now against /api/v1/sample of the same frame: the file changes its light every
        # half second, so the two are compared only when they read the same frame.
        browser.wait_for("document.getElementById('drift-now').dataset.frame !== undefined")
        # Each comparison on a later frame than the last (another light: the file's light changes
        # every frame); polled, up to a minute for the three.
        matched, seen, last = 0, [], -1
        deadline = time.monotonic() + 60
        while matched < 3 and time.monotonic() < deadline:
            line = get_json(url + "api/v1/sample")
            page = page_drift(browser)
            if page["frame"] != line["frame"] or line["frame"] <= last:
                time.sleep(0.05)
                continue
            last = line["frame"]
            ref = line["reference"]
            delta = "-" if ref["deltaE"] is None else f"{ref['deltaE']:.2f}"
            expected = f"ΔE {delta} · "
            agrees = page["text"].startswith(expected) and ref["state"] in page["text"]
            checks.check(agrees, f"frame {line['frame']}: #drift-now {page['text']!r}, /api/v1/sample ΔE {ref['deltaE']} "
                         f"{ref['state']} applied {ref['applied']}")
            seen.append(ref["deltaE"])
            matched += 1
        checks.check(matched == 3, f"#drift-now compared with /api/v1/sample on {matched} frames of 3")
        checks.check(len({value for value in seen if value is not None}) >= 2, f"the light moved between them: ΔE {seen}")

        # Plot enough: the drift canvas drew a line and the --max-drift limit (polled until it has,
        # up to a minute).
        browser.wait_for("window.eyedropper.driftPoints() >= 10")
        deadline = time.monotonic() + 60
        while True:
            pixels = canvas_pixels(browser)
            drawn = pixels["drawn"] > 0.01 * pixels["width"] * pixels["height"] and pixels["blue"] > 50 and pixels["red"] > 50
            if drawn or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        print(f"drift canvas: {pixels}")
        checks.check(pixels["drawn"] > 0.01 * pixels["width"] * pixels["height"],
                     f"the drift canvas drew {pixels['drawn']} of {pixels['width']}x{pixels['height']} pixels")
        checks.check(pixels["blue"] > 50, f"the drift line: {pixels['blue']} blue pixels")
        checks.check(pixels["red"] > 50, f"the --max-drift line and flagged frames: {pixels['red']} red pixels")

        if palette:
            line = get_json(url + "api/v1/sample")
            names = [sample.get("nearest", {}).get("name") for sample in line["samples"]]
            browser.wait_for(f"document.querySelectorAll('.nearest').length >= {len(names)}")
            # The file's light changes: read the page and the API until they show the same frame
            # (up to a minute).
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                line = get_json(url + "api/v1/sample")
                names = [sample.get("nearest", {}).get("name") for sample in line["samples"]]
                shown = browser.evaluate("[...document.querySelectorAll('#points .nearest')].map(e => e.dataset.name)")
                if shown == names:
                    break
                time.sleep(0.1)
            checks.check(shown == names, f".nearest names {shown}, /api/v1/sample {names}")
        else:
            print("SKIPPED: .nearest names against /api/v1/sample (serve has no --palette here)", flush=True)
        screenshot(browser, path)
    finally:
        browser.close()
    return checks.failures


def plain(url):
    checks = Checks()
    browser = Browser()
    try:
        browser.open(url)
        # The status shown: the page shows or hides the card in the same step as it writes the
        # status line (status.js, showDrift), so the card is decided once the line is there.
        # (Without a reference no line reaches the drift plot: driftPoints() stays 0.)
        browser.wait_for("document.getElementById('status').textContent.includes('fps')")
        hidden = browser.evaluate("document.getElementById('drift-card').hidden")
        shown = browser.evaluate("getComputedStyle(document.getElementById('drift-card')).display")
        checks.check(hidden and shown == "none", f"without --white-reference the drift card is hidden (display {shown})")
    finally:
        browser.close()
    return checks.failures


def css(palette_path):
    checks = Checks()
    with open(palette_path) as file:
        entries = json.load(file)
    browser = Browser()
    try:
        browser.open("about:blank")
        browser.wait_for("document.readyState === 'complete'")
        computed = browser.evaluate("((entries) => { const e = document.createElement('div'); document.body.append(e);"
                                    " return entries.map(([name]) => { e.style.color = ''; e.style.color = name;"
                                    " return [e.style.color !== '', getComputedStyle(e).color]; }); })("
                                    + json.dumps([[entry["name"]] for entry in entries]) + ")")
    finally:
        browser.close()
    wrong = []
    for entry, (accepted, color) in zip(entries, computed):
        hex_code = entry.get("hex")
        expected = "rgb({}, {}, {})".format(*(int(hex_code[k:k + 2], 16) for k in (1, 3, 5))) if hex_code else None
        if not accepted or color != expected:
            wrong.append(f"{entry['name']}: Chromium {color if accepted else 'does not know it'}, the file {hex_code}")
    checks.check(not wrong and len(entries) > 100,
                 f"{len(entries)} CSS names computed by Chromium as the file's hex" + (f"; differ: {wrong[:10]}" if wrong else ""))
    return checks.failures


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "render":
        render(sys.argv[2], sys.argv[3])
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "check":
        finish(lambda: check(sys.argv[2].rstrip("/") + "/", sys.argv[3], sys.argv[4] if len(sys.argv) == 5 else None))
    elif len(sys.argv) == 3 and sys.argv[1] == "plain":
        finish(lambda: plain(sys.argv[2].rstrip("/") + "/"))
    elif len(sys.argv) == 3 and sys.argv[1] == "css":
        finish(lambda: css(sys.argv[2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
