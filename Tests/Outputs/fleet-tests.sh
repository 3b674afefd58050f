#!/usr/bin/env bash
# A fleet across hosts, for real: four network namespaces made here (three camera hosts and one
# for the broker and Prometheus) on a bridge, 10.77.0.0/24, removed on exit whatever happens.
# Debian's mosquitto and prometheus (scraping the three hosts every second, with the shipped
# alert rules loaded) run in the fourth; each host runs `eyedropper serve --source testpattern
# --fps 10 --mqtt ...` under its own topic. One host is killed (SIGKILL) and started again while
# the others publish, then cut off the network (no FIN: the will comes after the keepalive) and
# brought back; Tests/Outputs/fleet_check.py says what is checked. The binary is the
# package's when .build/package/eyedropper_*_amd64.deb exists (dpkg-deb -x, with the rules it
# ships), else .build/release/eyedropper; which one ran is said first. Needs root (ip netns).
# Run: Tests/Outputs/fleet-tests.sh   (about 70 s)
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s.%N)
Scripts/install-deps iproute2 iputils-ping python3 python3-venv mosquitto mosquitto-clients prometheus
[ "$(id -u)" -eq 0 ] || { echo "FAIL fleet: needs root for ip netns" >&2; exit 1; }
work=$PWD/.build/fleet
rm -rf "$work"
mkdir -p "$work"
venv=.build/venv-outputs
Tests/python-venv.sh "$venv" Tests/Outputs/requirements.txt

failed=0
rules=$PWD/Packaging/prometheus/eyedropper-alerts.yml
package=$(ls -t .build/package/eyedropper_*_amd64.deb 2>/dev/null | head -n 1 || true)
if [ -n "$package" ]; then
  dpkg-deb -x "$package" "$work/package"
  eyedropper=$work/package/usr/bin/eyedropper
  echo "fleet: eyedropper from the package $package (dpkg-deb -x), $("$eyedropper" --version 2>&1 | head -n 1)"
  shipped=$work/package/usr/share/eyedropper/prometheus/eyedropper-alerts.yml
  if [ -f "$shipped" ]; then
    echo "PASS the package ships the alert rules at /usr/share/eyedropper/prometheus/eyedropper-alerts.yml"
    rules=$shipped
  else
    echo "FAIL the package ships the alert rules: no /usr/share/eyedropper/prometheus/eyedropper-alerts.yml in $package (using Packaging/prometheus's)"
    failed=1
  fi
else
  eyedropper=$PWD/.build/release/eyedropper
  echo "fleet: eyedropper from $eyedropper (no .build/package/eyedropper_*_amd64.deb; Scripts/package makes one), rules from Packaging/prometheus"
fi
[ -x "$eyedropper" ] || { echo "FAIL fleet: no $eyedropper" >&2; exit 1; }

# Names unique to this run; the namespaces and whatever still runs in them go on exit.
prefix="edfleet-$$-$RANDOM"
hub=$prefix-hub
hosts=("$prefix-h1" "$prefix-h2" "$prefix-h3")
made=()
cleanup() {
  local ns pids
  for ns in "${made[@]}"; do
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [ -z "$pids" ] || kill -9 $pids 2>/dev/null || true
  done
  for ns in "${made[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
}
trap cleanup EXIT
trap "exit 130" INT TERM
for ns in "$hub" "${hosts[@]}"; do
  ip netns add "$ns"
  made+=("$ns")
  ip -n "$ns" link set lo up
done
# The bridge lives in the hub's namespace: nothing is added to this machine's own network.
ip -n "$hub" link add br0 type bridge
ip -n "$hub" addr add 10.77.0.1/24 dev br0
ip -n "$hub" link set br0 up
for i in 1 2 3; do
  ns=${hosts[$((i - 1))]}
  ip link add name eth0 netns "$ns" type veth peer name "h$i" netns "$hub"
  ip -n "$hub" link set "h$i" master br0 up
  ip -n "$ns" addr add "10.77.0.1$i/24" dev eth0
  ip -n "$ns" link set eth0 up
done
# Each host reaches the hub and the others over the bridge.
for i in 1 2 3; do
  for peer in 10.77.0.1 10.77.0.11 10.77.0.12 10.77.0.13; do
    ip netns exec "${hosts[$((i - 1))]}" ping -c 1 -W 2 -q "$peer" >/dev/null \
      || { echo "FAIL fleet: host $i cannot reach $peer" >&2; exit 1; }
  done
done
echo "PASS the network: four namespaces on one bridge, each host reaches the hub and the other hosts"

# In the background and waited for, so that a signal to this script cleans up at once.
ip netns exec "$hub" "$venv/bin/python" -B Tests/Outputs/fleet_check.py "$eyedropper" "$rules" "$work" "${hosts[@]}" &
wait $! || failed=1
echo "fleet: $(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$started" "$(date +%s.%N)") s in all"
exit "$failed"
