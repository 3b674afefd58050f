# Sourced (bash) by the VM runners (vivid-tests.sh, systemd-tests.sh): their time limits scale
# with the guest's speed, never seconds tuned on one host. Under TCG a guest runs eyedropper tens
# of times slower than the host, and how many tens differs several-fold between hosts (and with
# what else runs on them).
#
# At boot the guest times SPEED_WORK, a piece of eyedropper's own work with what the tests' work
# has (a fit's floating point, which TCG emulates in software, the slowest part of the guests'
# work; the detector and the converter's SIMD), once on each of its two CPUs at the same time:
# the tests keep both busy (the driver's frames, capture, conversion), and a host with another
# busy process leaves one emulated CPU alone at full speed but not two. SPEED is the time both
# took over SPEED_NOMINAL, what they took on the guest the budgets were written for, and at least
# 1 (a faster host is not held to less). Budgets (`# Budget: N s` in a guest script) are seconds
# on that guest: N x SPEED here.
#
#   speed_probe EYEDROPPER OUT   prints the guest's sh to time SPEED_WORK with EYEDROPPER, export
#                                SPEED and write "SPEED SECONDS" to OUT/speed (the host reads it)
#   watch_vm PID PIDFILE OUT TOTAL
#                                waits while PID (the qemu pipeline) runs; kills qemu (its pid in
#                                PIDFILE) BOOT_LIMIT s after the start if OUT/speed has not come,
#                                else (TOTAL + 60) x SPEED s after it came; sets SPEED and, when it
#                                killed it, TIMED_OUT (what to say)

# SPEED_WORK: the chart found and fitted with the least of the models, the test chart of
# Tests/VM/chart-y4m.py (640x480, one frame), linear-3x3 with its leave-one-out and the tone curve
# through the neutrals (the work SPEED_NOMINAL was measured on): 0.36 s on the
# host the budgets were written on (a 2-core AMD EPYC, with other builds beside it), 15.4 s in its
# guest (qemu 7.2, TCG, -cpu max -smp 2), where one calibrate of 10 frames through v4l2loopback
# took 64 s: 4 s to capture, convert and find the chart in 10 frames, 56 s to fit the three
# models with their leave-one-out. Two at once, on the guest's two CPUs, take 10 to 16.5 s on
# a quiet 2-core host, and 1.5 to 2 times that beside one busy process, as the tests do. Since then
# the fit takes its derivatives through each patch's X, Y and Z: the same work takes 0.56 of the
# time it did (0.41 s against 0.23 s on a quiet 2-core host, the mean of 10 with each binary), the
# detector's share included, so SPEED_NOMINAL is 15 s times that, 8 s rounded down (a higher SPEED,
# more time). The guest's budgets are what they were: seconds of the work as it was before.
SPEED_CHART=speed-chart.y4m
SPEED_NOMINAL=8
# A guest that has not timed its work this long after qemu started has hung in its boot.
BOOT_LIMIT=600

# speed_chart DIR: writes the chart SPEED_WORK reads into DIR (the guest's share).
speed_chart() { python3 "$(dirname "${BASH_SOURCE[0]}")/chart-y4m.py" "$1/$SPEED_CHART" 1 >/dev/null; }

speed_probe() {
  local eyedropper=$1 out=$2
  cat <<EOF
up() { cut -d' ' -f1 /proc/uptime; }
t0=\$(up)
$eyedropper calibrate --source $out/../$SPEED_CHART --frames 1 --model linear-3x3 --curve neutrals --out /tmp/speed-1.json > /dev/null 2>/tmp/speed-1.err & p1=\$!
$eyedropper calibrate --source $out/../$SPEED_CHART --frames 1 --model linear-3x3 --curve neutrals --out /tmp/speed-2.json > /dev/null 2>/tmp/speed-2.err & p2=\$!
wait \$p1 || echo "[guest] the speed's work failed: \$(tail -n 2 /tmp/speed-1.err)"
wait \$p2 || echo "[guest] the speed's work failed: \$(tail -n 2 /tmp/speed-2.err)"
t1=\$(up)
took=\$(awk -v a="\$t0" -v b="\$t1" 'BEGIN { printf "%.2f", b - a }')
SPEED=\$(awk -v t="\$took" -v n=$SPEED_NOMINAL 'BEGIN { s = t / n; printf "%.2f", s < 1 ? 1 : s }')
export SPEED
echo "\$SPEED \$took" > $out/speed
echo "[guest \$(up)s] speed: calibrate on the test chart, on both CPUs at once, took \$took s, \$(awk -v t="\$took" -v n=$SPEED_NOMINAL 'BEGIN { printf "%.2f", t / n }') x the nominal $SPEED_NOMINAL s: budgets times \$SPEED"
EOF
}

watch_vm() {
  local vm=$1 pidfile=$2 out=$3 total=$4 started=$EPOCHREALTIME deadline
  deadline=$(awk -v b="$started" -v l="$BOOT_LIMIT" 'BEGIN { printf "%d", b + l }')
  SPEED=""; TIMED_OUT=""
  while kill -0 "$vm" 2>/dev/null; do
    if [ -z "$SPEED" ] && [ -s "$out/speed" ]; then
      SPEED=$(cut -d' ' -f1 "$out/speed")
      deadline=$(awk -v now="$EPOCHREALTIME" -v t="$total" -v f="$SPEED" 'BEGIN { printf "%d", now + (t + 60) * f }')
    fi
    if [ "${EPOCHREALTIME%.*}" -ge "$deadline" ]; then
      TIMED_OUT="$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s (speed ${SPEED:-not measured}, budget $total s)"
      kill "$(cat "$pidfile" 2>/dev/null)" 2>/dev/null
      break
    fi
    sleep 1
  done
  wait "$vm" 2>/dev/null
}
