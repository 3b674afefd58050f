#!/bin/sh
# Guest: eyedropper serve on a real driver: the sample endpoint gives vivid's bar colours in the
# driver's colorimetry and status names the agreed format; an unplug makes the frame endpoints
# answer 503 while the server keeps answering, and with --reconnect sampling comes back; SIGTERM
# ends the server and releases the camera; camera controls set through the API reach the device
# and survive the unplug. Each step waits for what it needs, never a fixed time.
# Writes PASS/FAIL lines to $RESULTS.
# Budget: 120 s on the nominal guest (Tests/VM/guest-lib.sh), where it takes about 5 s.
. /mnt/guest-lib.sh
DEV=/dev/video0
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
get() { wget -q -O - "http://127.0.0.1:$PORT$1" 2>/tmp/wget.err; }
listening() { PORT=$(sed -n 's|.*on http://127.0.0.1:\([0-9]*\)/.*|\1|p' /tmp/serve.err); [ -n "$PORT" ]; }
# A frame converted: the sample endpoint answers.
sampling() { get "/api/v1/sample" >/dev/null; }

eyedropper serve --source $DEV --size 640x480 --pixel-format YU12 --skip 2 --reconnect --listen 127.0.0.1:0 2>/tmp/serve.err &
SERVER=$!
PORT=""
wait_until 30 listening || { fail "serve: start" "$(cat /tmp/serve.err)"; kill $SERVER; exit 0; }
wait_until 30 sampling

# The magenta bar, vivid's 75% level exactly converted: 188,0,189 in BT.601 limited (its default).
out=$(get "/api/v1/sample?at=0.5625,0.6")
rgb=$(echo "$out" | sed -n 's/.*"r":\([0-9]*\),"g":\([0-9]*\),"b":\([0-9]*\).*/\1 \2 \3/p')
set -- $rgb
case "$out" in
    *'"matrix":"bt601","range":"limited"'*)
        if [ $# -eq 3 ] && [ $(($1 - 188)) -le 2 ] && [ $((188 - $1)) -le 2 ] && [ "$2" -le 2 ] \
           && [ $(($3 - 189)) -le 2 ] && [ $((189 - $3)) -le 2 ]; then pass "serve: sample of the magenta bar ($rgb)"
        else fail "serve: sample of the magenta bar" "$out"; fi ;;
    *) fail "serve: sample colorimetry" "$out $(cat /tmp/wget.err)" ;;
esac
status=$(get /api/v1/status)
case "$status" in
    *'"format":"640x480 YU12 read in place"'*'"state":"running"'*) pass "serve: status names the agreed format" ;;
    *) fail "serve: status" "$status" ;;
esac

# Camera controls through the API: the listing, a value set and read back (by the API and by
# v4l2-ctl), each refusal a 400 naming the control, and Lock.
ctl() { v4l2-ctl -d $DEV -C "$1" 2>/dev/null | sed 's/^[^:]*: //' | cut -d' ' -f1; }
put() { curl -s -o /tmp/put.out -w '%{http_code}' -X PUT -H 'Content-Type: application/json' --data "$2" "http://127.0.0.1:$PORT$1"; }
listing=$(get /api/v1/controls)
case "$listing" in
    '[{"name":"brightness","id":9963776,"type":"int","min":0,"max":255,"step":1,"default":128,"value":128,"flags":["slider"]},'*'"name":"gain_automatic"'*)
        pass "serve: GET /api/v1/controls lists the camera's controls" ;;
    *) fail "serve: GET /api/v1/controls" "$(echo "$listing" | head -c 300)" ;;
esac
code=$(put /api/v1/controls '{"saturation": 0, "menu": "Menu Item 4"}')
if [ "$code" = 200 ] && [ "$(cat /tmp/put.out)" = '{"menu":4,"saturation":0}' ] && [ "$(ctl saturation)" = 0 ] && [ "$(ctl menu)" = 4 ] \
    && get /api/v1/controls | grep -q '"name":"saturation","id":9963778,"type":"int","min":0,"max":255,"step":1,"default":128,"value":0,'; then
    pass "serve: PUT /api/v1/controls sets saturation 0 and a menu by label, answered with the values read back"
else fail "serve: PUT /api/v1/controls" "HTTP $code $(cat /tmp/put.out); device saturation $(ctl saturation), menu $(ctl menu)"; fi
# The frames made after the change: the yellow bar grey.
yellow_is_grey() {
    grey=$(get "/api/v1/sample?at=0.1875,0.6" | sed -n 's/.*"r":\([0-9]*\),"g":\([0-9]*\),"b":\([0-9]*\).*/\1 \2 \3/p')
    set -- $grey
    [ $# -eq 3 ] && [ "$1" = "$2" ] && [ "$2" = "$3" ]
}
if wait_until 20 yellow_is_grey; then pass "serve: the yellow bar reads grey ($grey) once saturation is 0"
else fail "serve: the yellow bar at saturation 0" "'$grey' $(scaled 20) s on"; fi
for bad in '{"nosuch": 1}|nosuch' '{"brightness": 300}|brightness' '{"gain": 5}|gain' '{"read_only_integer_32_bits": 1}|read_only_integer_32_bits'; do
    body=${bad%|*}; name=${bad#*|}
    code=$(put /api/v1/controls "$body")
    if [ "$code" = 400 ] && grep -q "\"parameter\":\"$name\"" /tmp/put.out; then pass "serve: PUT $body answers 400 naming $name"
    else fail "serve: PUT $body" "HTTP $code $(cat /tmp/put.out)"; fi
done
code=$(curl -s -o /tmp/lock.out -w '%{http_code}' -X POST "http://127.0.0.1:$PORT/api/v1/controls/lock")
if [ "$code" = 200 ] && grep -q '"gain_automatic":0' /tmp/lock.out && [ "$(ctl gain_automatic)" = 0 ]; then
    pass "serve: POST /api/v1/controls/lock switches gain_automatic off ($(cat /tmp/lock.out))"
else fail "serve: lock" "HTTP $code $(cat /tmp/lock.out); gain_automatic $(ctl gain_automatic)"; fi
# Another program changes a value before the unplug below: serve sets it again when the camera is back.
v4l2-ctl -d $DEV -c saturation=128

# Unplug: 503 naming the device while it is gone, status still answering; then back (--reconnect).
v4l2-ctl -d $DEV -c disconnect=1 >/dev/null 2>&1
answers503() { ! get "/api/v1/sample" >/dev/null && grep -q "503" /tmp/wget.err; }
seen503=""; wait_until 20 answers503 && seen503=yes
failed_status=$(get /api/v1/status)
if [ -n "$seen503" ]; then pass "serve: unplug answers 503"; else fail "serve: unplug" "no 503 $(scaled 20) s on: $(tail -n 3 /tmp/serve.err)"; fi
back=""; wait_until 60 sampling && back=yes
if [ -n "$back" ] && [ -n "$failed_status" ]; then pass "serve: status answers through the unplug, sampling comes back"
else fail "serve: reconnect" "status '$failed_status', back '$back': $(tail -n 3 /tmp/serve.err)"; fi
if [ "$(ctl saturation)" = 0 ] && [ "$(ctl gain_automatic)" = 0 ]; then pass "serve: controls set through the API are set again after the reconnect"
else fail "serve: controls after the reconnect" "saturation $(ctl saturation), gain_automatic $(ctl gain_automatic)"; fi

# SIGTERM: exit 0, and the camera is free for the next program.
kill -TERM $SERVER
if ! wait_until 20 ended $SERVER; then kill -9 $SERVER; fail "serve: SIGTERM" "still running $(scaled 20) s on"
else
    wait $SERVER; rc=$?
    if [ $rc -eq 0 ] && eyedropper sample --source $DEV --frames 1 --skip 0 >/dev/null 2>/tmp/after.err; then
        pass "serve: SIGTERM exits 0 and releases the camera"
    else fail "serve: SIGTERM" "exit $rc; then: $(cat /tmp/after.err)"; fi
fi
