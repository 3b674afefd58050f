#!/usr/bin/env python3
"""Calibrated colour, checked against a simulated camera and against OpenCV.

Renders a ColorChecker Classic 24 through a simulated camera (camera.py: spectral, not
colorimetric, a tone curve that is not sRGB, white balance off, noise, BT.601 limited 4:2:0)
under two perspectives (chart.py), then:

1. reads both files back with `eyedropper sample` and compares the patch means with the
   noise-free model (the renderer and Eyedropper's reading agree);
2. `eyedropper calibrate` on the calibration file; its patch means must match the model too;
3. `eyedropper sample --profile` on the check file: mean CIEDE2000 of the 24 calibrated
   patches against the reference must be <= 1.0;
4. OpenCV's ccm module, every configuration, fitted to the same calibration patch means and
   applied to the same check patch means (opencv_baseline.py): Eyedropper's mean must be no
   worse than OpenCV's best.

Independent of Eyedropper's own colour maths: the reference, the conversions and CIEDE2000
are colour-science's. Prints every check with its numbers, writes OUT/report.md, and exits 1
when a check fails. Usage: simulated-camera.py [--eyedropper PATH] [--out DIR] [--camera
nikon|sigma] [--check-profile PROFILE.json]
"""

import argparse
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

warnings.filterwarnings("ignore", module="colour")  # SciPy and Matplotlib are not needed here

import colour  # noqa: E402
import numpy as np  # noqa: E402

import chart  # noqa: E402
import held_out  # noqa: E402
import opencv_baseline  # noqa: E402
import report  # noqa: E402
from camera import REFERENCE_NAME, Camera, Reference  # noqa: E402

FRAMES = 5
SEEDS = {"calibration": 1, "check": 2}
#: Patch radius for reading patches with `sample`: well inside the smallest patch.
CHECK_RADIUS = 20
READBACK_RADIUS = 4
#: How far a patch mean read back may be from the noise-free model, in levels.
READBACK_TOLERANCE = 1.0
#: How far calibrate's patch centres may be from where the renderer put them (the scalar
#: coordinates pick a whole pixel, so half a pixel is lost before any error of the fit).
CENTRE_TOLERANCE_PX = 2.0
ACCURACY_BAR = 1.0
SOURCE_OPTIONS = ["--matrix", "bt601", "--range", "limited"]


class Checks:
    """Collects pass/fail results; each is printed as it is decided."""

    def __init__(self):
        self.results = []

    def record(self, name, passed, detail):
        self.results.append((name, passed, detail))
        print(f"{'PASS' if passed else 'FAIL'}  {name}: {detail}", flush=True)
        return passed

    @property
    def failed(self):
        return [r for r in self.results if not r[1]]


#: Every command run, as printed (paths inside the repository relative to it), for the report.
COMMANDS = []
REPOSITORY = Path(__file__).resolve().parent.parent.parent


def run(command, what, stdin=None):
    """Runs a command, reading the file `stdin` if given; returns (exit status, stdout, stderr),
    printing the command."""
    text = " ".join(str(c) for c in command).replace(f"{REPOSITORY}/", "")
    if stdin is not None:
        text += f" < {stdin}".replace(f"{REPOSITORY}/", "")
    COMMANDS.append(text)
    print("$ " + text, flush=True)
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True,
                            input=Path(stdin).read_text() if stdin is not None else None)
    if result.returncode != 0:
        print(f"  {what} exited {result.returncode}: {result.stderr.strip()[:2000]}", flush=True)
    return result.returncode, result.stdout, result.stderr


def at_options(points, flag="--at"):
    return [item for x, y in points for item in (flag, f"{x},{y}")]


def sample_line(eyedropper, source, points, radius, extra=()):
    """One averaged `sample` line over FRAMES frames, as parsed JSON, or None."""
    status, out, _ = run([eyedropper, "sample", "--source", source, *SOURCE_OPTIONS, *at_options(points),
                          "--radius", radius, "--frames", FRAMES, "--average", FRAMES, "--format", "json",
                          *extra], "sample")
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return lines[0] if status == 0 and len(lines) == 1 else None


def stats(values):
    v = np.asarray(values, float)
    return {"mean": float(v.mean()), "median": float(np.median(v)), "max": float(v.max())}


def fmt(s):
    return f"mean {s['mean']:.3f}, median {s['median']:.3f}, max {s['max']:.3f}"


def render(out, camera):
    """Renders both files; returns {name: View}."""
    views = {}
    for name in ("calibration", "check"):
        started = time.monotonic()
        views[name] = chart.View(name)
        chart.write_y4m(out / f"{name}.y4m", camera, views[name], FRAMES, SEEDS[name])
        print(f"rendered {out / f'{name}.y4m'}: {FRAMES} frames in {time.monotonic() - started:.1f} s", flush=True)
    return views


def check_readback(checks, eyedropper, out, views, model_rgb):
    """Eyedropper's sample of each rendered file against the noise-free model."""
    for name, view in views.items():
        line = sample_line(eyedropper, out / f"{name}.y4m", view.points(), READBACK_RADIUS)
        if line is None:
            checks.record(f"read back {name}.y4m", False, "eyedropper sample failed")
            continue
        means = np.array([s["mean"] for s in line["samples"]])
        error = np.abs(means - model_rgb)
        worst = np.unravel_index(np.argmax(error), error.shape)
        checks.record(f"read back {name}.y4m (radius {READBACK_RADIUS}, {FRAMES} frames)",
                      error.max() <= READBACK_TOLERANCE,
                      f"camera RGB means vs noise-free model: mean |error| {error.mean():.3f}, max "
                      f"{error.max():.3f} levels (patch {worst[0] + 1}, channel {'RGB'[worst[1]]}); "
                      f"tolerance {READBACK_TOLERANCE}")


def calibrate(checks, eyedropper, out, view, reference, model_rgb):
    """Runs `eyedropper calibrate`; returns (parsed JSON, profile path) or (None, None)."""
    profile = out / "profile.json"
    corners = [view.points()[i] for i in chart.CORNER_PATCHES]
    status, stdout, stderr = run([eyedropper, "calibrate", "--source", out / "calibration.y4m", *SOURCE_OPTIONS,
                                  *at_options(corners, "--corner"), "--frames", FRAMES, "--out", profile,
                                  "--cube", out / "profile.cube", "--icc", out / "profile.icc", "--format", "json"],
                                 "calibrate")
    (out / "calib.json").write_text(stdout)
    if status != 0:
        checks.record("eyedropper calibrate", False, f"exit {status}: {stderr.strip()[:300]}")
        return None, None
    try:
        result = json.loads(stdout)
        patches = result["patches"]
        assert len(patches) == 24 and [p["number"] for p in patches] == list(range(1, 25))
        means = np.array([p["mean"] for p in patches], float)
        references = np.array([p["reference"] for p in patches], float)
    except (ValueError, KeyError, TypeError, AssertionError) as error:
        checks.record("calibrate's JSON", False, f"not the contract ({error!r}): {stdout[:300]}")
        return None, None
    # colour-science names the neutrals with their density, "white 9.5 (.05 D)"; calibrate need not.
    names_match = [p["name"].lower() for p in patches] == [n.split(" (")[0].lower() for n in reference.names]
    reference_error = np.abs(references - reference.lab).max()
    checks.record("calibrate's reference", names_match and reference_error < 0.01,
                  f"names {'match' if names_match else 'differ'}; max |L*a*b* - colour-science's "
                  f"'{REFERENCE_NAME}'| {reference_error:.4f}")
    try:
        found = np.array([(p["x"] * chart.WIDTH, p["y"] * chart.HEIGHT) for p in patches], float)
        distance = np.linalg.norm(found - view.centres_px, axis=1)
        checks.record("calibrate's patch centres", distance.max() <= CENTRE_TOLERANCE_PX,
                      f"vs rendered centres: max {distance.max():.2f} px (patch {np.argmax(distance) + 1}); "
                      f"tolerance {CENTRE_TOLERANCE_PX} px")
    except (KeyError, TypeError) as error:
        checks.record("calibrate's patch centres", False, f"no x, y ({error!r})")
    error = np.abs(means - model_rgb)
    checks.record("calibrate's patch means", error.max() <= READBACK_TOLERANCE,
                  f"vs noise-free model: mean |error| {error.mean():.3f}, max {error.max():.3f} levels; "
                  f"clipped {sum(p.get('clipped', 0) for p in patches)}, "
                  f"used {sum(bool(p.get('used', True)) for p in patches)} of 24")
    print(f"  calibrate says: model {result.get('model')!r}, fitted {result.get('fitted')}, "
          f"leave-one-out {result.get('leaveOneOut')}", flush=True)
    return result, profile


def calibrate_found(checks, eyedropper, out, views, reference):
    """`calibrate` with no corners: it must find the chart where it was rendered, and its profile
    must be as accurate on the check frame."""
    profile = out / "profile-found.json"
    status, stdout, stderr = run([eyedropper, "calibrate", "--source", out / "calibration.y4m", *SOURCE_OPTIONS,
                                  "--frames", FRAMES, "--out", profile, "--format", "json"], "calibrate")
    if not checks.record("calibrate finds the chart (no --corner)", status == 0,
                         f"exit {status}; {stderr.strip().splitlines()[0] if stderr.strip() else ''}"):
        return
    patches = json.loads(stdout)["patches"]
    found = np.array([p["center"] for p in patches], float) * (chart.WIDTH, chart.HEIGHT)
    distance = np.linalg.norm(found - views["calibration"].centres_px, axis=1)
    checks.record("calibrate's patch centres found", distance.max() <= CENTRE_TOLERANCE_PX,
                  f"vs rendered centres: max {distance.max():.2f} px (patch {np.argmax(distance) + 1}); "
                  f"tolerance {CENTRE_TOLERANCE_PX} px")
    line = sample_line(eyedropper, out / "check.y4m", views["check"].points(), CHECK_RADIUS, ["--profile", profile])
    if line is None:
        checks.record("sample --profile (found chart)", False, "failed (above)")
        return
    lab = np.array([s["calibrated"]["lab"] for s in line["samples"]], float)
    s = stats(opencv_baseline.delta_e(lab, reference.lab))
    checks.record(f"accuracy of the found chart's profile on the check frame (bar {ACCURACY_BAR})",
                  s["mean"] <= ACCURACY_BAR, f"CIEDE2000 vs reference: {fmt(s)}")


#: How far ffmpeg's lut3d through calibrate's .cube may be from sample --profile's sRGB at one
#: pixel, in levels: the 33-point table's interpolation and ffmpeg's rounding to 8 bits.
CUBE_TOLERANCE = {"max": 3.0, "mean": 1.5}


def check_cube(checks, eyedropper, out, view, profile):
    """calibrate's .cube applied by ffmpeg's lut3d to the check frame (its RGB as Eyedropper
    converts it), against sample --profile's calibrated sRGB of the same pixels."""
    frame, graded = out / "check-frame.ppm", out / "check-graded.rgb"
    status, _, _ = run([eyedropper, "snapshot", "--source", out / "check.y4m", *SOURCE_OPTIONS, "--frames", 1,
                        "--out", frame], "snapshot")
    if status == 0:
        status, _, _ = run(["ffmpeg", "-v", "error", "-y", "-i", frame, "-vf",
                            f"lut3d=file={out / 'profile.cube'}:interp=tetrahedral", "-f", "rawvideo",
                            "-pix_fmt", "rgb24", graded], "ffmpeg")
    status_sample, stdout, _ = run([eyedropper, "sample", "--source", out / "check.y4m", *SOURCE_OPTIONS,
                                    *at_options(view.points()), "--frames", 1, "--profile", profile,
                                    "--format", "json"], "sample")
    if status != 0 or status_sample != 0:
        checks.record("the .cube through ffmpeg's lut3d", False, "a command failed (above)")
        return
    image = np.fromfile(graded, np.uint8).reshape(chart.HEIGHT, chart.WIDTH, 3).astype(float)
    samples = json.loads(stdout.splitlines()[0])["samples"]
    difference = np.array([np.abs(image[int(s["y"] * chart.HEIGHT), int(s["x"] * chart.WIDTH)]
                                  - np.array(s["calibrated"]["srgb"])).max() for s in samples])
    checks.record("the .cube through ffmpeg's lut3d", difference.max() <= CUBE_TOLERANCE["max"]
                  and difference.mean() <= CUBE_TOLERANCE["mean"],
                  f"vs sample --profile's srgb at the 24 patch centres: mean {difference.mean():.2f}, max "
                  f"{difference.max():.2f} levels (patch {np.argmax(difference) + 1}); tolerance {CUBE_TOLERANCE}")


#: How far ArgyllCMS's xicclu through calibrate's ICC profile may be from sample --profile, in
#: CIEDE2000: the 33-point CLUT's interpolation and its 16-bit L*a*b*. Measured: mean 0.048, max
#: 0.20 (the black patch: the correction bends most near black, between grid points, and ΔE2000
#: weighs a small a*b* error near neutral heavily). Measured wrong: L*a*b* relative to D65 instead
#: of D50 is off by 6.0 on average (max 11.5), the grid in .cube's order (red fastest) by 28.
ICC_TOLERANCE = {"max": 0.5, "mean": 0.15}
#: The ICC profile connection space's white, D50 as XYZ (Eyedropper's D50 is xy 0.3457, 0.3585).
ICC_D50 = colour.XYZ_to_xy(np.array([0.9642, 1.0, 0.8249]))


def check_icc(checks, eyedropper, out, view, profile):
    """calibrate's ICC profile applied by ArgyllCMS's xicclu to the check frame's patch means
    (camera RGB / 255), against sample --profile's calibrated XYZ of the same means as L*a*b*
    relative to the PCS white."""
    name = "the ICC profile through ArgyllCMS xicclu"
    line = sample_line(eyedropper, out / "check.y4m", view.points(), CHECK_RADIUS, ["--profile", profile])
    if line is None:
        checks.record(name, False, "sample --profile failed (above)")
        return
    rgb = np.array([s["mean"] for s in line["samples"]], float) / 255
    xyz = np.array([s["calibrated"]["xyz"] for s in line["samples"]], float) / 100
    (out / "check-means.txt").write_text("".join(f"{r:.6f} {g:.6f} {b:.6f}\n" for r, g, b in rgb))
    # -ff forward (A2B), -ir relative colorimetric, -pl L*a*b* PCS, -v0 the values alone.
    status, stdout, _ = run(["xicclu", "-v0", "-ff", "-ir", "-pl", out / "profile.icc"], "xicclu",
                            stdin=out / "check-means.txt")
    try:
        lab = np.array([[float(v) for v in row.split()] for row in stdout.splitlines() if row.strip()])
        assert status == 0 and lab.shape == (24, 3)
    except (ValueError, AssertionError):
        checks.record(name, False, f"xicclu exited {status}, printed {stdout[:300]!r}")
        return
    difference = opencv_baseline.delta_e(lab, colour.XYZ_to_Lab(xyz, ICC_D50))
    checks.record(name, difference.max() <= ICC_TOLERANCE["max"] and difference.mean() <= ICC_TOLERANCE["mean"],
                  f"L*a*b* vs sample --profile's xyz (as L*a*b* of the PCS white) at the 24 patch means: "
                  f"CIEDE2000 mean {difference.mean():.3f}, max {difference.max():.3f} (patch "
                  f"{np.argmax(difference) + 1}); tolerance {ICC_TOLERANCE}")


MODELS = ["linear-3x3", "affine-3x4", "root-polynomial-2", "auto"]
#: How much worse off the chart the model auto picks (by leave-one-out on the chart) may be than
#: the best one.
HELD_OUT_SLACK = 0.05


def check_held_out(checks, eyedropper, out, camera, views, reference):
    """Each model fitted to the chart, on the check frame's chart and on 59 reflectances off it."""
    names, reflectances = held_out.spectra()
    truth = held_out.lab_d50(reflectances)
    centres = held_out.write_y4m(out / "held-out.y4m", camera, reflectances, FRAMES, 3)
    (out / "held-out.json").write_text(json.dumps(centres))
    corners = [views["calibration"].points()[i] for i in chart.CORNER_PATCHES]
    rows = []
    for model in MODELS:
        profile = out / f"profile-{model}.json"
        status, stdout, _ = run([eyedropper, "calibrate", "--source", out / "calibration.y4m", *SOURCE_OPTIONS,
                                 *at_options(corners, "--corner"), "--frames", FRAMES, "--model", model,
                                 "--out", profile, "--format", "json"], "calibrate")
        line = sample_line(eyedropper, out / "check.y4m", views["check"].points(), CHECK_RADIUS, ["--profile", profile])
        lab = held_out.sample_lab(run, at_options, eyedropper, SOURCE_OPTIONS, out, profile, FRAMES, CHECK_RADIUS)
        if status != 0 or line is None or lab is None:
            checks.record(f"held-out colours, {model}", False, "a command failed (above)")
            return
        chosen = json.loads(stdout)["model"]
        on_chart = stats(opencv_baseline.delta_e(np.array([x["calibrated"]["lab"] for x in line["samples"]]),
                                                 reference.lab))
        off_chart = held_out.delta_e(lab, truth)
        rows.append({"model": model, "chosen": chosen, "chart": on_chart, "held_out": stats(off_chart),
                     "per_sample": off_chart})
    print(f"\n{'model':26} {'chart mean':>10} {'max':>6}   {'held-out mean':>13} {'median':>7} {'max':>6}")
    for r in rows:
        label = r["model"] + (f" ({r['chosen']})" if r["model"] == "auto" else "")
        print(f"{label:26} {r['chart']['mean']:10.3f} {r['chart']['max']:6.2f}   {r['held_out']['mean']:13.3f} "
              f"{r['held_out']['median']:7.3f} {r['held_out']['max']:6.2f}")
    auto, best = rows[-1], min(rows[:-1], key=lambda r: r["held_out"]["mean"])
    checks.record(f"held out: auto's model is the best off the chart (within {HELD_OUT_SLACK})",
                  auto["held_out"]["mean"] <= best["held_out"]["mean"] + HELD_OUT_SLACK,
                  f"auto chose {auto['chosen']}, held-out mean {auto['held_out']['mean']:.3f}; the best, "
                  f"{best['model']}, {best['held_out']['mean']:.3f}")
    checks.record(f"held out: auto's mean CIEDE2000 on 59 reflectances off the chart (bar {ACCURACY_BAR})",
                  auto["held_out"]["mean"] <= ACCURACY_BAR, fmt(auto["held_out"]))
    worst = np.argsort(rows[-1]["per_sample"])[-3:][::-1]
    print("worst held-out for auto: " + ", ".join(f"{names[i]} {rows[-1]['per_sample'][i]:.2f}" for i in worst))
    (out / "held-out.md").write_text(
        "| model | check chart: mean | max | held out (59): mean | median | max |\n|---|---|---|---|---|---|\n"
        + "".join(f"| {r['model']}{' → ' + r['chosen'] if r['model'] == 'auto' else ''} | {r['chart']['mean']:.2f} | "
                  f"{r['chart']['max']:.2f} | {r['held_out']['mean']:.2f} | {r['held_out']['median']:.2f} | "
                  f"{r['held_out']['max']:.2f} |\n" for r in rows))
    return rows


def check_calibrated(checks, line, reference):
    """Eyedropper's calibrated colour of the check frame; returns (ΔE per patch, means)."""
    samples = line["samples"]
    try:
        lab = np.array([s["calibrated"]["lab"] for s in samples], float)
        xyz = np.array([s["calibrated"]["xyz"] for s in samples], float)
    except (KeyError, TypeError) as error:
        checks.record("sample --profile JSON", False, f"no calibrated lab/xyz ({error!r})")
        return None
    # Eyedropper's own L*a*b* against colour-science's of its XYZ (Y of white = 100, D50). D50
    # as xy (0.3457, 0.3585) or as the ICC's XYZ (0.9642, 1, 0.8249) moves b* by up to 0.02.
    # Far out of gamut (a wrong profile) the printed decimals allow more, in proportion.
    recomputed = colour.XYZ_to_Lab(xyz / 100, reference.white_xy)
    deviation = np.abs(recomputed - lab)
    scale = np.linalg.norm(lab, axis=1, keepdims=True)
    checks.record("calibrated lab is Lab(xyz)", bool(np.all(deviation <= 0.05 + 5e-4 * scale)),
                  f"max |lab - colour-science Lab(xyz / 100, D50)| {deviation.max():.4f} "
                  "(tolerance 0.05 + 0.05% of |L*a*b*|)")
    de = opencv_baseline.delta_e(lab, reference.lab)
    s = stats(de)
    checks.record(f"Eyedropper accuracy on the check frame (bar {ACCURACY_BAR})", s["mean"] <= ACCURACY_BAR,
                  f"CIEDE2000 vs reference: {fmt(s)}")
    return de


def opencv_table(calibration_means, check_means, reference):
    """Every OpenCV configuration: fitted on calibration means, CIEDE2000 on both frames."""
    rows = []
    for name, ccm, lin, space in opencv_baseline.configurations():
        model = opencv_baseline.Model(ccm, lin, space, calibration_means, reference.lab)
        fitted = stats(opencv_baseline.delta_e(model.lab(calibration_means), reference.lab))
        check = opencv_baseline.delta_e(model.lab(check_means), reference.lab)
        rows.append({"config": name, "used": model.used, "fitted": fitted, "check": stats(check),
                     "per_patch": check})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eyedropper", default=str(REPOSITORY / ".build/release/eyedropper"))
    parser.add_argument("--out", default=str(REPOSITORY / ".build/calibration"))
    parser.add_argument("--camera", choices=["nikon", "sigma"], default="nikon")
    parser.add_argument("--check-profile", help="check the frame with this profile instead of the one calibrated")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    checks = Checks()

    reference = Reference()
    camera = Camera(reference, args.camera)
    model_rgb = camera.encode(camera.linear(camera.patch_spectra))
    views = render(out, camera)
    for view in views.values():
        assert view.smallest_half_patch_px() > CHECK_RADIUS * np.sqrt(2) + 2, "patches too small for the radius"
    check_readback(checks, args.eyedropper, out, views, model_rgb)

    result, profile = calibrate(checks, args.eyedropper, out, views["calibration"], reference, model_rgb)
    if args.check_profile:
        profile = Path(args.check_profile)
        print(f"checking with the profile given, {profile}", flush=True)
    if result is not None:
        calibration_means = np.array([p["mean"] for p in result["patches"]], float)
        source = "calibrate's patch means"
    else:
        # Without calibrate, OpenCV still gets the calibration frame's means, from sample.
        line = sample_line(args.eyedropper, out / "calibration.y4m", views["calibration"].points(), CHECK_RADIUS)
        if line is None:
            checks.record("sample of calibration.y4m", False, "failed (above)")
            return finish(checks)
        calibration_means = np.array([s["mean"] for s in line["samples"]], float)
        source = f"sample's patch means (radius {CHECK_RADIUS})"

    if result is not None and not args.check_profile:
        calibrate_found(checks, args.eyedropper, out, views, reference)
        check_cube(checks, args.eyedropper, out, views["check"], profile)
        check_icc(checks, args.eyedropper, out, views["check"], profile)
        check_held_out(checks, args.eyedropper, out, camera, views, reference)
    with_profile = ["--profile", profile] if profile is not None else []
    points = views["check"].points()
    line = sample_line(args.eyedropper, out / "check.y4m", points, CHECK_RADIUS, with_profile)
    eyedropper_de = None
    if with_profile and line is not None:
        eyedropper_de = check_calibrated(checks, line, reference)
    elif with_profile:
        checks.record("eyedropper sample --profile", False, "failed (above)")
    if line is None:  # OpenCV still gets the check frame's means
        line = sample_line(args.eyedropper, out / "check.y4m", points, CHECK_RADIUS)
        if line is None:
            checks.record("sample of check.y4m", False, "failed (above)")
            return finish(checks)
    check_means = np.array([s["mean"] for s in line["samples"]], float)

    rows = opencv_table(calibration_means, check_means, reference)
    best = min(rows, key=lambda r: r["check"]["mean"])
    print(f"\nOpenCV {opencv_baseline.cv2.__version__} ccm, fitted on {source}, CIEDE2000 vs reference:")
    print(f"{'configuration':44} {'fit mean':>9} {'check mean':>10} {'median':>7} {'max':>7}")
    for r in rows:
        print(f"{r['config']:44} {r['fitted']['mean']:9.3f} {r['check']['mean']:10.3f} "
              f"{r['check']['median']:7.3f} {r['check']['max']:7.3f}")
    if eyedropper_de is not None:
        s = stats(eyedropper_de)
        checks.record("Eyedropper no worse than OpenCV's best", s["mean"] <= best["check"]["mean"],
                      f"Eyedropper mean {s['mean']:.3f} vs OpenCV's best, {best['config']}, "
                      f"{best['check']['mean']:.3f}")
        print("\npatch                 reference L*a*b*        Eyedropper  OpenCV best")
        for i, name in enumerate(reference.names):
            print(f"{i + 1:2} {name:18} {reference.lab[i][0]:6.2f} {reference.lab[i][1]:6.2f} "
                  f"{reference.lab[i][2]:6.2f}   {eyedropper_de[i]:8.3f}  {best['per_patch'][i]:8.3f}")

    report.write(out / "report.md", camera_name=args.camera, reference=reference, eyedropper_de=eyedropper_de,
                 calibrate_result=result, rows=rows, best=best, source=source,
                 commands=[c for c in COMMANDS if " calibrate " in c or " --profile " in c])
    print(f"\nwrote {out / 'report.md'}")
    return finish(checks)


def finish(checks):
    """Prints the closing count; the exit status."""
    print(f"\n{len(checks.results) - len(checks.failed)} passed, {len(checks.failed)} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
