#!/usr/bin/env bash
# Calibrated colour under a changing light (Tests/Calibration/drift.py): the simulated camera,
# white balance and exposure locked, sees the chart and a white tile while the light goes from
# 50 % to 150 % (D50) and from 3500 K to 6500 K. `eyedropper calibrate --white-reference` records
# the tile; `eyedropper sample --profile --average 4` reads each light (4 frames, each with its
# own noise) as one reading, without the reference, with it (each --reference-model) and with
# --palette (the 24 patches' names). Checks, per reading against the chart's reference colours:
# intensity alone moves the corrected readings by <= 0.8 CIEDE2000 (mean of the 24 against the
# 100 % reading; the correction meets it with margin, 0.54 at worst, and one gone wrong breaks it:
# uncorrected, intensity moves them by 2 to 13; the issue's goal, 0.3, is reported as met or not,
# with the noise floor, the single-frame and the noise-free figures beside it), 4000-6500 K reads
# within 1.2 (mean), every patch is named as itself, the reference's deltaE grows with the
# light's distance from calibration, and correcting beats not correcting at 3500 and 6500 K.
# Options the binary lacks are emulated from the profile's JSON (drift.md says which). Builds
# nothing: give the binary as $EYEDROPPER (default .build/release/eyedropper).
# Shares the venv of calibration-tests.sh. Leaves the files, the profile and drift.md (commands
# and the tables per light) in .build/drift; about 35 s. Arguments go to drift.py (--out DIR,
# --camera sigma, --frames-per-light N, --calibration-frames N, --radius R, --white-level L).
#
# usage: Tests/Calibration/drift-tests.sh [ARGS...]
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/Calibration/environment.sh
exec "$python" -B Tests/Calibration/drift.py --eyedropper "$eyedropper" "$@"
