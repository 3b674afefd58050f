#!/usr/bin/env python3
"""`calibrate --bracket` on measured tone curves: is the curve measured to within a level?

For each curve of cameras.py's list (EMoR's mean, darktable's 13, 25 of DoRF's; 8 of them in the
quick set, all 39 with --set all), one measured sensor in turn (measured.MeasuredCamera: white
balance locked on the chart's white under D50, the white patch at 210 of 255, noise 1.5 levels) sees the chart under D50 at FACTORS of its exposure,
one .y4m each (BT.601 limited 4:2:0, as cameras.py renders them). The real binary measures the
curve (`eyedropper calibrate --source base.y4m --bracket FILE@FACTOR ...`), and the curve in the
profile is compared with the camera's own: for each code of CODES, the linear value the profile's
curve gives it, scaled per channel to the truth (a response is known only up to the exposure's
scale), encoded back through the true curve. The worst distance from the code, in levels, over
the codes and the channels, is the figure; "within a level" is the goal.

Beside it, the curve the same binary fits to the base exposure alone (no --bracket: through the
six greys, or one shape through every patch), judged the same way: what measuring the curve gains.

Exits 1 when a figure is past its regression bound (BOUNDS). Skips, loudly, without the data.
"""

import argparse
import json
import sys
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

import measured
from camera import SHAPE, Reference
from cameras import SOURCE_OPTIONS, Scene, at_options, curves, reflectances, run, spectrum, write_y4m
from drift import Curve

REPOSITORY = measured.REPOSITORY
#: The exposures, relative to the base (1, first): from about 1/64 to 4, off any ladder of one
#: ratio (a ladder leaves the curve free to ripple with its step in ln light: `calibrate` warns of
#: one). The steps docs/calibration.md gives, as exposure_time_absolute 3, 5, 12, 24, 50, 85, 250,
#: 350 and 800 over a base of 200. Near powers of 1.6 (1/64, 1/40, 1/16, 1/10, 1/4, 1/2.5, 1, 1.6,
#: 2.5, 4) the 39 curves read 0.38 / 1.34 levels; on a ladder of 2, 0.59 / 3.16.
FACTORS = [1, 3 / 200, 1 / 40, 3 / 50, 3 / 25, 1 / 4, 17 / 40, 1.25, 1.75, 4]
FRAMES = 3
CODES = np.arange(10, 246)
#: The curves of the quick set (Scripts/test's): the deepest toes and the bumpiest DoRF curves,
#: a pedestal (DoRF 159's black at 14), and two ordinary ones.
QUICK = ["EMoR f0", "darktable nokia like", "darktable kodak easyshare like", "darktable Pentax K-5", "DoRF 159",
         "DoRF 183", "DoRF 190", "DoRF 192"]
#: Per set, (figure, statistic) -> bound: the run fails past it. What the run reads now plus 0.05
#: (it is deterministic: the noise is seeded by the curve's name).
BOUNDS = {
    "quick": {("measured", "median"): 0.33, ("measured", "worst"): 0.85, ("measured", "over a level"): 0},
    "all": {("measured", "median"): 0.33, ("measured", "worst"): 0.85, ("measured", "over a level"): 0},
}


def judge(profile, camera):
    """The worst distance, in levels over CODES and the channels, between a code and the code the
    camera gives for the linear value the profile's curve finds for it, each channel scaled to the
    truth by the least squares of ln linear."""
    channels = json.loads(Path(profile).read_text())["toneCurve"]
    codes = CODES.astype(float)
    truth = camera.decode(codes)
    worst = []
    for name in ("red", "green", "blue"):
        found = Curve(channels[name]["points"])(codes / 255)
        scale = np.exp(np.mean(np.log(truth) - np.log(found)))
        worst.append(float(np.abs(camera.encode(found * scale) - codes).max()))
    return max(worst)


def run_curve(job):
    data, out_root, eyedropper, sensor_name, curve_index, keep = job
    started = time.monotonic()
    curve = curves(data)[curve_index]
    camera = measured.MeasuredCamera(Reference(), sensor_name, measured.sensors(data)[sensor_name], curve)
    scene = Scene(0)
    out = out_root / f"{sensor_name} + {curve.name}".replace(" ", "_").replace("/", "-")
    out.mkdir(parents=True, exist_ok=True)
    linear = camera.linear_under(reflectances(camera, np.zeros((0, len(SHAPE.wavelengths)))), spectrum(None), 1.0)
    seed = zlib.crc32(f"bracket {sensor_name} + {curve.name}".encode())
    files = []
    for index, factor in enumerate(FACTORS):
        path = out / f"exposure-{index}.y4m"
        write_y4m(path, camera, scene, [linear * factor], FRAMES, seed + index)
        files.append(path)
    common = [eyedropper, "calibrate", *SOURCE_OPTIONS, *at_options(scene.corners(), "--corner"), "--frames", FRAMES,
              "--format", "json"]
    bracket = [item for path, factor in zip(files[1:], FACTORS[1:]) for item in ("--bracket", f"{path}@{factor:.6g}")]
    result = {"sensor": sensor_name, "curve": curve.name}
    status, stdout, stderr = run([*common, "--source", files[0], *bracket, "--out", out / "bracket.json"])
    if status != 0:
        result["error"] = f"calibrate --bracket exited {status}: {stderr.strip()[-400:]}"
        return result
    report = json.loads(stdout)["bracket"]
    status, _, stderr = run([*common, "--source", files[0], "--out", out / "greys.json"])
    if status != 0:
        result["error"] = f"calibrate exited {status}: {stderr.strip()[-400:]}"
        return result
    result.update({"measured": judge(out / "bracket.json", camera), "greys": judge(out / "greys.json", camera),
                   "range": report["range"], "residual": report["residual"], "seconds": time.monotonic() - started})
    if not keep:
        for path in files:
            path.unlink(missing_ok=True)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eyedropper", default=str(REPOSITORY / ".build/release/eyedropper"))
    parser.add_argument("--data", default=None, help=f"the measured data (default {measured.DEFAULT_DIRECTORY})")
    parser.add_argument("--out", default=str(REPOSITORY / ".build/bracket"))
    parser.add_argument("--set", choices=list(BOUNDS), default="quick",
                        help="quick: QUICK's 8 curves (Scripts/test's); all: every curve of cameras.py's 39 (default quick)")
    parser.add_argument("--curve", action="append", default=[], help="only curves whose name contains this")
    parser.add_argument("--jobs", type=int, default=2, help="curves run at once (default 2)")
    parser.add_argument("--keep", action="store_true", help="keep the rendered .y4m files")
    args = parser.parse_args()
    data = measured.directory_or_skip(args.data, "calibrate --bracket on measured tone curves (Tests/Calibration/bracket.py)")
    if data is None:
        return 0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sensor_names = list(measured.sensors(data))
    curve_list = curves(data)
    chosen = [c for c in range(len(curve_list))
              if (args.set == "all" or curve_list[c].name in QUICK)
              and (not args.curve or any(p in curve_list[c].name for p in args.curve))]
    factors = " ".join(f"{f:.4g}" for f in FACTORS)
    print(f"{len(chosen)} measured tone curves (set {args.set}), each with a sensor in turn, at {len(FACTORS)} exposures ({factors}); "
          f"{args.jobs} at a time", flush=True)
    started = time.monotonic()
    jobs = [(data, out, args.eyedropper, sensor_names[(7 * c) % len(sensor_names)], c, args.keep) for c in chosen]
    results = []
    failed = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for r in pool.map(run_curve, jobs):
            results.append(r)
            if "error" in r:
                failed.append(f"{r['sensor']} + {r['curve']}: {r['error']}")
                print(f"FAIL  {r['sensor']:28s} {r['curve']:30s} {r['error']}", flush=True)
            else:
                print(f"{r['sensor']:28s} {r['curve']:30s} measured within {r['measured']:5.2f} levels "
                      f"(fitted alone {r['greys']:5.2f}); read {r['range'][0]:.1f}-{r['range'][1]:.1f}, "
                      f"residual {100 * r['residual']:.1f}%  {r['seconds']:.1f} s", flush=True)
    (out / "bracket.json").write_text(json.dumps(results, indent=1))
    done = [r for r in results if "error" not in r]
    if done:
        m = np.array([r["measured"] for r in done])
        g = np.array([r["greys"] for r in done])
        figures = {("measured", "median"): float(np.median(m)), ("measured", "worst"): float(m.max()),
                   ("measured", "over a level"): int((m > 1).sum())}
        print(f"\nOver {len(done)} curves, worst level error over codes {CODES[0]}-{CODES[-1]} (median / worst):")
        print(f"  measured (--bracket, {len(FACTORS)} exposures): {np.median(m):.2f} / {m.max():.2f}; "
              f"within a level on {int((m <= 1).sum())} of {len(m)}")
        print(f"  fitted without --bracket:          {np.median(g):.2f} / {g.max():.2f}; "
              f"within a level on {int((g <= 1).sum())} of {len(g)}")
        worst = sorted(done, key=lambda r: -r["measured"])[:3]
        print("  worst measured: " + "; ".join(f"{r['sensor']} + {r['curve']} {r['measured']:.2f}" for r in worst))
        if not args.curve:
            for key, bound in BOUNDS[args.set].items():
                if figures[key] > bound:
                    failed.append(f"regression: {key[0]}, {key[1]}: {figures[key]:.2f} (bound {bound})")
                print(f"{'FAIL' if figures[key] > bound else 'PASS'}  {key[0]}, {key[1]}: {figures[key]:.3g} (bound {bound})")
    print(f"{len(results)} curves in {time.monotonic() - started:.0f} s; {len(failed)} failed")
    for line in failed:
        print(f"FAIL  {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
