#!/usr/bin/env python3
"""The shipped Prometheus alert rules and their unit tests (Tests/Outputs/fleet-config-tests.sh).

usage: alert_rules_check.py RULES TESTS WORKDIR

Runs `promtool check rules` and `promtool test rules`, then checks that the tests can fail:
  - every alert of RULES has a test case where it fires and one where it must not;
  - each alert's expression made never true (`vector(1) == 0`) fails the tests (a firing case
    catches it);
  - each alert's comparison turned round (`==` to `!=`, `>` to `<=`, `<` to `>=`) fails the tests
    (a case where it must not fire catches it);
  - each alert's `for:` removed fails the tests (a case before `for:` has passed catches it).
One PASS or FAIL line per check; the exit status is 1 if any failed.
"""
import os
import re
import shutil
import subprocess
import sys

import yaml

RULES, TESTS, WORK = sys.argv[1:4]
failures = []


def check(name, ok, detail=""):
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + detail), flush=True)
    if not ok:
        failures.append(name)


def promtool_test(rules):
    """`promtool test rules` of TESTS against `rules` (a parsed rules file): (passed, output)."""
    os.makedirs(WORK, exist_ok=True)
    with open(os.path.join(WORK, os.path.basename(RULES)), "w") as f:
        yaml.safe_dump(rules, f, sort_keys=False)
    tests = os.path.join(WORK, os.path.basename(TESTS))
    shutil.copyfile(TESTS, tests)
    result = subprocess.run(["promtool", "test", "rules", tests], capture_output=True, text=True)
    return result.returncode == 0, result.stdout + result.stderr


result = subprocess.run(["promtool", "check", "rules", RULES], capture_output=True, text=True)
check("alert rules: promtool check rules", result.returncode == 0, result.stdout + result.stderr)
rules = yaml.safe_load(open(RULES))
passed, said = promtool_test(rules)
check("alert rules: promtool test rules passes", passed, said)
# The copy written by yaml must test as the file does, or the mutations below prove nothing.
result = subprocess.run(["promtool", "test", "rules", TESTS], capture_output=True, text=True)
check("alert rules: promtool test rules passes on the file itself", result.returncode == 0, result.stdout + result.stderr)

alerts = [rule for group in rules["groups"] for rule in group["rules"] if "alert" in rule]
cases = [case for test in yaml.safe_load(open(TESTS))["tests"] for case in test.get("alert_rule_test", [])]
for rule in alerts:
    name = rule["alert"]
    own = [case for case in cases if case["alertname"] == name]
    check(f"{name}: tested firing and not firing",
          any(case.get("exp_alerts") for case in own) and any(not case.get("exp_alerts") for case in own),
          f"{len(own)} cases, {sum(1 for case in own if case.get('exp_alerts'))} of them firing")

    def mutated(change):
        copy = yaml.safe_load(yaml.safe_dump(rules))
        for group in copy["groups"]:
            for other in group["rules"]:
                if other.get("alert") == name:
                    change(other)
        return promtool_test(copy)

    passed, _ = mutated(lambda r: r.update(expr="vector(1) == 0"))
    check(f"{name}: the tests fail when it never fires", not passed)
    turned = {"==": "!=", ">": "<=", "<": ">="}
    comparisons = re.findall(r"==|!=|>=|<=|>|<", rule["expr"])
    if len(comparisons) == 1 and comparisons[0] in turned:
        passed, _ = mutated(lambda r: r.update(expr=re.sub(r"==|>|<", lambda m: turned[m.group(0)], r["expr"])))
        check(f"{name}: the tests fail when its comparison is turned round", not passed)
    else:
        check(f"{name}: one comparison to turn round", False, f"found {comparisons} in {rule['expr']!r}")
    if "for" in rule:
        passed, _ = mutated(lambda r: r.pop("for"))
        check(f"{name}: the tests fail without its for: {rule['for']}", not passed)

print(f"{len(failures)} failed" if failures else "all alert rule checks passed", flush=True)
sys.exit(1 if failures else 0)
