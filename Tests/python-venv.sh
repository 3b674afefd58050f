#!/usr/bin/env bash
# Tests/python-venv.sh VENV REQUIREMENTS: makes the Python venv VENV (under .build/, git-ignored)
# holding what REQUIREMENTS pins, for the test scripts that check against Python peers (OpenCV,
# colour-science, schemathesis). A venv is reused only when it holds what REQUIREMENTS pins now.
set -euo pipefail
venv=$1 requirements=$2
cmp -s "$requirements" "$venv/requirements.txt" 2>/dev/null && exit 0
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
cp "$requirements" "$venv/requirements.txt"
