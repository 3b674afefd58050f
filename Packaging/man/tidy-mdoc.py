#!/usr/bin/env python3
"""Prints the mdoc page FILE as generate-manual wrote it, tidied for man, mandb and lintian:

- a subcommand's page is named as Debian names them (git-commit, systemd-analyze): its title
  (.Dt) and the name in NAME become eyedropper-serve, which mandb's whatis parser (lexgrog) can
  read where it cannot read the quoted "eyedropper serve"; the synopsis and the text go on
  saying `eyedropper serve`, the command one types;
- a blank line between paragraphs of a command's discussion (which mdoc warns about) becomes .Pp;
- a word too long for any line (a JSON example, a list of CSV columns) gets break points after
  its commas, colons and slashes (\\:, which prints nothing), so that troff wraps it instead of
  warning that it cannot break the line.

    python3 Packaging/man/tidy-mdoc.py eyedropper.serve.1 > eyedropper-serve.1
"""
import re
import sys

LONGEST = 40  # a word longer than this may not fit an 80-column line after the indent


def breakable(word: str) -> str:
    if len(word) <= LONGEST:
        return word
    return re.sub(r"([,:/;|])(?=.)", r"\1\\:", word)


lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
out = []
section = None
name = None  # the command as typed, "eyedropper serve"
for line in lines:
    if line.strip() == "":
        if out and out[-1] != ".Pp" and not out[-1].startswith((".Sh", ".Ss", ".Bl", ".It")):
            out.append(".Pp")
        continue
    if line.startswith(".Sh "):
        section = line[4:].strip()
    elif line.startswith(".Dt "):
        title, _, rest = line[4:].partition(" ")
        line = f".Dt {title.replace('.', '-')} {rest}"
    elif line.startswith(".Nm") and section == "NAME" and name is None:
        name = line[3:].strip().strip('"')
        line = ".Nm " + name.replace(" ", "-")
    elif line == ".Nm" and name and " " in name:
        line = f'.Nm "{name}"'
    elif not line.startswith((".", "'")):
        line = " ".join(breakable(word) for word in line.split(" "))
    out.append(line)
sys.stdout.write("\n".join(out) + "\n")
