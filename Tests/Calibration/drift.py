#!/usr/bin/env python3
"""Calibrated colour under a changing light, corrected by a white reference in view.

The simulated camera (camera.py, white balance and exposure locked) looks at the chart and a
white tile (a flat 90 % reflectance, clear of the chart) while the light changes:

- calibration.y4m: the "calibration" view under D50 at 100 %, the white patch at WHITE_LEVEL
  of 255 (headroom: at 150 % the brightest patch stays below the camera's shoulder);
- drift.y4m: the "check" view, FRAMES_PER_LIGHT frames (each with its own noise) per light of
  `schedule()`: D50 from 50 % to 150 %, then 3500 K to 6500 K at 100 % (black body below 4000 K,
  CIE daylight from there), then both at once (3500 K at 50 % to 6500 K at 150 %, reported, no
  goal), and D50 at 100 % again (the noise floor: what another reading of the same light moves
  the readings by). `sample --average` reads each light's frames as one reading.

Then the real CLI: `eyedropper calibrate --white-reference` on calibration.y4m, and `eyedropper
sample --profile --average` on drift.y4m without the reference, with it (each --reference-model),
and with it and --palette (the 24 patches' own names and L*a*b*); once more with the default model
and no --average, for the single-frame figures. The intensity move is also computed noise-free
(the profile applied to each light's exact camera RGB), which separates the profile's own part
from the camera's noise. Each frame's 24 calibrated colours are
compared (CIEDE2000, colour-science's) with the chart's reference L*a*b* D50 (X-Rite's values
after November 2014, which calibrate's reference equals), i.e. with their colour under the light
of the calibration.

Options the eyedropper given does not have yet are emulated here from the profile's JSON (tone
curves, correction) and the uncorrected run's means, and the report says which columns are
emulated. The same emulation checks the CLI's corrected colours when it has them.

Writes OUT/drift.md (the commands and the table); prints a PASS/FAIL line per check and exits
1 when one fails. Usage: drift.py [--eyedropper PATH] [--out DIR] [--camera nikon|sigma]
[--white-level LEVEL] [--frames-per-light N] [--calibration-frames N] [--radius R]
"""

import argparse
import importlib.util
import json
import sys
import time
import warnings
from pathlib import Path

warnings.filterwarnings("ignore", module="colour")

import colour  # noqa: E402
import numpy as np  # noqa: E402

import chart  # noqa: E402
import opencv_baseline  # noqa: E402
from camera import Camera, Reference, _aligned, illuminant  # noqa: E402

#: The white tile's pixel box: right of the chart in both views (the check view's chart ends at
#: x = 1090), so a radius-20 window around its centre sees the tile alone.
TILE = (1140, 300, 1240, 400)
#: The white patch's brightest channel at calibration, of 255: 150 % of the light then stays
#: below the camera's shoulder (camera.py; at 235, 130 % already moves readings by 3 ΔE).
WHITE_LEVEL = 150
CALIBRATION_FRAMES = 5
RADIUS = 20
#: Frames rendered per light, each with its own noise, read as one reading by `sample --average`:
#: one frame's patch means move by a tenth or two of a level from frame to frame, which the
#: profile's matrix turns into 0.2 CIEDE2000 between two frames of the same light.
FRAMES_PER_LIGHT = 4
SEEDS = {"calibration": 1, "drift": 2}
SOURCE_OPTIONS = ["--matrix", "bt601", "--range", "limited"]
#: The goals: how far intensity alone may move the mean of the 24 corrected readings (against
#: the 100 % reading), and the mean CIEDE2000 against the reference from 4000 K to 6500 K.
INTENSITY_GOAL = 0.3
#: What the intensity check holds the move to: a bound the correction meets with margin (0.54 at
#: worst, 0.42 of it there without any noise: the profile's tone curves are not one shape scaled)
#: and that a correction gone wrong breaks (uncorrected, intensity moves the readings by 2 to 13).
#: The goal above is reported beside it, met or not.
INTENSITY_BOUND = 0.8
TEMPERATURE_GOAL = 1.2
TEMPERATURE_GOAL_RANGE = (4000, 6500)
#: --max-delta-e of the palette run.
MAX_DELTA_E = 5.0
#: How far (CIEDE2000) the CLI's corrected colour may be from this script's emulation of it:
#: the JSON's means have 2 decimals.
EMULATION_TOLERANCE = 0.1
MODELS = ("diagonal", "bradford")
#: Bradford's cone matrix, as Eyedropper's CIEXYZ.swift and ICC.1 give it.
BRADFORD = np.array([[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]])
#: Eyedropper's D50 (CIEXYZ.swift).
D50_XY = np.array([0.3457, 0.3585])


def schedule():
    """The lights of drift.y4m, one reading each: (kind, temperature K or None for D50, intensity)."""
    lights = [("intensity", None, round(0.5 + 0.1 * i, 1)) for i in range(11)]
    lights += [("temperature", t, 1.0) for t in range(3500, 6501, 250)]
    lights += [("combined", t, round(0.5 + (t - 3500) / 3000, 3)) for t in range(3500, 6501, 500)]
    # D50 at 100 % again: how far the noise alone moves the readings between two frames.
    return lights + [("repeat", None, 1.0)]


def light_label(temperature, intensity):
    return f"{'D50' if temperature is None else f'{temperature} K'} {intensity * 100:.0f} %"


def spectrum(temperature):
    return _aligned(colour.SDS_ILLUMINANTS["D50"]) if temperature is None else illuminant(temperature)


def render(out, camera, frames_per_light, calibration_frames):
    """calibration.y4m and drift.y4m (`frames_per_light` frames per light of `schedule()`, each
    with its own noise); returns {"calibration": View, "drift": View}."""
    views = {"calibration": chart.View("calibration", TILE), "drift": chart.View("check", TILE)}
    reflectances = chart.reflectances(camera)
    for name, lights in (("calibration", [("calibration", None, 1.0)] * calibration_frames),
                         ("drift", [light for light in schedule() for _ in range(frames_per_light)])):
        started = time.monotonic()
        coverage = views[name].coverage()
        cache = {}

        def frames():
            for _, temperature, intensity in lights:
                key = (temperature, intensity)
                if key not in cache:
                    cache[key] = camera.encode(chart.image(coverage, camera.linear_under(
                        reflectances, spectrum(temperature), intensity)))
                yield cache[key]

        chart.write_frames(out / f"{name}.y4m", camera, frames(), SEEDS[name])
        print(f"rendered {out / f'{name}.y4m'}: {len(lights)} frames in {time.monotonic() - started:.1f} s",
              flush=True)
    return views


class Profile:
    """A profile's JSON, applied as CameraProfile.calibrated does: the tone curves (ToneCurve.swift),
    then the correction's terms times its matrix (ColorCorrection.swift)."""

    def __init__(self, path):
        data = json.loads(Path(path).read_text())
        self.curves = [Curve(data["toneCurve"][c]["points"]) for c in ("red", "green", "blue")]
        self.model = data["correction"]["model"]
        self.matrix = np.array(data["correction"]["matrix"], float)
        self.white_reference = data.get("whiteReference")

    def linear(self, means):
        """Linear camera RGB of mean camera RGB (n x 3, 0...255)."""
        m = np.atleast_2d(np.asarray(means, float)) / 255
        return np.stack([self.curves[c](m[:, c]) for c in range(3)], axis=1)

    def xyz(self, linear):
        """XYZ (D50, white Y = 100) of linear camera RGB (n x 3)."""
        r, g, b = np.atleast_2d(linear).T
        terms = {"linear-3x3": [r, g, b], "affine-3x4": [r, g, b, np.ones_like(r)],
                 "root-polynomial-2": [r, g, b, np.sqrt(r * g), np.sqrt(g * b), np.sqrt(r * b)]}[self.model]
        return np.stack(terms, axis=1) @ self.matrix.T


class Curve:
    """One channel of ToneCurve.swift: a monotone cubic (Fritsch-Carlson) through the points in
    log-log space, continued as the power law of its end slopes."""

    def __init__(self, points):
        p = np.asarray(points, float)
        self.x, self.y = np.log(p[:, 0]), np.log(p[:, 1])
        widths, secants = np.diff(self.x), np.diff(self.y) / np.diff(self.x)
        slopes = np.empty(len(self.x))
        slopes[0], slopes[-1] = secants[0], secants[-1]
        for i in range(1, len(self.x) - 1):
            left, right = secants[i - 1], secants[i]
            w1, w2 = 2 * widths[i] + widths[i - 1], widths[i] + 2 * widths[i - 1]
            slopes[i] = 0 if left * right <= 0 else (w1 + w2) / (w1 / left + w2 / right)
        self.slopes = slopes

    def __call__(self, values):
        v = np.asarray(values, float)
        t = np.log(np.maximum(v, 1e-300))
        x, y, m = self.x, self.y, self.slopes
        i = np.clip(np.searchsorted(x, t) - 1, 0, len(x) - 2)
        h = x[i + 1] - x[i]
        s = (t - x[i]) / h
        inside = (2 * s**3 - 3 * s**2 + 1) * y[i] + (s**3 - 2 * s**2 + s) * h * m[i] \
            + (-2 * s**3 + 3 * s**2) * y[i + 1] + (s**3 - s**2) * h * m[i + 1]
        result = np.where(t <= x[0], y[0] + m[0] * (t - x[0]),
                          np.where(t >= x[-1], y[-1] + m[-1] * (t - x[-1]), inside))
        return np.where(v > 0, np.exp(result), 0.0)


def lab(xyz):
    return colour.XYZ_to_Lab(np.asarray(xyz, float) / 100, D50_XY)


def emulate(profile, means, reference_now, reference_calibration, model):
    """The corrected XYZ of each patch mean (n x 3) as the contract describes `model`: diagonal,
    gains on the linear camera RGB that make the reference read its calibration value; bradford,
    the Bradford adaptation from the reference's calibrated XYZ now to its XYZ at calibration,
    applied to each calibrated XYZ. Returns (XYZ, gains)."""
    now, then = profile.linear(reference_now)[0], profile.linear(reference_calibration)[0]
    if model == "diagonal":
        gains = then / now
        return profile.xyz(profile.linear(means) * gains), gains
    cone_gains = (BRADFORD @ profile.xyz(then)[0]) / (BRADFORD @ profile.xyz(now)[0])
    adaptation = np.linalg.inv(BRADFORD) @ np.diag(cone_gains) @ BRADFORD
    return profile.xyz(profile.linear(means)) @ adaptation.T, cone_gains


def _simulated_camera():
    """simulated-camera.py as a module (its name has a dash): its Checks and run helpers."""
    spec = importlib.util.spec_from_file_location("simulated_camera", Path(__file__).with_name("simulated-camera.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_sim = _simulated_camera()
Checks, run, at_options, COMMANDS, REPOSITORY = _sim.Checks, _sim.run, _sim.at_options, _sim.COMMANDS, _sim.REPOSITORY


def supports(eyedropper, command, option):
    _, out, _ = run([eyedropper, command, "--help"], "help")
    return option in out


def sample_lines(eyedropper, source, points, extra=(), radius=RADIUS):
    """`sample` of `source`, one parsed JSON line per frame (or block of --average in `extra`), or None."""
    status, out, _ = run([eyedropper, "sample", "--source", source, *SOURCE_OPTIONS, *at_options(points),
                          "--radius", radius, "--format", "json", *extra], "sample")
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return lines if status == 0 and lines else None


def palette_file(out, patches):
    """The 24 patches as a palette: the repository's, or one written from calibrate's JSON
    (each patch's name and reference L*a*b*, i.e. ChartReference's values)."""
    shipped = REPOSITORY / "Packaging/palettes/colorchecker-classic-24.json"
    if shipped.exists() and all("lab" in e for e in json.loads(shipped.read_text())):
        return shipped
    path = out / "colorchecker-classic-24.json"
    path.write_text(json.dumps([{"name": p["name"], "lab": p["reference"]} for p in patches], indent=1) + "\n")
    return path


def nearest(labs, palette_lab, names, max_delta_e):
    """The palette's nearest entry to each colour: (name or "unknown", ΔE, margin to the next)."""
    result = []
    for value in labs:
        d = opencv_baseline.delta_e(np.broadcast_to(value, palette_lab.shape), palette_lab)
        first, second = np.argsort(d)[:2]
        known = d[first] <= max_delta_e
        result.append((names[first] if known else "unknown", float(d[first]),
                       float(d[second] - d[first]) if known else float(d[first] - max_delta_e)))
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eyedropper", default=str(REPOSITORY / ".build/release/eyedropper"))
    parser.add_argument("--out", default=str(REPOSITORY / ".build/drift"))
    parser.add_argument("--camera", choices=["nikon", "sigma"], default="nikon")
    parser.add_argument("--white-level", type=float, default=WHITE_LEVEL,
                        help=f"the white patch's brightest channel at calibration (default {WHITE_LEVEL})")
    parser.add_argument("--frames-per-light", type=int, default=FRAMES_PER_LIGHT,
                        help=f"frames per light, read as one by sample --average (default {FRAMES_PER_LIGHT})")
    parser.add_argument("--calibration-frames", type=int, default=CALIBRATION_FRAMES,
                        help=f"frames of calibration.y4m, all read by calibrate (default {CALIBRATION_FRAMES})")
    parser.add_argument("--radius", type=int, default=RADIUS, help=f"sample's --radius (default {RADIUS})")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    eyedropper = args.eyedropper
    checks = Checks()
    reference = Reference()
    camera = Camera(reference, args.camera, white_level=args.white_level)
    per = args.frames_per_light
    views = render(out, camera, per, args.calibration_frames)
    lights = schedule()
    average = ["--average", per]
    tile = views["drift"].tile_point()
    points = views["drift"].points()

    can = {"calibrate": supports(eyedropper, "calibrate", "--white-reference"),
           "reference": supports(eyedropper, "sample", "--white-reference"),
           "model": supports(eyedropper, "sample", "--reference-model"),
           "palette": supports(eyedropper, "sample", "--palette")}
    print("this eyedropper has: " + ", ".join(f"{k} {'yes' if v else 'no (emulated)'}" for k, v in can.items()),
          flush=True)

    # Calibrate, with the tile recorded as the white reference.
    profile_path = out / "profile.json"
    corners = [views["calibration"].points()[i] for i in chart.CORNER_PATCHES]
    status, stdout, stderr = run([eyedropper, "calibrate", "--source", out / "calibration.y4m", *SOURCE_OPTIONS,
                                  *at_options(corners, "--corner"),
                                  *(["--white-reference", f"{tile[0]},{tile[1]}"] if can["calibrate"] else []),
                                  "--frames", args.calibration_frames, "--out", profile_path, "--format", "json"],
                                 "calibrate")
    if not checks.record("eyedropper calibrate", status == 0, f"exit {status} {stderr.strip()[:300]}"):
        return finish(checks)
    calibration = json.loads(stdout)
    profile = Profile(profile_path)
    white_patch = calibration["patches"][18]["mean"]
    print(f"  calibrate: model {calibration.get('model')}, fitted {calibration.get('fitted')}; white patch "
          f"{np.round(white_patch, 1)}", flush=True)
    if profile.white_reference is not None:
        reference_calibration = np.array(profile.white_reference["mean"], float)
        recorded = "the profile's whiteReference"
    else:
        lines = sample_lines(eyedropper, out / "calibration.y4m", [tile], ["--average", args.calibration_frames],
                             args.radius)
        if lines is None:
            checks.record("sample of the tile in calibration.y4m", False, "failed (above)")
            return finish(checks)
        reference_calibration = np.array(lines[0]["samples"][0]["mean"], float)
        recorded = f"sample's mean of the tile over calibration.y4m's {args.calibration_frames} frames"
    print(f"  the reference at calibration ({recorded}): {reference_calibration}", flush=True)

    # Uncorrected: the 24 patches and the tile, whose means the emulation needs.
    lines = sample_lines(eyedropper, out / "drift.y4m", points + [tile], ["--profile", profile_path, *average],
                         args.radius)
    if lines is None or len(lines) != len(lights):
        checks.record("sample --profile of drift.y4m", False,
                      f"{'failed' if lines is None else f'{len(lines)} lines for {len(lights)} lights'}")
        return finish(checks)
    means = np.array([[s["mean"] for s in line["samples"][:24]] for line in lines], float)
    tile_means = np.array([line["samples"][24]["mean"] for line in lines], float)
    uncorrected = np.array([[s["calibrated"]["lab"] for s in line["samples"][:24]] for line in lines], float)
    clipped = sum(s["clipped"] for line in lines for s in line["samples"])
    print(f"  tile through the run: {tile_means.min(axis=0)} ... {tile_means.max(axis=0)}; clipped values "
          f"{clipped}", flush=True)

    # Corrected: emulated from the profile and the uncorrected means, and the CLI's where it can.
    emulated = {m: [emulate(profile, means[f], tile_means[f], reference_calibration, m) for f in range(len(lights))]
                for m in MODELS}
    corrected = {m: np.array([lab(e[0]) for e in emulated[m]]) for m in MODELS}
    gains = {m: np.array([e[1] for e in emulated[m]]) for m in MODELS}
    source = {m: "emulated" for m in MODELS}
    calibrated_reference = lab(profile.xyz(profile.linear(reference_calibration)))[0]
    reference_de = opencv_baseline.delta_e(lab(profile.xyz(profile.linear(tile_means))),
                                           np.broadcast_to(calibrated_reference, (len(lights), 3)))
    default_model, reference_source = "diagonal", "emulated"
    reference_option = ["--white-reference", f"{tile[0]},{tile[1]}"]
    if can["reference"] and profile.white_reference is not None:
        runs = [None] + [m for m in MODELS if can["model"]]
        for model in runs:
            if model is not None and source[model] == "eyedropper":
                continue  # the default's run
            extra = ["--profile", profile_path, *reference_option] + (["--reference-model", model] if model else [])
            got = sample_lines(eyedropper, out / "drift.y4m", points, extra + average, args.radius)
            if got is None or len(got) != len(lights):
                checks.record(f"sample --white-reference{' --reference-model ' + model if model else ''}", False,
                              "failed (above)" if got is None else f"{len(got)} lines for {len(lights)} frames")
                return finish(checks)
            name = got[0]["reference"].get("model", "diagonal")
            if model is None:
                default_model, reference_source = name, "eyedropper"
                reference_de = np.array([line["reference"]["deltaE"] for line in got], float)
            corrected[name] = np.array([[s["calibrated"]["lab"] for s in line["samples"]] for line in got], float)
            gains[name] = np.array([line["reference"]["gains"] for line in got], float)
            source[name] = "eyedropper"
            states = {line["reference"]["state"] for line in got}
            applied = all(line["reference"]["applied"] for line in got)
            checks.record(f"the reference is applied on every frame ({name})", applied,
                          f"states {sorted(states)}")
            agreement = np.array([opencv_baseline.delta_e(corrected[name][f], lab(emulated[name][f][0]))
                                  for f in range(len(lights))])
            checks.record(f"eyedropper's {name} correction is the one described (this script's emulation "
                          f"from the profile JSON, within {EMULATION_TOLERANCE})",
                          agreement.max() <= EMULATION_TOLERANCE,
                          f"CIEDE2000 between them: mean {agreement.mean():.4f}, max {agreement.max():.4f}")

    # One frame a reading: the default correction without --average, for what the averaging buys.
    single = None
    if per > 1 and reference_source == "eyedropper":
        got = sample_lines(eyedropper, out / "drift.y4m", points, ["--profile", profile_path, *reference_option],
                           args.radius)
        if got is None or len(got) != len(lights) * per:
            checks.record("sample --white-reference, one frame a line", False,
                          "failed (above)" if got is None else f"{len(got)} lines for {len(lights) * per} frames")
            return finish(checks)
        single = np.array([[s["calibrated"]["lab"] for s in line["samples"]] for line in got],
                          float).reshape(len(lights), per, 24, 3)
    else:
        print("  single-frame figures SKIPPED: "
              + ("one frame a light" if per == 1 else "the eyedropper has no --white-reference"), flush=True)

    # Noise-free: the default correction (emulated) on each light's exact camera RGB, no noise, no
    # 8-bit encoding, the reference at calibration exact too: what is left of the move however many
    # frames are averaged, the profile's (its tone curves' and matrix's) own part.
    reflectances = chart.reflectances(camera)
    exact = np.array([camera.encode(camera.linear_under(reflectances, spectrum(t), i)) for _, t, i in lights])
    exact_calibration = camera.encode(camera.linear_under(reflectances, spectrum(None), 1.0))[chart.TILE]
    noise_free = np.array([lab(emulate(profile, exact[f, :24], exact[f, chart.TILE], exact_calibration,
                                       default_model)[0]) for f in range(len(lights))])

    # The palette run: the default correction, the 24 patches' own names.
    palette = palette_file(out, calibration["patches"])
    entries = json.loads(Path(palette).read_text())
    names = [e["name"] for e in entries]
    own = [p["name"].lower() for p in calibration["patches"]]
    palette_source = "emulated"
    if can["palette"] and can["reference"] and profile.white_reference is not None:
        got = sample_lines(eyedropper, out / "drift.y4m", points,
                           ["--profile", profile_path, *reference_option, "--palette", palette,
                            "--max-delta-e", MAX_DELTA_E, *average], args.radius)
        if got is None or len(got) != len(lights):
            checks.record("sample --palette", False, "failed (above)")
            return finish(checks)
        named = [[(s["nearest"]["name"], s["nearest"]["deltaE"], s["nearest"]["margin"]) for s in line["samples"]]
                 for line in got]
        palette_source = "eyedropper"
    else:
        palette_lab = np.array([e["lab"] for e in entries], float)
        named = [nearest(corrected[default_model][f], palette_lab, names, MAX_DELTA_E) for f in range(len(lights))]
    right = np.array([[n[0].lower() == own[i] for i, n in enumerate(frame)] for frame in named])
    margins = np.array([[n[2] if n[2] is not None else np.inf for n in frame] for frame in named], float)

    truth = reference.lab
    de = {"uncorrected": np.array([opencv_baseline.delta_e(uncorrected[f], truth) for f in range(len(lights))])}
    for m in MODELS:
        de[m] = np.array([opencv_baseline.delta_e(corrected[m][f], truth) for f in range(len(lights))])

    # Checks.
    kinds = [k for k, _, _ in lights]
    intensity = [f for f, k in enumerate(kinds) if k == "intensity"]
    full = next(f for f in intensity if lights[f][2] == 1.0)
    repeat = kinds.index("repeat")
    def moves(labs):
        """Per intensity frame, the CIEDE2000 of each patch against the 100 % reading (frames x 24)."""
        return np.array([opencv_baseline.delta_e(labs[f], labs[full]) for f in intensity])

    def per_frame(values):
        return " ".join(f"{v:.2f}" for v in values)

    moved = {m: moves(corrected[m]).mean(axis=1) for m in MODELS}
    uncorrected_moved = moves(uncorrected).mean(axis=1)
    floor = opencv_baseline.delta_e(corrected[default_model][repeat], corrected[default_model][full]).mean()
    noise_free_moves = moves(noise_free)
    # Single frames: each light's first frame against the 100 % light's first; the floor, the 100 %
    # light's second frame against its first.
    single_moved = moves(single[:, 0]).mean(axis=1) if single is not None else None
    single_floor = opencv_baseline.delta_e(single[full, 1], single[full, 0]).mean() if single is not None else None
    worst = intensity[int(np.argmax(moved[default_model]))]
    goal = "met" if moved[default_model].max() <= INTENSITY_GOAL else "not met"
    checks.record(f"intensity alone (D50, 50-150 %) moves the corrected readings by <= {INTENSITY_BOUND:g}, the "
                  f"bound that catches a correction gone wrong ({default_model}, {source[default_model]}, "
                  f"{per} frames a reading)", moved[default_model].max() <= INTENSITY_BOUND,
                  f"goal {INTENSITY_GOAL:g} {goal} ({moved[default_model].max():.2f} at "
                  f"{light_label(*lights[worst][1:])}); mean CIEDE2000 of the 24 against the 100 % reading, per "
                  f"light {per_frame(moved[default_model])}; another reading at 100 % (noise alone) {floor:.2f}; "
                  f"uncorrected {per_frame(uncorrected_moved)}")
    for m in MODELS:
        if m != default_model:
            print(f"  also {m} ({source[m]}): {per_frame(moved[m])}", flush=True)
    if single is not None:
        print(f"  one frame a reading ({default_model}): {per_frame(single_moved)}; another frame at 100 % "
              f"{single_floor:.2f}", flush=True)
    print(f"  noise-free ({default_model}, emulated): {per_frame(noise_free_moves.mean(axis=1))}; without patch 24 "
          f"{per_frame(noise_free_moves[:, :23].mean(axis=1))}", flush=True)
    dim = [k for k, f in enumerate(intensity) if lights[f][2] <= 0.7]
    averaged_moves = moves(corrected[default_model])
    carriers = np.argsort(-noise_free_moves[dim].mean(axis=0))[:4]
    print("  at 50-70 %, the patches that move most (noise-free; averaged readings): "
          + ", ".join(f"{i + 1} {reference.names[i]} {per_frame(noise_free_moves[dim, i])}; "
                      f"{per_frame(averaged_moves[dim, i])}" for i in carriers), flush=True)

    def row(name, values):
        return f"| {name} | " + " | ".join(f"{v:.2f}" for v in values) + " |"

    header = "| mean CIEDE2000 of the 24 against 100 % | " + " | ".join(
        f"{lights[f][2] * 100:.0f} %" for f in intensity) + " |"
    table = [header, "|---|" + "---|" * len(intensity),
             row(f"corrected ({default_model}), {per} frames a reading", moved[default_model])]
    if single is not None:
        table.append(row(f"corrected ({default_model}), one frame a reading", single_moved))
    table += [row(f"noise-free ({default_model}, emulated)", noise_free_moves.mean(axis=1)),
              row("noise-free, without patch 24 (black)", noise_free_moves[:, :23].mean(axis=1)),
              row("uncorrected", uncorrected_moved)]
    dim_header = " / ".join(f"{lights[intensity[k]][2] * 100:.0f}" for k in dim) + " %"
    culprits = [f"| patch | noise-free, {dim_header} | {per} frames a reading, {dim_header} |", "|---|---|---|"]
    for i in np.argsort(-noise_free_moves[dim].mean(axis=0)):
        culprits.append(f"| {i + 1} {reference.names[i]} | {per_frame(noise_free_moves[dim, i])} | "
                        f"{per_frame(averaged_moves[dim, i])} |")
    intensity_text = f"""## Intensity alone

Goal {INTENSITY_GOAL:g} (mean of the 24 against the 100 % reading): **{goal}**
({moved[default_model].max():.2f} at {light_label(*lights[worst][1:])}); the check holds it to <= {INTENSITY_BOUND:g}.
Each reading is the mean of {per} frames of the same light (`sample --average {per}`), each frame
with its own noise. Noise floor: another reading of the 100 % light moves by {floor:.2f}
{'' if single is None else f'({single_floor:.2f} for one frame against the next)'}. "Noise-free" is the same
profile and correction on each light's exact camera RGB (no noise, no 8-bit encoding): what no
averaging removes, the profile's own part.

{chr(10).join(table)}

Where the move is at 50-70 %, per patch (CIEDE2000 against the 100 % reading, worst first):

{chr(10).join(culprits)}
"""
    low, high = TEMPERATURE_GOAL_RANGE
    band = [f for f, (k, t, _) in enumerate(lights) if k == "temperature" and low <= t <= high]
    for m in (default_model,) + tuple(x for x in MODELS if x != default_model):
        band_mean = de[m][band].mean(axis=1)
        worst = band[int(np.argmax(band_mean))]
        line = (f"worst mean {band_mean.max():.3f} at {lights[worst][1]} K; per frame "
                + " ".join(f"{lights[f][1]}:{v:.2f}" for f, v in zip(band, band_mean)))
        if m == default_model:
            checks.record(f"{low}-{high} K: mean CIEDE2000 against the reference <= {TEMPERATURE_GOAL} ({m}, "
                          f"{source[m]})", band_mean.max() <= TEMPERATURE_GOAL, line)
        else:
            print(f"  also {m} ({source[m]}): {line}", flush=True)
    wrong = [(f, i, named[f][i][0]) for f in range(len(lights)) for i in range(24) if not right[f, i]]
    checks.record(f"palette ({palette_source}): every patch named as itself on every frame (--max-delta-e "
                  f"{MAX_DELTA_E:g})", not wrong,
                  f"{right.sum()} of {right.size} right; smallest margin {margins.min():.2f} (patch "
                  f"{np.unravel_index(np.argmin(margins), margins.shape)[1] + 1})"
                  + (f"; wrong: " + ", ".join(f"frame {f} patch {i + 1} as {n}" for f, i, n in wrong[:8])
                     if wrong else ""))
    rising = []
    for kind, centre in (("intensity", lambda t, k: (k, 1.0)), ("temperature", lambda t, k: (t, 5000))):
        frames = [f for f in range(len(lights)) if kinds[f] == kind]
        value = {f: centre(lights[f][1], lights[f][2]) for f in frames}
        for side in (-1, 1):
            away = sorted((f for f in frames if side * (value[f][0] - value[f][1]) >= 0),
                          key=lambda f: abs(value[f][0] - value[f][1]))
            rising.append(all(reference_de[a] < reference_de[b] for a, b in zip(away, away[1:])))
    checks.record(f"the reference's deltaE ({reference_source}) grows with the light's distance from calibration",
                  all(rising), "intensity: " + " ".join(f"{reference_de[f]:.2f}" for f in intensity)
                  + "; temperature: " + " ".join(f"{reference_de[f]:.2f}" for f in range(len(lights))
                                                 if kinds[f] == "temperature"))
    for t in (3500, 6500):
        f = next(f for f, (k, tt, _) in enumerate(lights) if k == "temperature" and tt == t)
        checks.record(f"uncorrected worse than corrected at {t} K ({default_model})",
                      de["uncorrected"][f].mean() > de[default_model][f].mean(),
                      f"mean {de['uncorrected'][f].mean():.2f} uncorrected, {de[default_model][f].mean():.2f} "
                      "corrected")

    write_report(out / "drift.md", intensity_text, per, args.white_level, lights, reference_de, gains, de, right, margins, named, reference, source,
                 reference_source, palette_source, default_model, palette, calibration, reference_calibration)
    print(f"\nwrote {out / 'drift.md'}")
    return finish(checks)


def write_report(path, intensity_text, per, white_level, lights, reference_de, gains, de, right, margins, named, reference, source, reference_source,
                 palette_source, default_model, palette, calibration, reference_calibration):
    def cell(values):
        return f"{values.mean():.2f} / {values.max():.2f}"

    gain_model = "diagonal"
    rows = ["| reading | light | reference ΔE | gains (camera RGB) | uncorrected mean / max | corrected, diagonal | "
            "corrected, bradford | palette: named right | smallest margin |", "|" + "---|" * 9]
    for f, (kind, temperature, intensity) in enumerate(lights):
        again = " (again)" if kind == "repeat" else ""
        rows.append(f"| {f} | {light_label(temperature, intensity)}{again} | {reference_de[f]:.2f} | "
                    + " ".join(f"{g:.3f}" for g in gains[gain_model][f]) + f" | {cell(de['uncorrected'][f])} | "
                    f"{cell(de['diagonal'][f])} | {cell(de['bradford'][f])} | {right[f].sum()}/24 | "
                    f"{margins[f].min():.2f} |")
    patches = ["| patch | name | largest ΔE to its entry | smallest margin (frame) |", "|---|---|---|---|"]
    for i, name in enumerate(reference.names):
        worst = int(np.argmin(margins[:, i]))
        patches.append(f"| {i + 1} | {calibration['patches'][i]['name']} | "
                       f"{max(named[f][i][1] for f in range(len(lights))):.2f} | {margins[worst, i]:.2f} ({worst}) |")
    commands = [c for c in COMMANDS if " --help" not in c]
    text = f"""# Calibrated colour under a changing light

Rendered by Tests/Calibration/drift.py (run by `Tests/Calibration/drift-tests.sh`): the simulated camera
(white balance and exposure locked at calibration, the white patch at {white_level:g} of 255 under D50) sees the
chart and a white tile (90 % reflectance, at {TILE[0]}..{TILE[2]} x {TILE[1]}..{TILE[3]} px) while the light
changes, {per} frames per light, each with its own noise, read as one (`sample --average {per}`). Each
cell is the mean / max CIEDE2000 of the 24 patches' calibrated colours against the chart's reference L*a*b* D50 (colour-science's CIEDE2000). The reference ΔE is the tile's
calibrated colour now against at calibration (camera mean {np.round(reference_calibration, 2).tolist()}).
Gains: the diagonal's, on the camera's linear RGB. The palette holds the 24 patches' names and reference
L*a*b* (`{Path(palette).name}`), --max-delta-e {MAX_DELTA_E:g}; margin = the next entry's ΔE minus the
nearest's.

Sources: reference ΔE {reference_source}; diagonal {source['diagonal']}; bradford {source['bradford']}; palette
{palette_source} (with the {default_model} correction). "emulated" is this script's arithmetic on the
profile's JSON and the uncorrected means, for options the eyedropper run did not have.

{chr(10).join(rows)}

{intensity_text}
## The palette, per patch

{chr(10).join(patches)}

Commands:

```
{chr(10).join(commands)}
```
"""
    path.write_text(text)


def finish(checks):
    print(f"\n{len(checks.results) - len(checks.failed)} passed, {len(checks.failed)} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
