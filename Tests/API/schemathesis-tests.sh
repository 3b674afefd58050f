#!/usr/bin/env bash
# The HTTP API against its contract, Sources/EyedropperServer/openapi.json: schemathesis (PyPI)
# loads the document from the running server (/api/v1/openapi.json) and sends every operation
# valid and invalid requests (positive and negative modes, its examples, coverage and fuzzing
# phases), failing on any 5xx, a status code, content type, header or body the document does not
# give for that operation, valid data refused or invalid data accepted, another method not 405 with
# Allow. On the test pattern with a token and without one (each server serves the document that
# describes it), then on a chart served with --profile and --target (samples and status gain
# their calibrated fields, and real fits are made). Builds nothing: give the binary as $EYEDROPPER
# (default .build/release/eyedropper). The Python packages live in a venv of their own,
# .build/schemathesis-venv, made on the first run and reused. Reports (JUnit) and the servers' logs
# go to .build/api. SCHEMATHESIS_EXAMPLES bounds the examples per operation (default 500: about
# three minutes in all on 2 cores, two of them the first server's run; the seed is fixed, so a run
# is repeatable).
#
# The two streams (/api/v1/samples, /api/v1/stream.mjpg) never end, and schemathesis reads a
# response to its end: its request timeout is between two reads, and a frame comes every 33 ms,
# so it would wait for ever. So schemathesis gets their error paths alone (negative mode, the
# plain GET dropped by stream_hooks.py: what is left is every other method, 405 with Allow), and
# stream_check.py reads their first events and parts and checks them against the document
# (content type, Cache-Control, each event's data against its schema, each part a whole JPEG),
# a parameter they do not take (400), then opens --max-streams of them and checks that the next
# is the documented 503.
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/install-deps python3-venv curl
eyedropper="${EYEDROPPER:-.build/release/eyedropper}"
[ -x "$eyedropper" ] || { echo "no eyedropper at $eyedropper: build it (swift build -c release) or set EYEDROPPER" >&2; exit 1; }
venv=.build/schemathesis-venv
requirements=Tests/API/requirements.txt
Tests/python-venv.sh "$venv" "$requirements"
out=.build/api
rm -rf "$out"
mkdir -p "$out"
examples="${SCHEMATHESIS_EXAMPLES:-500}"
max_streams=4
source Tests/Serve/start-serve.sh
trap 'kill $server 2>/dev/null || true' EXIT

# schemathesis NAME [ARGS...]: one run against the server on $port, every check (with
# `ignored_auth`: requests without the token, or with a wrong one, must be refused as the document
# says), its JUnit report in $out/NAME.xml. One worker: schemathesis 4.32 on Python 3.11 failed
# with two ("AST constructor recursion depth mismatch"), and it is quick anyway.
schemathesis() {
  local name=$1
  shift
  echo "schemathesis: $name"
  # From $out: schemathesis keeps the failures it found under .schemathesis/ where it runs, to try
  # them first next time; a run here starts afresh, as $out is emptied at the start. The request
  # timeout is a deadline for an answer that never comes (every answer here is immediate; the
  # streams are not asked for), not a time an answer is given: a loaded machine answers late.
  (cd "$out" && "$OLDPWD/$venv/bin/schemathesis" run "http://127.0.0.1:$port/api/v1/openapi.json" \
    --header "Authorization: Bearer $token" \
    --url "http://127.0.0.1:$port" --checks all --max-examples "$examples" --seed 14 --workers 1 --request-timeout 60 \
    --phases examples,coverage,fuzzing --no-color --report junit --report-junit-path "$name.xml" "$@")
}

# The server has a token, as on a network: every operation's 401 is checked too.
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s\n' "$token" >"$out/token"
serve_options=(--token-file "$out/token")
streams=(--include-path /api/v1/samples --include-path /api/v1/stream.mjpg --include-path /api/v1/recording.y4m)
not_streams=(--exclude-path /api/v1/samples --exclude-path /api/v1/stream.mjpg --exclude-path /api/v1/recording.y4m)
# The chart the browser tests calibrate, and its profile: the first server keeps it in its profile
# directory as profile.json, the name the document's example applies.
eval "$(python3 -B Tests/Browser/calibrated_page.py chart "$out")"
"$eyedropper" calibrate --source "$out/chart.y4m" --matrix bt601 --frames 2 --reference "$out/reference.json" \
  --out "$out/profile.json" "${corners[@]}" >"$out/calibrate.txt" 2>&1 || { cat "$out/calibrate.txt" >&2; exit 1; }
mkdir -p "$out/profiles"
cp "$out/profile.json" "$out/profiles/profile.json"
# On the test pattern every fit is refused (no chart, 422): what is fitted is checked below.
start_serve "$eyedropper" "$out/serve.log" --source testpattern --size 640x480 --max-streams $max_streams "${serve_options[@]}" \
  --profile-dir "$out/profiles"
schemathesis testpattern "${not_streams[@]}"
SCHEMATHESIS_HOOKS=stream_hooks PYTHONPATH="$PWD/Tests/API" schemathesis testpattern-streams "${streams[@]}" --mode negative
"$venv/bin/python" -B Tests/API/stream_check.py "http://127.0.0.1:$port" $max_streams --token "$token"
kill -TERM $server
wait $server

# Without a token, as on loopback: the document this server serves asks for none (no bearer
# requirement, no 401), and every check holds against it. The handlers behind it are those fuzzed
# above with $examples examples each; what differs is the document and the absence of a token,
# which the coverage phase and 100 examples each reach.
start_serve "$eyedropper" "$out/serve-open.log" --source testpattern --size 640x480 --max-streams $max_streams \
  --profile-dir "$out/profiles"
schemathesis testpattern-open "${not_streams[@]}" --max-examples 100
kill -TERM $server
wait $server

# With a camera profile and a target, on that chart; its white patch (the last corner given) as
# a white reference of known colour, and the ColorChecker's names: lines gain "reference" and
# "nearest", the status "reference" and "palette".
start_serve "$eyedropper" "$out/serve-calibrated.log" --source "$out/chart.y4m" --matrix bt601 \
  --profile "$out/profile.json" --target "$target" --radius 4 "${points[@]/#/--at=}" "${serve_options[@]}" \
  --profile-dir "$out/profiles" --white-reference "${corners[-1]}" --white-reference-lab 95,-1,3 \
  --palette Packaging/palettes/colorchecker-classic-24.json --max-delta-e 5
schemathesis calibrated --include-path /api/v1/sample --include-path /api/v1/status
# Fits of the chart in view: each takes a second or two, so a few examples (and the coverage
# phase's edge cases) only; every 201 body against the document.
schemathesis calibrated-fits --include-path /api/v1/calibration --max-examples 3
"$venv/bin/python" -B Tests/API/stream_check.py "http://127.0.0.1:$port" $max_streams --calibrated --token "$token"
kill -TERM $server
wait $server
trap - EXIT
