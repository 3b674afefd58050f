#!/usr/bin/env python3
"""Fitting more than the chart: is a correction fitted over many reflectances, seen through a sensor
estimated from the chart, better off the chart than one fitted to the chart's 24 alone?

For each of the 28 measured sensors (leave one camera out): each channel's sensitivity is estimated
from the chart's 24 linear readings under D50 (white-balanced on the chart's white), within the span
of the 27 other cameras' (their mean and the first K principal components, a small ridge on the
components); then a root-polynomial of degree 2 is fitted (least squares in XYZ, 1/Y weights) over
TRAINING reflectances recovered from random sRGB colours (Otsu et al. 2018, colour-science) and the
chart, seen through the estimate. Judged on cameras.py's held-out reflectances (rawtoaces' 190, the
CIE's TCS, NIST's CQS, the PMC set; none near a chart patch), mean CIEDE2000, without noise or tone
curve, beside: the same fit through the true sensor, a root-polynomial fitted to the chart's 24
alone, and the ideal 3x3 (cameras.fit_ideal). Run by hand, not by Scripts/test, with the venv
the calibration harness makes (Tests/Calibration/environment.sh), in about 20 s:

    .build/calibration-venv/bin/python -B Tests/Calibration/sensor-estimate.py [--components 6]

Reads ../shared/cameras beside the checkout, and says loudly that it did not run without it.
"""

import argparse
import sys
import warnings
from pathlib import Path

warnings.filterwarnings("ignore")

import colour  # noqa: E402
import numpy as np  # noqa: E402

import cameras  # noqa: E402
import measured  # noqa: E402
from camera import SHAPE, Camera, Reference, _aligned  # noqa: E402


def root_polynomial_2(linear):
    x = np.maximum(np.asarray(linear, float), 0)
    return np.hstack([x, np.sqrt(x[:, [0]] * x[:, [1]]), np.sqrt(x[:, [1]] * x[:, [2]]),
                      np.sqrt(x[:, [0]] * x[:, [2]])])


def training_reflectances(count, seed=1):
    """`count` reflectances (0...1) recovered from random sRGB colours by Otsu et al. 2018."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        xyz = colour.sRGB_to_XYZ(rng.uniform(0.02, 0.95, 3))
        reflectance = _aligned(colour.XYZ_to_sd(xyz, method="Otsu 2018"))
        if reflectance.min() >= 0 and reflectance.max() <= 1:
            found.append(reflectance)
    return np.array(found)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=None, help=f"the measured data (default {measured.DEFAULT_DIRECTORY})")
    parser.add_argument("--components", type=int, default=6, help="principal components a channel (default 6)")
    parser.add_argument("--ridge", type=float, default=1e-5, help="ridge on the components (default 1e-5)")
    parser.add_argument("--training", type=int, default=1500, help="reflectances fitted over (default 1500)")
    args = parser.parse_args()
    data = measured.directory_or_skip(args.data, "the sensor estimate (Tests/Calibration/sensor-estimate.py)")
    if data is None:
        return 0
    sensors = measured.sensors(data)
    names = list(sensors)
    reference = Reference()
    light = _aligned(colour.SDS_ILLUMINANTS["D50"])
    observer = _aligned(colour.MSDS_CMFS["CIE 1931 2 Degree Standard Observer"])
    to_xyz = (light[:, None] * observer) / (light @ observer[:, 1])
    chart = Camera(reference).patch_spectra
    _, held = cameras.held_out_spectra(reference)
    held_lab = cameras.lab_of(held @ to_xyz)
    training = training_reflectances(args.training)
    training_lab = cameras.lab_of(training @ to_xyz)
    print(f"{len(names)} sensors, {len(held)} held-out colours, {len(training)} training reflectances; "
          f"{args.components} components a channel, ridge {args.ridge}", flush=True)
    rows = []
    for index, name in enumerate(names):
        truth = sensors[name]
        white = (chart[18] * light) @ truth
        gains = white[1] / white
        seen = (chart * light) @ truth * gains
        held_seen = (held * light) @ truth * gains
        estimate = np.zeros_like(truth)
        for c in range(3):
            others = np.array([sensors[n][:, c] / sensors[n][:, c].max() for j, n in enumerate(names) if j != index])
            mean = others.mean(0)
            _, spread, components = np.linalg.svd(others - mean, full_matrices=False)
            basis = np.vstack([mean, components[:args.components]]).T
            a = (chart * light) @ basis
            ridge = np.diag([0] + [args.ridge * spread[0] / spread[k] for k in range(args.components)])
            ridge *= np.linalg.norm(a[:, 0]) ** 2
            estimate[:, c] = basis @ np.linalg.solve(a.T @ a + ridge, a.T @ seen[:, c])

        def held_error(m):
            return cameras.delta_e(cameras.lab_of(root_polynomial_2(held_seen) @ m), held_lab).mean()

        through = {
            "estimate": (training * light) @ estimate,
            "true sensor": (training * light) @ truth * gains,
        }
        both_lab = np.vstack([training_lab, reference.lab])
        row = {key: held_error(cameras.least_squares_xyz(root_polynomial_2(np.vstack([value, seen])), both_lab))
               for key, value in through.items()}
        row["chart's 24"] = held_error(cameras.least_squares_xyz(root_polynomial_2(seen), reference.lab))
        m = cameras.fit_ideal(seen, reference.lab)
        row["ideal 3x3"] = cameras.delta_e(cameras.lab_of(held_seen @ m.T), held_lab).mean()
        rows.append(row)
        print(f"{name:30s} " + "  ".join(f"{k} {v:5.2f}" for k, v in row.items()), flush=True)
    print("\nheld-out mean CIEDE2000 over the sensors, median / worst:")
    for key in rows[0]:
        values = np.array([r[key] for r in rows])
        label = {"estimate": "root-polynomial over the training set, through the estimate",
                 "true sensor": "the same, through the true sensor",
                 "chart's 24": "root-polynomial fitted to the chart's 24 alone",
                 "ideal 3x3": "the ideal 3x3 (fitted to the chart by CIEDE2000)"}[key]
        print(f"- {label}: {np.median(values):.2f} / {values.max():.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
