"""Compares eyedropper's JSON lines: the last line of each file, point by point and channel by
channel (the patch means), within a tolerance; and optionally each point against a colour.

usage: compare.py A.jsonl B.jsonl TOLERANCE [EXPECTED_R,G,B ... BAR_TOLERANCE]
Prints the largest difference; exits 1 when over a tolerance, naming the point.
"""

import json
import sys


def last(path):
    lines = [line for line in open(path) if line.startswith("{")]
    if not lines:
        sys.exit(f"{path}: no JSON lines")
    return json.loads(lines[-1])


a, b = last(sys.argv[1]), last(sys.argv[2])
tolerance = float(sys.argv[3])
failed = []
worst = 0.0
for index, (x, y) in enumerate(zip(a["samples"], b["samples"])):
    for channel in range(3):
        difference = abs(x["mean"][channel] - y["mean"][channel])
        worst = max(worst, difference)
        if difference > tolerance:
            failed.append(f"point {index} ({x['x']},{x['y']}) channel {'rgb'[channel]}: {x['mean']} against {y['mean']}")
expected = sys.argv[4:-1]
if expected:
    bar_tolerance = float(sys.argv[-1])
    for index, (sample, want) in enumerate(zip(a["samples"], expected)):
        want = [float(v) for v in want.split(",")]
        for channel in range(3):
            if abs(sample["mean"][channel] - want[channel]) > bar_tolerance:
                failed.append(f"point {index}: {sample['mean']}, the bar is {want}")
print(f"largest difference {worst:.2f} (matrix {a['matrix']} {a['range']} against {b['matrix']} {b['range']})")
if failed:
    print("; ".join(failed))
    sys.exit(1)
