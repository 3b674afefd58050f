"""report.md: the measured numbers as Markdown tables the README can quote."""

import cv2
import numpy as np

from camera import CAMERAS, REFERENCE_NAME


def _row(cells):
    return "| " + " | ".join(cells) + " |"


def _summary(s):
    s = s or {}
    return [f"{s[k]:.2f}" if isinstance(s.get(k), (int, float)) else "" for k in ("mean", "median", "max")]


def write(path, camera_name, reference, eyedropper_de, calibrate_result, rows, best, source, commands):
    lines = [
        "# Calibrated colour on a simulated camera",
        "",
        f"ColorChecker Classic 24 ({REFERENCE_NAME}, L*a*b* D50) seen through a simulated camera "
        f"({CAMERAS[camera_name]} sensitivities under D50, white balance R x1.15 B x0.87, power 1/1.9 "
        "tone curve with a shoulder and a 5-level pedestal, noise sd 2 levels, BT.601 limited 4:2:0, "
        "1280x720, chart under perspective). Calibrated on one file, checked on another (other noise, "
        "other perspective); CIEDE2000 of the 24 patches against the reference (colour-science), "
        "5 frames averaged in each.",
        "",
        _row(["", "mean", "median", "max"]),
        _row(["---", "---:", "---:", "---:"]),
    ]
    if eyedropper_de is not None:
        d = np.asarray(eyedropper_de)
        model = (calibrate_result or {}).get("model", "")
        lines.append(_row([f"Eyedropper ({model})" if model else "Eyedropper",
                           f"{d.mean():.2f}", f"{np.median(d):.2f}", f"{d.max():.2f}"]))
    else:
        lines.append(_row(["Eyedropper", "not measured", "", ""]))
    if calibrate_result:
        lines.append(_row(["Eyedropper, calibrate's own report: fitted"] + _summary(calibrate_result.get("fitted"))))
        lines.append(_row(["Eyedropper, calibrate's own report: leave-one-out"] + _summary(calibrate_result.get("leaveOneOut"))))
    c = best["check"]
    lines.append(_row([f"OpenCV {cv2.__version__} ccm, best: {best['config']}",
                       f"{c['mean']:.2f}", f"{c['median']:.2f}", f"{c['max']:.2f}"]))
    lines += [
        "",
        f"Every OpenCV configuration tried (fitted on {source}; CIEDE2000 minimised, 24 patches):",
        "",
        _row(["configuration", "fit mean", "check mean", "check median", "check max"]),
        _row(["---", "---:", "---:", "---:", "---:"]),
    ]
    for r in rows:
        lines.append(_row([r["config"], f"{r['fitted']['mean']:.2f}", f"{r['check']['mean']:.2f}",
                           f"{r['check']['median']:.2f}", f"{r['check']['max']:.2f}"]))
    if eyedropper_de is not None:
        lines += ["", "Per patch, check frame:", "",
                  _row(["#", "patch", "reference L*a*b*", "Eyedropper", "OpenCV best"]),
                  _row(["---:", "---", "---", "---:", "---:"])]
        for i, name in enumerate(reference.names):
            lab = reference.lab[i]
            lines.append(_row([str(i + 1), name, f"{lab[0]:.2f} {lab[1]:.2f} {lab[2]:.2f}",
                               f"{eyedropper_de[i]:.2f}", f"{best['per_patch'][i]:.2f}"]))
    lines += ["", "Commands:", "", "```sh", *commands, "```"]
    path.write_text("\n".join(lines) + "\n")
