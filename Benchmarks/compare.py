#!/usr/bin/env python3
"""The compact comparison, from the percentile files of one `swift package benchmark` run
(compare.sh makes them): one table per suite that ran, medians, ratios Eyedropper / other (below 1
means Eyedropper is faster).

  conversion  Eyedropper on 1 and 2 threads (and the speedup), the fastest libyuv function, memcpy
  JPEG        Eyedropper's RGB path against tjCompress2 + Eyedropper's conversion (the
              1.1x target) and against tjCompressFromYUVPlanes; the 4:2:0 planes path against the
              glued libyuv + tjCompress2 job (0.8x target); allocations per frame
  end to end  30 frames (one JPEG among them): time per frame, frames per second, allocations

Usage: compare.py DIRECTORY
"""
import pathlib
import re
import sys

UNITS = {"ns": 1e-3, "μs": 1.0, "us": 1.0, "ms": 1e3, "s": 1e6}
SUFFIX = ".histogram.percentiles.tsv"
CONVERT_ROW = re.compile(r"^(?P<shape>[A-Z0-9]+->[A-Z0-9]+_\d+x\d+)(?P<label>(_[^_]+)*?)_(?P<impl>eyedropper[^_]*|libyuv-[^_]+|memcpy)$")
JPEG_ROW = re.compile(r"^JPEG_(?P<size>\d+x\d+)_(?P<content>[a-z-]+)_(?P<impl>[A-Za-z0-9-]+)$")
END_TO_END_ROW = re.compile(r"^EndToEnd_(?P<size>\d+x\d+)_(?P<content>[a-z-]+)_(?P<frames>\d+)-frames$")


def median(path):
    """The p50 of a histogramPercentiles file; times in microseconds (the header names the unit)."""
    lines = path.read_text().splitlines()
    unit = re.findall(r"\((ns|μs|us|ms|s)\)", lines[0])
    scale = UNITS[unit[-1]] if unit else 1.0
    for line in lines[1:]:
        percentile, value = line.split("\t")
        if percentile == "50":
            return float(value) * scale
    raise ValueError(f"no p50 in {path}")


def results(directory, target, metric):
    """{benchmark name: median} for one suite and metric."""
    found = {}
    for path in pathlib.Path(directory).glob(f"*.{target}.*.{metric}{SUFFIX}"):
        start = path.name.index(f".{target}.") + len(target) + 2
        found[path.name[start:-len(f".{metric}{SUFFIX}")]] = median(path)
    return found


def fmt(us):
    if us is None:
        return "-"
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.1f} µs"


def ratio(a, b):
    return f"{a / b:.2f}x" if a is not None and b else "-"


def count(value):
    return "-" if value is None else f"{value:g}"


def size_key(size):
    width, height = map(int, size.split("x"))
    return width * height


def print_table(title, header, table, left=(0,)):
    if not table:
        return
    print(f"\n{title}")
    widths = [max(len(str(row[i])) for row in [header] + table) for i in range(len(header))]
    for row in [header] + table:
        cells = (str(cell).ljust(w) if i in left else str(cell).rjust(w)
                 for i, (cell, w) in enumerate(zip(row, widths)))
        print("  ".join(cells).rstrip())


def conversion_table(directory):
    rows = {}  # (shape, label) -> {implementation: microseconds}
    for name, us in results(directory, "Convert", "wallClock").items():
        match = CONVERT_ROW.match(name)
        if not match:
            print(f"skipping unrecognised benchmark {name!r}", file=sys.stderr)
            continue
        rows.setdefault((match["shape"], match["label"].lstrip("_")), {})[match["impl"]] = us

    def key(item):
        shape, label = item
        conversion, size = shape.split("_")
        return (size_key(size), conversion.split("->")[0], conversion, label)

    table = []
    for shape, label in sorted(rows, key=key):
        times = rows[(shape, label)]
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
            kernel = impl.replace("eyedropper-", "").replace("-", " ") if impl != "eyedropper" else ""
            title = " ".join(filter(None, [shape.replace("_", " "), label, kernel]))
            # Speedup is one thread's time over two threads': 2.00x would be perfect scaling.
            speedup = f"{ours / parallel:.2f}x" if parallel else "-"
            table.append([title, fmt(ours), fmt(parallel), speedup, peer or "-", fmt(peers.get(peer)),
                          ratio(ours, peers.get(peer)), fmt(memcpy), ratio(ours, memcpy)])
    header = ["conversion", "eyedropper", "2 threads", "speedup", "best libyuv", "", "ed/libyuv", "memcpy", "ed/memcpy"]
    print_table("Conversion (single thread unless named; speedup = 1 thread / 2 threads):", header, table, left=(0, 4))


def jpeg_table(directory):
    times, allocations = {}, {}
    for metric, into in (("wallClock", times), ("mallocCountTotal", allocations)):
        for name, value in results(directory, "JPEG", metric).items():
            match = JPEG_ROW.match(name)
            if match:
                into.setdefault((match["size"], match["content"]), {})[match["impl"]] = value
    table = []
    for size, content in sorted(times, key=lambda k: (size_key(k[0]), k[1])):
        row = times[(size, content)]
        ours, convert, encode = row.get("eyedropper"), row.get("eyedropper-convert"), row.get("eyedropper-encode")
        rgb, planes = row.get("tjCompress2"), row.get("tjCompressFromYUVPlanes")
        floor = rgb + convert if rgb is not None and convert is not None else None
        mallocs = allocations.get((size, content), {})
        table.append([size, content, fmt(ours), fmt(convert), fmt(encode), fmt(rgb), ratio(encode, rgb),
                      fmt(floor), ratio(ours, floor), fmt(planes), ratio(ours, planes),
                      f"{count(mallocs.get('eyedropper'))} / {count(mallocs.get('tjCompress2'))}"])
    header = ["frame", "content", "eyedropper", "convert", "encode", "tjCompress2", "enc/tj2",
              "tj2+convert", "ed/(tj2+conv)", "tjFromYUVPlanes", "ed/planes", "mallocs ed / tj2"]
    print_table("JPEG, quality 90, 4:2:0, accurate DCT (target: ed/(tj2+conv) <= 1.10x):", header, table, left=(0, 1))

    # The planes path: remap to JPEG's Y'CbCr, then tjCompressFromYUVPlanes, against the glued job
    # (libyuv to RGB, then tjCompress2) and the floor (tjCompressFromYUVPlanes on the raw planes).
    table = []
    for size, content in sorted(times, key=lambda k: (size_key(k[0]), k[1])):
        row = times[(size, content)]
        planes, remap, glued = row.get("eyedropper-planes"), row.get("eyedropper-remap"), row.get("glued")
        if planes is None:
            continue
        floor, rgb_path = row.get("tjCompressFromYUVPlanes"), row.get("eyedropper")
        mallocs = allocations.get((size, content), {})
        table.append([size, content, fmt(planes), fmt(remap), fmt(glued), ratio(planes, glued), fmt(rgb_path),
                      ratio(planes, rgb_path), fmt(floor), ratio(planes, floor),
                      " / ".join(count(mallocs.get(impl)) for impl in ("eyedropper-planes", "eyedropper-remap", "glued"))])
    header = ["frame", "content", "ed-planes", "remap", "glued", "planes/glued", "ed (RGB)", "planes/RGB",
              "tjFromYUVPlanes", "planes/floor", "mallocs planes / remap / glued"]
    print_table("JPEG 4:2:0 from the planes (glued = libyuv H420ToRAW + tjCompress2; target: planes/glued <= 0.80x):",
                header, table, left=(0, 1))


def end_to_end_table(directory):
    times = {}
    allocations = results(directory, "EndToEnd", "mallocCountTotal")
    for name, us in results(directory, "EndToEnd", "wallClock").items():
        match = END_TO_END_ROW.match(name)
        if match:
            frames = int(match["frames"])
            mallocs = allocations.get(name)
            times[(match["size"], match["content"])] = (frames, us, None if mallocs is None else mallocs / frames)
    table = []
    for size, content in sorted(times, key=lambda k: (size_key(k[0]), k[1])):
        frames, us, per_frame = times[(size, content)]
        table.append([size, content, fmt(us), fmt(us / frames), f"{frames * 1e6 / us:.0f}",
                      "-" if per_frame is None else f"{per_frame:.2f}"])
    header = ["frame", "content", "30 frames", "per frame", "frames/s", "mallocs/frame"]
    print_table("End to end, one thread (convert, sample 10 points, JPEG every 30th frame):", header, table, left=(0, 1))


if __name__ == "__main__":
    conversion_table(sys.argv[1])
    jpeg_table(sys.argv[1])
    end_to_end_table(sys.argv[1])
