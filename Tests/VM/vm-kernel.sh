# Sourced (bash) by the VM tests: the guest kernel, a stock Debian kernel package downloaded
# (not installed: only its files are needed) and cached across runs.
#
#   guest_kernel_deb CACHE_DIR          sets KDEB to the cached linux-image-*.deb (downloads it once;
#                                       a new kernel version in the archive means one new download)
#   unpack_guest_kernel DEST PATTERN... unpacks the kernel image and the modules matching the tar
#                                       PATTERNs (plus the modules.* index files) under DEST, runs
#                                       depmod, and sets K (the version) and VMLINUZ
#   module_chain DEST MODULE...         prints the .ko files to insmod, each one's dependencies first

guest_kernel_deb() {
  local cache=$1 pkg
  kernel_package() { apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}'; }
  pkg=$(kernel_package)
  if [ -z "$pkg" ]; then apt-get update -qq; pkg=$(kernel_package); fi
  [ -n "$pkg" ] || { echo "cannot find the linux-image package behind linux-image-amd64" >&2; return 1; }
  mkdir -p "$cache"
  KDEB=$(ls "$cache/${pkg}"_*.deb 2>/dev/null | head -1 || true)
  if [ -z "$KDEB" ]; then
    echo "downloading $pkg" >&2
    download() { (cd "$cache" && apt-get download -q "$pkg" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true); }
    download
    KDEB=$(ls "$cache/${pkg}"_*.deb 2>/dev/null | head -1 || true)
    # Stale package lists name a version the mirror no longer has: refresh them once.
    if [ -z "$KDEB" ]; then apt-get update -qq; download; KDEB=$(ls "$cache/${pkg}"_*.deb 2>/dev/null | head -1 || true); fi
    [ -n "$KDEB" ] || { echo "apt-get download $pkg failed" >&2; return 1; }
    find "$cache" -name 'linux-image-*.deb' ! -path "$KDEB" -delete   # older kernels are not needed again
  fi
}

unpack_guest_kernel() {
  local dest=$1; shift
  local patterns=("./boot/vmlinuz-*" './lib/modules/*/modules.*')
  local p
  for p in "$@"; do patterns+=("./lib/modules/*/kernel/$p"); done
  mkdir -p "$dest"
  dpkg-deb --fsys-tarfile "$KDEB" | tar -x -C "$dest" --wildcards "${patterns[@]}"
  K=$(ls "$dest/lib/modules")
  depmod -b "$dest" "$K"   # the package ships no modules.dep (dpkg's postinst makes it)
  VMLINUZ=$dest/boot/vmlinuz-$K
}

module_chain() {
  local dest=$1 m; shift
  for m in "$@"; do
    modprobe -d "$dest" -S "$K" --show-depends "$m" | awk '$1=="insmod"{print $2}'
  done | awk '!seen[$0]++'
}
