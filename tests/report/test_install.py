#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`ownsan report` from an install: the script finds the kind list.

    test_install.py --build-dir BUILD [--cmake CMAKE]

Installs BUILD (`cmake --install BUILD --prefix TMP`) and runs
TMP/bin/ownsan report --sarif on fixtures/race: share/ownsan holds the
script and error_kinds.json (generated from src/report/error_kinds.def),
the tool warns about nothing, and the SARIF rules are the kind list's, with
context-race and cross-context among them.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from ownsan_testing import Checker, run
from report_common import RACE, kinds_path, report


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build-dir", required=True)
    p.add_argument("--cmake", default="cmake")
    args = p.parse_args()
    c = Checker("ownsan report from an install")
    with tempfile.TemporaryDirectory(prefix="ownsan-install-") as prefix:
        proc = subprocess.run([args.cmake, "--install", args.build_dir,
                               "--prefix", prefix], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT)
        if not c.equal(proc.returncode, 0, "cmake --install succeeds",
                       proc.stdout.decode("utf-8", "replace")):
            sys.exit(c.finish())
        ownsan = os.path.join(prefix, "bin", "ownsan")
        share = os.path.join(prefix, "share", "ownsan")
        c.equal(sorted(os.listdir(share)),
                ["error_kinds.json", "examples", "ownsan_frames.py",
                 "ownsan_html.py", "ownsan_junit.py", "ownsan_kinds.py",
                 "ownsan_pages.py", "ownsan_records.py", "ownsan_report.py",
                 "ownsan_sarif.py", "ownsan_terminal.py", "ownsan_text.py",
                 "python"],
                "share/ownsan holds the script, its modules, the kind list, "
                "the pytest plugin and the examples")
        r = run([ownsan, "run", "--", "/usr/bin/python3", "-c",
                 "import ownsan; print(ownsan.__file__)"])
        c.equal(r.out.strip(), os.path.join(share, "python", "ownsan",
                                            "__init__.py"),
                "`ownsan run` puts the installed pytest plugin on PYTHONPATH "
                "(`pytest -p ownsan` finds it)", r)
        with open(kinds_path(ownsan), encoding="utf-8") as f:
            names = [k["name"] for k in json.load(f)["kinds"]]
        sarif = os.path.join(prefix, "out.sarif")
        r = report(ownsan, "--sarif", sarif, RACE)
        c.equal(r.returncode, 1, "the installed ownsan report exits 1 on the "
                "race fixture", r)
        c.equal(r.err, "", "no warning (the kind list is found)", r)
        with open(sarif, encoding="utf-8") as f:
            rules = json.load(f)["runs"][0]["tool"]["driver"]["rules"]
        c.equal([rule["id"] for rule in rules], names,
                "the SARIF rules are the installed kind list's")
        c.check({"context-race", "cross-context"} <= set(names) and all(
            not rule["shortDescription"]["text"].startswith(
                "ownsan reported") for rule in rules),
            "context-race and cross-context have their own descriptions")
    sys.exit(c.finish())


if __name__ == "__main__":
    main()
