"""Chart detection on real photographs, Eyedropper against OpenCV's mcc.

Reads the photographs in a charts-real folder (images/<id>.jpg, truth/<id>.json with the 24
hand-checked patch centres in pixels, patch 1 first), turns each into one frame of a .y4m
(BT.601 limited, 4:2:0, as camera.py encodes), runs `eyedropper chart` on it and OpenCV's mcc
on the photograph as decoded, and scores both by the folder's rule: a detector is right on an
image when every centre it gives is within 0.3 of a patch pitch of the truth with the right
numbering, wrong when it gives a chart that is not right, and missed when it gives none.

Prints the table (right/missed/wrong per detector, the worst centre's error in pitch per image,
time), writes report.md and results.json to --out, and exits 1 when Eyedropper reads any image
wrong or has fewer right than mcc.
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from camera import planes_420

RULE = 0.3


def truth_pitch(centres):
    """For each patch, the distance to its nearest neighbour on the 6 x 4 grid, in pixels."""
    grid = centres.reshape(4, 6, 2)
    pitch = np.full((4, 6), np.inf)
    for r in range(4):
        for c in range(6):
            for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                rr, cc = r + dr, c + dc
                if 0 <= rr < 4 and 0 <= cc < 6:
                    pitch[r, c] = min(pitch[r, c], np.linalg.norm(grid[r, c] - grid[rr, cc]))
    return pitch.reshape(-1)


def judge(centres, truth):
    """('right' | 'wrong' | 'missed', worst error in pitch) for 24 centres found (or None)."""
    if centres is None:
        return "missed", None
    errors = np.linalg.norm(centres - truth, axis=1) / truth_pitch(truth)
    worst = float(errors.max())
    return ("right" if worst <= RULE else "wrong"), worst


def write_y4m(path, bgr):
    """One frame, BT.601 limited range 4:2:0, the image cut to even width and height."""
    h, w = bgr.shape[0] // 2 * 2, bgr.shape[1] // 2 * 2
    rgb = bgr[:h, :w, ::-1].astype(np.float64)
    y, cb, cr = planes_420(rgb)
    with open(path, "wb") as file:
        file.write(f"YUV4MPEG2 W{w} H{h} F30:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED\n".encode())
        file.write(b"FRAME\n")
        for plane in (y, cb, cr):
            file.write(plane.tobytes())
    return w, h


def mcc_centres(bgr):
    import cv2
    detector = cv2.mcc.CCheckerDetector_create()
    start = time.perf_counter()
    ok = detector.process(bgr, cv2.mcc.MCC24, 1)
    elapsed = time.perf_counter() - start
    if not ok:
        return None, elapsed
    checker = detector.getBestColorChecker()
    charts = np.asarray(checker.getColorCharts(), float).reshape(24, 4, 2)
    return charts.mean(axis=1), elapsed


def eyedropper_chart(binary, y4m, w, h):
    start = time.perf_counter()
    run = subprocess.run([binary, "chart", "--source", str(y4m), "--frames", "1", "--matrix", "bt601"],
                         capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    lines = [line for line in run.stdout.splitlines() if line.startswith("{")]
    if len(lines) != 1:
        sys.exit(f"eyedropper chart printed {len(lines)} lines for {y4m} (exit {run.returncode}): {run.stderr}")
    line = json.loads(lines[0])
    if not line["found"]:
        return None, line, elapsed
    centres = np.array([[p["center"][0] * w, p["center"][1] * h] for p in line["patches"]])
    return centres, line, elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--eyedropper", required=True)
    parser.add_argument("--charts", required=True, help="the charts-real folder (images/, truth/)")
    parser.add_argument("--out", default=".build/real-charts")
    parser.add_argument("--only", nargs="*", help="image ids to run (default: all)")
    args = parser.parse_args()
    import cv2
    charts = Path(args.charts)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ids = sorted(p.stem for p in (charts / "truth").glob("*.json"))
    if args.only:
        ids = [i for i in ids if i in args.only]
    if not ids:
        sys.exit(f"no truth/*.json in {charts}")
    rows = []
    totals = {name: {"right": 0, "missed": 0, "wrong": 0} for name in ("eyedropper", "mcc")}
    for image_id in ids:
        truth_file = json.loads((charts / "truth" / f"{image_id}.json").read_text())
        truth = np.array(truth_file["patch_centres_px"], float)
        bgr = cv2.imread(str(charts / truth_file["image"]), cv2.IMREAD_COLOR)
        if bgr is None:
            sys.exit(f"cannot read {charts / truth_file['image']}")
        y4m = out / f"{image_id}.y4m"
        w, h = write_y4m(y4m, bgr)
        ours, line, our_seconds = eyedropper_chart(args.eyedropper, y4m, w, h)
        theirs, their_seconds = mcc_centres(bgr)
        row = {"id": image_id, "size": f"{bgr.shape[1]}x{bgr.shape[0]}",
               "pitch_px": float(np.median(truth_pitch(truth)))}
        for name, centres, seconds in (("eyedropper", ours, our_seconds), ("mcc", theirs, their_seconds)):
            verdict, worst = judge(centres, truth)
            totals[name][verdict] += 1
            row[name] = {"verdict": verdict, "worst": worst, "ms": 1000 * seconds}
        row["eyedropper"]["confidence"] = line.get("confidence")
        row["eyedropper"]["reason"] = line.get("reason")
        row["eyedropper"]["visible"] = len(line["visible"]) if "visible" in line else (24 if line["found"] else None)
        row["eyedropper"]["warnings"] = line.get("warnings", [])
        rows.append(row)
        print(f"{image_id}: eyedropper {row['eyedropper']['verdict']}, mcc {row['mcc']['verdict']}", file=sys.stderr,
              flush=True)

    def cell(entry):
        if entry["verdict"] == "missed":
            return "missed" + (f" ({entry['reason']})" if entry.get("reason") else "")
        text = f"{entry['verdict']}, worst {entry['worst']:.2f}"
        if entry.get("visible") is not None and entry["visible"] < 24:
            text += f", {entry['visible']} visible"
        return text

    report = [
        f"{len(rows)} real photographs ({charts}): right = every centre within {RULE} of a pitch of the "
        "hand-checked centre, right numbering.",
        "",
        "| detector | right | missed | wrong |",
        "|---|---|---|---|",
        f"| Eyedropper `chart` | {totals['eyedropper']['right']} | {totals['eyedropper']['missed']} | "
        f"{totals['eyedropper']['wrong']} |",
        f"| OpenCV mcc {cv2.__version__} | {totals['mcc']['right']} | {totals['mcc']['missed']} | {totals['mcc']['wrong']} |",
        "",
        "| image | size | pitch px | Eyedropper (worst centre, pitch) | ms | mcc (worst centre, pitch) | ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        report.append(
            f"| {row['id']} | {row['size']} | {row['pitch_px']:.0f} | {cell(row['eyedropper'])} | "
            f"{row['eyedropper']['ms']:.0f} | {cell(row['mcc'])} | {row['mcc']['ms']:.0f} |")
    report.append("")
    report.append("Eyedropper's time is the whole command (read the .y4m, convert, detect); mcc's is `process` alone.")
    (out / "report.md").write_text("\n".join(report) + "\n")
    (out / "results.json").write_text(json.dumps({"totals": totals, "images": rows}, indent=1) + "\n")
    print("\n".join(report))
    failures = []
    if totals["eyedropper"]["wrong"]:
        failures.append(f"Eyedropper read {totals['eyedropper']['wrong']} photographs wrong")
    if totals["eyedropper"]["right"] < totals["mcc"]["right"]:
        failures.append(f"Eyedropper had {totals['eyedropper']['right']} right, mcc {totals['mcc']['right']}")
    if failures:
        sys.exit("real charts failed: " + "; ".join(failures) + f" (see {out / 'report.md'})")


if __name__ == "__main__":
    main()
