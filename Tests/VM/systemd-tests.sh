#!/usr/bin/env bash
# The Debian package as a user installs it, on a real Debian 12 booted with systemd as PID 1 in a
# qemu VM (TCG) beside vivid, the kernel's virtual camera. Checks, one PASS/FAIL line each, run in
# the guest by a systemd unit after multi-user.target (Tests/VM/systemd-guest.sh says each one):
#   a. `apt install ./eyedropper_<v>_amd64.deb` offline (the guest has no network); user
#      eyedropper in group video; /etc/eyedropper/video0.conf; every program the unit's Exec lines
#      run comes from the package, its Depends or an essential package; without FFmpeg's libraries
#      (recommended, not in the guest) a network camera exits 69 naming the packages to install
#   b. `systemctl enable --now eyedropper@video0` returns once serve is ready (Type=notify) and
#      /api/v1/sample reads vivid's colour bars
#   c. `systemctl reload` under an MJPEG client (Tests/VM/mjpeg-parts.c) with a new profile
#      (calibrated in the guest on a chart Tests/VM/chart-y4m.py renders): the stream unbroken,
#      the largest gap between parts around the reload at most one frame interval (1/fps or the
#      stream's median gap, whichever is larger) + 0.25 s, /api/v1/status's profile and "reload",
#      calibrated samples, the service's reload line
#   d. watchdog: SIGSTOP on the main process; systemd kills and restarts it ("Watchdog timeout")
#   e. vivid unplugged (rmmod) and back (modprobe): the service stays active, 503 meanwhile,
#      samples back
#   f. the unit's journal tells it all (printed here)
#   g. `apt remove` keeps /etc/eyedropper/video0.conf, `apt purge` removes /etc/eyedropper
#
# usage: Tests/VM/systemd-tests.sh
#        EYEDROPPER_DEB=path/to/eyedropper_<v>_amd64.deb Tests/VM/systemd-tests.sh
#        Tests/VM/systemd-tests.sh --prepare   (only the downloads, into the cache: Debian 12's root
#                                              file system and the kernel package; no package, no VM)
#
# The package: EYEDROPPER_DEB if set, else what `Scripts/package` builds and prints
# (.build/package/eyedropper_<version>_amd64.deb).
# Time limits scale with the guest's speed (Tests/VM/vm-speed.sh): the guest times a piece of the
# package's own binary's work before the checks, and the checks' budget (systemd-guest.sh's
# `# Budget: N s`, on the guest the budgets were written for), the waits inside them, and the VM's
# own limit are those seconds times the factor measured.
#
# Environment: EYEDROPPER_VM_CACHE (default .build/vm-cache: the kernel
# package and the root file system), DEBIAN_MIRROR (default: the host's, from
# /etc/apt/sources.list.d/debian.sources), KEEP_VM_WORK=1 keeps the work directory, VM_OUT (a
# directory the guest's results, logs and journal are copied to).
#
# Cost: a fresh clone pays the debootstrap once (about 2 minutes on this mirror, 190 MB tarball in
# the cache, keyed by suite, mirror and package list); after that a run prepares the disk in
# under 10 s and the VM takes about 2.5 minutes under software emulation (multi-user.target
# 8 to 16 s after the kernel starts; apt install about 15 to 25 s; calibrate 20 s).
# The guest's root is an ext4 image made with `mkfs.ext4 -d` (no loop mount); a busybox
# initramfs loads virtio and ext4 and switch_roots to systemd. Results come back over virtio-9p.
set -euo pipefail
prepare_only=0
case "${1:-}" in
  --prepare) prepare_only=1 ;;
  "") ;;
  *) echo "usage: Tests/VM/systemd-tests.sh [--prepare]" >&2; exit 64 ;;
esac
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUDGET=$(sed -n 's/^# Budget: \([0-9][0-9]*\) s.*/\1/p' "$ROOT/Tests/VM/systemd-guest.sh" | head -n 1)
CACHE=${EYEDROPPER_VM_CACHE:-$ROOT/.build/vm-cache}   # .build/ is git-ignored
T0=$EPOCHREALTIME
since() { awk -v a="$EPOCHREALTIME" -v b="$1" 'BEGIN{printf "%.1f", a-b}'; }
step() { printf '=== [%5ss] %s\n' "$(since "$T0")" "$*"; }
export DEBIAN_FRONTEND=noninteractive
. "$ROOT/Tests/VM/vm-kernel.sh"
. "$ROOT/Tests/VM/vm-speed.sh"

WORK=$(mktemp -d -t eyedropper-systemd-vm.XXXXXX)
cleanup() { if [ "${KEEP_VM_WORK:-0}" = 1 ]; then echo "work directory kept: $WORK"; else rm -rf "$WORK"; fi; }
trap cleanup EXIT

# ------------------------------------------------------------------ host packages
step "host packages"
"$ROOT"/Scripts/install-deps qemu-system-x86 busybox-static kmod debootstrap e2fsprogs gcc libc6-dev python3

# ------------------------------------------------------------------ Debian 12 root file system
# The guest's packages: systemd and what a user's machine has, plus the package's run-time
# libraries, so that `apt install ./eyedropper_*.deb` needs no network. procps: /bin/kill (the
# unit's ExecReload), on every Debian system but minbase's. v4l-utils for v4l2-ctl (frame rate,
# the simulated unplug). Not FFmpeg's libraries: the package only recommends them (network
# cameras), and the guest is a machine without them.
PACKAGES=systemd,systemd-sysv,udev,apt,dbus,curl,kmod,iproute2,procps,v4l-utils,libv4l-0,libturbojpeg0,libmosquitto1,libstdc++6
SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
KEY=$(printf '%s\n' "$SUITE" "$MIRROR" "$PACKAGES" | sha256sum | cut -c1-12)
ROOTFS_TAR=$CACHE/rootfs-$SUITE-$KEY.tar
mkdir -p "$CACHE"
if [ ! -f "$ROOTFS_TAR" ]; then
  step "debootstrap $SUITE (minbase + $PACKAGES) from $MIRROR, once: cached as $(basename "$ROOTFS_TAR")"
  D0=$EPOCHREALTIME
  BOOTSTRAP=$WORK/bootstrap
  if ! nice -n 10 debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$BOOTSTRAP" "$MIRROR" > "$WORK/debootstrap.log" 2>&1; then
    tail -n 30 "$WORK/debootstrap.log"; echo "debootstrap failed" >&2; exit 1
  fi
  # What the guest never needs again: the downloaded packages and the package lists.
  rm -rf "$BOOTSTRAP"/var/cache/apt/archives/*.deb "$BOOTSTRAP"/var/lib/apt/lists/*
  rm -f "$CACHE"/rootfs-$SUITE-*.tar   # another package list's root is not needed again
  tar -C "$BOOTSTRAP" --numeric-owner --xattrs -cf "$ROOTFS_TAR.tmp" . && mv "$ROOTFS_TAR.tmp" "$ROOTFS_TAR"
  rm -rf "$BOOTSTRAP"
  echo "debootstrap and cache took $(since "$D0") s ($(du -h "$ROOTFS_TAR" | cut -f1))"
fi

# ------------------------------------------------------------------ guest kernel and modules
step "guest kernel"
guest_kernel_deb "$CACHE"
if [ "$prepare_only" = 1 ]; then
  step "prepared: $(basename "$ROOTFS_TAR") and $(basename "$KDEB") in $CACHE"
  exit 0
fi

# ------------------------------------------------------------------ the package under test
if [ -n "${EYEDROPPER_DEB:-}" ]; then
  DEB=$EYEDROPPER_DEB
else
  [ -x "$ROOT/Scripts/package" ] || { echo "Scripts/package not found: nothing to install (or set EYEDROPPER_DEB)" >&2; exit 2; }
  step "Scripts/package"
  DEB=$(cd "$ROOT" && nice -n 10 Scripts/package | tail -n 1)
fi
[ -f "$DEB" ] || { echo "no package at '$DEB'" >&2; exit 2; }
echo "package: $DEB"

KROOT=$WORK/kroot
# vivid and its media chain, virtio (pci, block, 9p), ext4 and its checksums.
unpack_guest_kernel "$KROOT" 'drivers/media/*' 'drivers/virtio/*' 'drivers/block/virtio_blk.ko' \
  'fs/ext4/*' 'fs/jbd2/*' 'fs/mbcache.ko' 'lib/crc16.ko' 'lib/libcrc32c.ko' 'crypto/crc32c_generic.ko' \
  'net/9p/*' 'fs/9p/*' 'fs/netfs/*' 'fs/fscache/*'
echo "guest kernel $K ($(basename "$KDEB"))"

# ------------------------------------------------------------------ initramfs: to the ext4 root
step "initramfs"
R=$WORK/initramfs
mkdir -p "$R"/{bin,dev,proc,sys,newroot,mods}
cp /bin/busybox "$R/bin/busybox"
: > "$R/mods/order"
module_chain "$KROOT" virtio_pci virtio_blk crc32c_generic ext4 | while read -r ko; do
  cp "$ko" "$R/mods/"; basename "$ko" >> "$R/mods/order"
done
cat > "$R/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in $(cat /mods/order); do insmod /mods/$m || echo "[guest] insmod $m FAILED"; done
i=0; while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
if ! mount -t ext4 -o rw,noatime /dev/vda /newroot; then echo "[guest] cannot mount /dev/vda"; poweroff -f; fi
umount /proc /sys /dev
exec switch_root /newroot /sbin/init
EOF
chmod +x "$R/init"
(cd "$R" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$WORK/initramfs.cpio.gz"

# ------------------------------------------------------------------ the guest's disk
step "root file system: unpack, configure, mkfs.ext4 -d"
G=$WORK/root
mkdir -p "$G"
tar -C "$G" --numeric-owner --xattrs -xf "$ROOTFS_TAR"
mkdir -p "$G/lib/modules"
cp -a "$KROOT/lib/modules/$K" "$G/lib/modules/"
echo eyedropper-vm > "$G/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 eyedropper-vm\n' > "$G/etc/hosts"
echo '/dev/vda / ext4 rw,noatime 0 0' > "$G/etc/fstab"
# vivid at boot (its /dev/video0 is the package's default source) and the share's transport.
printf 'vivid\n9pnet_virtio\n9p\n' > "$G/etc/modules-load.d/eyedropper-vm-test.conf"
# Nothing the test does not need, and nothing that waits for a network or a person: timers,
# consoles to log in on, first-boot jobs (hwdb, ldconfig, catalog) that take long under emulation.
for unit in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer \
    e2scrub_reap.service fstrim.timer systemd-tmpfiles-clean.timer systemd-networkd-wait-online.service \
    getty@tty1.service serial-getty@ttyS0.service console-getty.service systemd-firstboot.service \
    systemd-hwdb-update.service ldconfig.service systemd-journal-catalog-update.service \
    systemd-update-done.service systemd-pstore.service; do
  ln -sf /dev/null "$G/etc/systemd/system/$unit"
done
mkdir -p "$G/usr/local/lib/eyedropper-vm-test"
cat > "$G/usr/local/lib/eyedropper-vm-test/run" <<EOF
#!/bin/sh
# Mounts the host's share and runs the checks on it, then powers the VM off at once (reboot(2)
# from systemctl: the results are on the share, synced, and the disk is thrown away). The unit's
# SuccessAction=poweroff-immediate did not end the VM here after the checks.
trap 'sync; echo "[guest] powering off"; systemctl --force --force poweroff' EXIT
echo "[guest] multi-user.target reached at \$(cut -d' ' -f1 /proc/uptime) s uptime"
mkdir -p /mnt/host
modprobe 9pnet_virtio; modprobe 9p
mount -t 9p -o trans=virtio,version=9p2000.L,msize=1048576 host /mnt/host || { echo "[guest] virtio-9p mount failed"; exit 1; }
# The guest's speed, with the package's binary (its Swift runtime linked in) before it is installed.
dpkg-deb -x "\$(ls /mnt/host/eyedropper_*_amd64.deb | head -n 1)" /tmp/speed-deb
$(speed_probe /tmp/speed-deb/usr/bin/eyedropper /mnt/host/out)
limit=\$(awk -v b=$BUDGET -v f="\$SPEED" 'BEGIN { printf "%d", b * f + 0.5 }')
echo "[guest] the checks' budget: $BUDGET s times \$SPEED, \$limit s"
timeout \$limit bash /mnt/host/systemd-guest.sh
echo "\$? \$limit" > /mnt/host/out/done
EOF
chmod +x "$G/usr/local/lib/eyedropper-vm-test/run"
# After multi-user.target (so without the default dependencies, which would order it before).
cat > "$G/etc/systemd/system/eyedropper-vm-test.service" <<'EOF'
[Unit]
Description=Eyedropper package checks (VM test)
DefaultDependencies=no
After=multi-user.target
[Service]
Type=oneshot
ExecStart=/usr/local/lib/eyedropper-vm-test/run
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=infinity
[Install]
WantedBy=multi-user.target
EOF
mkdir -p "$G/etc/systemd/system/multi-user.target.wants"
ln -sf ../eyedropper-vm-test.service "$G/etc/systemd/system/multi-user.target.wants/eyedropper-vm-test.service"
IMG=$WORK/root.ext4
SIZE_MB=$(( $(du -sm "$G" | cut -f1) + 400 ))
M0=$EPOCHREALTIME
mkfs.ext4 -q -F -L eyedropper-vm -d "$G" "$IMG" "${SIZE_MB}M"
echo "root image ${SIZE_MB} MB (sparse), mkfs.ext4 -d took $(since "$M0") s"
rm -rf "$G"

# ------------------------------------------------------------------ the share
step "share: package, checks, profile"
SHARE=$WORK/share; mkdir -p "$SHARE/out"
cp "$DEB" "$SHARE/"
cp "$ROOT/Tests/VM/systemd-guest.sh" "$SHARE/"
speed_chart "$SHARE"
gcc -O2 -Wall -static -o "$SHARE/mjpeg-parts" "$ROOT/Tests/VM/mjpeg-parts.c"
# A chart to calibrate on in the guest (with the package's binary) for a profile to reload with.
python3 "$ROOT/Tests/VM/chart-y4m.py" "$SHARE/chart.y4m" > "$SHARE/chart-corners"

# ------------------------------------------------------------------ boot
step "boot guest (tcg; it times its speed, then runs the checks with $BUDGET s of budget at the nominal speed)"
B0=$EPOCHREALTIME
nice -n 10 qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 2 -nic none -nographic -no-reboot -pidfile "$WORK/qemu.pid" \
  -kernel "$VMLINUZ" -initrd "$WORK/initramfs.cpio.gz" \
  -append "console=ttyS0 panic=-1 quiet systemd.show_status=error" \
  -drive file="$IMG",if=virtio,format=raw,cache=unsafe \
  -virtfs local,path="$SHARE",mount_tag=host,security_model=none,id=host0 < /dev/null 2>&1 \
  | sed -u 's/\r//' | tee "$WORK/console.log" \
  | while IFS= read -r l; do case "$l" in *'[guest'*) printf '[%5ss] %s\n' "$(since "$B0")" "[guest${l#*\[guest}";; esac; done &
# The boot to multi-user.target comes before the speed is measured: a minute of it, times SPEED.
watch_vm $! "$WORK/qemu.pid" "$SHARE/out" $((BUDGET + 60))
step "VM finished${TIMED_OUT:+: killed after $TIMED_OUT}"

# ------------------------------------------------------------------ results
OUT=$SHARE/out
if [ -s "$OUT/journal.txt" ]; then echo "--- journalctl -u eyedropper@video0 -o cat (guest)"; sed 's/^/    | /' "$OUT/journal.txt"; fi
if [ -s "$OUT/boot.txt" ]; then echo "--- boot (guest)"; sed 's/^/    | /' "$OUT/boot.txt"; fi
echo "--- results"
[ -f "$OUT/results" ] && grep -E '^(PASS|FAIL)' "$OUT/results" || true
passed=$(grep -c '^PASS' "$OUT/results" 2>/dev/null || true); failed=$(grep -c '^FAIL' "$OUT/results" 2>/dev/null || true)
passed=${passed:-0}; failed=${failed:-0}
rc=""; limit=""
[ -f "$OUT/done" ] && read -r rc limit < "$OUT/done"
if [ -z "$rc" ]; then
  echo "FAIL guest checks: did not finish${TIMED_OUT:+ (the VM was killed after $TIMED_OUT)}"; failed=$((failed + 1))
  echo "end of the console:"; tail -n 40 "$WORK/console.log" | sed 's/^/    | /'
elif [ "$rc" = 124 ]; then
  echo "FAIL guest checks: killed after their budget, $limit s in the guest (speed $SPEED)"; failed=$((failed + 1))
elif [ "$passed" = 0 ] && [ "$failed" = 0 ]; then
  echo "FAIL guest checks: none reported (exit $rc)"; failed=$((failed + 1))
fi
if [ -n "${VM_OUT:-}" ]; then mkdir -p "$VM_OUT"; cp -r "$OUT/." "$VM_OUT/"; cp "$WORK/console.log" "$VM_OUT/"; fi
step "done"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
