"""Calibration through a real V4L2 device: the frames for v4l2loopback, and the check of what came back.

`render DIR` draws the ColorChecker through the simulated camera (camera.py) into 1280x720
frames, as a webcam would deliver them, in both formats webcams use: YUYV (4:2:2, BT.601
limited) and MJPEG (JPEG quality 92, 4:2:0, as libjpeg encodes it). Three calibration scenes
(DEVICE_RUNS says which the guest reads in which format, HOST_RUNS which the host calibrates from
the same YUYV frames as a .y4m), each 10 frames with their own noise:

- plain: the chart tilted, evenly lit;
- uneven: the same, lit from one side (the light falls to 70% across the frame);
- small: the chart 260 pixels wide, rolled, among 24 coloured shapes;

and the check scenes no profile was fitted on: the chart under another tilt, evenly lit, and the
same lit evenly at the light the uneven chart had at its centre (a profile is for that light).
It writes DIR/frames/SCENE-N.yuyv and .jpg, DIR/points-SCENE.txt (the patch centres as `--at`
options) and DIR/scenes.json (where each patch was drawn) and DIR/checks.txt (which scene checks which).

The guest script (guest-loopback-calibrate.sh) feeds each scene of DEVICE_RUNS, and the scene
that checks it, into v4l2loopback with v4l2-feed and records what the device gives with
`eyedropper record` into DIR/out. `y4m DIR` writes each scene's YUYV frames as DIR/y4m/SCENE.y4m,
4:2:0 as libv4l2 makes it of YUYV (chroma of two rows averaged), for HOST_RUNS.
Tests/Calibration/loopback-tests.sh then runs `eyedropper calibrate` with no corners on each
calibration scene's frames and `sample --profile` on its check scene's, on the host: detection
and the fit are the same on any source, and take minutes under emulation.

`check DIR` reads that output: for each scene and format, the patch centres calibrate found
against where they were drawn (within 2 pixels), and the profile's colours on the check scene
against the chart's reference by CIEDE2000 (colour-science's): mean <= 1.0 for YUYV, <= 1.25 for
MJPEG (see ACCURACY_BAR). Prints every check and exits 1 when one fails.
"""

import argparse
import importlib
import json
import sys
import warnings
from pathlib import Path

warnings.filterwarnings("ignore", module="colour")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

import chart  # noqa: E402
import opencv_baseline  # noqa: E402
from camera import Camera, Reference, ycbcr_bt601_limited  # noqa: E402

sweep = importlib.import_module("chart-sweep")

FRAMES = 10
JPEG_QUALITY = 92
#: What guest-loopback-calibrate.sh records through the device: the hardest scene, in both formats.
DEVICE_RUNS = (("YUYV", "small"), ("MJPG", "small"))
#: What loopback-tests.sh calibrates on the host, from the same YUYV frames as a .y4m.
HOST_RUNS = (("YUYV", "plain"), ("YUYV", "uneven"))
#: Radius of the check scene's patches as `sample` reads them: well inside each patch.
CHECK_RADIUS = 20
#: Mean CIEDE2000 on the check scene. MJPEG's is looser: the JPEG's own loss at quality 92, which
#: differs frame by frame, costs the profile about a quarter of a ΔE00 over 10 frames (0.83 against
#: 0.58 in YUYV), and more over fewer (0.86 to 1.13 over 5).
ACCURACY_BAR = {"YUYV": 1.0, "MJPG": 1.25}
CENTRE_TOLERANCE_PX = 2.0


def light_at(scene, point):
    """The light chart-sweep.render gives the point (x, y pixels) of the scene, 0...1."""
    angle, low = scene["light_angle"], scene["light_low"]
    t = np.clip((point[0] / chart.WIDTH - 0.5) * np.cos(angle) + (point[1] / chart.HEIGHT - 0.5) * np.sin(angle) + 0.5, 0, 1)
    return low + (1 - low) * t


def scenes():
    """Each scene as chart-sweep.render takes it, with "check": the scene its profile is checked on."""
    rng = np.random.default_rng(7)
    small, _ = sweep.chart_corners(rng, 260, 200.0, 0.12, 1, False)
    plain = {"has_chart": True, "clutter": [], "light_low": 1.0, "light_angle": 0.0,
             "corners": chart.VIEWS["calibration"], "check": "check"}
    uneven = {**plain, "light_low": 0.7, "light_angle": 0.3, "check": "check-uneven"}
    # A profile is for the light at the chart's centre (see ChartLight): the uneven chart's is
    # checked on the check chart lit evenly at that level.
    centre = sweep.SweepView(uneven["corners"]).to_image @ (chart.CHART_W / 2, chart.CHART_H / 2, 1)
    check = {**plain, "corners": chart.VIEWS["check"], "check": None}
    return {
        "plain": plain,
        "uneven": uneven,
        "small": {**plain, "corners": small.tolist(), "clutter": sweep.clutter(rng, 24)},
        "check": check,
        "check-uneven": {**check, "light": light_at(uneven, centre[:2] / centre[2])},
    }


class Dimmed:
    """The camera with the whole scene lit at `light` (0...1) of the full light."""

    def __init__(self, camera, light):
        self.camera, self.light = camera, light

    def __getattr__(self, name):
        return getattr(self.camera, name)

    def encode(self, linear):
        return self.camera.encode(linear * self.light)


def yuyv(rgb):
    """Camera RGB (0...255, H x W x 3) -> YUYV bytes: BT.601 limited, each chroma sample the mean
    of two pixels side by side."""
    y, cb, cr = ycbcr_bt601_limited(rgb)
    packed = np.empty((y.shape[0], y.shape[1] * 2))
    packed[:, 0::2] = y
    packed[:, 1::4] = (cb[:, 0::2] + cb[:, 1::2]) / 2
    packed[:, 3::4] = (cr[:, 0::2] + cr[:, 1::2]) / 2
    return np.clip(np.rint(packed), 0, 255).astype(np.uint8).tobytes()


def render(out):
    camera = Camera(Reference(), "nikon")
    frames = out / "frames"
    frames.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(24)
    described = {}
    for name, scene in scenes().items():
        view = sweep.SweepView(scene["corners"])
        encoded = sweep.render(Dimmed(camera, scene.get("light", 1.0)), view, scene, np.random.default_rng(7))
        for n in range(FRAMES):
            rgb = np.clip(np.rint(encoded + rng.normal(0.0, camera.noise_sd, encoded.shape)), 0, 255)
            (frames / f"{name}-{n}.yuyv").write_bytes(yuyv(rgb))
            ok, jpeg = cv2.imencode(".jpg", rgb[..., ::-1].astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
            assert ok, "OpenCV could not encode a JPEG"
            (frames / f"{name}-{n}.jpg").write_bytes(jpeg.tobytes())
        (out / f"points-{name}.txt").write_text(" ".join(f"--at {x},{y}" for x, y in view.points()) + "\n")
        described[name] = {"centres_px": view.centres_px.tolist(), "points": view.points(), "check": scene["check"],
                           "light": scene.get("light", 1.0)}
        print(f"rendered {name}: {FRAMES} frames, YUYV and JPEG" + (f", lit at {scene['light']:.3f}" if "light" in scene else ""), flush=True)
    (out / "checks.txt").write_text("".join(f"{name} {scene['check']}\n" for name, scene in described.items() if scene["check"]))
    (out / "scenes.json").write_text(json.dumps({"width": chart.WIDTH, "height": chart.HEIGHT, "frames": FRAMES,
                                                 "check_radius": CHECK_RADIUS, "scenes": described}))


def write_y4m(out):
    """Each scene's YUYV frames as out/y4m/SCENE.y4m: Y as it is, Cb and Cr of each two rows
    averaged (truncated), as libv4l2's YUYV to YU12 conversion does."""
    (out / "y4m").mkdir(exist_ok=True)
    for name in scenes():
        with open(out / "y4m" / f"{name}.y4m", "wb") as y4m:
            y4m.write(f"YUV4MPEG2 W{chart.WIDTH} H{chart.HEIGHT} F15:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED\n".encode())
            for n in range(FRAMES):
                packed = np.frombuffer((out / "frames" / f"{name}-{n}.yuyv").read_bytes(), np.uint8)
                packed = packed.reshape(chart.HEIGHT, chart.WIDTH * 2).astype(np.uint16)
                cb, cr = packed[:, 1::4], packed[:, 3::4]
                y4m.write(b"FRAME\n" + packed[:, 0::2].astype(np.uint8).tobytes()
                          + ((cb[0::2] + cb[1::2]) // 2).astype(np.uint8).tobytes()
                          + ((cr[0::2] + cr[1::2]) // 2).astype(np.uint8).tobytes())


def check(out):
    described = json.loads((out / "scenes.json").read_text())["scenes"]
    reference = Reference()
    results = []

    def record(name, passed, detail):
        results.append(passed)
        print(f"{'PASS' if passed else 'FAIL'}  {name}: {detail}", flush=True)

    table = []
    for fourcc, name in DEVICE_RUNS + HOST_RUNS:
        label = f"{name} chart, {fourcc} " + ("recorded through v4l2loopback" if (fourcc, name) in DEVICE_RUNS else "as a .y4m on the host")
        calibrated = out / "out" / f"calibrate-{name}-{fourcc}.json"
        sampled = out / "out" / f"check-{name}-{fourcc}.json"
        try:
            patches = json.loads(calibrated.read_text())["patches"]
            found = np.array([p["center"] for p in patches], float) * (chart.WIDTH, chart.HEIGHT)
        except (OSError, ValueError, KeyError, TypeError) as error:
            record(f"calibrate, {label}", False, f"no patches in {calibrated.name} ({error!r})")
            continue
        distance = np.linalg.norm(found - np.array(described[name]["centres_px"]), axis=1)
        record(f"calibrate found the {label}", distance.max() <= CENTRE_TOLERANCE_PX,
               f"patch centres vs drawn: max {distance.max():.2f} px (patch {np.argmax(distance) + 1}); "
               f"tolerance {CENTRE_TOLERANCE_PX} px")
        try:
            lines = [json.loads(line) for line in sampled.read_text().splitlines() if line.startswith("{")]
            lab = np.array([s["calibrated"]["lab"] for s in lines[-1]["samples"]], float)
            assert lab.shape == (24, 3)
        except (OSError, ValueError, KeyError, TypeError, IndexError, AssertionError) as error:
            record(f"sample --profile, {label}", False, f"no calibrated colours in {sampled.name} ({error!r})")
            continue
        delta = opencv_baseline.delta_e(lab, reference.lab)
        record(f"the profile from the {label}, on the check scene (bar {ACCURACY_BAR[fourcc]})",
               delta.mean() <= ACCURACY_BAR[fourcc],
               f"CIEDE2000 vs reference: mean {delta.mean():.3f}, max {delta.max():.3f} (patch {np.argmax(delta) + 1})")
        where = "v4l2loopback" if (fourcc, name) in DEVICE_RUNS else ".y4m, host"
        table.append(f"| {name} | {fourcc} | {where} | {distance.max():.2f} | {delta.mean():.2f} | {delta.max():.2f} |")
    if table:
        print("\n| calibration scene | format | read from | centres, max px off | check mean ΔE00 | max |")
        print("|---|---|---|---|---|---|")
        print("\n".join(table))
    failed = results.count(False)
    print(f"\n{len(results) - failed} passed, {failed} failed")
    return 1 if failed or not results else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=["render", "y4m", "check"])
    parser.add_argument("dir")
    args = parser.parse_args()
    out = Path(args.dir)
    if args.step == "render":
        render(out)
        return 0
    if args.step == "y4m":
        write_y4m(out)
        return 0
    return check(out)


if __name__ == "__main__":
    sys.exit(main())
