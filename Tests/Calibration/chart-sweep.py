"""Chart detection, Eyedropper against OpenCV's mcc, on the same rendered frames.

Renders a ColorChecker 24 (38 mm patches on a 44 mm pitch, as the card) through the simulated
camera (camera.py) into 1280x720 frames, each frame one of a cycle of conditions, at every roll,
keystone up to 25%, some seen in a mirror, with noise: charts 150 to 700 pixels wide; close up,
filling the frame; beyond the frame's edge (its body cut off, every patch inside); JPEG at
quality 70 to 95; defocus and motion blur; a glare spot; vignetting; a striped or a textured
surround; a printed copy's colours (desaturated, hue turned); 1 to 6 patches covered; clutter
(coloured squares, bars and discs around the chart) with uneven light; and frames with no chart
at all. All frames go into one .y4m (BT.601 limited, 4:2:0). Then:

- `eyedropper chart --source FILE --frames N` prints a line a frame;
- OpenCV's mcc (opencv-contrib) looks at the same frames, converted to BGR by OpenCV;

and each detection is scored against the rendered truth: a patch is right when its centre is
within a quarter of the grid step of the true centre (a covered patch too: its centre comes from
the grid); a frame is right when all 24 are; a frame is *wrong* when any patch given lies
nearest another patch (a chart read turned or mirrored) or a chart is given where there is none.
Writes report.md and results.json to --out and exits 1 unless Eyedropper has at least as many
frames right as mcc and none wrong.
"""

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import chart
from camera import Camera, Reference, planes_420

WIDTH, HEIGHT = chart.WIDTH, chart.HEIGHT
SUPERSAMPLING = 2


def patch_corners_mm():
    """The 96 corners of the 24 patches on the card, in millimetres."""
    points = []
    for row in range(chart.ROWS):
        for column in range(chart.COLUMNS):
            x0 = chart.MARGIN_X + column * (chart.PATCH + chart.GAP)
            y0 = chart.MARGIN_Y + row * (chart.PATCH + chart.GAP)
            points += [(x0, y0), (x0 + chart.PATCH, y0), (x0 + chart.PATCH, y0 + chart.PATCH), (x0, y0 + chart.PATCH)]
    return np.array(points)


def chart_corners(rng, width_px, roll, keystone, far_side, mirrored, beyond=False, margin=20):
    """The chart's four corners in the frame (top left, top right, bottom right, bottom left
    of the upright chart): the whole chart inside the frame with `margin`, or with `beyond` its
    body past the frame's edge and every patch inside (by 3 pixels)."""
    aspect = chart.CHART_H / chart.CHART_W
    mm = [(0, 0), (chart.CHART_W, 0), (chart.CHART_W, chart.CHART_H), (0, chart.CHART_H)]
    while True:
        w, h = width_px, width_px * aspect
        # Upright, centred, the far side shorter by `keystone`.
        corners = np.array([(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)])
        side = [[0, 1], [1, 2], [2, 3], [3, 0]][far_side]
        middle = corners[side].mean(axis=0)
        corners[side] = middle + (corners[side] - middle) * (1 - keystone)
        if mirrored:
            corners[:, 0] = -corners[:, 0]
        c, s = math.cos(math.radians(roll)), math.sin(math.radians(roll))
        corners = corners @ np.array([[c, s], [-s, c]])
        extent = chart.apply(chart.homography(mm, corners), patch_corners_mm()) if beyond else corners
        span = extent.max(axis=0) - extent.min(axis=0)
        edge = 6 if beyond else 2 * margin
        if span[0] < WIDTH - edge and span[1] < HEIGHT - edge:
            break
        width_px *= 0.95
    low = -extent.min(axis=0) + edge / 2
    high = np.array([WIDTH, HEIGHT]) - extent.max(axis=0) - edge / 2
    centre = low + rng.uniform(0, 1, 2) * (high - low)
    return corners + centre, width_px


def clutter(rng, count):
    """Shapes around the chart: (kind, centre, size, angle, linear colour)."""
    shapes = []
    for _ in range(count):
        kind = rng.choice(["square", "bar", "disc"])
        shapes.append((kind, rng.uniform([0, 0], [WIDTH, HEIGHT]), rng.uniform(12, 90), rng.uniform(0, math.pi),
                       rng.uniform(0.02, 0.85, 3)))
    return shapes


def supersampled(x0, x1, y0, y1):
    """Sample positions of the pixels [x0, x1) x [y0, y1), SUPERSAMPLING^2 a pixel."""
    offsets = (np.arange(SUPERSAMPLING) + 0.5) / SUPERSAMPLING
    xs = (np.arange(x0, x1)[:, None] + offsets).reshape(1, -1)
    ys = (np.arange(y0, y1)[:, None] + offsets).reshape(-1, 1)
    return np.broadcast_arrays(xs, ys)


def pixels(samples, rows, columns):
    """Supersampled values back to pixels: the mean of each pixel's samples."""
    s = SUPERSAMPLING
    return samples.reshape(rows, s, columns, s, -1).mean(axis=(1, 3))


def box(points, margin=2):
    """The pixel box [x0, x1) x [y0, y1) around points, inside the frame."""
    lo = np.floor(np.min(points, axis=0)).astype(int) - margin
    hi = np.ceil(np.max(points, axis=0)).astype(int) + margin
    return max(lo[0], 0), min(hi[0], WIDTH), max(lo[1], 0), min(hi[1], HEIGHT)


def surround(rng, scene, colours):
    """The background in linear camera RGB: flat, striped (dark lines on white paper, as on a
    ruled sheet) or textured (a carpet's low-frequency mottle and fine grain)."""
    flat = np.broadcast_to(colours[chart.BACKGROUND], (HEIGHT, WIDTH, 3)).copy()
    kind = scene.get("surround", "flat")
    if kind == "flat":
        return flat
    ys, xs = np.mgrid[0:HEIGHT, 0:WIDTH] + 0.5
    if kind == "striped":
        angle, period = scene["stripe_angle"], scene["stripe_period"]
        phase = (xs * math.cos(angle) + ys * math.sin(angle)) / period
        line = np.abs(phase - np.round(phase)) * period < scene["stripe_width"] / 2
        paper = colours[chart.BACKGROUND] * 4.0
        return np.where(line[..., None], colours[chart.BODY], paper)
    grain = rng.normal(0, 1, (HEIGHT // 8 + 1, WIDTH // 8 + 1))
    mottle = np.kron(grain, np.ones((8, 8)))[:HEIGHT, :WIDTH]
    fine = rng.normal(0, 1, (HEIGHT, WIDTH))
    return flat * np.clip(1 + 0.25 * mottle + 0.2 * fine, 0.2, 3)[..., None]


def printed(colours, scene):
    """A printed copy's patches: desaturated towards their own grey and the hue turned."""
    patches = colours[:24]
    grey = patches.mean(axis=1, keepdims=True)
    faded = grey + (patches - grey) * (1 - scene["desaturate"])
    # Turn the hue about the grey axis (Rodrigues).
    axis = np.ones(3) / math.sqrt(3)
    t = math.radians(scene["hue_turn"])
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    turn = np.eye(3) + math.sin(t) * k + (1 - math.cos(t)) * k @ k
    result = colours.copy()
    result[:24] = np.clip(faded @ turn.T, 1e-4, None)
    return result


def render(camera, view, scene, rng):
    """The frame in encoded camera RGB (float): background, clutter, chart, an occluder, then
    the light, glare, vignetting and blur. Only the pixels a shape or the chart covers are
    supersampled."""
    colours = chart.scene_colours(camera)
    if scene.get("printed"):
        colours = printed(colours, scene)
    image = surround(rng, scene, colours)
    for kind, centre, size, angle, colour in scene["clutter"]:
        x0, x1, y0, y1 = box([centre - 1.1 * size, centre + 1.1 * size])
        if x0 >= x1 or y0 >= y1:
            continue
        xs, ys = supersampled(x0, x1, y0, y1)
        dx, dy = xs - centre[0], ys - centre[1]
        u = dx * math.cos(angle) + dy * math.sin(angle)
        v = -dx * math.sin(angle) + dy * math.cos(angle)
        if kind == "disc":
            mask = u * u + v * v < (size / 2) ** 2
        elif kind == "bar":
            mask = (abs(u) < size) & (abs(v) < size / 6)
        else:
            mask = (abs(u) < size / 2) & (abs(v) < size / 2)
        cover = pixels(mask[..., None].astype(float), y1 - y0, x1 - x0)
        image[y0:y1, x0:x1] = image[y0:y1, x0:x1] * (1 - cover) + colour * cover
    if scene["has_chart"]:
        x0, x1, y0, y1 = box(np.array(scene["corners"]))
        xs, ys = supersampled(x0, x1, y0, y1)
        h = view.to_chart
        w = h[2, 0] * xs + h[2, 1] * ys + h[2, 2]
        cx = (h[0, 0] * xs + h[0, 1] * ys + h[0, 2]) / w
        cy = (h[1, 0] * xs + h[1, 1] * ys + h[1, 2]) / w
        pitch = chart.PATCH + chart.GAP
        column = np.floor((cx - chart.MARGIN_X) / pitch)
        row = np.floor((cy - chart.MARGIN_Y) / pitch)
        on_patch = ((cx - chart.MARGIN_X - column * pitch < chart.PATCH) & (cy - chart.MARGIN_Y - row * pitch < chart.PATCH)
                    & (column >= 0) & (column < chart.COLUMNS) & (row >= 0) & (row < chart.ROWS))
        inside = (cx >= 0) & (cx < chart.CHART_W) & (cy >= 0) & (cy < chart.CHART_H)
        classes = np.where(on_patch, (row * chart.COLUMNS + column).astype(int), chart.BODY)
        samples = colours[classes] * inside[..., None]
        cover = pixels(inside[..., None].astype(float), y1 - y0, x1 - x0)
        image[y0:y1, x0:x1] = image[y0:y1, x0:x1] * (1 - cover) + pixels(samples, y1 - y0, x1 - x0)
        # An occluder (a leaf, a hand): discs over the covered patches, a little wider than a
        # patch, with a mottle of its own.
        if scene.get("covered"):
            truth = np.array(scene["truth"])
            step = float(np.median(truth_pitch(truth)))
            ys_, xs_ = np.mgrid[0:HEIGHT, 0:WIDTH] + 0.5
            mask = np.zeros((HEIGHT, WIDTH), bool)
            for patch in scene["covered"]:
                cx_, cy_ = truth[patch]
                mask |= (xs_ - cx_) ** 2 + (ys_ - cy_) ** 2 < (0.62 * step) ** 2
            mottle = 1 + 0.08 * rng.normal(0, 1, (HEIGHT, WIDTH))
            image[mask] = np.array(scene["occluder"]) * mottle[mask][:, None]
    # Uneven light: linear in position, from `light_low` to 1 across the frame.
    direction = np.array([math.cos(scene["light_angle"]), math.sin(scene["light_angle"])])
    xs = (np.arange(WIDTH) + 0.5)[None, :] / WIDTH - 0.5
    ys = (np.arange(HEIGHT) + 0.5)[:, None] / HEIGHT - 0.5
    t = np.clip(xs * direction[0] + ys * direction[1] + 0.5, 0, 1)
    image *= (scene["light_low"] + (1 - scene["light_low"]) * t)[..., None]
    if scene.get("glare"):
        gx, gy, radius = scene["glare"]
        distance2 = (xs * WIDTH + WIDTH / 2 - gx) ** 2 + (ys * HEIGHT + HEIGHT / 2 - gy) ** 2
        image += 3.0 * np.exp(-distance2 / (2 * radius**2))[..., None]
    if scene.get("vignetting"):
        r2 = (xs * 2) ** 2 / 2 + (ys * 2) ** 2 / 2
        image *= (1 - scene["vignetting"] * r2)[..., None]
    if scene.get("defocus"):
        import cv2
        image = cv2.GaussianBlur(image, (0, 0), scene["defocus"])
    if scene.get("motion"):
        import cv2
        length, angle = scene["motion"]
        kernel = np.zeros((length, length))
        c = (length - 1) / 2
        for k in np.linspace(-c, c, 4 * length):
            kernel[int(round(c + k * math.sin(angle))), int(round(c + k * math.cos(angle)))] = 1
        image = cv2.filter2D(image, -1, kernel / kernel.sum())
    return camera.encode(image)


#: The cycle of conditions, one a frame; every 25th frame has no chart.
CONDITIONS = ["plain", "close up", "beyond the edge", "JPEG q70", "JPEG q85-95", "defocus", "motion blur", "glare",
              "vignetting", "striped surround", "textured surround", "printed copy", "1-3 covered", "4-6 covered",
              "clutter, uneven light", "close up, defocus, JPEG"]


def scenes(count, seed):
    rng = np.random.default_rng(seed)
    widths = [150, 170, 200, 240, 300, 380, 480, 600, 700]
    result = []
    for i in range(count):
        condition = CONDITIONS[i % len(CONDITIONS)]
        has_chart = i % 25 != 24  # a frame in 25 with no chart
        close = condition.startswith("close up")
        keystone = [0.0, 0.12, 0.25][i % 3]
        roll = float(rng.uniform(-12, 12) if close else rng.uniform(0, 360))
        scene = {
            "index": i,
            "condition": condition if has_chart else "no chart, " + condition,
            "has_chart": has_chart,
            "roll": roll,
            "keystone": keystone,
            "far_side": int(rng.integers(0, 4)),
            "mirrored": i % 11 == 5,
            "noise": [1.0, 2.0, 3.5][i % 3 if i % 2 else (i + 1) % 3],
            "clutter": clutter(rng, int(rng.integers(8, 30))) if condition.startswith("clutter") or not has_chart else [],
            "light_low": [1.0, 0.55, 0.4][i % 3] if condition.startswith("clutter") else 1.0,
            "light_angle": float(rng.uniform(0, 2 * math.pi)),
        }
        width = widths[i % len(widths)]
        if close:
            width = 1400
        if condition == "beyond the edge":
            width = 1600
        corners, width_px = chart_corners(rng, width, roll, keystone, scene["far_side"], scene["mirrored"],
                                          beyond=condition == "beyond the edge", margin=4 if close else 20)
        scene["corners"] = corners.tolist()
        scene["width_px"] = float(width_px)
        view = SweepView(scene["corners"])
        truth = view.centres_px
        scene["truth"] = truth.tolist()
        step = float(np.median(truth_pitch(truth)))
        if condition.startswith("JPEG q70"):
            scene["jpeg"] = 70
        elif condition.startswith("JPEG"):
            scene["jpeg"] = int(rng.integers(85, 96))
        if condition == "close up, defocus, JPEG":
            scene["jpeg"] = int(rng.integers(75, 96))
            scene["defocus"] = float(rng.uniform(2.0, 4.0))
        if condition == "defocus":
            scene["defocus"] = float(rng.uniform(0.8, 1.6)) * max(1.0, step / 40)
        if condition == "motion blur":
            scene["motion"] = (int(rng.integers(5, 12)), float(rng.uniform(0, math.pi)))
        if condition == "glare":
            patch = int(rng.integers(0, 24))
            scene["glare"] = (truth[patch][0], truth[patch][1], 0.3 * step)
        if condition == "vignetting":
            scene["vignetting"] = float(rng.uniform(0.3, 0.5))
        if condition == "striped surround":
            scene["surround"] = "striped"
            scene["stripe_angle"] = float(rng.uniform(0, math.pi))
            scene["stripe_period"] = float(rng.uniform(0.6, 1.4) * step)
            scene["stripe_width"] = float(rng.uniform(0.1, 0.25) * step)
        if condition == "textured surround":
            scene["surround"] = "textured"
        if condition == "printed copy":
            scene["printed"] = True
            scene["desaturate"] = float(rng.uniform(0.15, 0.35))
            scene["hue_turn"] = float(rng.uniform(-15, 15))
        if condition.endswith("covered"):
            count_covered = int(rng.integers(1, 4)) if condition.startswith("1") else int(rng.integers(4, 7))
            # A blob over a corner of the chart: the patches nearest a corner patch.
            start = [0, 5, 18, 23][int(rng.integers(0, 4))]
            r0, c0 = divmod(start, 6)
            order = sorted(range(24), key=lambda p: (abs(p // 6 - r0) + abs(p % 6 - c0), rng.uniform()))
            scene["covered"] = order[:count_covered]
            scene["occluder"] = [[0.05, 0.12, 0.03], [0.45, 0.25, 0.18]][i % 2]
        result.append(scene)
    return result


class SweepView(chart.View):
    def __init__(self, corners):
        self.name = "sweep"
        mm = [(0, 0), (chart.CHART_W, 0), (chart.CHART_W, chart.CHART_H), (0, chart.CHART_H)]
        self.to_image = chart.homography(mm, corners)
        self.to_chart = np.linalg.inv(self.to_image)
        self.centres_px = chart.apply(self.to_image, chart.patch_centres_mm())


def truth_pitch(centres):
    """For each patch, the distance to its nearest grid neighbour, in pixels."""
    grid = centres.reshape(chart.ROWS, chart.COLUMNS, 2)
    pitch = np.full((chart.ROWS, chart.COLUMNS), np.inf)
    for r in range(chart.ROWS):
        for c in range(chart.COLUMNS):
            for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                rr, cc = r + dr, c + dc
                if 0 <= rr < chart.ROWS and 0 <= cc < chart.COLUMNS:
                    pitch[r, c] = min(pitch[r, c], np.linalg.norm(grid[r, c] - grid[rr, cc]))
    return pitch.reshape(-1)


def score(found_centres, truth, pitch):
    """(patches right, patches placed on another patch) for 24 centres found."""
    if found_centres is None:
        return 0, 0
    right = wrong = 0
    for number, centre in enumerate(found_centres):
        distances = np.linalg.norm(truth - centre, axis=1)
        nearest = int(np.argmin(distances))
        if nearest != number and distances[nearest] < 0.5 * pitch[nearest]:
            wrong += 1
        elif nearest == number and distances[number] < 0.25 * pitch[number]:
            right += 1
    return right, wrong


def mcc_centres(detector, bgr):
    import cv2
    start = time.perf_counter()
    ok = detector.process(bgr, cv2.mcc.MCC24, 1)
    elapsed = time.perf_counter() - start
    if not ok:
        return None, elapsed
    checker = detector.getBestColorChecker()
    charts = np.asarray(checker.getColorCharts(), float).reshape(24, 4, 2)
    return charts.mean(axis=1), elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--eyedropper", required=True)
    parser.add_argument("--out", default=".build/chart-sweep")
    parser.add_argument("--frames", type=int, default=96)
    parser.add_argument("--seed", type=int, default=24)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    camera = Camera(Reference(), "nikon")
    sweep = scenes(args.frames, args.seed)
    y4m = out / "sweep.y4m"
    rng = np.random.default_rng(args.seed + 1)
    bgr_frames = []
    import cv2
    started = time.perf_counter()
    with open(y4m, "wb") as file:
        file.write(f"YUV4MPEG2 W{WIDTH} H{HEIGHT} F30:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED\n".encode())
        for scene in sweep:
            view = SweepView(scene["corners"])
            encoded = render(camera, view, scene, rng)
            noisy = np.clip(encoded + rng.normal(0.0, scene["noise"], encoded.shape), 0, 255)
            if "jpeg" in scene:
                # Through a JPEG, as a camera's MJPEG or a phone's picture: 4:2:0, libjpeg's quality.
                ok, jpeg = cv2.imencode(".jpg", np.rint(noisy[..., ::-1]).astype(np.uint8),
                                        [cv2.IMWRITE_JPEG_QUALITY, scene["jpeg"]])
                noisy = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)[..., ::-1].astype(float)
            y, cb, cr = planes_420(noisy)
            file.write(b"FRAME\n")
            for plane in (y, cb, cr):
                file.write(plane.tobytes())
            i420 = np.concatenate([y.reshape(-1), cb.reshape(-1), cr.reshape(-1)]).reshape(HEIGHT * 3 // 2, WIDTH)
            bgr_frames.append(cv2.cvtColor(i420, cv2.COLOR_YUV2BGR_I420))
            done = scene["index"] + 1
            if sys.stderr.isatty():
                print(f"\rrendering frame {done} of {len(sweep)}", end="", file=sys.stderr, flush=True)
            elif done % 20 == 0:
                print(f"rendered {done} of {len(sweep)} frames", file=sys.stderr, flush=True)
    render_seconds = time.perf_counter() - started
    print(f"\nrendered {len(sweep)} frames in {render_seconds:.0f} s", file=sys.stderr)

    started = time.perf_counter()
    run = subprocess.run([args.eyedropper, "chart", "--source", str(y4m), "--frames", str(len(sweep))],
                         capture_output=True, text=True)
    eyedropper_seconds = time.perf_counter() - started
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    if len(lines) != len(sweep):
        sys.exit(f"eyedropper chart printed {len(lines)} lines for {len(sweep)} frames (exit {run.returncode}): {run.stderr}")

    detector = cv2.mcc.CCheckerDetector_create()
    results = []
    totals = {"eyedropper": {"right": 0, "wrong": 0, "found": 0, "refused": 0},
              "mcc": {"right": 0, "wrong": 0, "found": 0, "refused": 0}}
    mcc_seconds = []
    for scene, line, bgr in zip(sweep, lines, bgr_frames):
        truth = np.array(scene["truth"])
        pitch = truth_pitch(truth)
        ours = None
        if line["found"]:
            ours = np.array([[p["center"][0] * WIDTH, p["center"][1] * HEIGHT] for p in line["patches"]])
        theirs, seconds = mcc_centres(detector, bgr)
        mcc_seconds.append(seconds)
        row = {"frame": scene["index"], "condition": scene["condition"], "width_px": round(scene["width_px"]),
               "roll": round(scene["roll"]),
               "keystone": scene["keystone"], "mirrored": scene["mirrored"], "noise": scene["noise"],
               "clutter": len(scene["clutter"]), "light_low": scene["light_low"], "has_chart": scene["has_chart"]}
        for name, centres in (("eyedropper", ours), ("mcc", theirs)):
            entry = totals[name]
            if not scene["has_chart"]:
                right, wrong = 0, 1 if centres is not None else 0
                all_right = centres is None
            else:
                right, wrong = score(centres, truth, pitch)
                all_right = right == 24
            entry["right"] += all_right
            entry["wrong"] += wrong > 0
            entry["found"] += centres is not None
            row[name] = {"patches_right": right, "wrong": wrong, "found": centres is not None,
                         "all_right": bool(all_right), "read_wrong": wrong > 0}
        row["eyedropper"]["confidence"] = line.get("confidence")
        row["eyedropper"]["reason"] = line.get("reason")
        results.append(row)

    frames = len(sweep)
    with_chart = sum(s["has_chart"] for s in sweep)
    report = [
        f"{frames} frames, 1280x720 ({with_chart} with a chart, {frames - with_chart} without), rendered in "
        f"{render_seconds:.0f} s: a cycle of {len(CONDITIONS)} conditions (below), any roll, keystone 0/12/25%, some "
        "mirrored, noise sd 1-3.5 levels.",
        "",
        "| detector | frames right (all 24 patches, or nothing where there is no chart) | frames read wrong | time per frame |",
        "|---|---|---|---|",
        f"| Eyedropper `chart` | {totals['eyedropper']['right']} of {frames} | {totals['eyedropper']['wrong']} | "
        f"{1000 * eyedropper_seconds / frames:.1f} ms (the whole command: decode, convert, detect) |",
        f"| OpenCV mcc ({cv2.__version__}) | {totals['mcc']['right']} of {frames} | {totals['mcc']['wrong']} | "
        f"{1000 * float(np.mean(mcc_seconds)):.0f} ms (`process` alone) |",
        "",
        "| condition | frames | Eyedropper right | Eyedropper wrong | mcc right | mcc wrong |",
        "|---|---|---|---|---|---|",
    ]
    for condition in CONDITIONS + ["no chart"]:
        rows = [r for r in results if (r["condition"].startswith("no chart") if condition == "no chart"
                                       else r["condition"] == condition)]
        if not rows:
            continue

        def count(name, key):
            return sum(1 for r in rows if r[name][key])
        report.append(f"| {condition} | {len(rows)} | {count('eyedropper', 'all_right')} | {count('eyedropper', 'read_wrong')} | "
                      f"{count('mcc', 'all_right')} | {count('mcc', 'read_wrong')} |")
    report += [
        "",
        "| frame | condition | width px | roll | keystone | mirrored | noise | Eyedropper | mcc |",
        "|---|---|---|---|---|---|---|---|---|",
    ]

    def cell(entry, has_chart):
        if not has_chart:
            return "found a chart (wrong)" if entry["found"] else "none (right)"
        if not entry["found"]:
            return "not found"
        text = f"{entry['patches_right']}/24"
        return text + (f", {entry['wrong']} on another patch" if entry["wrong"] else "")

    for row in results:
        report.append(
            f"| {row['frame']} | {row['condition']} | {row['width_px'] if row['has_chart'] else '-'} | {row['roll']} | "
            f"{row['keystone']} | {'yes' if row['mirrored'] else ''} | {row['noise']} | "
            f"{cell(row['eyedropper'], row['has_chart'])} | {cell(row['mcc'], row['has_chart'])} |")
    (out / "report.md").write_text("\n".join(report) + "\n")
    (out / "results.json").write_text(json.dumps({"totals": totals, "frames": results}, indent=1) + "\n")
    print("\n".join(report[:8 + len(CONDITIONS) + 2]))
    failures = []
    if totals["eyedropper"]["wrong"]:
        failures.append(f"Eyedropper read {totals['eyedropper']['wrong']} frames wrong")
    if totals["eyedropper"]["right"] < totals["mcc"]["right"]:
        failures.append(f"Eyedropper had {totals['eyedropper']['right']} frames right, mcc {totals['mcc']['right']}")
    if failures:
        sys.exit("chart sweep failed: " + "; ".join(failures) + f" (see {out / 'report.md'})")


if __name__ == "__main__":
    main()
