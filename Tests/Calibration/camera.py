"""The simulated camera: what a ColorChecker Classic 24 looks like to it, as camera RGB 0...255.

A spectral model, because it is the most honest one: the camera is not colorimetric (its
sensitivities are not a linear mix of the CIE colour-matching functions), so no correction can
be exact, as with a real camera, and a fit cannot win by inverting the very matrix the
simulation applied.

- The chart: BabelColor's average measured spectra of the 24 patches (colour-science's
  `SDS_COLOURCHECKERS['BabelColor Average']`), each nudged by the smallest relative change that
  makes its D50 colour the reference exactly. Without the nudge the spectra and X-Rite's
  "After November 2014" values disagree by 0.8 CIEDE2000 on average, an error of the reference
  data, not of any calibration; with it the reference is what this chart really is, as a chart
  measured with a spectrophotometer would be.
- The light: CIE D50, the illuminant the reference is given for, so that the error measured is
  the camera's and the fit's, not a change of illuminant. `linear_under` shows the same scene
  under another light (`illuminant`: CIE daylight or a black body at a colour temperature) and
  intensity, with the white balance and exposure kept as they were under D50, as a camera with
  both locked at calibration would.
- The sensor: the Nikon D5100's published sensitivities (NPL, colour-science's
  `MSDS_CAMERA_SENSITIVITIES`), a real sensor far from the Luther condition: the best 3x3 from
  its raw RGB to XYZ leaves about 1 CIEDE2000 on the 24 patches. (`--camera` picks the other
  published set, the Sigma SD Merrill's Foveon, about 2, for a deliberately different camera.)
- White balance: the gains that would make the white patch neutral, then off by R x1.15, B x0.87.
- Exposure: the white patch's brightest channel encodes to 235 of 255 (`white_level`), so
  nothing clips. A run whose light gets brighter than at calibration needs headroom: a lower
  `white_level`, e.g. 150, keeps 150 % of the light below the shoulder.
- No colour matrix in the camera: a fit absorbs one anyway, and one that pushes saturated
  patches below zero would clip them, which a test of the fit should not hide behind.
- Tone curve (not sRGB): a power 1/1.9, a soft exponential shoulder above 0.8 of the way up,
  and a black pedestal of 5 levels: e = 255 (p + (1 - p) s(v ** (1 / 1.9))).
- Noise: Gaussian, sd 2 levels per channel and pixel, added to the encoded values (the figure
  is in levels; a real sensor's would depend on the signal).
- Encoding: BT.601 limited range (Y 16...235, Cb and Cr 16...240), 4:2:0 with each chroma
  sample the mean of its 2x2 pixels, 8 bits.
"""

import colour
import numpy as np

#: BabelColor's spectra span 380...730 nm in 10 nm steps; everything is aligned to that.
SHAPE = colour.SpectralShape(380, 730, 10)
REFERENCE_NAME = "ColorChecker24 - After November 2014"
CAMERAS = {"nikon": "Nikon 5100 (NPL)", "sigma": "Sigma SDMerill (NPL)"}
#: Patch 19, the white; patch 24, the black.
WHITE, BLACK = 18, 23


class Reference:
    """The 24 reference colours: CIE XYZ (D50, perfect white Y = 1) and L*a*b* D50."""

    def __init__(self):
        chart = colour.CCS_COLOURCHECKERS[REFERENCE_NAME]
        self.names = list(chart.data.keys())
        self.white_xy = np.asarray(chart.illuminant)
        self.xyz = colour.xyY_to_XYZ(np.array(list(chart.data.values())))
        self.lab = colour.XYZ_to_Lab(self.xyz, self.white_xy)


def _aligned(distribution):
    return distribution.copy().align(SHAPE).values


class Camera:
    """Maps spectral reflectances to linear and encoded camera RGB (0...255)."""

    gamma = 1.9
    knee = 0.8
    pedestal = 5 / 255
    white_balance_error = np.array([1.15, 1.0, 0.87])
    noise_sd = 2.0

    def __init__(self, reference, camera="nikon", white_level=235.0):
        """`white_level`: what the white patch's brightest channel encodes to under D50 (0...255)."""
        self.reference = reference
        self.white_level = float(white_level)
        illuminant = _aligned(colour.SDS_ILLUMINANTS["D50"])
        observer = _aligned(colour.MSDS_CMFS["CIE 1931 2 Degree Standard Observer"])
        self._sensitivities = _aligned(colour.MSDS_CAMERA_SENSITIVITIES[CAMERAS[camera]])
        self._luminance = observer[:, 1]
        #: The Y of a perfect white under D50, in the units of the spectral data.
        self._white_y = illuminant @ self._luminance
        # Reflectance (nm) -> XYZ with a perfect white at Y = 1, and -> raw camera RGB.
        self._to_xyz = (illuminant[:, None] * observer) / self._white_y
        self._to_raw = illuminant[:, None] * self._sensitivities
        self.patch_spectra = self._nudged_spectra(reference)
        raw_white = self.raw(self.patch_spectra[WHITE])
        balanced = raw_white[1] / raw_white * self.white_balance_error
        peak = np.max(raw_white * balanced)
        self._gains = balanced * self._linear_for(self.white_level) / peak

    def _nudged_spectra(self, reference):
        """BabelColor's spectra with the least relative change that gives the reference XYZ."""
        babel = colour.SDS_COLOURCHECKERS["BabelColor Average"]
        spectra = np.array([_aligned(babel[name]) for name in reference.names])
        a = self._to_xyz.T
        nudged = []
        for spectrum, target in zip(spectra, reference.xyz):
            weight = spectrum**2  # minimise sum((change / spectrum)^2)
            change = weight * (a.T @ np.linalg.solve((a * weight) @ a.T, target - a @ spectrum))
            nudged.append(spectrum + change)
        nudged = np.array(nudged)
        assert np.allclose(nudged @ self._to_xyz, reference.xyz, atol=1e-9)
        assert nudged.min() > 0 and nudged.max() < 1.05, "the nudge made a spectrum unphysical"
        return nudged

    def xyz(self, reflectance):
        return np.asarray(reflectance) @ self._to_xyz

    def raw(self, reflectance):
        """Raw sensor RGB, before white balance and exposure."""
        return np.asarray(reflectance) @ self._to_raw

    def linear(self, reflectance):
        """Linear camera RGB after white balance and exposure: 0...about 1."""
        return self.raw(reflectance) * self._gains

    def linear_under(self, reflectance, illuminant, intensity=1.0):
        """Linear camera RGB under another light: `illuminant` (spectral power at SHAPE's
        wavelengths) scaled so a perfect white has D50's Y times `intensity`, with the white
        balance and exposure locked at D50's."""
        illuminant = np.asarray(illuminant, float)
        scale = intensity * self._white_y / (illuminant @ self._luminance)
        return (np.asarray(reflectance) * (illuminant * scale)) @ self._sensitivities * self._gains

    def flat(self, reflectance):
        """Linear camera RGB of a grey whose reflectance is the same at every wavelength."""
        return self.linear(np.full(len(SHAPE.wavelengths), reflectance))

    def encode(self, linear):
        """The tone curve: linear camera RGB -> camera RGB 0...255 (float, not clipped)."""
        x = np.maximum(linear, 0.0) ** (1 / self.gamma)
        k = self.knee
        shoulder = np.where(x <= k, x, k + (1 - k) * (1 - np.exp(-(x - k) / (1 - k))))
        return 255 * (self.pedestal + (1 - self.pedestal) * shoulder)

    def _linear_for(self, level):
        """The inverse of `encode` for one level below the shoulder's asymptote."""
        k = self.knee
        s = (level / 255 - self.pedestal) / (1 - self.pedestal)
        x = s if s <= k else k - (1 - k) * np.log(1 - (s - k) / (1 - k))
        return x**self.gamma


def illuminant(temperature):
    """A light of correlated colour temperature `temperature` K at SHAPE's wavelengths: CIE
    daylight (the D series) from 4000 K, where the CIE defines it, a black body (Planck) below.
    The D series' temperatures are on the old scale of c2 = 1.4380e-2 m K: 5000 K here is
    5003 K there, i.e. D50, so the run passes through the calibration's light."""
    if temperature >= 4000:
        xy = colour.temperature.CCT_to_xy_CIE_D(temperature * 1.4388 / 1.4380)
        return _aligned(colour.sd_CIE_illuminant_D_series(xy))
    return _aligned(colour.sd_blackbody(temperature))


def ycbcr_bt601_limited(rgb):
    """Camera RGB 0...255 (float, H x W x 3) -> Y, Cb, Cr planes (float, full size).

    E'Y = 0.299 R + 0.587 G + 0.114 B (BT.601); Y = 16 + 219 E'Y,
    Cb = 128 + 224 (B - E'Y) / 1.772, Cr = 128 + 224 (R - E'Y) / 1.402, with R, G, B in 0...1.
    """
    e = rgb / 255.0
    luma = 0.299 * e[..., 0] + 0.587 * e[..., 1] + 0.114 * e[..., 2]
    y = 16 + 219 * luma
    cb = 128 + 224 * (e[..., 2] - luma) / 1.772
    cr = 128 + 224 * (e[..., 0] - luma) / 1.402
    return y, cb, cr


def planes_420(rgb):
    """Camera RGB -> 8-bit Y, Cb, Cr planes, each chroma sample the mean of its 2x2 pixels."""
    y, cb, cr = ycbcr_bt601_limited(rgb)
    h, w = y.shape

    def subsampled(c):
        return c.reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))

    def eight_bit(plane):
        return np.clip(np.rint(plane), 0, 255).astype(np.uint8)

    return eight_bit(y), eight_bit(subsampled(cb)), eight_bit(subsampled(cr))
