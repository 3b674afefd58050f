# Sourced by the scripts that drive `eyedropper serve` from outside (browser, sanitizer, load).
# start_serve BINARY LOG [ARGS...]: starts `BINARY serve --listen 127.0.0.1:0 ARGS...` in the
# background, stderr to LOG, and once it serves (HTTP or HTTPS) sets `server` (its pid) and `port`.
# Waits for the line that says so, up to a minute (a deadline for a server that never starts, not
# a time it is given), or until the server has ended.
start_serve() {
  local binary=$1 log=$2 deadline=$((SECONDS + 60))
  shift 2
  : >"$log"  # made here, not by the background job: the loop below may read it first
  "$binary" serve --listen 127.0.0.1:0 "$@" 2>"$log" &
  server=$!
  port=""
  while [ $SECONDS -lt $deadline ] && kill -0 "$server" 2>/dev/null; do
    port=$(sed -n 's|.*on https\{0,1\}://127.0.0.1:\([0-9]*\)/.*|\1|p' "$log")
    [ -n "$port" ] && return 0
    sleep 0.05
  done
  echo "eyedropper serve did not start:" >&2
  cat "$log" >&2
  kill "$server" 2>/dev/null || true
  return 1
}
