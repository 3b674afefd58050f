#!/usr/bin/env bash
# `calibrate --bracket` on measured tone curves (Tests/Calibration/bracket.py): the chart rendered
# at ten exposures through each curve and a measured sensor, the curve measured by the binary and
# compared with the true one over codes 10-245, beside the curve fitted to the six greys. Fails
# on a regression against the committed bounds; skips, loudly, without ../shared/cameras. Builds
# nothing: give the binary as $EYEDROPPER (default .build/release/eyedropper). Shares the venv of
# calibration-tests.sh. Arguments go to bracket.py (--set quick|all, --curve C, --jobs N, --keep).
set -euo pipefail
cd "$(dirname "$0")/../.."
data="$(git rev-parse --show-toplevel)/../shared/cameras"
if [ ! -d "$data" ]; then
  echo "!!! SKIPPED: no measured cameras at $data: calibrate --bracket on measured tone curves (Tests/Calibration/bracket.py) was NOT run" >&2
  exit 0
fi
source Tests/Calibration/environment.sh
PYTHONWARNINGS=ignore exec "$python" -B Tests/Calibration/bracket.py --eyedropper "$eyedropper" --data "$data" "$@"
