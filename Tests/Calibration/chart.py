"""The ColorChecker Classic 24 drawn into 1280x720 frames under perspective, written as .y4m.

The chart (millimetres, like the real card, 280 x 216): 4 rows of 6 square patches of 38 mm,
6 mm apart, on a black body (a flat 2.5% reflectance), on a mid-grey background (flat 20%).
A homography maps the chart's corners to four points of the frame, so its edges are not
parallel: the chart is tilted away from the camera. Each pixel is the mean of 4 x 4 samples in
linear light (edges are antialiased as an optical image is), then the camera's tone curve,
noise and 4:2:0 encoding follow (camera.py).

Pixel (i, j) covers [i, i + 1) x [j, j + 1); a point at (u, v) pixels is at scalar coordinates
(u / 1280, v / 720), which Eyedropper's --at turns back into pixel (floor(u), floor(v)).
"""

import numpy as np

from camera import planes_420

WIDTH, HEIGHT = 1280, 720
PATCH, GAP = 38.0, 6.0
MARGIN_X, MARGIN_Y = 11.0, 23.0
COLUMNS, ROWS = 6, 4
CHART_W = 2 * MARGIN_X + COLUMNS * PATCH + (COLUMNS - 1) * GAP
CHART_H = 2 * MARGIN_Y + ROWS * PATCH + (ROWS - 1) * GAP
BODY_REFLECTANCE, BACKGROUND_REFLECTANCE = 0.025, 0.20
BODY, BACKGROUND = 24, 25
SUPERSAMPLING = 4

#: Where the chart's corners (top left, top right, bottom right, bottom left) fall, in pixels:
#: two different tilts, so the check frame's patches are not the calibration frame's pixels.
VIEWS = {
    "calibration": [(214, 96), (1066, 146), (1030, 652), (238, 612)],
    "check": [(262, 70), (1090, 120), (1050, 668), (226, 634)],
}
#: Patches the calibration is pointed at, in the order of --corner: dark skin (1), bluish
#: green (6), black (24), white (19).
CORNER_PATCHES = (0, 5, 23, 18)


def homography(source, target):
    """The 3x3 matrix H with H (x, y, 1) ~ (u, v, 1) for four point pairs (direct linear transform)."""
    rows, rhs = [], []
    for (x, y), (u, v) in zip(source, target):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        rhs += [u, v]
    h = np.linalg.solve(np.array(rows, float), np.array(rhs, float))
    return np.append(h, 1.0).reshape(3, 3)


def apply(h, points):
    p = np.asarray(points, float)
    q = np.c_[p, np.ones(len(p))] @ h.T
    return q[:, :2] / q[:, 2:]


def patch_centres_mm():
    """The centre of each patch on the chart, in reading order (row by row)."""
    pitch = PATCH + GAP
    return np.array([(MARGIN_X + c * pitch + PATCH / 2, MARGIN_Y + r * pitch + PATCH / 2)
                     for r in range(ROWS) for c in range(COLUMNS)])


class View:
    """The chart as one frame sees it."""

    def __init__(self, name):
        self.name = name
        corners = [(0, 0), (CHART_W, 0), (CHART_W, CHART_H), (0, CHART_H)]
        self.to_image = homography(corners, VIEWS[name])
        self.to_chart = np.linalg.inv(self.to_image)
        self.centres_px = apply(self.to_image, patch_centres_mm())

    def points(self):
        """Scalar coordinates (0...1) of the 24 patch centres, rounded to 6 decimals."""
        return [(round(u / WIDTH, 6), round(v / HEIGHT, 6)) for u, v in self.centres_px]

    def smallest_half_patch_px(self):
        """How far the nearest patch edge is from a patch centre, over all 24, in pixels."""
        nearest = np.inf
        for centre in patch_centres_mm():
            angles = np.linspace(0, 2 * np.pi, 64, endpoint=False)
            # Points on the inscribed circle of the patch, mapped to the image.
            ring = centre + (PATCH / 2) * np.c_[np.cos(angles), np.sin(angles)]
            middle = apply(self.to_image, [centre])[0]
            nearest = min(nearest, np.min(np.linalg.norm(apply(self.to_image, ring) - middle, axis=1)))
        return nearest

    def classes(self, rows):
        """For each sample of the given pixel rows: the patch (0...23), BODY or BACKGROUND."""
        offsets = (np.arange(SUPERSAMPLING) + 0.5) / SUPERSAMPLING
        xs = (np.arange(WIDTH)[:, None] + offsets).reshape(1, -1)
        ys = (np.asarray(rows)[:, None] + offsets).reshape(-1, 1)
        h = self.to_chart
        w = h[2, 0] * xs + h[2, 1] * ys + h[2, 2]
        cx = (h[0, 0] * xs + h[0, 1] * ys + h[0, 2]) / w
        cy = (h[1, 0] * xs + h[1, 1] * ys + h[1, 2]) / w
        pitch = PATCH + GAP
        column = np.floor((cx - MARGIN_X) / pitch)
        row = np.floor((cy - MARGIN_Y) / pitch)
        on_patch = ((cx - MARGIN_X - column * pitch < PATCH) & (cy - MARGIN_Y - row * pitch < PATCH)
                    & (column >= 0) & (column < COLUMNS) & (row >= 0) & (row < ROWS))
        inside = (cx >= 0) & (cx < CHART_W) & (cy >= 0) & (cy < CHART_H)
        result = np.where(inside, BODY, BACKGROUND)
        result = np.where(on_patch, (row * COLUMNS + column).astype(int), result)
        return result

    def linear_image(self, colours):
        """The frame in linear camera RGB: colours[c] for each class c, antialiased."""
        image = np.empty((HEIGHT, WIDTH, 3))
        s = SUPERSAMPLING
        for top in range(0, HEIGHT, 48):
            rows = np.arange(top, min(top + 48, HEIGHT))
            samples = colours[self.classes(rows)]
            image[rows] = samples.reshape(len(rows), s, WIDTH, s, 3).mean(axis=(1, 3))
        return image


def scene_colours(camera):
    """Linear camera RGB of the 24 patches, the chart body and the background (26 x 3)."""
    return np.vstack([camera.linear(camera.patch_spectra),
                      camera.flat(BODY_REFLECTANCE), camera.flat(BACKGROUND_REFLECTANCE)])


def write_y4m(path, camera, view, frames, seed):
    """Writes `frames` frames of the view, each with its own noise (seeded), BT.601 limited."""
    encoded = camera.encode(view.linear_image(scene_colours(camera)))
    rng = np.random.default_rng(seed)
    with open(path, "wb") as out:
        out.write(f"YUV4MPEG2 W{WIDTH} H{HEIGHT} F30:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED\n".encode())
        for _ in range(frames):
            noisy = encoded + rng.normal(0.0, camera.noise_sd, encoded.shape)
            y, cb, cr = planes_420(np.clip(noisy, 0, 255))
            out.write(b"FRAME\n")
            for plane in (y, cb, cr):
                out.write(plane.tobytes())
