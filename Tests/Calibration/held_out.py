"""Colours off the chart: how each profile model does on real reflectances it was not fitted to.

59 measured spectra no ColorChecker patch is made from: the CIE's 14 test colour samples
(CIE 13.3, 1995), NIST's 15 colour quality scale samples (CQS 9.0) and the 30 of colour-science's
"PMC" set (skin, food, foliage, fabric). Each is seen by the simulated camera as a flat square in
one .y4m (the same tone curve, noise and 4:2:0 encoding as the chart's frames), read with
`sample --profile` of each model fitted to the chart, and compared (CIEDE2000) with its own
L*a*b* under D50, the profile connection space's light.
"""

import json

import colour
import numpy as np

import chart
from camera import SHAPE, _aligned, planes_420

SIDE, COLUMNS = 96, 10


def spectra():
    """(names, reflectances aligned to the camera's wavelengths)."""
    sets = [("TCS", colour.quality.datasets.SDS_TCS["CIE 1995"]),
            ("CQS", colour.quality.datasets.SDS_VS["NIST CQS 9.0"]),
            ("PMC", colour.SDS_COLOURCHECKERS["PMC"])]
    names, values = [], []
    for prefix, collection in sets:
        for name, sd in collection.items():
            names.append(f"{prefix} {name}")
            values.append(_aligned(sd))
    return names, np.clip(np.array(values), 0.0, 1.0)


def lab_d50(reflectances):
    """Each reflectance's L*a*b* under D50 (2 degree observer), white Y = 1."""
    illuminant = colour.SDS_ILLUMINANTS["D50"].copy().align(SHAPE)
    cmfs = colour.MSDS_CMFS["CIE 1931 2 Degree Standard Observer"].copy().align(SHAPE)
    xyz = np.array([colour.sd_to_XYZ(colour.SpectralDistribution(r, SHAPE.wavelengths), cmfs, illuminant) / 100
                    for r in reflectances])
    white = colour.CCS_ILLUMINANTS["CIE 1931 2 Degree Standard Observer"]["D50"]
    return colour.XYZ_to_Lab(xyz, white)


def write_y4m(path, camera, reflectances, frames, seed):
    """The samples as flat squares on mid-grey; returns their centres as (x, y) in 0...1."""
    linear = np.broadcast_to(camera.flat(chart.BACKGROUND_REFLECTANCE), (chart.HEIGHT, chart.WIDTH, 3)).copy()
    colours = camera.linear(reflectances)
    centres = []
    for index, value in enumerate(colours):
        row, column = divmod(index, COLUMNS)
        x0, y0 = 40 + column * (SIDE + 24), 20 + row * (SIDE + 20)
        linear[y0:y0 + SIDE, x0:x0 + SIDE] = value
        centres.append((round((x0 + SIDE / 2) / chart.WIDTH, 6), round((y0 + SIDE / 2) / chart.HEIGHT, 6)))
    encoded = camera.encode(linear)
    rng = np.random.default_rng(seed)
    with open(path, "wb") as out:
        out.write(f"YUV4MPEG2 W{chart.WIDTH} H{chart.HEIGHT} F30:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED\n".encode())
        for _ in range(frames):
            y, cb, cr = planes_420(np.clip(encoded + rng.normal(0.0, camera.noise_sd, encoded.shape), 0, 255))
            out.write(b"FRAME\n")
            for plane in (y, cb, cr):
                out.write(plane.tobytes())
    return centres


def delta_e(lab, reference):
    return colour.delta_E(np.asarray(lab, float), np.asarray(reference, float), method="CIE 2000")


def sample_lab(run, at_options, eyedropper, source_options, out, profile, frames, radius):
    """The calibrated L*a*b* `sample --profile` gives at each held-out square, averaged over
    `frames` frames; None when the command fails."""
    status, stdout, _ = run([eyedropper, "sample", "--source", out / "held-out.y4m", *source_options,
                             *at_options(json.loads((out / "held-out.json").read_text())), "--radius", radius,
                             "--frames", frames, "--average", frames, "--profile", profile, "--format", "json"],
                            "sample")
    if status != 0:
        return None
    line = json.loads(stdout.splitlines()[0])
    return np.array([s["calibrated"]["lab"] for s in line["samples"]], float)
