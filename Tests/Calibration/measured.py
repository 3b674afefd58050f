"""Measured cameras: real spectral sensitivities and real tone curves, from ../shared/cameras.

The data lives beside the checkout, never in it (its SOURCES.md says where each file comes from
and on what terms): Jiang, Liu, Gu and Süsstrunk's sensitivities of 28 cameras (2013), Grossberg
and Nayar's 201 measured response curves (DoRF) and the mean of their EMoR model, and darktable's
measured per-camera base curves. `directory()` is None when it is absent: the harness then skips,
saying so.

A camera here is one sensor with one tone curve (`MeasuredCamera`), built as camera.py's simulated
camera is (the chart's spectra, D50, no colour matrix), with what issue's measurements fixed: white
balance set on the chart's white under D50 and then locked, the exposure that puts the white patch
at 210 of 255, noise of 1.5 levels. It knows its own curve exactly, so a test can undo it
(`decode`): the ideal a calibration from the chart alone can only approach.
"""

import json
import sys
from pathlib import Path

import colour
import numpy as np

from camera import SHAPE, WHITE, Camera, _aligned

REPOSITORY = Path(__file__).resolve().parent.parent.parent
#: Where the data is looked for: `$(git rev-parse --show-toplevel)/../shared/cameras`.
DEFAULT_DIRECTORY = REPOSITORY.parent / "shared" / "cameras"
FILES = ("camspec_database.txt", "dorf_201_CRF_data.mat", "emor.txt", "darktable_basecurves.json")


def directory(path=None):
    """The data directory when every file is there, else None."""
    path = Path(path) if path else DEFAULT_DIRECTORY
    return path if all((path / name).is_file() for name in FILES) else None


def directory_or_skip(path, what):
    """`directory(path)`, or None after saying loudly on stderr that `what` was not run."""
    found = directory(path)
    if found is None:
        print(f"!!! SKIPPED: the measured cameras are not at {path or DEFAULT_DIRECTORY} (need {', '.join(FILES)}): "
              f"{what} was NOT run", file=sys.stderr, flush=True)
    return found


def sensors(path):
    """{camera name: sensitivities at SHAPE's wavelengths (n x 3, R G B)}, in the file's order.

    The file has 400...720 nm every 10 nm; SHAPE (380...730 nm, the chart's spectra) is reached
    with zeros at 380, 390 and 730 nm, where every camera's response is below a thousandth of its
    peak already at 400 and 720 nm."""
    lines = [line.strip() for line in (path / "camspec_database.txt").read_text().splitlines()]
    wavelengths = np.arange(400, 721, 10)
    result = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if line and not line[0].isdigit() and i + 3 < len(lines) and _numbers(lines[i + 1], len(wavelengths)):
            rows = np.array([_numbers(lines[i + k], len(wavelengths)) for k in (1, 2, 3)])
            aligned = np.zeros((len(SHAPE.wavelengths), 3))
            index = np.searchsorted(SHAPE.wavelengths, wavelengths)
            aligned[index] = rows.T
            result[line] = aligned
            i += 4
        else:
            i += 1
    assert len(result) == 28, f"{len(result)} cameras in camspec_database.txt, not 28"
    return result


def _numbers(line, count):
    try:
        values = [float(v) for v in line.split()]
    except ValueError:
        return None
    return values if len(values) == count else None


class ToneCurve:
    """A measured response: linear light (0...1, 1 = where the camera clips) to its output
    (0...1), rising; sampled densely and interpolated linearly both ways."""

    def __init__(self, name, family, linear, encoded):
        self.name, self.family = name, family
        self.linear_samples = np.asarray(linear, float)
        # Strictly rising (some measured curves have flat steps), so the inverse is a function.
        encoded = np.maximum.accumulate(np.asarray(encoded, float))
        self.encoded_samples = encoded + np.arange(len(encoded)) * 1e-12

    def encode(self, linear):
        return np.interp(np.clip(linear, 0.0, 1.0), self.linear_samples, self.encoded_samples)

    def decode(self, encoded):
        return np.interp(encoded, self.encoded_samples, self.linear_samples)


def dorf_curves(path):
    """The 201 DoRF curves, numbered from 0 as in the file (names are not in this copy)."""
    from scipy.io import loadmat

    data = loadmat(path / "dorf_201_CRF_data.mat")
    irradiance, brightness = data["I"], data["B"]
    return [ToneCurve(f"DoRF {k}", "DoRF", irradiance[k], brightness[k]) for k in range(len(brightness))]


def emor_mean(path):
    """EMoR's f0: the mean of the DoRF curves, the one curve its basis is built around."""
    irradiance, mean, _ = emor_basis(path)
    return ToneCurve("EMoR f0", "EMoR", irradiance, mean)


def emor_basis(path):
    """(E, f0, h): EMoR's irradiance samples, mean curve and basis h(1)...h(25) (25 x 1024); for
    tests only (research use, see SOURCES.md), never for the product."""
    text = (path / "emor.txt").read_text()
    blocks, name = {}, None
    for line in text.splitlines():
        if "=" in line:
            name = line.split("=")[0].strip()
            blocks[name] = []
        elif name is not None and line.strip():
            blocks[name] += [float(v) for v in line.split()]
    h = np.array([blocks[f"h({k})"] for k in range(1, 26)])
    return np.array(blocks["E"]), np.array(blocks["f0"]), h


def darktable_curves(path):
    """darktable's measured base curves, each through its nodes as darktable draws it (a
    monotone Hermite spline), sampled at 4096 points."""
    data = json.loads((path / "darktable_basecurves.json").read_text())
    x = np.linspace(0.0, 1.0, 4097)
    curves = []
    for name, nodes in data.items():
        if name.startswith("_"):
            continue
        nodes = np.asarray(nodes, float)
        curves.append(ToneCurve(f"darktable {name}", "darktable", x, monotone_hermite(nodes[:, 0], nodes[:, 1], x)))
    return curves


def monotone_hermite(xs, ys, x):
    """The monotone cubic through (xs, ys) (Fritsch and Carlson 1980), at x."""
    h, delta = np.diff(xs), np.diff(ys) / np.diff(xs)
    m = np.empty(len(xs))
    m[0], m[-1] = delta[0], delta[-1]
    for i in range(1, len(xs) - 1):
        m[i] = 0.0 if delta[i - 1] * delta[i] <= 0 else (delta[i - 1] + delta[i]) / 2
    for i in range(len(delta)):
        if delta[i] == 0:
            m[i] = m[i + 1] = 0.0
            continue
        a, b = m[i] / delta[i], m[i + 1] / delta[i]
        if a * a + b * b > 9:
            t = 3 / np.hypot(a, b)
            m[i], m[i + 1] = t * a * delta[i], t * b * delta[i]
    i = np.clip(np.searchsorted(xs, x) - 1, 0, len(xs) - 2)
    s = (x - xs[i]) / h[i]
    return ((2 * s**3 - 3 * s**2 + 1) * ys[i] + (s**3 - 2 * s**2 + s) * h[i] * m[i]
            + (-2 * s**3 + 3 * s**2) * ys[i + 1] + (s**3 - s**2) * h[i] * m[i + 1])


class MeasuredCamera(Camera):
    """camera.Camera with a measured sensor and a measured tone curve.

    White balance: the gains that make the chart's white patch neutral under D50, locked (a camera
    that settled its automatic white balance on the chart's light and was then locked). Exposure:
    the white patch encodes to `white_level` (210) of 255. Noise: 1.5 levels, on the encoded values."""

    noise_sd = 1.5

    def __init__(self, reference, name, sensitivities, curve, white_level=210.0):
        self.reference = reference
        self.name = f"{name} + {curve.name}"
        self.sensor_name = name
        self.curve = curve
        self.white_level = float(white_level)
        illuminant = _aligned(colour.SDS_ILLUMINANTS["D50"])
        observer = _aligned(colour.MSDS_CMFS["CIE 1931 2 Degree Standard Observer"])
        self._sensitivities = np.asarray(sensitivities, float)
        self._luminance = observer[:, 1]
        self._white_y = illuminant @ self._luminance
        self._to_xyz = (illuminant[:, None] * observer) / self._white_y
        self._to_raw = illuminant[:, None] * self._sensitivities
        self.patch_spectra = self._nudged_spectra(reference)
        raw_white = self.raw(self.patch_spectra[WHITE])
        self._gains = float(curve.decode(self.white_level / 255)) / raw_white

    def encode(self, linear):
        """Linear camera RGB -> camera RGB 0...255 (float): the measured curve, 1 = 255."""
        return 255.0 * self.curve.encode(np.asarray(linear, float))

    def decode(self, encoded):
        """The exact inverse of `encode` on 0...255: the curve a calibration tries to find."""
        return self.curve.decode(np.asarray(encoded, float) / 255.0)
