# Sourced by the scripts that drive `eyedropper serve` from outside (browser, sanitizer, load).
# start_serve BINARY LOG [ARGS...]: starts `BINARY serve --listen 127.0.0.1:0 ARGS...` in the
# background, stderr to LOG, and once it serves (HTTP or HTTPS) sets `server` (its pid) and `port`.
start_serve() {
  local binary=$1 log=$2
  shift 2
  : >"$log"  # made here, not by the background job: the loop below may read it first
  "$binary" serve --listen 127.0.0.1:0 "$@" 2>"$log" &
  server=$!
  port=""
  for _ in $(seq 100); do
    port=$(sed -n 's|.*on https\{0,1\}://127.0.0.1:\([0-9]*\)/.*|\1|p' "$log")
    [ -n "$port" ] && return 0
    sleep 0.1
  done
  echo "eyedropper serve did not start:" >&2
  cat "$log" >&2
  kill "$server" 2>/dev/null || true
  return 1
}
