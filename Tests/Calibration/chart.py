"""The ColorChecker Classic 24 drawn into 1280x720 frames under perspective, written as .y4m.

The chart (millimetres, like the real card, 280 x 216): 4 rows of 6 square patches of 38 mm,
6 mm apart, on a black body (a flat 2.5% reflectance), on a mid-grey background (flat 20%).
A homography maps the chart's corners to four points of the frame, so its edges are not
parallel: the chart is tilted away from the camera. Each pixel is the mean of 4 x 4 samples in
linear light (edges are antialiased as an optical image is), then the camera's tone curve,
noise and 4:2:0 encoding follow (camera.py).

A view may also hold a white tile (a flat 90% reflectance, the reference a run under a changing
light is corrected by): a rectangle of the background, clear of the chart.

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
BODY_REFLECTANCE, BACKGROUND_REFLECTANCE, TILE_REFLECTANCE = 0.025, 0.20, 0.90
BODY, BACKGROUND, TILE = 24, 25, 26
CLASSES = 27
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

    def __init__(self, name, tile=None):
        """`tile`: the white tile's pixel box (x0, y0, x1, y1), or None for none."""
        self.name = name
        self.tile = tile
        corners = [(0, 0), (CHART_W, 0), (CHART_W, CHART_H), (0, CHART_H)]
        self.to_image = homography(corners, VIEWS[name])
        self.to_chart = np.linalg.inv(self.to_image)
        self.centres_px = apply(self.to_image, patch_centres_mm())

    def points(self):
        """Scalar coordinates (0...1) of the 24 patch centres, rounded to 6 decimals."""
        return [(round(u / WIDTH, 6), round(v / HEIGHT, 6)) for u, v in self.centres_px]

    def tile_point(self):
        """Scalar coordinates of the tile's centre, rounded to 6 decimals."""
        x0, y0, x1, y1 = self.tile
        return round((x0 + x1) / 2 / WIDTH, 6), round((y0 + y1) / 2 / HEIGHT, 6)

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
        """For each sample of the given pixel rows: the patch (0...23), BODY, BACKGROUND or TILE."""
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
        if self.tile is not None:
            x0, y0, x1, y1 = self.tile
            on_tile = (xs >= x0) & (xs < x1) & (ys >= y0) & (ys < y1)
            assert not np.any(on_tile & (result != BACKGROUND)), "the tile overlaps the chart"
            result = np.where(on_tile, TILE, result)
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

    def coverage(self):
        """How many of each pixel's samples fall on each class: HEIGHT x WIDTH x CLASSES, uint8
        (summing to SUPERSAMPLING squared). Computed once, it makes a frame under any light one
        weighted sum (`image`) instead of a fresh supersampling."""
        counts = np.zeros((HEIGHT, WIDTH, CLASSES), np.uint8)
        s = SUPERSAMPLING
        for top in range(0, HEIGHT, 48):
            rows = np.arange(top, min(top + 48, HEIGHT))
            classes = self.classes(rows).reshape(len(rows), s, WIDTH, s).transpose(0, 2, 1, 3)
            block = classes.reshape(len(rows), WIDTH, s * s)
            for c in np.unique(block):
                counts[rows, :, c] = (block == c).sum(axis=2)
        return counts


def image(coverage, colours):
    """The frame in linear camera RGB from `View.coverage` and colours[c] for each class: the
    same as `View.linear_image(colours)`."""
    return np.einsum("hwk,kc->hwc", coverage, colours, dtype=float) / SUPERSAMPLING**2


def reflectances(camera):
    """The spectral reflectance of each class (CLASSES x wavelengths)."""
    flat = np.ones(camera.patch_spectra.shape[1])
    return np.vstack([camera.patch_spectra, flat * BODY_REFLECTANCE, flat * BACKGROUND_REFLECTANCE,
                      flat * TILE_REFLECTANCE])


def scene_colours(camera):
    """Linear camera RGB of the 24 patches, the chart body, the background and the tile (27 x 3)."""
    return camera.linear(reflectances(camera))


def write_y4m(path, camera, view, frames, seed):
    """Writes `frames` frames of the view, each with its own noise (seeded), BT.601 limited."""
    encoded = camera.encode(view.linear_image(scene_colours(camera)))
    write_frames(path, camera, (encoded for _ in range(frames)), seed)


def write_frames(path, camera, encoded_frames, seed):
    """Writes each frame of camera RGB (float, 0...255) with its own noise (seeded), BT.601 limited."""
    rng = np.random.default_rng(seed)
    with open(path, "wb") as out:
        out.write(f"YUV4MPEG2 W{WIDTH} H{HEIGHT} F30:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED\n".encode())
        for encoded in encoded_frames:
            noisy = encoded + rng.normal(0.0, camera.noise_sd, encoded.shape)
            y, cb, cr = planes_420(np.clip(noisy, 0, 255))
            out.write(b"FRAME\n")
            for plane in (y, cb, cr):
                out.write(plane.tobytes())
