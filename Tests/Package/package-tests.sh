#!/usr/bin/env bash
# The Debian package Scripts/package makes (built first; the build is incremental), checked from
# the .deb itself: lintian has no errors; the conffiles and the paths it holds; the binary inside
# runs with the Swift toolchain hidden and links nothing of it; the man pages render without a
# warning; each completion script loads in its shell; the systemd unit verifies and its exposure
# is 2.5 or less; serve answers under the unit's system call filter and address families (a
# seccomp filter of the test's own, as systemd makes it); the sysusers entry makes the user in the group video; the configuration file
# names only options serve has, and serve starts from it. One PASS or FAIL line per check,
# SKIPPED for what this machine cannot run; exits 1 if any failed. Installing the package on a
# real Debian system is the VM test's job, not this one's.
#
#   Tests/Package/package-tests.sh            # or with a .deb already built: ... path/to.deb
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/install-deps lintian dpkg-dev man-db groff-base bash-completion zsh fish systemd curl python3 strace procps linux-libc-dev

failures=0
pass() { echo "PASS $1"; }
fail() {
  echo "FAIL $1: $2"
  failures=$((failures + 1))
}
skip() { echo "SKIPPED $1: $2"; }
# served_at LOG: the http://127.0.0.1:PORT/ a serve writing LOG says it serves on, once it does
# (waited for up to a minute: a deadline, not a time given); nothing if it never does.
served_at() {
  local address="" deadline=$((SECONDS + 60))
  while [ $SECONDS -lt $deadline ]; do
    address=$(grep -o 'http://127.0.0.1:[0-9]*/' "$1" 2>/dev/null | head -1 || true)
    [ -n "$address" ] && break
    sleep 0.05
  done
  echo "$address"
}

if [ $# -ge 1 ]; then
  deb=$(readlink -f "$1")
else
  deb=$(Scripts/package | tail -1)
fi
echo "Checking $deb"
work=$PWD/.build/package-tests
rm -rf "$work" && mkdir -p "$work"
root=$work/root
dpkg-deb -x "$deb" "$root"
dpkg-deb -e "$deb" "$work/DEBIAN"
binary=$root/usr/bin/eyedropper

# --- lintian: every tag it gives is printed; an error (E:) fails.
lintian_output=$(lintian --info --display-info --pedantic "$deb" 2>&1 || true)
echo "$lintian_output" | sed 's/^/    lintian: /'
if grep -q '^E: ' <<<"$lintian_output"; then
  fail "lintian" "$(echo "$lintian_output" | grep -c '^E: ') errors (above)"
else
  pass "lintian: no errors ($(echo "$lintian_output" | grep -c '^W: ') warnings, $(echo "$lintian_output" | grep -c '^[IP]: ') info and pedantic tags, above)"
fi

# --- What the package holds.
conffiles=$(cat "$work/DEBIAN/conffiles")
if [ "$conffiles" = "/etc/eyedropper/video0.conf" ]; then
  pass "conffiles: /etc/eyedropper/video0.conf, and nothing else"
else
  fail "conffiles" "expected /etc/eyedropper/video0.conf alone, got: $conffiles"
fi

listing=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|')
expected_paths=(
  /usr/bin/eyedropper
  /lib/systemd/system/eyedropper@.service
  /etc/eyedropper/video0.conf
  /usr/lib/sysusers.d/eyedropper.conf
  /usr/lib/modules-load.d/eyedropper.conf
  /usr/share/man/man1/eyedropper.1.gz
  /usr/share/man/man1/eyedropper-serve.1.gz
  /usr/share/bash-completion/completions/eyedropper
  /usr/share/zsh/vendor-completions/_eyedropper
  /usr/share/fish/vendor_completions.d/eyedropper.fish
  /usr/share/doc/eyedropper/copyright
  /usr/share/doc/eyedropper/changelog.Debian.gz
  /usr/share/doc/eyedropper/install.md
  /usr/share/eyedropper/palettes/css-named-colors.json
  /usr/share/eyedropper/palettes/colorchecker-classic-24.json
)
missing=()
for path in "${expected_paths[@]}"; do
  grep -qxF "$path" <<<"$listing" || missing+=("$path")
done
if [ ${#missing[@]} -eq 0 ]; then
  pass "dpkg-deb -c lists the ${#expected_paths[@]} expected paths"
else
  fail "dpkg-deb -c" "missing ${missing[*]}"
fi
if [ -f Packaging/prometheus/eyedropper-alerts.yml ]; then
  if grep -qxF /usr/share/eyedropper/prometheus/eyedropper-alerts.yml <<<"$listing"; then
    if promtool check rules "$root/usr/share/eyedropper/prometheus/eyedropper-alerts.yml" >"$work/promtool.log" 2>&1; then
      pass "the Prometheus alert rules are in the package, and promtool check rules takes them"
    else
      fail "Prometheus alert rules" "promtool check rules: $(cat "$work/promtool.log")"
    fi
  else
    fail "Prometheus alert rules" "Packaging/prometheus/eyedropper-alerts.yml exists but is not in the package"
  fi
else
  skip "Prometheus alert rules" "Packaging/prometheus/eyedropper-alerts.yml is not in this checkout"
fi

# --- The control file: the version is the binary's, Depends has the libraries it links.
control_version=$(dpkg-deb -f "$deb" Version)
depends=$(dpkg-deb -f "$deb" Depends)
echo "    Version: $control_version"
echo "    Depends: $depends"
binary_version=$(env -i "$binary" --version 2>&1 || true)
if [ "$control_version" = "$binary_version-1" ]; then
  pass "the package's version $control_version is the binary's --version ($binary_version) with revision -1"
else
  fail "version" "package $control_version, binary --version '$binary_version'"
fi
missing=()
for library in libc6 libstdc++6 libgcc-s1 libv4l-0 libturbojpeg0 libmosquitto1; do
  grep -qxF "$library" <<<"$(tr ',|' '\n\n' <<<"$depends" | awk '{ print $1 }')" || missing+=("$library")
done
if [ ${#missing[@]} -eq 0 ] && ! grep -qi swift <<<"$depends"; then
  pass "Depends names libc6, libstdc++6, libgcc-s1, libv4l-0, libturbojpeg0 and libmosquitto1, nothing of Swift"
else
  fail "Depends" "missing ${missing[*]:-nothing} in: $depends"
fi
# FFmpeg's libraries are loaded when a network camera is opened, not linked: Recommends, so that
# a machine without them installs the package and reads every other source.
recommends=$(dpkg-deb -f "$deb" Recommends)
echo "    Recommends: $recommends"
names() { tr ',|' '\n\n' <<<"$1" | awk '{ print $1 }'; }
if grep -q '^libav' <<<"$(names "$depends")"; then
  fail "FFmpeg in Recommends" "Depends names FFmpeg's libraries (linked again?): $depends"
elif [ "$(names "$recommends" | grep -cE '^lib(avformat|avcodec|avutil)[0-9]+$')" -ne 3 ]; then
  fail "FFmpeg in Recommends" "Recommends does not name libavformat, libavcodec and libavutil: '$recommends'"
else
  pass "FFmpeg's libraries are Recommends ($recommends), not Depends"
fi

# --- The binary runs without the Swift toolchain.
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
linked=$(ldd "$binary")
if grep -qF "$toolchain" <<<"$linked" || grep -q 'not found' <<<"$linked"; then
  fail "ldd" "the binary links from the toolchain $toolchain or misses a library: $linked"
elif [[ "$(readelf -d "$binary" | grep -E 'RPATH|RUNPATH' || true)" == *"$toolchain"* ]]; then
  fail "ldd" "the binary's RUNPATH points into the toolchain: $(readelf -d "$binary" | grep -E 'RPATH|RUNPATH')"
else
  pass "ldd names no library under the Swift toolchain ($toolchain), none missing: $(awk '{ print $1 }' <<<"$linked" | tr '\n' ' ')"
fi
# The toolchain hidden under an empty tmpfs, in a mount namespace of the test's own.
hidden=$(unshare --mount --propagation private sh -c \
  'mount -t tmpfs none "$1" && ls -A "$1" | wc -l && env -i "$2" --version' sh "$toolchain" "$binary" 2>&1) || true
if [ "$hidden" = "$(printf '0\n%s' "$binary_version")" ] && [ -n "$binary_version" ]; then
  pass "the binary runs --version (prints $binary_version) with env -i and the toolchain $toolchain hidden"
else
  fail "the binary without the toolchain" "$hidden"
fi

# --- Man pages: one per command, rendered by man (as lintian runs it) and groff, no warnings.
commands=$(env -i "$binary" --experimental-dump-help | python3 -c '
import json, sys
def walk(command, prefix):
    name = prefix + [command["commandName"]]
    print("-".join(name))
    for sub in command.get("subcommands", []):
        walk(sub, name)
walk(json.load(sys.stdin)["command"], [])')
missing=()
warned=()
for command in $commands; do
  page=$root/usr/share/man/man1/$command.1.gz
  if [ ! -f "$page" ]; then
    missing+=("$command")
    continue
  fi
  said=$(MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null)
  said+=$(zcat "$page" | groff -mandoc -Tutf8 -ww -z 2>&1)
  rendered=$(MANWIDTH=80 man -l "$page" 2>/dev/null | wc -l)
  if [ -n "$said" ] || [ "$rendered" -lt 10 ]; then warned+=("$command ($rendered lines): $said"); fi
done
if [ ${#missing[@]} -eq 0 ] && [ ${#warned[@]} -eq 0 ]; then
  pass "man pages: one for each of the $(wc -w <<<"$commands") commands, each renders without a warning (man --warnings, groff -ww)"
else
  fail "man pages" "missing: ${missing[*]:-none}; warnings: ${warned[*]:-none}"
fi
# The page of serve: named for whatis, its synopsis the command as typed, every option of serve.
serve_page=$(MANWIDTH=200 man -l "$root/usr/share/man/man1/eyedropper-serve.1.gz" 2>/dev/null || true)
whatis=$(lexgrog "$root/usr/share/man/man1/eyedropper-serve.1.gz" 2>&1 || true)
undocumented=$(env -i "$binary" serve --experimental-dump-help | python3 -c '
import json, sys
for argument in json.load(sys.stdin)["command"]["arguments"]:
    for name in argument.get("names", []):
        if name["kind"] == "long":
            print("--" + name["name"])' | while read -r option; do grep -qF -- "$option" <<<"$serve_page" || echo "$option"; done)
if [[ "$whatis" == *'"eyedropper-serve - '* ]] && grep -qE '^ +eyedropper serve \[--' <<<"$serve_page" && [ -z "$undocumented" ]; then
  pass "man eyedropper-serve: whatis reads it (lexgrog), its synopsis says 'eyedropper serve', and it has every option of serve"
else
  fail "man eyedropper-serve" "lexgrog: $whatis; options missing: ${undocumented:-none}; synopsis: $(grep -A1 SYNOPSIS <<<"$serve_page" | tail -1)"
fi

# --- Completions, each loaded by its own shell.
bash_completion=$root/usr/share/bash-completion/completions/eyedropper
# (Each shell's output is taken whole before grep reads it: grep -q stopping early would give the
# shell SIGPIPE, and pipefail a failure that is not one.)
bash_said=$(bash -c 'source "$1" && complete -p eyedropper' sh "$bash_completion" 2>&1 || true)
if bash -n "$bash_completion" && grep -q ' eyedropper$' <<<"$bash_said"; then
  pass "bash completion: parses, and complete -p eyedropper names its function"
else
  fail "bash completion" "bash -n or complete -p eyedropper failed"
fi
zsh_completion=$root/usr/share/zsh/vendor-completions/_eyedropper
if command -v zsh >/dev/null; then
  if zsh -n "$zsh_completion" && zsh -c 'fpath=("$1" $fpath); autoload -Uz compinit && compinit -u -d "$2" && [[ ${_comps[eyedropper]} == _eyedropper ]]' \
    zsh "$(dirname "$zsh_completion")" "$work/zcompdump"; then
    pass "zsh completion: parses, and compinit binds _eyedropper to eyedropper"
  else
    fail "zsh completion" "zsh -n or compinit failed"
  fi
else
  skip "zsh completion" "zsh is not installed"
fi
fish_completion=$root/usr/share/fish/vendor_completions.d/eyedropper.fish
if command -v fish >/dev/null; then
  fish_said=$(fish -c 'source $argv[1]; complete -c eyedropper' "$fish_completion" 2>&1 || true)
  if fish -n "$fish_completion" && grep -q -- 'serve' <<<"$fish_said"; then
    pass "fish completion: parses, and complete -c eyedropper offers serve"
  else
    fail "fish completion" "fish -n or complete -c eyedropper failed"
  fi
else
  skip "fish completion" "fish is not installed"
fi

# --- The systemd unit: as the issue asks, verified with no warnings, exposure 2.5 or less.
unit=$root/lib/systemd/system/eyedropper@.service
for line in 'ExecStart=/usr/bin/eyedropper serve --config /etc/eyedropper/%i.conf' Type=notify NotifyAccess=main \
  'ExecReload=/bin/kill -HUP $MAINPID' Restart=on-failure User=eyedropper Group=eyedropper SupplementaryGroups=video \
  StateDirectory=eyedropper/%i DevicePolicy=closed 'DeviceAllow=char-video4linux rw' \
  'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6'; do
  grep -qxF "$line" "$unit" || fail "the unit" "has no line $line"
done
grep -qE '^WatchdogSec=[1-9]' "$unit" || fail "the unit" "has no WatchdogSec="
# DeviceAllow=char-video4linux finds the major in /proc/devices, there once videodev is loaded.
grep -qx videodev "$root/usr/lib/modules-load.d/eyedropper.conf" || fail "modules-load.d" "videodev is not loaded at boot"
if grep -qE '^(PrivateDevices|PrivateUsers)=(yes|true|1)' "$unit"; then
  fail "the unit" "PrivateDevices or PrivateUsers would hide /dev/video* or the group video"
fi
units=$work/units
mkdir -p "$units"
# The binary is on this machine under the extracted tree, not at /usr/bin.
sed "s|/usr/bin/eyedropper|$binary|" "$unit" >"$units/eyedropper@.service"
ln -s eyedropper@.service "$units/eyedropper@video0.service"
said=$(systemd-analyze verify --man=no "$units/eyedropper@video0.service" 2>&1) && status=0 || status=$?
if [ $status -eq 0 ] && [ -z "$said" ]; then
  pass "systemd-analyze verify eyedropper@video0.service: no warnings"
else
  fail "systemd-analyze verify" "status $status: $said"
fi
security=$(systemd-analyze security --offline=yes "$units/eyedropper@video0.service" 2>&1 || true)
exposure=$(sed -n 's/.*Overall exposure level for eyedropper@video0.service: \([0-9.]*\).*/\1/p' <<<"$security")
if [ -n "$exposure" ] && python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= 2.5 else 1)" "$exposure"; then
  pass "systemd-analyze security --offline=yes: exposure $exposure, at most 2.5"
else
  echo "$security" | sed 's/^/    /'
  fail "systemd-analyze security" "exposure '${exposure:-none found}', more than 2.5"
fi

# --- The sandbox at work, as far as this machine can run it without systemd: serve on the test
# pattern under the unit's own SystemCallFilter and RestrictAddressFamilies, made into a seccomp
# filter by sandbox-exec.py, as systemd makes them; strace says which calls the filter refused.
# Every endpoint must answer 200, and serve exit 0 on SIGTERM.
strace -f -qq -o "$work/serve.trace" python3 Tests/Package/sandbox-exec.py "$unit" "$binary" serve \
  --source testpattern --listen 127.0.0.1:0 --at 0.5,0.5 --profile-dir "$work" >"$work/sandboxed.log" 2>&1 &
tracer=$!
address=$(served_at "$work/sandboxed.log")
answers=""
if [ -n "$address" ]; then
  # The frame endpoints answer 503 until the first frame (slower under strace): wait for it.
  deadline=$((SECONDS + 60))
  while [ $SECONDS -lt $deadline ]; do
    curl -s "${address}api/v1/status" | grep -q '"framesCaptured":[1-9]' && break
    sleep 0.05
  done
  for path in "" healthz api/v1/status 'api/v1/sample?at=0.1,0.1&radius=2' api/v1/frame.jpg metrics api/v1/chart \
    api/v1/openapi.json api/v1/controls; do
    answers+="$(curl -s -o /dev/null -w '%{http_code}' "$address$path" || true) "
  done
  # The streams never end: each is read until its first byte of body, then left; its status from
  # the head.
  for path in api/v1/stream.mjpg api/v1/samples; do
    rm -f "$work/head"
    curl -s -N -m 60 -D "$work/head" "$address$path" | head -c 1 >/dev/null || true
    answers+="$(sed -n '1s|^HTTP/[0-9.]* \([0-9]*\).*|\1|p' "$work/head" 2>/dev/null) "
  done
fi
served=$(pgrep -P "$tracer" || true)
[ -n "$served" ] && kill -TERM "$served"
status=0
wait "$tracer" || status=$?
refused=$(sed -n -E 's/^[0-9]+ +(<\.\.\. )?([a-z_0-9]+)[ (].*= -1 (EPERM|EAFNOSUPPORT) .*/\2 \3/p' "$work/serve.trace" |
  sort | uniq -c | awk '{ printf "%s %s x%s; ", $2, $3, $1 }')
if [ "$answers" = "$(printf '200 %.0s' $(seq 11))" ] && [ $status -eq 0 ]; then
  pass "serve under the unit's system call filter and address families: 11 endpoints answer 200, exit 0 on SIGTERM (refused meanwhile: ${refused:-nothing})"
else
  fail "serve under the unit's system call filter" "answers: '${answers}', exit $status, refused: ${refused:-nothing}; serve said: $(head -5 "$work/sandboxed.log")"
fi

# --- The user: systemd-sysusers on a throwaway root holding this machine's users and groups.
sysroot=$work/sysroot
mkdir -p "$sysroot/etc" "$sysroot/usr/lib/sysusers.d"
cp /etc/passwd /etc/group /etc/shadow /etc/gshadow "$sysroot/etc/" 2>/dev/null || true
cp "$root/usr/lib/sysusers.d/eyedropper.conf" "$sysroot/usr/lib/sysusers.d/"
if systemd-sysusers --root="$sysroot" eyedropper.conf >"$work/sysusers.log" 2>&1 &&
  grep -q '^eyedropper:x:[0-9]*:[0-9]*:.*:/usr/sbin/nologin$' "$sysroot/etc/passwd" &&
  grep -qE '^video:x:[0-9]+:(.*,)?eyedropper(,|$)' "$sysroot/etc/group" &&
  grep -q '^eyedropper:x:' "$sysroot/etc/group"; then
  pass "systemd-sysusers eyedropper.conf: a system user eyedropper (nologin) with a group of its own, a member of video"
else
  fail "sysusers" "$(cat "$work/sysusers.log"); passwd: $(grep eyedropper "$sysroot/etc/passwd"); video: $(grep '^video:' "$sysroot/etc/group")"
fi

# --- Maintainer scripts parse.
for script in postinst prerm postrm; do
  if sh -n "$work/DEBIAN/$script" && [ -x "$work/DEBIAN/$script" ]; then :; else fail "$script" "does not parse or is not executable"; fi
done
pass "postinst, prerm, postrm: executable, and sh -n parses them"

# --- The configuration: every option it names or shows (active or as a #example) is one of
# serve's; and serve starts from it, with the camera swapped for the test pattern.
conf=$root/etc/eyedropper/video0.conf
options=$(env -i "$binary" serve --experimental-dump-help | python3 -c '
import json, sys
for argument in json.load(sys.stdin)["command"]["arguments"]:
    for name in argument.get("names", []):
        if name["kind"] == "long":
            print(name["name"])')
unknown=$(sed -n -E 's/^#?([a-z][a-z-]*)( .*)?$/\1/p' "$conf" | sort -u | grep -vxF -f <(echo "$options") || true)
named=$(sed -n -E 's/^#?([a-z][a-z-]*)( .*)?$/\1/p' "$conf" | sort -u | wc -l)
if [ -z "$unknown" ] && [ "$named" -ge 15 ]; then
  pass "video0.conf names $named options of serve, active or as examples, all of them real"
else
  fail "video0.conf" "not options of serve: ${unknown:-none}; $named named"
fi
for line in 'source /dev/video0' 'listen 127.0.0.1:8080' 'profile-dir /var/lib/eyedropper/video0'; do
  grep -qxF "$line" "$conf" || fail "video0.conf" "has no line '$line'"
done
if grep -q -- '--config' <<<"$(env -i "$binary" serve --help)"; then
  # Serve's own: the test pattern for the camera, a free port, a scratch profile directory.
  sed -e 's|^source .*|source testpattern|' -e 's|^listen .*|listen 127.0.0.1:0|' \
    -e "s|^profile-dir .*|profile-dir $work/profiles|" "$conf" >"$work/serve.conf"
  mkdir -p "$work/profiles"
  env -i "$binary" serve --config "$work/serve.conf" >"$work/serve.log" 2>&1 &
  serve=$!
  address=$(served_at "$work/serve.log")
  points=$([ -n "$address" ] && curl -s "${address}api/v1/status" | python3 -c 'import json, sys; print(json.load(sys.stdin)["points"])' || true)
  kill "$serve" 2>/dev/null || true
  wait "$serve" 2>/dev/null || true
  if [ "$points" = "[[0.5, 0.5]]" ]; then
    pass "serve --config video0.conf (source and listen swapped) serves the file's point 0.5,0.5 at $address"
  else
    fail "serve --config" "no status with the point 0.5,0.5 (got '$points'); serve said: $(cat "$work/serve.log")"
  fi
else
  skip "serve --config video0.conf" "this binary's serve has no --config yet"
fi

echo
if [ $failures -gt 0 ]; then
  echo "$failures checks FAILED"
  exit 1
fi
echo "every check passed"
