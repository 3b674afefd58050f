#!/usr/bin/python3
"""Writes css-named-colors.json beside this script: CSS Color 4's 148 named colours
(https://www.w3.org/TR/css-color-4/#named-colors) as an Eyedropper palette,
[{"name": "aliceblue", "hex": "#f0f8ff"}, ...], in alphabetical order, so that of two aliases
the first in the file (aqua before cyan, gray before grey) is the one a match names.

Source: Debian's python3-webcolors (CSS3_NAMES_TO_HEX: 147 names), plus rebeccapurple #663399,
which CSS Color 4 added. Run with Debian's Python after `Scripts/install-deps python3-webcolors`:
    Packaging/palettes/make-css-palette.py
"""
import json
import pathlib

import webcolors

colours = dict(webcolors.CSS3_NAMES_TO_HEX)
assert len(colours) == 147, f"webcolors has {len(colours)} CSS3 names, not the 147 this expects"
assert "rebeccapurple" not in colours
colours["rebeccapurple"] = "#663399"
assert all(len(value) == 7 and value.startswith("#") for value in colours.values())

entries = [{"name": name, "hex": colours[name].lower()} for name in sorted(colours)]
text = "[\n" + ",\n".join(json.dumps(entry) for entry in entries) + "\n]\n"
path = pathlib.Path(__file__).resolve().parent / "css-named-colors.json"
path.write_text(text)
print(f"{path}: {len(entries)} names, {len(set(colours.values()))} colours")
