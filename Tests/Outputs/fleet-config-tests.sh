#!/usr/bin/env bash
# The fleet setup as docs/outputs.md gives it: the camera's configuration file (every line an
# option `eyedropper serve --help` names) and the Prometheus scrape configuration (`promtool check
# config`). Needs a release build. Then the shipped alert rules,
# Packaging/prometheus/eyedropper-alerts.yml: `promtool check rules`, their unit tests (`promtool
# test rules`), and that those tests fail when a rule is broken (Tests/Outputs/alert_rules_check.py
# says how). The unit is the package's, checked by Tests/Package/package-tests.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/install-deps python3 python3-yaml prometheus
work=$PWD/.build/fleet-config
rm -rf "$work"
mkdir -p "$work"
.build/release/eyedropper serve --help > "$work/serve-help.txt"
python3 - "$work" <<'PY'
import os, re, sys
work = sys.argv[1]
readme = open("docs/outputs.md").read()
fleet = readme[readme.index("### A fleet of cameras"):]
conf = re.search(r"```conf\n(.*?)```", fleet, re.S).group(1)
scrape = re.search(r"```yaml\n(.*?)```", fleet, re.S).group(1)
rules = "/usr/share/eyedropper/prometheus/eyedropper-alerts.yml"
assert "/etc/prometheus/eyedropper.token" in scrape and rules in scrape
options = set(re.findall(r"--([a-z][a-z0-9-]*)", open(f"{work}/serve-help.txt").read()))
names = [line.split()[0] for line in conf.splitlines() if line.strip() and not line.startswith("#")]
unknown = [name for name in names if name not in options]
assert names and not unknown, f"the camera's file of docs/outputs.md names options serve does not have: {unknown}"
print(f"PASS the camera's file of docs/outputs.md: its {len(names)} lines are serve's options")
open(f"{work}/token", "w").write("a-token\n")
# The rules the package installs, from the repository.
open(f"{work}/prometheus.yml", "w").write(scrape.replace("/etc/prometheus/eyedropper.token", f"{work}/token")
                                          .replace(rules, os.path.abspath("Packaging/prometheus/eyedropper-alerts.yml")))
PY
promtool check config "$work/prometheus.yml"
echo "PASS the scrape configuration of docs/outputs.md, with the shipped alert rules: promtool check config"
python3 -B Tests/Outputs/alert_rules_check.py Packaging/prometheus/eyedropper-alerts.yml \
  Packaging/prometheus/eyedropper-alerts.test.yml "$work/alert-rules"
