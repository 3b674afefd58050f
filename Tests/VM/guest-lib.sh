# Sourced by the guest scripts (Tests/VM/vivid-tests.sh puts it beside them as /mnt/guest-lib.sh):
# their result lines, and waits on a condition with a deadline in the guest's own time.
#
# SPEED (set by the runner) is how many times longer than on the guest the budgets were written
# for this guest takes to run the same eyedropper work, measured at boot (at least 1): a deadline
# here is the seconds given times SPEED, so that a slow host's emulation waits longer instead of
# failing, and a fast one is not held back.
RESULTS=${RESULTS:-/mnt/out/results.txt}
SPEED=${SPEED:-1}
pass() { echo "PASS $1" >> "$RESULTS"; }
fail() { echo "FAIL $1: $2" >> "$RESULTS"; }
# Seconds since boot, with hundredths.
uptime_s() { cut -d' ' -f1 /proc/uptime; }
# scaled SECONDS: SECONDS on this guest (times SPEED), with hundredths.
scaled() { awk -v s="$1" -v f="$SPEED" 'BEGIN { printf "%.2f", s * f }'; }
# wait_until SECONDS COMMAND...: runs COMMAND every tenth of a second until it succeeds (status 0)
# or SECONDS (times SPEED) have passed (status 1).
wait_until() {
    _end=$(awk -v now="$(uptime_s)" -v s="$1" -v f="$SPEED" 'BEGIN { printf "%.2f", now + s * f }')
    shift
    while ! "$@"; do
        awk -v now="$(uptime_s)" -v end="$_end" 'BEGIN { exit !(now >= end) }' && return 1
        sleep 0.1
    done
    return 0
}
# lines FILE: the JSON lines of frames in FILE (eyedropper sample's output).
lines() { _n=$(grep -c '^{"frame"' "$1" 2>/dev/null); echo "${_n:-0}"; }
# has_frames FILE N: FILE holds at least N frames' lines.
has_frames() { [ "$(lines "$1")" -ge "$2" ]; }
# running PID: the process is alive.
running() { kill -0 "$1" 2>/dev/null; }
# ended PID: the process has ended.
ended() { ! kill -0 "$1" 2>/dev/null; }
