#!/bin/bash
# Guest side of Tests/VM/systemd-tests.sh, run by a systemd unit after multi-user.target on the
# VM's Debian 12 with vivid loaded (/dev/video0). The host's share is /mnt/host: the package
# (eyedropper_*_amd64.deb), chart.y4m and chart-corners (a rendered ColorChecker), mjpeg-parts; results go to /mnt/host/out/results as
# one `PASS name` / `FAIL name: details` line per check, figures on stdout (the VM's console).
# Each check reports on its own: one that fails leaves the later ones to run. Waits are on
# conditions; their deadlines, and the one bound on a gap, are seconds on the nominal guest times
# SPEED (measured at boot by the runner, Tests/VM/vm-speed.sh).
# Budget: 420 s on the nominal guest: apt install, a start, a calibration, a reload under a
# stream, a watchdog restart, an unplug, remove and purge.
set -uo pipefail
SPEED=${SPEED:-1}
# scaled SECONDS: SECONDS on this guest, with hundredths.
scaled() { awk -v s="$1" -v f="$SPEED" 'BEGIN { printf "%.2f", s * f }'; }
# wait_until SECONDS COMMAND...: COMMAND every 0.2 s until it succeeds, or false after SECONDS x SPEED.
wait_until() {
  local end; end=$(awk -v now="$EPOCHREALTIME" -v s="$1" -v f="$SPEED" 'BEGIN { printf "%.2f", now + s * f }')
  shift
  until "$@"; do
    awk -v now="$EPOCHREALTIME" -v e="$end" 'BEGIN { exit !(now >= e) }' && return 1
    sleep 0.2
  done
}
S=/mnt/host
OUT=$S/out
RESULTS=$OUT/results
UNIT=eyedropper@video0
API=http://127.0.0.1:8080/api/v1
export DEBIAN_FRONTEND=noninteractive
pass() { echo "PASS $1" >> "$RESULTS"; echo "[guest] PASS $1"; }
fail() { echo "FAIL $1: $2" >> "$RESULTS"; echo "[guest] FAIL $1: $2"; }
say() { echo "[guest] $*"; }
now() { echo "$EPOCHREALTIME"; }
secs() { awk -v a="$2" -v b="$1" 'BEGIN{printf "%.2f", a-b}'; }   # secs FROM TO
mainpid() { systemctl show -p MainPID --value "$UNIT"; }
# HTTP status and body of a GET (body in /tmp/body)
code() { rm -f /tmp/body; curl -s -m 5 -o /tmp/body -w '%{http_code}' "$API$1"; }
own_journal() { journalctl -q "_SYSTEMD_UNIT=$UNIT.service" -o cat "$@"; }   # the service's own lines
: > "$RESULTS"

# ------------------------------------------------------------------ boot figures
# (systemd-analyze time waits for the end of the boot, which this unit is part of.)
usec() { systemctl show -p "$1" --value ${2:-}; }
{
  awk -v k="$(usec UserspaceTimestampMonotonic)" -v m="$(usec ActiveEnterTimestampMonotonic multi-user.target)" \
    'BEGIN { printf "boot: kernel %.1f s, then systemd to multi-user.target %.1f s: multi-user at %.1f s (monotonic)\n", k / 1e6, (m - k) / 1e6, m / 1e6 }'
  echo "system state: $(systemctl is-system-running 2>&1); failed units: $(systemctl --failed --no-legend --plain | awk '{print $1}' | tr '\n' ' ')"
} > "$OUT/boot.txt"
say "$(head -n 2 "$OUT/boot.txt" | tr '\n' ' ')"
say "video: $(ls /dev/video* 2>/dev/null | tr '\n' ' '); $(v4l2-ctl -d /dev/video0 --get-parm 2>/dev/null | grep -i 'frames per second' | sed 's/^[[:space:]]*//')"

# ------------------------------------------------------------------ a. install, offline
DEB=$(ls $S/eyedropper_*_amd64.deb 2>/dev/null | head -n 1)
cp "$DEB" /root/   # as a user has it: a file in their directory
DEB=/root/$(basename "$DEB")
t=$(now)
if apt install -y "$DEB" > "$OUT/apt-install.log" 2>&1; then
  pass "a: apt install ./$(basename "$DEB") offline ($(secs "$t" "$(now)") s)"
else
  fail "a: apt install ./$(basename "$DEB") offline" "$(grep -E '^(E:|dpkg)' "$OUT/apt-install.log" | head -n 5 | tr '\n' ' ')"
fi
if id eyedropper > /dev/null 2>&1 && id -nG eyedropper | tr ' ' '\n' | grep -qx video; then
  pass "a: system user eyedropper in group video ($(id eyedropper))"
else fail "a: user eyedropper in group video" "id: $(id eyedropper 2>&1)"; fi
if [ -f /etc/eyedropper/video0.conf ]; then pass "a: /etc/eyedropper/video0.conf installed"
else fail "a: /etc/eyedropper/video0.conf" "missing: $(ls -la /etc/eyedropper 2>&1 | tr '\n' ' ')"; fi
cp /etc/eyedropper/video0.conf "$OUT/video0.conf" 2>/dev/null
# Every program the unit runs comes from the package, a package it depends on, or an essential
# one: a user's machine need not have anything else (minbase has no /bin/kill without procps).
depends=" $(dpkg-query -W -f='${Depends}' eyedropper 2>/dev/null | sed 's/([^)]*)//g; s/[,|]/ /g') "
missing=""; programs=""
for prog in $(systemctl cat "$UNIT" 2>/dev/null | sed -n 's/^Exec[A-Za-z]*=[-@+!:]*\(\/[^ ]*\).*/\1/p' | sort -u); do
  owner=$(dpkg -S "$prog" 2>/dev/null | cut -d: -f1 | head -n 1)   # usrmerge: either path may be the packaged one
  [ -z "$owner" ] && owner=$(dpkg -S "$(readlink -f "$prog")" 2>/dev/null | cut -d: -f1 | head -n 1)
  programs="$programs $prog(${owner:-none})"
  case "$depends" in *" ${owner:-none} "*) continue ;; esac
  [ "$owner" = eyedropper ] || [ "$(dpkg-query -W -f='${Essential}' "$owner" 2>/dev/null)" = yes ] || missing="$missing $prog(${owner:-no package})"
done
if [ -n "$programs" ] && [ -z "$missing" ]; then pass "a: the unit's programs come from the package, its Depends or essential packages:$programs"
else fail "a: the unit's programs" "not from eyedropper, its Depends (${depends# }) or an essential package:${missing:- no unit}"; fi

# FFmpeg's libraries are recommended, not depended on, and this guest has none: the package
# installs, and a network camera says which packages it needs, exit 69 (EX_UNAVAILABLE), where
# a binary that linked FFmpeg would not start at all.
if ls /usr/lib/x86_64-linux-gnu/libavformat.so.* > /dev/null 2>&1; then
  fail "a: a network camera without FFmpeg" "the guest has FFmpeg's libavformat: $(ls /usr/lib/x86_64-linux-gnu/libavformat.so.*)"
else
  said=$(eyedropper sample --source rtsp://127.0.0.1:9/none --frames 1 2>&1); rc=$?
  if [ $rc -eq 69 ] && grep -q 'not installed.*sudo apt install libavformat[0-9]* libavcodec[0-9]* libavutil[0-9]*' <<<"$said"; then
    pass "a: without FFmpeg, a network camera exits 69 naming the packages: $said"
  else fail "a: a network camera without FFmpeg" "exit $rc (expected 69 naming libavformat, libavcodec, libavutil): $said"; fi
fi

# ------------------------------------------------------------------ b. enable --now, ready, sample
t=$(now)
timeout "$(scaled 180)" systemctl enable --now "$UNIT" > /tmp/enable.log 2>&1; rc=$?
first=$(code "/sample?at=0.5625,0.5")   # right after start returns: Type=notify means ready by now
started=$(now)
state=$(systemctl is-active "$UNIT")
type=$(systemctl show -p Type --value "$UNIT")
if [ $rc -eq 0 ] && [ "$state" = active ] && [ "$type" = notify ] && [ "$first" = 200 ]; then
  pass "b: systemctl enable --now $UNIT returned once ready (Type=notify; $(secs "$t" "$started") s) and the first request was answered"
else
  fail "b: systemctl enable --now $UNIT" "exit $rc, is-active $state, Type=$type, first sample HTTP $first; $(tr '\n' ' ' < /tmp/enable.log | head -c 300); $(journalctl -u "$UNIT" -o cat -n 5 | tr '\n' ' ')"
fi
# vivid's default 75% bars: magenta right of the centre, green left of it (188,0,189 and 0,189,0
# converted exactly; the package's own format and colorimetry choice may move them a little).
rgb() { sed -n 's/.*"r":\([0-9]*\),"g":\([0-9]*\),"b":\([0-9]*\).*/\1 \2 \3/p' /tmp/body | head -n 1; }
near() { # "r g b" "R G B" tolerance
  set -- $1 $2 $3
  [ $# -eq 7 ] || return 1
  for i in 1 2 3; do eval "d=\$(( \${$i} - \${$((i + 3))} ))"; [ "${d#-}" -le "$7" ] || return 1; done
}
answers() { [ "$(code "$1")" = "$2" ]; }
ok=""; wait_until 10 answers "/sample?at=0.5625,0.5" 200 && ok=yes
magenta=$(rgb); code "/sample?at=0.4375,0.5" > /dev/null; green=$(rgb)
if [ -n "$ok" ] && near "$magenta" "188 0 189" 6 && near "$green" "0 189 0" 6; then
  pass "b: /api/v1/sample reads vivid's bars at the centre: magenta $magenta, green $green"
else fail "b: /api/v1/sample on vivid's bars" "magenta '$magenta' (want 188 0 189), green '$green' (want 0 189 0): $(head -c 400 /tmp/body)"; fi

# ------------------------------------------------------------------ c. reload under a stream
FPS=$(v4l2-ctl -d /dev/video0 --get-parm 2>/dev/null | sed -n 's/.*Frames per second: *\([0-9.]*\).*/\1/p')
FPS=${FPS:-30}
install -d -o eyedropper -g eyedropper /var/lib/eyedropper/video0 2>/dev/null || mkdir -p /var/lib/eyedropper/video0
t=$(now)
# The least of the models and one curve: what is checked is that a reload applies a profile, and
# each fit (with its leave-one-out) takes tens of seconds of the guest's emulated floating point.
if eyedropper calibrate --source $S/chart.y4m --matrix bt601 --range limited --frames 3 --model linear-3x3 --curve neutrals $(cat $S/chart-corners) \
    --out /var/lib/eyedropper/video0/x.json > "$OUT/calibrate.log" 2>&1; then
  chmod 644 /var/lib/eyedropper/video0/x.json
  say "calibrate on the rendered chart: $(secs "$t" "$(now)") s, $(grep -m1 'leave-one-out' "$OUT/calibrate.log")"
else say "calibrate on the rendered chart failed: $(tail -n 3 "$OUT/calibrate.log" | tr '\n' ' ')"; fi
# The client reads for 14 s (times SPEED); the reload comes once it has had parts for a while.
$S/mjpeg-parts 8080 /api/v1/stream.mjpg "$(scaled 14)" > /tmp/parts 2>&1 &
reader=$!
has_parts() { [ "$(grep -c '^part' /tmp/parts)" -ge "$1" ]; }
wait_until 30 has_parts 30
before_reloads=$(own_journal | grep -ci 'reload')
echo "profile /var/lib/eyedropper/video0/x.json" >> /etc/eyedropper/video0.conf
treload=$(now)
timeout "$(scaled 60)" systemctl reload "$UNIT" > /tmp/reload.log 2>&1; rc=$?
treloaded=$(now)
wait $reader; reader_rc=$?
cp /tmp/parts "$OUT/mjpeg-parts.txt"
parts=$(grep -c '^part' /tmp/parts)
# Gaps between parts: the steady interval before the reload (median), the largest from 1 s
# before the reload was asked until 3 s after it returned, and how many parts came either side.
# The bar is the largest of one frame interval, that median and the largest gap of the steady
# stream before the reload (on a loaded host the emulated guest's stream stalls now and then by
# itself: 0.76 s against a median of 0.23 s in one whole run), plus 0.25 s times the guest's speed:
# a reload that holds the stream up past what the stream does alone fails it.
median=$(awk -v r="$treload" '$1 == "part" { if (n++ && $2 < r) print $2 - p; p = $2 }' /tmp/parts | sort -g \
  | awk '{ g[NR] = $1 } END { printf "%.3f", NR ? g[int((NR + 1) / 2)] : 0 }')
read -r largest at nbefore nafter <<< "$(awk -v r="$treload" -v e="$treloaded" '
  $1 == "part" { t[n++] = $2 }
  END {
    big = 0; when = 0
    for (i = 1; i < n; i++) { g = t[i] - t[i-1]
      if (t[i] >= r - 1 && t[i-1] <= e + 3 && g > big) { big = g; when = t[i-1] - r } }
    for (i = 0; i < n; i++) { if (t[i] < r) nb++; else na++ }
    printf "%.3f %.3f %d %d\n", big, when, nb, na }' /tmp/parts)"
steady=$(awk -v r="$treload" '$1 == "part" { if (n++ && $2 < r - 1 && $2 - p > m) m = $2 - p; p = $2 } END { printf "%.3f", m }' /tmp/parts)
limit=$(awk -v f="$FPS" -v m="$median" -v s="$steady" -v g="$(scaled 0.25)" \
  'BEGIN { i = 1 / f; if (m > i) i = m; if (s > i) i = s; printf "%.3f", i + g }')
say "reload: systemctl reload took $(secs "$treload" "$treloaded") s; $parts MJPEG parts ($nbefore before, $nafter after); device ${FPS} fps; gaps before the reload: median ${median} s, largest ${steady} s; largest around the reload ${largest} s (starting ${at} s from the reload)"
if [ $rc -eq 0 ] && [ "$reader_rc" = 0 ] && grep -q '^end open' /tmp/parts && [ "$nafter" -gt 0 ]; then
  pass "c: the MJPEG client stayed connected through systemctl reload ($nbefore parts before, $nafter after)"
else fail "c: MJPEG client through systemctl reload" "reload exit $rc ($(tr '\n' ' ' < /tmp/reload.log)), client: $(grep -v '^part' /tmp/parts | tr '\n' ' ') parts $nbefore before, $nafter after"; fi
if [ "$nbefore" -gt 2 ] && [ "$nafter" -gt 2 ] && awk -v g="$largest" -v l="$limit" 'BEGIN { exit !(g <= l) }'; then
  pass "c: largest gap between MJPEG parts around the reload ${largest} s <= ${limit} s (the largest of 1/${FPS} s, the median ${median} s and the steady stream's largest ${steady} s, + 0.25 s times the guest's speed ${SPEED})"
else fail "c: gap around the reload" "largest ${largest} s (limit ${limit} s, median before ${median} s, steady largest ${steady} s); $nbefore parts before, $nafter after (3 or more each side wanted)"; fi
code /status > /dev/null; cp /tmp/body "$OUT/status-after-reload.json"
if grep -q 'x\.json' /tmp/body && grep -q '"reload"' /tmp/body; then
  pass "c: /api/v1/status names the reloaded profile and has a \"reload\" entry"
else fail "c: /api/v1/status after reload" "$(head -c 600 /tmp/body)"; fi
code "/sample?at=0.5625,0.5" > /dev/null
if grep -q '"calibrated"' /tmp/body; then pass "c: samples after the reload carry the profile's calibrated colour"
else fail "c: samples after the reload" "no \"calibrated\": $(head -c 300 /tmp/body)"; fi
after_reloads=$(own_journal | grep -ci 'reload')
if [ "$after_reloads" -gt "$before_reloads" ]; then pass "c: the service logged the reload: $(own_journal | grep -i 'reload' | tail -n 1)"
else fail "c: the service's reload line" "none in its journal: $(own_journal -n 3 | tr '\n' ' ')"; fi

# ------------------------------------------------------------------ d. watchdog
wd=$(systemctl show -p WatchdogUSec --value "$UNIT")
wd_s=$(awk -v v="$wd" 'BEGIN { if (v ~ /min/) { split(v, a, "min"); s = a[1] * 60; v = a[2] } if (v ~ /ms$/) s += v / 1000; else if (v ~ /s$/) s += v + 0; print s + 0 }')
ran=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')
awk -v r="$ran" -v w="$wd_s" 'BEGIN { exit !(w > 0 && r < w + 2) }' && sleep "$(awk -v r="$ran" -v w="$wd_s" 'BEGIN { print w + 2 - r }')"
restarts=$(systemctl show -p NRestarts --value "$UNIT")
if awk -v w="$wd_s" 'BEGIN { exit !(w > 0) }' && [ "$restarts" = 0 ] && [ "$(systemctl is-active "$UNIT")" = active ]; then
  pass "d: WatchdogSec=$wd and no restart while healthy (NRestarts 0 after more than WatchdogSec)"
else fail "d: watchdog while healthy" "WatchdogUSec '$wd', NRestarts $restarts, $(systemctl is-active "$UNIT")"; fi
old=$(mainpid)
if awk -v w="$wd_s" 'BEGIN { exit !(w > 0) }' && [ "$old" != 0 ] && [ "$(systemctl is-active "$UNIT")" = active ]; then
  kill -STOP "$old"
  tstop=$(now)
  deadline=$(awk -v t="$tstop" -v w="$wd_s" -v g="$(scaled 90)" 'BEGIN { printf "%d", t + w + g }')   # the unit's RestartSec and a start under emulation
  new=""
  while [ "${EPOCHREALTIME%.*}" -lt "$deadline" ]; do
    p=$(mainpid)
    if [ "$p" != "$old" ] && [ "$p" != 0 ] && [ "$(systemctl is-active "$UNIT")" = active ]; then new=$p; break; fi
    sleep 0.2
  done
  tnew=$(now)
  if [ -n "$new" ]; then
    pass "d: SIGSTOPped main process $old killed and replaced by $new, active again $(secs "$tstop" "$tnew") s after the STOP (WatchdogSec=$wd, RestartSec=$(systemctl show -p RestartUSec --value "$UNIT"))"
  else
    fail "d: watchdog restart" "MainPID still $(mainpid), $(systemctl is-active "$UNIT") $(secs "$tstop" "$tnew") s after STOP"
    kill -CONT "$old" 2>/dev/null
  fi
else fail "d: watchdog restart" "not tried: WatchdogUSec '$wd', MainPID $old, $(systemctl is-active "$UNIT")"; fi
if journalctl -u "$UNIT" -o cat | grep -q 'Watchdog timeout'; then pass "d: the journal says: $(journalctl -u "$UNIT" -o cat | grep -m1 'Watchdog timeout')"
else fail "d: journal" "no 'Watchdog timeout' line"; fi

# ------------------------------------------------------------------ e. unplug and replug vivid
wait_until 20 answers /sample 200   # streaming again
tunplug=$(now)
if rmmod vivid 2> /tmp/rmmod.err; then how="rmmod"
else
  # vivid refuses rmmod while a program has it open, and serve (reconnect) opens it again as soon
  # as it lets go. So the unplug as a device goes: its node first (serve's next open finds none),
  # then vivid's disconnect control (ends the stream, serve closes it), then the module.
  how="rmmod refused while streaming ($(tr '\n' ' ' < /tmp/rmmod.err)), so: node moved away, disconnect=1, rmmod"
  mv /dev/video0 /dev/video0.away
  v4l2-ctl -d /dev/video0.away -c disconnect=1 > /dev/null 2>&1
  removed() { rmmod vivid 2> /tmp/rmmod.err; }
  wait_until 15 removed
  rm -f /dev/video0.away
fi
tgone=$(now)
say "unplug: $how; module gone $(secs "$tunplug" "$tgone") s after the unplug; nodes: $(ls /dev/video* 2>/dev/null | tr '\n' ' ')"
seen503=""; wait_until 10 answers /sample 503 && seen503=yes
t503=$(now)
sleep 3
gone_code=$(code /sample); gone_body=$(head -c 200 /tmp/body); status_code=$(code /status)
gone_state=$(systemctl is-active "$UNIT")
if [ ! -e /sys/module/vivid ] && [ -n "$seen503" ] && [ "$gone_code" = 503 ] && [ "$status_code" = 200 ] && [ "$gone_state" = active ]; then
  pass "e: vivid removed: the service stays active, /api/v1/sample answers 503 ($(secs "$tgone" "$t503") s after) and status 200 ($gone_body)"
else fail "e: vivid removed" "module $( [ -e /sys/module/vivid ] && echo loaded || echo gone), sample HTTP $gone_code ($gone_body), status HTTP $status_code, unit $gone_state"; fi
treplug=$(now)
modprobe vivid
back=""; wait_until 30 answers "/sample?at=0.5625,0.5" 200 && back=yes
tback=$(now)
if [ -n "$back" ] && [ "$(systemctl is-active "$UNIT")" = active ]; then
  pass "e: modprobe vivid: samples back $(secs "$treplug" "$tback") s later ($(rgb)), same main process $(mainpid)"
else fail "e: vivid back" "no 200 from /api/v1/sample $(secs "$treplug" "$tback") s after modprobe: $(head -c 200 /tmp/body); unit $(systemctl is-active "$UNIT")"; fi

# ------------------------------------------------------------------ f. the journal tells it all
journalctl -u "$UNIT" -o cat > "$OUT/journal.txt" 2>&1
journalctl -u "$UNIT" -o short-precise > "$OUT/journal-precise.txt" 2>&1
j() { grep -c "$1" "$OUT/journal.txt"; }
serving=$(j 'serving /dev/video0 on http://127.0.0.1:8080/')
if [ "$serving" -ge 2 ]; then pass "f: journal: the startup line, at the start and again after the watchdog restart ($serving times)"
else fail "f: journal startup lines" "'serving /dev/video0 on http://127.0.0.1:8080/' $serving times, want 2 (start, watchdog restart)"; fi
if [ "$(own_journal | grep -ci 'reload')" -gt 0 ] && [ "$(j 'Watchdog timeout')" -gt 0 ]; then pass "f: journal: the reload and the watchdog timeout"
else fail "f: journal reload and watchdog" "reload lines $(own_journal | grep -ci 'reload'), Watchdog timeout lines $(j 'Watchdog timeout')"; fi
# The service's own lines naming the camera, while it was gone and after it came back.
gone_lines=$(own_journal --since "@${tunplug%.*}" --until "@$(( ${treplug%.*} + 1 ))" | grep /dev/video0)
back_lines=$(own_journal --since "@${treplug%.*}" | grep /dev/video0)
if [ -n "$gone_lines" ]; then pass "f: journal: the camera gone: $(echo "$gone_lines" | head -n 1)"
else fail "f: journal camera gone" "the service logged nothing naming /dev/video0 between the unplug and the replug"; fi
if [ -n "$back_lines" ]; then pass "f: journal: the camera back: $(echo "$back_lines" | tail -n 1)"
else fail "f: journal camera back" "the service logged nothing naming /dev/video0 after the replug"; fi

# ------------------------------------------------------------------ g. remove, purge
apt remove -y eyedropper > "$OUT/apt-remove.log" 2>&1; rc=$?
if [ $rc -eq 0 ] && [ -f /etc/eyedropper/video0.conf ] && ! [ -e /usr/bin/eyedropper ]; then
  pass "g: apt remove eyedropper keeps /etc/eyedropper/video0.conf (and the reload's edit: $(grep -c '^profile' /etc/eyedropper/video0.conf) profile line)"
else fail "g: apt remove" "exit $rc, conf $(ls /etc/eyedropper/video0.conf 2>&1), binary $(ls /usr/bin/eyedropper 2>&1); $(grep '^E:' "$OUT/apt-remove.log")"; fi
apt purge -y eyedropper > "$OUT/apt-purge.log" 2>&1; rc=$?
if [ $rc -eq 0 ] && ! [ -e /etc/eyedropper ]; then pass "g: apt purge eyedropper removes /etc/eyedropper"
else fail "g: apt purge" "exit $rc, left: $(find /etc/eyedropper 2>&1 | tr '\n' ' '); $(grep '^E:' "$OUT/apt-purge.log")"; fi
say "checks done at $(cut -d' ' -f1 /proc/uptime) s uptime"
