#!/usr/bin/env bash
# The fleet setup as docs/outputs.md gives it: the systemd unit (`systemd-analyze verify`, which
# warns on unknown keys and sections) and the Prometheus scrape configuration (`promtool check
# config`). A warning fails. Needs a release build (the unit's ExecStart is pointed at it). Then
# the shipped alert rules, Packaging/prometheus/eyedropper-alerts.yml: `promtool check rules`, their
# unit tests (`promtool test rules`), and that those tests fail when a rule is broken
# (Tests/Outputs/alert_rules_check.py says how).
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/install-deps python3 python3-yaml systemd prometheus
work=$PWD/.build/fleet-config
rm -rf "$work"
mkdir -p "$work"
python3 - "$work" "$PWD/.build/release/eyedropper" <<'PY'
import os, re, sys
work, binary = sys.argv[1:]
readme = open("docs/outputs.md").read()
fleet = readme[readme.index("### A fleet of cameras"):]
unit = re.search(r"```ini\n(.*?)```", fleet, re.S).group(1)
scrape = re.search(r"```yaml\n(.*?)```", fleet, re.S).group(1)
rules = "/usr/share/eyedropper/prometheus/eyedropper-alerts.yml"
assert "/usr/local/bin/eyedropper serve" in unit and "/etc/prometheus/eyedropper.token" in scrape and rules in scrape
# The paths of a real host, made to point here; the env file may be absent on this machine.
open(f"{work}/eyedropper@.service", "w").write(
    unit.replace("/usr/local/bin/eyedropper", binary).replace("EnvironmentFile=/", "EnvironmentFile=-/"))
open(f"{work}/token", "w").write("a-token\n")
# The rules the package installs, from the repository.
open(f"{work}/prometheus.yml", "w").write(scrape.replace("/etc/prometheus/eyedropper.token", f"{work}/token")
                                          .replace(rules, os.path.abspath("Packaging/prometheus/eyedropper-alerts.yml")))
PY
ln -s 'eyedropper@.service' "$work/eyedropper@video0.service"
said=$(systemd-analyze verify --man=no "$work/eyedropper@video0.service" 2>&1) || { echo "$said" >&2; exit 1; }
[ -z "$said" ] || { echo "systemd-analyze verify warned about the unit of docs/outputs.md:" >&2; echo "$said" >&2; exit 1; }
echo "PASS the systemd unit of docs/outputs.md: systemd-analyze verify, no warnings"
promtool check config "$work/prometheus.yml"
echo "PASS the scrape configuration of docs/outputs.md, with the shipped alert rules: promtool check config"
python3 -B Tests/Outputs/alert_rules_check.py Packaging/prometheus/eyedropper-alerts.yml \
  Packaging/prometheus/eyedropper-alerts.test.yml "$work/alert-rules"
