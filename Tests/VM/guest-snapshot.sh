#!/bin/sh
# Guest: snapshot of a vivid frame to .ppm (exact size and header) and .jpg (JPEG start and end
# markers); the host-side tests decode JPEGs with libturbojpeg. Writes PASS/FAIL lines to $RESULTS.
# Budget: 60 s on the nominal guest (Tests/VM/guest-lib.sh), where it takes about 2 s.
. /mnt/guest-lib.sh
DEV=/dev/video0
hex() { od -An -tx1 | tr -d ' \n'; }

eyedropper snapshot --source $DEV --size 640x480 --pixel-format NV12 --skip 2 --out /tmp/vivid.ppm > /tmp/ppm.out 2>/tmp/ppm.err
rc=$?
size=$(wc -c < /tmp/vivid.ppm 2>/dev/null || echo 0)
header=$(head -c 15 /tmp/vivid.ppm 2>/dev/null | tr '\n' ' ')
if [ $rc -eq 0 ] && [ "$size" -eq $((15 + 640 * 480 * 3)) ] && [ "$header" = "P6 640 480 255 " ] && [ "$(cat /tmp/ppm.out)" = /tmp/vivid.ppm ]; then
    echo "PASS snapshot: vivid frame to .ppm ($size bytes)" >> "$RESULTS"
else echo "FAIL snapshot .ppm: exit $rc, $size bytes, header '$header': $(cat /tmp/ppm.err)" >> "$RESULTS"; fi

eyedropper snapshot --source $DEV --size 1280x720 --pixel-format YU12 --skip 2 --quality 85 --out /tmp/vivid.jpg > /tmp/jpg.out 2>/tmp/jpg.err
rc=$?
start=$(head -c 2 /tmp/vivid.jpg 2>/dev/null | hex)
end=$(tail -c 2 /tmp/vivid.jpg 2>/dev/null | hex)
size=$(wc -c < /tmp/vivid.jpg 2>/dev/null || echo 0)
if [ $rc -eq 0 ] && [ "$start" = ffd8 ] && [ "$end" = ffd9 ] && [ "$size" -gt 10000 ]; then
    echo "PASS snapshot: vivid frame to .jpg ($size bytes)" >> "$RESULTS"
else echo "FAIL snapshot .jpg: exit $rc, $size bytes, markers $start..$end: $(cat /tmp/jpg.err)" >> "$RESULTS"; fi
