"""The bar: OpenCV's ccm module fitted to the same patch means against the same reference.

Every configuration worth trying is fitted: a 3x3 matrix and an affine 4x3 one, each after
every linearisation the module offers (a gamma of 2.2 and the polynomial fits of degree 3, per
channel or through the grey patches, on values or their logarithms), always minimising
CIEDE2000 from a least-squares start (OpenCV's defaults otherwise: patches with a channel above
0.98 are left out of the fit). The reference goes in as custom colours (L*a*b* D50, 2 degree
observer), not as OpenCV's built-in Macbeth chart, so both tools aim at the very same numbers.

OpenCV 4.13 (opencv-contrib-python-headless, where ccm is a contrib module), not 5.0.0: in
5.0.0's wheel the two grey linearisations fail (cvtColor on CV_64F, which the fit insists on),
which would leave OpenCV's best configurations out of the bar.

OpenCV fits into an RGB working space and minimises CIEDE2000 in the L*a*b* of that space's
white: D65 for its default, sRGB, so the D50 reference is adapted to D65 first (Bradford), a
slightly different target. Both sRGB and ProPhoto RGB (white D50: the very metric of this test)
are tried; the 3x3 itself could express either.

The corrected colour is taken linear (`infer(..., islinear=True)`) and turned into L*a*b* with
OpenCV's own constants (colorspace.cpp: its white points, primaries, Bradford), so the
CIEDE2000 measured here is the one OpenCV computes: `Model` asserts that the RMS of it in the
working space's L*a*b* is OpenCV's getLoss(). Reported is CIEDE2000 in L*a*b* D50, as for
Eyedropper.
"""

import colour
import cv2
import numpy as np

CCM_TYPES = {"3x3": cv2.ccm.CCM_3x3, "affine 4x3": cv2.ccm.CCM_4x3}
LINEARISATIONS = {
    "gamma 2.2": (cv2.ccm.LINEARIZATION_GAMMA, None),
    "colour polyfit 3": (cv2.ccm.LINEARIZATION_COLORPOLYFIT, 3),
    "colour log polyfit 3": (cv2.ccm.LINEARIZATION_COLORLOGPOLYFIT, 3),
    "grey polyfit 3": (cv2.ccm.LINEARIZATION_GRAYPOLYFIT, 3),
    "grey log polyfit 3": (cv2.ccm.LINEARIZATION_GRAYLOGPOLYFIT, 3),
}

# OpenCV's white points (XYZ, Y = 1) and Bradford matrix (colorspace.cpp).
_D65 = np.array([0.95047, 1.0, 1.08883])
_D50 = np.array([0.9642119944211994, 1.0, 0.8251882845188288])
_BRADFORD = np.array([[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]])
#: Working space: (OpenCV's constant, primaries xy, white XYZ).
WORKING_SPACES = {
    "sRGB": (cv2.ccm.COLOR_SPACE_sRGB, [(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)], _D65),
    "ProPhoto": (cv2.ccm.COLOR_SPACE_ProPhotoRGB,
                 [(0.734699, 0.265301), (0.159597, 0.840403), (0.036598, 0.000105)], _D50),
}


def _bradford(source_white, target_white):
    b = _BRADFORD
    return np.linalg.inv(b) @ np.diag((b @ target_white) / (b @ source_white)) @ b


def _rgb_to_xyz(primaries, white):
    xyz = np.array([[x / y, 1.0, (1 - x - y) / y] for x, y in primaries]).T
    return xyz * np.linalg.solve(xyz, white)


def _lab(xyz, white):
    return colour.XYZ_to_Lab(xyz, colour.XYZ_to_xy(white))


def configurations():
    """(name, ccm type, linearisation, working space) for every configuration tried."""
    return [(f"{ccm} + {lin}, {space}", ccm, lin, space)
            for space in WORKING_SPACES for ccm in CCM_TYPES for lin in LINEARISATIONS]


class Model:
    """One fitted OpenCV colour correction model."""

    def __init__(self, ccm, linearisation, space, camera_rgb, reference_lab):
        """camera_rgb: 24 x 3, 0...255, RGB order; reference_lab: 24 x 3, L*a*b* D50."""
        src = np.asarray(camera_rgb, float).reshape(-1, 1, 3) / 255
        self.model = cv2.ccm_ColorCorrectionModel(
            src, np.asarray(reference_lab, float).reshape(-1, 1, 3), cv2.ccm.COLOR_SPACE_Lab_D50_2)
        self.model.setCCM_TYPE(CCM_TYPES[ccm])
        kind, degree = LINEARISATIONS[linearisation]
        self.model.setLinear(kind)
        if degree is None:
            self.model.setLinearGamma(2.2)
        else:
            self.model.setLinearDegree(degree)
        self.model.setDistance(cv2.ccm.DISTANCE_CIE2000)
        constant, primaries, self.white = WORKING_SPACES[space]
        self.model.setColorSpace(constant)
        self.to_xyz = _rgb_to_xyz(primaries, self.white)
        self.model.run()
        self.loss = self.model.getLoss()
        used = self.model.getMask().ravel().astype(bool)
        self.used = int(used.sum())
        self._check_loss(camera_rgb, reference_lab, used)

    def _check_loss(self, camera_rgb, reference_lab, used):
        """Asserts that OpenCV's loss is what this module's conversion of its output gives."""
        working = self.white
        xyz = self._xyz(camera_rgb)
        reference_xyz = colour.Lab_to_XYZ(np.asarray(reference_lab, float), colour.XYZ_to_xy(_D50))
        adapt = _bradford(_D50, working)
        distances = delta_e(_lab(xyz, working), _lab(reference_xyz @ adapt.T, working))[used]
        rms = np.sqrt(np.mean(distances**2))
        assert abs(rms - self.loss) < 1e-6 * max(1.0, self.loss), (
            f"OpenCV's loss {self.loss:.6f} is not the RMS CIEDE2000 {rms:.6f} computed here: "
            "the conversion of its output no longer matches its own")

    def _xyz(self, camera_rgb):
        """Corrected CIE XYZ relative to the working space's white."""
        src = np.asarray(camera_rgb, float).reshape(-1, 1, 3) / 255
        return self.model.infer(src, True).reshape(-1, 3) @ self.to_xyz.T

    def lab(self, camera_rgb):
        """Corrected L*a*b* D50 of camera RGB (n x 3, 0...255)."""
        return _lab(self._xyz(camera_rgb) @ _bradford(self.white, _D50).T, _D50)


def delta_e(lab, reference_lab):
    """CIEDE2000 of each colour against its reference."""
    return colour.delta_E(np.asarray(lab, float), np.asarray(reference_lab, float), method="CIE 2000")
