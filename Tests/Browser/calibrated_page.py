#!/usr/bin/env python3
"""The page of `eyedropper serve --profile --target` in headless Chromium (Tests/Browser/browser-tests.sh).

usage: calibrated_page.py chart DIR
    Writes DIR/chart.y4m, a still ColorChecker-like chart as a camera with its white balance off
    sees it, and DIR/reference.json, the L*a*b* of its 24 patches (for calibrate --reference);
    prints, for bash's eval, `corners` (the --corner arguments), `points` (two patch centres:
    the first is the target's own patch, the second a red one) and `target` (L,a,b).
usage: calibrated_page.py covered DIR
    Writes DIR/chart-covered.y4m, the same chart with a leaf over patches 8 and 9 and a finger
    over 17 and 23 (COVERED).
usage: calibrated_page.py check URL SCREENSHOT.png CALIBRATE.json
    Against that chart served with --profile, --target and the two --at points: checks that each
    point's panel shows the calibrated hex, L*a*b*, swatch, ΔE and PASS / FAIL that
    /api/v1/sample gives for it (PASS for the first, FAIL for the second), in large type; that a
    click shows the same as /api/v1/sample?at= there; that the profile and target are named.
    Then, with --profile-dir and --reference: "Find the chart" outlines the 24 patches, and
    "Calibrate" over 2 frames shows per patch the ΔE00 that `eyedropper calibrate --format json`
    with no corners (CALIBRATE.json) gives on the same file; "Use this profile" makes every
    reading the one `eyedropper sample --profile` gives with the profile written.
usage: calibrated_page.py check-covered URL SCREENSHOT.png CALIBRATE.json
    Against the covered chart served with --profile-dir and --reference: "Find the chart" dashes
    the covered patches and says how many it sees; "Calibrate" fits the others and shows per
    patch what `eyedropper calibrate --format json` with no corners (CALIBRATE.json, which must
    leave out the covered patches as hidden) shows, and names the patches not seen.

The chart is still (every frame the same, no noise), so the page's values and the API's agree to
the digit whichever frame each comes from. Standard library only, like click_sample.py.
"""
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from click_sample import Browser, Checks, centre, finish, get_json, screenshot  # noqa: E402

WIDTH, HEIGHT = 640, 480

# 24 sRGB colours, row by row as on a ColorChecker: 18 chromatic ones, then six neutrals from white
# to black (calibrate fits its tone curve to patches 19-24, which must get darker one by one).
PATCHES = [
    (115, 82, 68), (194, 150, 130), (98, 122, 157), (87, 108, 67), (133, 128, 177), (103, 189, 170),
    (214, 126, 44), (80, 91, 166), (193, 90, 99), (94, 60, 108), (157, 188, 64), (224, 163, 46),
    (56, 61, 150), (70, 148, 73), (175, 54, 60), (231, 199, 31), (187, 86, 149), (30, 133, 161),
    (243, 243, 242), (200, 200, 200), (160, 160, 160), (122, 122, 121), (85, 85, 85), (52, 52, 52),
]
TARGET_PATCH, RED_PATCH = 13, 14  # green (14) and red (15), 0-based
# The covered chart: a leaf over patches 8 and 9, and a finger from below the chart whose tip is on
# patch 17 and which crosses 23 on its way (numbers, 1-based); none a corner, the target or the
# red point.
COVERED = (8, 9, 17, 23)
LEAF, FINGER = (86, 120, 52), (224, 172, 150)  # sRGB


def srgb_to_linear(v):
    v /= 255
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def lab_d50(rgb):
    """CIE L*a*b* (D50) of an sRGB colour: Bradford-adapted sRGB to XYZ (Lindbloom's matrix)."""
    r, g, b = (srgb_to_linear(v) for v in rgb)
    x = 0.4360747 * r + 0.3850649 * g + 0.1430804 * b
    y = 0.2225045 * r + 0.7168786 * g + 0.0606169 * b
    z = 0.0139322 * r + 0.0971045 * g + 0.7141733 * b
    white = (0.3457 / 0.3585, 1.0, (1 - 0.3457 - 0.3585) / 0.3585)  # D50 from its chromaticity
    f = [t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116 for t in (x / white[0], y / white[1], z / white[2])]
    return (116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2]))


def camera(rgb):
    """What a camera that is not sRGB reads: white balance off (red up 15%, blue down 20%),
    exposed at 75%, a plain 1/2 power for its tone curve; 0...1."""
    return [min(1.0, (srgb_to_linear(v) * gain * 0.75) ** 0.5) for v, gain in zip(rgb, (1.15, 1.0, 0.8))]


def geometry():
    """The patch pitch and the chart's top-left, in pixels, as Tests/EyedropperTestSupport's
    writeChartY4M lays its chart out."""
    pitch = WIDTH * 0.7 / 6
    return pitch, WIDTH * 0.15, HEIGHT / 2 - 2 * pitch


def patch_centre(index):
    pitch, left, top = geometry()
    return ((left + (index % 6 + 0.5) * pitch) / WIDTH, (top + (index // 6 + 0.5) * pitch) / HEIGHT)


def write_chart(directory, covered=False):
    """The chart as a camera sees it (DIR/chart.y4m); `covered`: with the leaf and the finger
    over COVERED (DIR/chart-covered.y4m)."""
    pitch, left, top = geometry()
    values = [camera(rgb) for rgb in PATCHES]
    grey, body, leaf, finger = [128 / 255] * 3, [20 / 255] * 3, camera(LEAF), camera(FINGER)
    centres = {n: (left + ((n - 1) % 6 + 0.5) * pitch, top + ((n - 1) // 6 + 0.5) * pitch) for n in COVERED}

    def near(x, y, n, radius):
        return (x - centres[n][0]) ** 2 + (y - centres[n][1]) ** 2 <= (radius * pitch) ** 2

    def colour(x, y):
        if covered:
            x, y = x + 0.5, y + 0.5
            # The leaf: two discs over 8 and 9, each patch (0.8 of the pitch square) wholly under.
            if near(x, y, 8, 0.62) or near(x, y, 9, 0.62):
                return leaf
            # The finger, 0.7 of the pitch wide: the patches' edges show either side of it.
            tip_x, tip_y = centres[17]
            if near(x, y, 17, 0.35) or (abs(x - tip_x) <= 0.35 * pitch and y >= tip_y):
                return finger
            x, y = x - 0.5, y - 0.5
        u, v = (x + 0.5 - left) / pitch, (y + 0.5 - top) / pitch
        if not (-0.2 <= u < 6.2 and -0.2 <= v < 4.2):
            return grey
        column, row = int(u // 1), int(v // 1)
        if 0 <= column < 6 and 0 <= row < 4 and 0.1 < u - column < 0.9 and 0.1 < v - row < 0.9:
            return values[row * 6 + column]
        return body

    # BT.601 limited range, 4:2:0 (chroma the mean of each 2x2 block): what calibrate and serve
    # are told with --matrix bt601.
    luma = bytearray(WIDTH * HEIGHT)
    cb = [0.0] * (WIDTH // 2 * HEIGHT // 2)
    cr = [0.0] * (WIDTH // 2 * HEIGHT // 2)
    for y in range(HEIGHT):
        for x in range(WIDTH):
            r, g, b = colour(x, y)
            luma[y * WIDTH + x] = round(16 + 65.481 * r + 128.553 * g + 24.966 * b)
            index = (y // 2) * (WIDTH // 2) + x // 2
            cb[index] += (128 - 37.797 * r - 74.203 * g + 112 * b) / 4
            cr[index] += (128 + 112 * r - 93.786 * g - 18.214 * b) / 4
    frame = b"FRAME\n" + bytes(luma) + bytes(round(v) for v in cb) + bytes(round(v) for v in cr)
    with open(os.path.join(directory, "chart-covered.y4m" if covered else "chart.y4m"), "wb") as file:
        file.write(f"YUV4MPEG2 W{WIDTH} H{HEIGHT} F30:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED\n".encode() + frame * 2)
    if covered:
        return
    with open(os.path.join(directory, "reference.json"), "w") as file:
        json.dump({"name": "calibrated_page.py's chart", "lab": [list(lab_d50(rgb)) for rgb in PATCHES]}, file)
    corners = [patch_centre(i) for i in (0, 5, 23, 18)]  # dark skin, bluish green, black, white
    points = [patch_centre(TARGET_PATCH), patch_centre(RED_PATCH)]
    words = lambda pairs: " ".join(f"{x:.6f},{y:.6f}" for x, y in pairs)
    print(f"corners=({' '.join('--corner ' + p for p in words(corners).split())})")
    print(f"points=({words(points)})")
    print("target=" + ",".join(f"{v:.4f}" for v in lab_d50(PATCHES[TARGET_PATCH])))


def two(values):
    """As the page shows L*a*b*: 2 decimals, no negative zero (JavaScript's toFixed has none)."""
    return " ".join(re.sub(r"^-(0\.00)$", r"\1", f"{v:.2f}") for v in values)


def rgb_text(hex_code):
    return f"rgb({int(hex_code[1:3], 16)}, {int(hex_code[3:5], 16)}, {int(hex_code[5:7], 16)})"


def shown(browser, block):
    """What the calibrated block `block` (a CSS selector) shows."""
    return browser.evaluate(f"""(() => {{ const b = document.querySelector({json.dumps(block)}); if (!b) return null;
        const q = (s) => b.querySelector(s), v = q('.verdict'), mark = q('.verdict .mark');
        return {{hex: q('.cal-hex').textContent, lab: q('.cal-lab').textContent,
                 swatch: getComputedStyle(q('.swatch.cal')).backgroundColor,
                 camera: getComputedStyle(q('.swatch.camera')).backgroundColor,
                 verdictShown: !v.hidden && getComputedStyle(v).display !== 'none', verdictClass: v.className,
                 mark: mark.textContent, deltaE: q('.verdict .delta-e').textContent,
                 markPixels: parseFloat(getComputedStyle(mark).fontSize), markHeight: mark.getBoundingClientRect().height,
                 markColour: getComputedStyle(mark).color, verdictBackground: getComputedStyle(v).backgroundColor}}; }})()""")


def compare(checks, what, page, sample):
    """The page's block against the API's sample."""
    if not checks.check(page is not None, f"{what}: a calibrated block is shown"):
        return
    calibrated = sample["calibrated"]
    checks.check(page["hex"] == calibrated["hex"], f"{what}: calibrated hex {page['hex']!r}, the API's {calibrated['hex']}")
    checks.check(page["lab"] == "L*a*b* " + two(calibrated["lab"]), f"{what}: {page['lab']!r}, the API's {calibrated['lab']}")
    checks.check(page["swatch"] == rgb_text(calibrated["hex"]), f"{what}: calibrated swatch {page['swatch']}, hex {calibrated['hex']}")
    checks.check(page["camera"] == rgb_text(sample["hex"]), f"{what}: camera swatch {page['camera']}, the camera's {sample['hex']}")
    # A page showing the camera's colour as calibrated would pass the lines above if the two were
    # alike: the chart's camera has its white balance off, so they are not.
    checks.check(calibrated["hex"] != sample["hex"], f"{what}: calibrated {calibrated['hex']} differs from the camera's {sample['hex']}")
    word = "PASS" if sample["pass"] else "FAIL"
    checks.check(page["verdictShown"] and page["mark"] == word and page["verdictClass"] == "verdict " + word.lower(),
                 f"{what}: the mark says {page['mark']!r} ({page['verdictClass']}), the API's pass is {sample['pass']}")
    checks.check(page["deltaE"] == f"ΔE {sample['deltaE']:.2f}", f"{what}: {page['deltaE']!r}, the API's ΔE {sample['deltaE']}")
    # Across a bench: the word at least 48 CSS pixels, white on a strong green or red.
    checks.check(page["markPixels"] >= 48 and page["markHeight"] >= 48,
                 f"{what}: the mark is {page['markPixels']}px type, {page['markHeight']:.0f}px tall")
    expected_background = "rgb(27, 122, 54)" if sample["pass"] else "rgb(194, 31, 31)"
    checks.check(page["markColour"] == "rgb(255, 255, 255)" and page["verdictBackground"] == expected_background,
                 f"{what}: {page['markColour']} on {page['verdictBackground']}")


def check(url, path, cli_report):
    checks = Checks()
    browser = Browser()
    try:
        browser.open(url)
        browser.wait_for("document.getElementById('picture').naturalWidth > 0")
        browser.wait_for("document.querySelectorAll('#points .calibrated .verdict:not([hidden])').length == 2"
                         " && document.getElementById('calibration').children.length > 0")
        samples = get_json(url + "api/v1/sample")["samples"]
        passes = [sample.get("pass") for sample in samples]
        checks.check(passes == [True, False], f"the API passes the target's own patch and fails the red one: {passes}")
        for i, sample in enumerate(samples):
            page = shown(browser, f"#point-{i} + .calibrated")
            print(f"point {i + 1}: page {page}; API {sample}")
            compare(checks, f"point {i + 1}", page, sample)

        # A click on the first point's patch: the clicked card shows what the API says there.
        box = browser.evaluate("(() => { const r = document.getElementById('picture').getBoundingClientRect();"
                               " return {left: r.left, top: r.top, width: r.width, height: r.height}; })()")
        x, y = get_json(url + "api/v1/status")["points"][0]
        browser.click(box["left"] + x * box["width"], box["top"] + y * box["height"])
        browser.wait_for("document.getElementById('history').children.length == 1 && !!document.querySelector('#clicked + .calibrated')")
        coords = browser.evaluate("document.getElementById('coords').textContent").split(" (")[0]
        at = ",".join(f"{float(v):.4f}" for v in coords.split(", "))
        clicked = get_json(url + f"api/v1/sample?at={at}")["samples"][0]
        page = shown(browser, "#clicked + .calibrated")
        print(f"clicked {at}: page {page}; API {clicked}")
        compare(checks, f"click at {at}", page, clicked)
        checks.check(clicked["pass"] is True, f"the click on the target's patch passes: {clicked.get('pass')}")

        status = get_json(url + "api/v1/status")
        text = browser.evaluate("document.getElementById('calibration').textContent")
        target = status["target"]
        checks.check(status["profile"]["path"] in text and "target L*a*b* " + two(target["lab"]) in text
                     and f"passes within ΔE {target['tolerance']:.2f}" in text,
                     f"the profile and target are named: {text!r}")
        checks.check(status["profile"]["warnings"] == [] and "the profile was made" not in text,
                     f"no warning: the frames are the profile's ({status['profile']['warnings']})")
        screenshot(browser, path)
        check_chart(checks, browser, path.replace(".png", "-chart.png"))
        check_calibrate(checks, browser, url, cli_report, path.replace(".png", "-calibrate.png"))
    finally:
        browser.close()
    return checks.failures


def check_chart(checks, browser, path):
    """"Find the chart": the 24 patches outlined over the picture where the chart is drawn."""
    browser.evaluate("document.getElementById('find-chart').click()")
    browser.wait_for("window.eyedropper.chart() !== null && document.querySelectorAll('#chart-overlay polygon').length == 24")
    chart = browser.evaluate("window.eyedropper.chart()")
    checks.check(chart["found"] and chart["confidence"] >= 0.8, f"the chart is found: confidence {chart.get('confidence')}")
    pitch = geometry()[0]
    for index in (0, 5, 18, 23):  # the corner patches: a chart read turned puts one on another
        x, y = chart["patches"][index]["center"]
        ex, ey = patch_centre(index)
        error = max(abs(x - ex) * WIDTH, abs(y - ey) * HEIGHT)
        checks.check(error < pitch / 10, f"patch {index + 1} found at {x:.4f},{y:.4f}, drawn at {ex:.4f},{ey:.4f} ({error:.1f} px)")
    # The outline lies on the picture: patch 1's drawn outline centred where its centre is shown.
    placed = browser.evaluate("""(() => { const p = document.getElementById('picture').getBoundingClientRect();
        const o = document.querySelector('#chart-overlay polygon[data-patch="1"]').getBoundingClientRect();
        return {x: (o.left + o.width / 2 - p.left) / p.width, y: (o.top + o.height / 2 - p.top) / p.height,
                w: o.width / p.width}; })()""")
    ex, ey = patch_centre(0)
    checks.check(abs(placed["x"] - ex) < 0.01 and abs(placed["y"] - ey) < 0.01 and 0.08 < placed["w"] < 0.13,
                 f"patch 1's outline on the picture at {placed['x']:.3f},{placed['y']:.3f} ({placed['w']:.3f} of its width), "
                 f"the patch at {ex:.3f},{ey:.3f}")
    note = browser.evaluate("document.getElementById('chart-note').textContent")
    checks.check(note.startswith("found, confidence "), f"the note says {note!r}")
    screenshot(browser, path)


def check_calibrate(checks, browser, url, cli_report, path):
    """"Calibrate" and "Use this profile" against calibrate and sample on the same file."""
    with open(cli_report) as file:
        expected = json.load(file)
    before = get_json(url + "api/v1/sample")["samples"][0]["calibrated"]
    fit = calibrate_on_page(checks, browser, expected)
    report = fit["report"]
    summary = browser.evaluate("document.getElementById('calibrate-summary').textContent")
    checks.check(f"fitted mean {expected['fitted']['mean']:.2f}" in summary and f"left out mean {expected['leaveOneOut']['mean']:.2f}" in summary
                 and fit["name"] in summary, f"the summary says {summary!r}")
    checks.check(os.path.isfile(fit["path"]), f"the profile was written to {fit['path']}")
    screenshot(browser, path)

    browser.evaluate("document.getElementById('apply-profile').click()")
    browser.wait_for(f"document.getElementById('calibration').textContent.includes({json.dumps(fit['path'])})")
    status = get_json(url + "api/v1/status")
    checks.check((report["model"], report.get("curve")) != ("linear-3x3", "neutrals"),
                 f"the page's fit chose {report['model']} with the curve through the {report.get('curve')}, not the served profile's "
                 "linear-3x3 through the neutrals")
    checks.check(status["profile"]["path"] == fit["path"] and status["profile"]["model"] == report["model"],
                 f"the status names the profile applied: {status['profile']}")
    # The page says the profile is in use once PUT answered, which it does once a frame is read
    # with it: the first sample asked for after that is the new profile's, and says so.
    line = get_json(url + "api/v1/sample")
    checks.check(line.get("profile", {}).get("file") == os.path.basename(fit["path"]) and line["profile"]["generation"] == status["generation"],
                 f"the first sample after the page applied the profile names it: {line.get('profile')}, status generation {status['generation']}")
    sample = line["samples"][0]
    at = f"{sample['x']},{sample['y']}"
    command = [os.environ.get("EYEDROPPER", ".build/release/eyedropper"), "sample", "--source", status["source"], "--matrix", "bt601",
               "--profile", fit["path"], "--at", at, "--radius", "4", "--frames", "1", "--format", "json"]
    reference = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout.splitlines()[0])["samples"][0]
    print(f"after the profile: served {sample['calibrated']}; sample --profile {reference['calibrated']}; before {before}")
    checks.check(sample["calibrated"]["lab"] == reference["calibrated"]["lab"],
                 f"the served reading is sample --profile's with the new profile: {sample['calibrated']['lab']} and {reference['calibrated']['lab']}")
    checks.check(before["lab"] != sample["calibrated"]["lab"], f"and not the old profile's {before['lab']}")
    browser.wait_for(f"document.querySelector('#point-0 + .calibrated .cal-hex').textContent == {json.dumps(sample['calibrated']['hex'])}")
    compare(checks, "point 1 with the page's profile", shown(browser, "#point-0 + .calibrated"), get_json(url + "api/v1/sample")["samples"][0])


def check_covered(url, path, cli_report):
    """The covered chart: its hidden patches dashed, then calibrated without them, as calibrate says."""
    with open(cli_report) as file:
        expected = json.load(file)
    hidden = [p["number"] for p in expected["patches"] if not p["used"] and (p["excluded"] or "").startswith("hidden")]
    checks = Checks()
    # calibrate's own verdict first: a chart whose fingertips were read as patches, or not found at
    # all, would make the page's agreeing with it worth nothing.
    checks.check(hidden == list(COVERED), f"calibrate with no corners leaves out as hidden patches {hidden}; covered: {list(COVERED)}")
    browser = Browser()
    try:
        browser.open(url)
        browser.wait_for("document.getElementById('picture').naturalWidth > 0")
        browser.evaluate("document.getElementById('find-chart').click()")
        browser.wait_for("window.eyedropper.chart() !== null && document.querySelectorAll('#chart-overlay polygon').length == 24")
        dashed = browser.evaluate("[...document.querySelectorAll('#chart-overlay polygon.hidden')].map((p) => Number(p.dataset.patch))")
        checks.check(dashed == list(COVERED), f"the outlines dashed as not seen: patches {dashed}; covered: {list(COVERED)}")
        note = browser.evaluate("document.getElementById('chart-note').textContent")
        checks.check(f", {24 - len(COVERED)} of 24 patches seen" in note, f"the note says {note!r}")
        screenshot(browser, path.replace(".png", "-chart.png"))
        fit = calibrate_on_page(checks, browser, expected)
        summary = browser.evaluate("document.getElementById('calibrate-summary').textContent")
        seen = ", ".join(str(n) for n in COVERED)
        checks.check(f"{24 - len(COVERED)} of 24 patches" in summary and f"not seen: {seen} (" in summary and fit["name"] in summary,
                     f"the summary says {summary!r}")
        screenshot(browser, path)
    finally:
        browser.close()
    return checks.failures


def calibrate_on_page(checks, browser, expected):
    """Clicks "Calibrate" over 2 frames; checks each patch's row, and its outline's shade, against
    calibrate's report `expected` on the same frames; returns the page's fit."""
    browser.evaluate("document.getElementById('calibrate-frames').value = '2'; document.getElementById('calibrate').click()")
    browser.wait_for("window.eyedropper.fit() !== null && document.querySelectorAll('#calibrate-patches tbody tr').length == 24", seconds=30)
    fit = browser.evaluate("window.eyedropper.fit()")
    report = fit["report"]
    checks.check(report["model"] == expected["model"] and report["frames"] == 2,
                 f"the page's fit: {report['model']} over {report['frames']} frames; calibrate's: {expected['model']}")
    rows = browser.evaluate("[...document.querySelectorAll('#calibrate-patches tbody tr')].map((r) =>"
                            " ({patch: Number(r.dataset.patch), cells: [...r.cells].map((c) => c.textContent), shade: r.className}))")
    shades = browser.evaluate("[...document.querySelectorAll('#chart-overlay polygon')].map((p) => p.getAttribute('class'))")
    checks.check(len(rows) == 24, f"24 rows: {len(rows)}")
    for row, patch in zip(rows, expected["patches"]):
        want = f"{patch['deltaE']:.2f}" if patch["used"] else patch["excluded"]
        left_out = "" if patch.get("deltaELeaveOneOut") is None else f"{patch['deltaELeaveOneOut']:.2f}"
        shade = "unused" if not patch["used"] else "good" if patch["deltaE"] <= 2 else "fair" if patch["deltaE"] <= 4 else "poor"
        checks.check(row["patch"] == patch["number"] and row["cells"][3] == want and row["cells"][4] == left_out
                     and row["shade"] == shade,
                     f"patch {patch['number']}: the page shows ΔE {row['cells'][3]!r}, left out {row['cells'][4]!r} ({row['shade']}); "
                     f"calibrate: {want}, {left_out} ({shade})")
    checks.check(shades == [row["shade"] for row in rows], f"the outlines over the picture are shaded as the rows: {shades}")
    return fit


def main():
    arguments = sys.argv[1:]
    if arguments[:1] == ["chart"] and len(arguments) == 2:
        write_chart(arguments[1])
        return
    if arguments[:1] == ["covered"] and len(arguments) == 2:
        write_chart(arguments[1], covered=True)
        return
    if arguments[:1] == ["check-covered"] and len(arguments) == 4:
        url = arguments[1] if arguments[1].endswith("/") else arguments[1] + "/"
        finish(lambda: check_covered(url, arguments[2], arguments[3]))
        return
    if not (arguments[:1] == ["check"] and len(arguments) == 4):
        print(__doc__, file=sys.stderr)
        sys.exit(64)
    url = arguments[1] if arguments[1].endswith("/") else arguments[1] + "/"
    finish(lambda: check(url, arguments[2], arguments[3]))


if __name__ == "__main__":
    main()
