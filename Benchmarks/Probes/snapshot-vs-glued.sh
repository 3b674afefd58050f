#!/usr/bin/env bash
# The whole process, against the same job glued in C: `eyedropper snapshot --frames 60
# --subsampling 420 --quality 90` of a 1080p .y4m (make_y4m.c: the noisy test pattern, BT.709
# limited, a new noise draw each frame), against glued_snapshot.c (libyuv H420ToRAW + tjCompress2,
# the same files written the same way). Wall time of each process, ROUNDS rounds alternating the
# two, medians; prints the ratio eyedropper / glued (below 1: eyedropper is faster). A measurement,
# not a test: nothing here passes or fails on time.
#
#   Benchmarks/Probes/snapshot-vs-glued.sh [ROUNDS]        # default 7 rounds; builds release first
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-7}
Scripts/install-deps pkg-config libyuv-dev libturbojpeg0-dev libv4l-dev libmosquitto-dev >&2
swift build -c release --product eyedropper >&2
eyedropper="$(swift build -c release --show-bin-path)/eyedropper"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 Benchmarks/Probes/make_y4m.c -o "$work/make_y4m"
cc -O2 Benchmarks/Probes/glued_snapshot.c -lyuv -lturbojpeg -o "$work/glued_snapshot"
"$work/make_y4m" "$work/frames.y4m" 1920 1080 60
mkdir "$work/eyedropper" "$work/glued"

run_eyedropper() {
    "$eyedropper" snapshot --source "$work/frames.y4m" --frames 60 --subsampling 420 --quality 90 \
        --out "$work/eyedropper/frame.jpg" >/dev/null
}
run_glued() { "$work/glued_snapshot" "$work/frames.y4m" "$work/glued/frame" 90 >/dev/null; }
seconds() { # wall time of one run of "$@", in seconds
    local start=$EPOCHREALTIME
    "$@"
    echo "$EPOCHREALTIME - $start" | bc -l
}
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

run_eyedropper && run_glued  # warm the file cache and both binaries
: >"$work/eyedropper.times"
: >"$work/glued.times"
for ((round = 1; round <= rounds; round++)); do
    seconds run_eyedropper >>"$work/eyedropper.times"
    seconds run_glued >>"$work/glued.times"
done
ours=$(median <"$work/eyedropper.times")
glued=$(median <"$work/glued.times")
count=$(ls "$work/eyedropper" | wc -l)
printf 'eyedropper snapshot --frames 60 --subsampling 420 --quality 90 (1920x1080 .y4m): median %.3f s of %d rounds (%d files)\n' "$ours" "$rounds" "$count"
printf 'glued_snapshot (libyuv H420ToRAW + tjCompress2), same frames and files:        median %.3f s (%d files)\n' "$glued" "$(ls "$work/glued" | wc -l)"
printf 'eyedropper / glued: %.2fx (target <= 0.80x)\n' "$(echo "$ours / $glued" | bc -l)"
printf 'bytes written: eyedropper %d, glued %d\n' "$(cat "$work"/eyedropper/*.jpg | wc -c)" "$(cat "$work"/glued/*.jpg | wc -c)"
