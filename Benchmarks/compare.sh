#!/usr/bin/env bash
# Runs the Convert suite and prints one line per frame shape: Eyedropper's median frame time,
# against the fastest libyuv function for the same output and against memcpy of the same bytes.
#
#   Benchmarks/compare.sh                        # the whole suite, a few minutes on 2 cores
#   Benchmarks/compare.sh --filter '.*1920x1080.*'   # extra options go to `swift package benchmark`
#                                                   # (--filter must match whole names)
#
# Ratios are Eyedropper / other: below 1 means Eyedropper is faster. Only wall clock is measured
# here; the full metrics (throughput, allocations) come from `swift package benchmark`.
set -euo pipefail
cd "$(dirname "$0")"
../Scripts/install-deps pkg-config libyuv-dev

results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT

# One percentile table per benchmark and metric, named after the benchmark.
if ! swift package --allow-writing-to-directory "$results" benchmark --target Convert \
    --metric wallClock --time-units nanoseconds --format histogramPercentiles --path "$results" --no-progress \
    "$@" >"$results/run.log" 2>&1; then
    cat "$results/run.log" >&2
    exit 1
fi

python3 - "$results" <<'PYTHON'
import pathlib, re, sys

UNITS = {"ns": 1e-3, "μs": 1.0, "us": 1.0, "ms": 1e3, "s": 1e6}
ROW = re.compile(r"^(?P<shape>[A-Z0-9]+->[A-Z0-9]+_\d+x\d+)(?P<label>(_[^_]+)*?)_(?P<impl>eyedropper[^_]*|libyuv-[^_]+|memcpy)$")

def median_us(path):
    """The p50 of a histogramPercentiles file, in microseconds (the header names the unit)."""
    lines = path.read_text().splitlines()
    unit = re.findall(r"\((ns|μs|us|ms|s)\)", lines[0])
    scale = UNITS[unit[-1]] if unit else 1.0
    for line in lines[1:]:
        percentile, value = line.split("\t")
        if percentile == "50":
            return float(value) * scale
    raise ValueError(f"no p50 in {path}")

rows = {}  # (shape, label) -> {implementation: microseconds}
suffix = ".wallClock.histogram.percentiles.tsv"
for path in pathlib.Path(sys.argv[1]).glob(f"*.Convert.*{suffix}"):
    name = path.name[path.name.index(".Convert.") + len(".Convert."):-len(suffix)]
    match = ROW.match(name)
    if not match:
        print(f"skipping unrecognised benchmark {name!r}", file=sys.stderr)
        continue
    rows.setdefault((match["shape"], match["label"].lstrip("_")), {})[match["impl"]] = median_us(path)

def shape_key(key):
    shape, label = key
    conversion, size = shape.split("_")
    width, height = map(int, size.split("x"))
    return (width * height, conversion.split("->")[0], conversion, label)

def fmt(us):
    if us is None:
        return "-"
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.1f} µs"

def ratio(a, b):
    return f"{a / b:.2f}x" if a is not None and b else "-"

header = ["shape", "eyedropper", "2 threads", "best libyuv", "", "ed/libyuv", "memcpy", "ed/memcpy"]
table = []
for key in sorted(rows, key=shape_key):
    shape, label = key
    times = rows[key]
    peers = {impl[len("libyuv-"):]: t for impl, t in times.items() if impl.startswith("libyuv-")}
    peer = min(peers, key=peers.get) if peers else None
    # The memory limit depends on bytes only, so BT.709 rows share the BT.601 row's memcpy.
    memcpy = times.get("memcpy", rows.get((shape, ""), {}).get("memcpy"))
    variants = [("eyedropper", times.get("eyedropper"), times.get("eyedropper-2-threads"))]
    variants += [(impl, t, None) for impl, t in sorted(times.items())
                 if impl.startswith("eyedropper-") and impl.endswith("-kernel")]
    for impl, ours, parallel in variants:
        if ours is None:
            continue
        title = " ".join(filter(None, [shape.replace("_", " "), label, impl.replace("eyedropper-", "").replace("-", " ") if impl != "eyedropper" else ""]))
        table.append([title, fmt(ours), fmt(parallel), peer or "-", fmt(peers.get(peer)),
                      ratio(ours, peers.get(peer)), fmt(memcpy), ratio(ours, memcpy)])

widths = [max(len(str(row[i])) for row in [header] + table) for i in range(len(header))]
for row in [header] + table:
    print("  ".join(str(cell).ljust(w) if i in (0, 3) else str(cell).rjust(w) for i, (cell, w) in enumerate(zip(row, widths))).rstrip())
PYTHON
