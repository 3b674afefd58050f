#!/usr/bin/env bash
# V4L2 tests against a real kernel driver: boots a stock Debian kernel under qemu (TCG: the host
# kernel cannot load modules, and its /dev/kvm cannot run a stock kernel), loads vivid (the
# kernel's virtual camera) in the guest and runs the guest scripts of this folder there.
#
# usage: Tests/VM/vivid-tests.sh [GUEST_SCRIPT...]    (default: every Tests/VM/guest-*.sh)
#        Tests/VM/vivid-tests.sh --prepare   (only the downloads and the build, into the cache: the
#                                            kernel package, and with VM_LOOPBACK=1 v4l2loopback)
#
# Guest scripts run with: vivid freshly loaded with its default parameters (/dev/video0 is its
# capture node; /mods/vivid.ko to reload it with others), `eyedropper` and `v4l2-ctl` on PATH,
# a writable /tmp, /mnt/guest-lib.sh to source (Tests/VM/guest-lib.sh: PASS/FAIL lines and
# wait_until), and RESULTS set to the file to append one `PASS name` or `FAIL name: details` line
# per check to. Results come back over virtio-9p. The last line printed is `N passed, M failed`;
# the exit status is non-zero when M > 0 or when the VM produced no results.
#
# Budgets scale with the guest's speed, measured at boot (Tests/VM/vm-speed.sh), never seconds
# tuned on one host. Each script states its budget on the guest the budgets were written for (a
# line `# Budget: N s`); it is killed after N x SPEED seconds, and the VM after the sum of them
# all, times SPEED, from when the guest measured it. Each script's own waits are on conditions,
# with deadlines times SPEED too (guest-lib.sh's wait_until).
#
# Environment: EYEDROPPER (the binary the guest runs; default: the release product, built here),
# ACCEL (default tcg), VM_CPU (qemu's -cpu under tcg, default max), VM_HOSTFWD (e.g. tcp:127.0.0.1:18080-:8080: a host port
# forwarded to the guest, whose eth0 is 10.0.2.15; without it the guest has no network but
# loopback), KEEP_VM_WORK=1 keeps the temporary work directory, EYEDROPPER_VM_CACHE (kernel .deb
# cache), VM_LOOPBACK=1 (v4l2loopback built for the guest kernel as /mods/v4l2loopback.ko, not
# loaded, and v4l2-feed on PATH to feed it), VM_DATA (a directory the guest sees as /mnt/data),
# VM_OUT (a directory the guest's /mnt/out is copied to when the VM is done).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ACCEL=${ACCEL:-tcg}
CACHE=${EYEDROPPER_VM_CACHE:-$ROOT/.build/vm-cache}   # .build/ is git-ignored
T0=$EPOCHREALTIME
since() { awk -v a="$EPOCHREALTIME" -v b="$1" 'BEGIN{printf "%.1f", a-b}'; }
step() { printf '=== [%5ss] %s\n' "$(since "$T0")" "$*"; }
export DEBIAN_FRONTEND=noninteractive

prepare_only=0
if [ "${1:-}" = --prepare ]; then prepare_only=1; shift; fi
if [ $# -gt 0 ]; then SCRIPTS=("$@"); else SCRIPTS=("$ROOT"/Tests/VM/guest-*.sh); fi
SCRIPTS=("${SCRIPTS[@]/*\/guest-lib.sh/}")   # sourced by the others, not one of them
BUDGETS=()
for s in "${SCRIPTS[@]}"; do
  [ -n "$s" ] || continue
  [ -f "$s" ] || { echo "no such guest script: $s" >&2; exit 2; }
  budget=$(sed -n 's/^# Budget: \([0-9][0-9]*\) s.*/\1/p' "$s" | head -n 1)
  [ -n "$budget" ] || { echo "$s: no '# Budget: N s' line (its time limit on the nominal guest)" >&2; exit 2; }
  BUDGETS+=("$budget")
done

WORK=$(mktemp -d -t eyedropper-vm.XXXXXX)
cleanup() { if [ "${KEEP_VM_WORK:-0}" = 1 ]; then echo "work directory kept: $WORK"; else rm -rf "$WORK"; fi; }
trap cleanup EXIT

# ------------------------------------------------------------------ host packages
step "host packages"
# install-deps does nothing (and needs no network) when all are installed already.
"$ROOT"/Scripts/install-deps qemu-system-x86 busybox-static kmod v4l-utils libv4l-dev curl python3
[ "${VM_LOOPBACK:-0}" = 1 ] && "$ROOT"/Scripts/install-deps gcc make libc6-dev libelf-dev

# ------------------------------------------------------------------ guest kernel
# The current Debian kernel package, cached across runs (Tests/VM/vm-kernel.sh). Only the kernel
# image and the module trees the guest loads from (media and 9p/virtio) are unpacked, with the
# modules.* index files depmod needs; the rest of the 400 MB is never written.
. "$ROOT/Tests/VM/vm-kernel.sh"
. "$ROOT/Tests/VM/vm-speed.sh"
guest_kernel_deb "$CACHE"
step "unpack $(basename "$KDEB")"
KROOT=$WORK/kroot
unpack_guest_kernel "$KROOT" 'drivers/media/*' 'drivers/virtio/*' 'net/9p/*' 'fs/9p/*' 'drivers/net/virtio_net.ko' \
  'drivers/net/net_failover.ko' 'net/core/failover.ko' 'fs/netfs/*' 'fs/fscache/*'
echo "guest kernel $K"

# ------------------------------------------------------------------ v4l2loopback (VM_LOOPBACK=1)
# Debian's v4l2loopback-dkms source, built against the guest kernel's headers (downloaded and
# unpacked, not installed: the host's kernel is another), cached beside the kernel package.
LOOPBACK_KO=$CACHE/v4l2loopback-$K.ko
if [ "${VM_LOOPBACK:-0}" = 1 ] && [ ! -f "$LOOPBACK_KO" ]; then
  step "build v4l2loopback for $K"
  L=$WORK/loopback; mkdir -p "$L/debs"
  (cd "$L/debs" && apt-get download -q v4l2loopback-dkms "linux-headers-$K" "linux-headers-${K%-amd64}-common" \
    "linux-kbuild-${K%%.*}.$(echo "$K" | cut -d. -f2)" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
  for deb in "$L"/debs/*.deb; do dpkg -x "$deb" "$L/root"; done
  HEADERS=$L/root/usr/src/linux-headers-$K
  [ -f "$HEADERS/Makefile" ] || { echo "the headers of $K could not be downloaded" >&2; exit 1; }
  # The headers' Makefile includes the common headers by their installed path: point it at ours.
  sed -i "s|^include /usr/src/|include $L/root/usr/src/|" "$HEADERS/Makefile"
  SRC=$(ls -d "$L"/root/usr/src/v4l2loopback-*)
  make -s -C "$HEADERS" M="$SRC" modules > "$L/make.log" 2>&1 || { cat "$L/make.log"; exit 1; }
  cp "$SRC/v4l2loopback.ko" "$LOOPBACK_KO"
fi
if [ "$prepare_only" = 1 ]; then
  step "prepared: $(basename "$KDEB")$([ "${VM_LOOPBACK:-0}" = 1 ] && echo " and $(basename "$LOOPBACK_KO")") in $CACHE"
  exit 0
fi

# ------------------------------------------------------------------ eyedropper for the guest
# The binary the guest runs: $EYEDROPPER when given, as the other test scripts take it (Scripts/test
# gives its release build's), else the product built here. Not built again after Scripts/test's
# build: `swift build --product` links it anew (seconds on an idle machine, a minute and a half on a
# busy one), as swift test's build of the executable is not the one it wants. The Swift runtime is
# linked in (Package.swift): the guest gets the binary and the system libraries ldd names.
if [ -n "${EYEDROPPER:-}" ]; then
  EYEDROPPER=$(realpath "$EYEDROPPER")
  [ -x "$EYEDROPPER" ] || { echo "no eyedropper at $EYEDROPPER (EYEDROPPER)" >&2; exit 1; }
  step "eyedropper: $EYEDROPPER"
else
  step "swift build (release, the product)"
  if ! (cd "$ROOT" && swift build -c release --product eyedropper > "$WORK/build.log" 2>&1); then
    cat "$WORK/build.log"; echo "swift build failed" >&2; exit 1
  fi
  grep -Ev "warning: the use of .mktemp' is dangerous|^\[[0-9]+/[0-9]+\]" "$WORK/build.log" || true
  EYEDROPPER=$ROOT/.build/release/eyedropper
fi

# ------------------------------------------------------------------ initramfs
step "initramfs"
R=$WORK/initramfs
mkdir -p "$R"/{bin,dev,proc,sys,mnt,tmp,mods,usr/bin}
cp /bin/busybox "$R/bin/busybox"
: > "$R/mods/order"
module_chain "$KROOT" virtio_pci 9pnet_virtio 9p virtio_net vivid | while read -r ko; do   # dependencies first, as insmod needs
  cp "$ko" "$R/mods/"; basename "$ko" >> "$R/mods/order"
done
grep -qx vivid.ko "$R/mods/order" || { echo "vivid.ko not found in $(basename "$KDEB")" >&2; exit 1; }
copy_with_libs() {   # program + every shared library ldd reports (and the ELF interpreter); none if static
  strip -o "$R$2" "$1" 2>/dev/null || cp "$1" "$R$2"
  { ldd "$1" || true; } | awk '$3 ~ /^\//{print $3} $1 ~ /^\/lib64\//{print $1}' | while read -r lib; do
    mkdir -p "$R$(dirname "$lib")"; cp -L "$lib" "$R$lib"; done
}
copy_with_libs /usr/bin/v4l2-ctl /usr/bin/v4l2-ctl
# eyedropper and its libraries (libv4l2, libturbojpeg, libmosquitto, OpenSSL) come through the share,
# not the initramfs, whose unpacking (gunzip of 110 MB under emulation) took two minutes of the
# VM's time; the guest copies them into its memory once at boot (/opt/eyedropper, a few seconds),
# and /usr/bin/eyedropper runs that copy. Run from the share itself, every start read its pages
# over virtio-9p again: `eyedropper --version` took 3 to 14 s under emulation on a busy host, the
# copy under a second; the guest scripts took 202 s in all where they had taken 701.
SHARE=$WORK/share; mkdir -p "$SHARE/out" "$SHARE/eyedropper"
strip -o "$SHARE/eyedropper/eyedropper" "$EYEDROPPER" 2>/dev/null || cp "$EYEDROPPER" "$SHARE/eyedropper/eyedropper"
{ ldd "$EYEDROPPER" || true; } | awk '$3 ~ /^\//{print $3}' | while read -r lib; do cp -L "$lib" "$SHARE/eyedropper/"; done
printf '#!/bin/sh\nLD_LIBRARY_PATH=/opt/eyedropper exec /opt/eyedropper/eyedropper "$@"\n' > "$R/usr/bin/eyedropper"
chmod +x "$R/usr/bin/eyedropper"
copy_with_libs /usr/bin/curl /usr/bin/curl   # busybox wget cannot PUT
if [ "${VM_LOOPBACK:-0}" = 1 ]; then
  cp "$LOOPBACK_KO" "$R/mods/v4l2loopback.ko"   # after the runner's order: loaded by the scripts that use it
  gcc -O2 -Wall -static -o "$R/usr/bin/v4l2-feed" "$ROOT/Tests/VM/v4l2-feed.c"
fi
# libv4l2 dlopens its plugins (multi-planar devices) from here, as on a real system.
PLUGINS=/usr/lib/x86_64-linux-gnu/libv4l/plugins
if [ -d "$PLUGINS" ]; then mkdir -p "$R$PLUGINS"; cp -L "$PLUGINS"/*.so "$R$PLUGINS"/ 2>/dev/null || true; fi
cat > "$R/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
export PATH=/bin:/usr/bin
for m in $(cat /mods/order); do
  [ "$m" = vivid.ko ] && continue   # the runner loads vivid, fresh for each script
  insmod /mods/$m || echo "[guest] insmod $m FAILED"
done
ip link set lo up
if [ -e /sys/class/net/eth0 ]; then   # qemu's user network (VM_HOSTFWD): the guest is 10.0.2.15
  ip addr add 10.0.2.15/24 dev eth0; ip link set eth0 up; ip route add default via 10.0.2.2
fi
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=1048576 host /mnt; then
  mkdir -p /opt/eyedropper && cp /mnt/eyedropper/* /opt/eyedropper/ || echo "[guest] copying eyedropper from the share FAILED"
  sh /mnt/run.sh
else
  echo "[guest] virtio-9p mount failed: no results"
fi
sync; umount /mnt 2>/dev/null; poweroff -f
EOF
chmod +x "$R/init"
(cd "$R" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$WORK/initramfs.cpio.gz"
echo "initramfs $(du -h "$WORK/initramfs.cpio.gz" | cut -f1)"

# ------------------------------------------------------------------ the share: runner + scripts
[ -n "${VM_DATA:-}" ] && cp -r "$VM_DATA" "$SHARE/data"
echo "share: $SHARE (a guest script sees it as /mnt)"
NAMES=()
for s in "${SCRIPTS[@]}"; do [ -n "$s" ] && { cp "$s" "$SHARE/"; NAMES+=("$(basename "$s")"); }; done
cp "$ROOT/Tests/VM/guest-lib.sh" "$SHARE/"
TOTAL_BUDGET=0; for b in "${BUDGETS[@]}"; do TOTAL_BUDGET=$((TOTAL_BUDGET + b)); done
# The guest times its speed first (vm-speed.sh), then runs each script with vivid fresh (a script
# may reload it with other parameters, or leave controls changed) and its budget times SPEED, so
# one that hangs costs its own checks, not the others'.
speed_chart "$SHARE"
{ speed_probe eyedropper /mnt/out; cat <<EOF
set -- ${BUDGETS[*]}
for s in ${NAMES[*]}; do
  limit=\$(awk -v b="\$1" -v f="\$SPEED" 'BEGIN { printf "%d", b * f + 0.5 }'); shift
  rmmod vivid 2>/dev/null
  insmod /mods/vivid.ko
  i=0; while [ ! -e /dev/video0 ] && [ \$i -lt 100 ]; do sleep 0.05; i=\$((i+1)); done
  echo "[guest \$(up)s] \$s (\$(ls /dev/video* 2>/dev/null | tr '\n' ' '), limit \$limit s)"
  : > /mnt/out/\$s.results
  t0=\$(up)
  (cd /tmp && RESULTS=/mnt/out/\$s.results timeout \$limit sh /mnt/\$s > /mnt/out/\$s.log 2>&1)
  rc=\$?
  echo "\$rc \$limit" > /mnt/out/\$s.done
  took=\$(awk -v a="\$t0" -v b="\$(up)" -v f="\$SPEED" 'BEGIN { printf "%.0f s (%.0f s nominal)", b - a, (b - a) / f }')
  echo "[guest \$(up)s] \$s exited \$rc after \$took: \$(grep -c '^PASS' /mnt/out/\$s.results) passed, \$(grep -c '^FAIL' /mnt/out/\$s.results) failed"
done
EOF
} > "$SHARE/run.sh"

# ------------------------------------------------------------------ boot
# qemu's own time limit: watch_vm's (vm-speed.sh).
step "boot guest ($ACCEL; it times its speed, then runs ${#NAMES[@]} scripts with $TOTAL_BUDGET s of budget at the nominal speed)"
CPU="-cpu ${VM_CPU:-max}"; [ "$ACCEL" = kvm ] && CPU="-cpu host"
B0=$EPOCHREALTIME
NIC="-nic none"; [ -n "${VM_HOSTFWD:-}" ] && NIC="-nic user,model=virtio-net-pci,hostfwd=$VM_HOSTFWD"
qemu-system-x86_64 -accel "$ACCEL" $CPU -m 1024 -smp 2 $NIC -nographic -no-reboot -pidfile "$WORK/qemu.pid" \
  -kernel "$VMLINUZ" -initrd "$WORK/initramfs.cpio.gz" -append "console=ttyS0 panic=-1 quiet" \
  -virtfs local,path="$SHARE",mount_tag=host,security_model=none,id=host0 < /dev/null 2>&1 \
  | sed -u 's/\r//' | tee "$WORK/console.log" \
  | while IFS= read -r l; do case "$l" in *'[guest'*) printf '[%5ss] %s\n' "$(since "$B0")" "[guest${l#*\[guest}";; esac; done &
watch_vm $! "$WORK/qemu.pid" "$SHARE/out" "$TOTAL_BUDGET"
step "VM finished${TIMED_OUT:+: killed after $TIMED_OUT}"

# ------------------------------------------------------------------ results
passed=0; failed=0
for s in "${NAMES[@]}"; do
  res=$SHARE/out/$s.results
  echo "--- $s"
  [ -f "$res" ] && grep -E '^(PASS|FAIL)' "$res" || true
  p=$(grep -c '^PASS' "$res" 2>/dev/null || true); f=$(grep -c '^FAIL' "$res" 2>/dev/null || true)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
  # A script that never finished, or checked nothing, is a failure of its own.
  rc=""; limit=""
  [ -f "$SHARE/out/$s.done" ] && read -r rc limit < "$SHARE/out/$s.done"
  if [ -z "$rc" ]; then
    echo "FAIL $s: did not finish${TIMED_OUT:+ (the VM was killed after $TIMED_OUT)}"; failed=$((failed + 1))
  elif [ "$rc" = 124 ] || [ "$rc" = 143 ]; then   # busybox timeout: 143 (SIGTERM)
    echo "FAIL $s: killed after its budget, $limit s in the guest (speed $SPEED)"; failed=$((failed + 1))
  elif [ "${p:-0}" = 0 ] && [ "${f:-0}" = 0 ]; then
    echo "FAIL $s: no checks reported (exit $rc)"; failed=$((failed + 1))
  fi
  if [ "${f:-0}" != 0 ] || [ -z "$rc" ]; then
    [ -s "$SHARE/out/$s.log" ] && { echo "    output of $s:"; tail -n 20 "$SHARE/out/$s.log" | sed 's/^/    | /'; }
  fi
done
if [ ! -d "$SHARE/out" ] || [ -z "$(ls "$SHARE/out"/*.done 2>/dev/null)" ]; then
  echo "the VM produced no results; end of its console:"; tail -n 30 "$WORK/console.log" | sed 's/^/    | /'
fi
if [ -n "${VM_OUT:-}" ]; then mkdir -p "$VM_OUT"; cp -r "$SHARE/out/." "$VM_OUT/"; fi
step "done"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
