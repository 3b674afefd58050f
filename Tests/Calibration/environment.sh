# Sourced (from the repository's root) by the test scripts that run Python against the
# simulated camera: installs what they need from Debian (Scripts/install-deps: the venv module,
# ffmpeg and ArgyllCMS), makes or reuses the venv .build/calibration-venv from requirements.txt,
# and sets $python (its interpreter) and $eyedropper (the binary the tests run: $EYEDROPPER, by
# default .build/release/eyedropper; they build nothing), failing when there is none.
Scripts/install-deps python3-venv ffmpeg argyll
eyedropper="${EYEDROPPER:-.build/release/eyedropper}"
[ -x "$eyedropper" ] || { echo "no eyedropper at $eyedropper: build it (swift build -c release) or set EYEDROPPER" >&2; exit 1; }
venv=.build/calibration-venv
Tests/python-venv.sh "$venv" Tests/Calibration/requirements.txt
python="$venv/bin/python"
