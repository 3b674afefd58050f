#!/usr/bin/env bash
# Runs the Convert, JPEG and EndToEnd suites once and prints the compact comparison (compare.py):
# conversion against the fastest libyuv function and memcpy, with the 2-thread speedup; JPEG
# against libturbojpeg alone plus the conversion, and against libturbojpeg from the planes; the
# end-to-end frames per second. Medians, Eyedropper / other: below 1 means Eyedropper is faster.
#
#   Benchmarks/compare.sh                               # all three suites, several minutes on 2 cores
#   Benchmarks/compare.sh --target JPEG                 # naming a --target runs only the ones named
#   Benchmarks/compare.sh --filter '.*1920x1080.*'      # other options go to `swift package benchmark`
#                                                       # (--filter must match whole names)
#
# Only wall clock and allocation counts are measured here; the full metrics come from Scripts/bench.
set -euo pipefail
cd "$(dirname "$0")"
../Scripts/install-deps pkg-config libyuv-dev libturbojpeg0-dev libv4l-dev

targets=(--target Convert --target JPEG --target EndToEnd)
for argument in "$@"; do
    if [ "$argument" = --target ]; then targets=(); fi
done

# KEEP_RESULTS=DIR keeps the percentile files there (for thresholds or a second look).
results=${KEEP_RESULTS:-$(mktemp -d)}
mkdir -p "$results"
[ -n "${KEEP_RESULTS:-}" ] || trap 'rm -rf "$results"' EXIT

# One percentile table per benchmark and metric, named after the suite and the benchmark.
if ! swift package --allow-writing-to-directory "$results" benchmark "${targets[@]}" \
    --metric wallClock --metric mallocCountTotal --time-units nanoseconds --format histogramPercentiles \
    --path "$results" --no-progress "$@" >"$results/run.log" 2>&1; then
    cat "$results/run.log" >&2
    exit 1
fi
python3 compare.py "$results"
