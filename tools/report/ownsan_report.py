#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ownsan report: merge the JSON reports of many processes into one view.

    ownsan report [--sarif OUT.sarif] [--junit OUT.xml] [--html OUTDIR]
                  [--source-root DIR] [--category NAME] PATH...

Each PATH is a JSON Lines file written by the runtime with
`OWNSAN_OPTIONS=report_format=json:log_path=DIR/NAME`, or a directory
searched (recursively) for such files: every file named `ownsan.*` and every
other file holding an ownsan record (the rest are skipped). Reports are
deduplicated by their `problem_id` across every process; each distinct
problem is counted (the exit summary's count of each process when it has
one, else its number of report lines) and the tests that hit it are listed.
Leaks (report_leaks=1) are problems too: one per creation site, with an id
made here from the creating call and its stack.

Writes a summary on stdout and, on request, SARIF 2.1.0, JUnit XML and a
self-contained HTML postmortem per problem. Exit status: 1 when any problem
was found, 0 when none, 2 for usage errors, unreadable input and input that
holds no ownsan record at all (no log is not a clean run: a clean run's log
holds its exit summary).

This file is the command line: the options, which files are read, which
outputs are written. Each job is a module beside it: ownsan_records.py
(reading the records, collecting the problems), ownsan_kinds.py (the kind
list), ownsan_frames.py (whose code each frame is), ownsan_text.py (the
wording every output shares), ownsan_terminal.py, ownsan_sarif.py,
ownsan_junit.py, ownsan_html.py and ownsan_pages.py (the outputs).

Only the Python standard library is used: these files are installed next to
the `ownsan` binary (share/ownsan/) and this one is run by `ownsan report`
with /usr/bin/python3.
"""

import argparse
import json
import os
import stat
import sys

# The modules of `ownsan report` lie beside this file (tools/report/,
# share/ownsan/).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ownsan_pages  # noqa: E402
from ownsan_html import (html_index, html_kinds, html_problem,  # noqa: E402
                         page_name)
from ownsan_junit import build_junit  # noqa: E402
from ownsan_kinds import KINDS_PROBLEM  # noqa: E402
from ownsan_records import PROG, Collector, UsageError  # noqa: E402
from ownsan_sarif import build_sarif  # noqa: E402
from ownsan_terminal import terminal_summary  # noqa: E402
from ownsan_text import Paths, oneline  # noqa: E402


# --- command line ------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{message} (see '{PROG} --help')")


def parse_args(argv):
    p = _Parser(prog=PROG, allow_abbrev=False,
                description="Merge, deduplicate and render ownsan JSON "
                "reports (files written with OWNSAN_OPTIONS="
                "report_format=json:log_path=DIR/ownsan).",
                epilog="Exit status: 1 if any problem was found (leaks "
                "included), 0 if none, 2 on usage errors, unreadable input "
                "or input holding no ownsan record.")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="a report file, or a directory searched for files "
                   "holding ownsan records")
    p.add_argument("--sarif", metavar="OUT.sarif",
                   help="write SARIF 2.1.0 (one result per problem)")
    p.add_argument("--junit", metavar="OUT.xml",
                   help="write JUnit XML (one failing case per problem)")
    p.add_argument("--html", metavar="OUTDIR",
                   help="write OUTDIR/index.html and one page per problem")
    p.add_argument("--source-root", metavar="DIR",
                   help="show source paths under DIR relative to it")
    p.add_argument("--all-frames", action="store_true",
                   help="show the test runner's and the interpreter's "
                   "frames in HTML stacks (folded by default)")
    p.add_argument("--category", metavar="NAME",
                   help="the SARIF run's category (automationDetails.id "
                   "ownsan/NAME/; default: llvm-N, the LLVM major of the "
                   "runtimes that wrote the logs)")
    return p.parse_intermixed_args(argv)


def collect_inputs(paths, skip):
    """The log files named by PATHs, as (path, sniff): files as given;
    directories searched recursively for regular files (not our own
    outputs), those not named ownsan.* to be read only if they hold an
    ownsan record."""
    files = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError as e:
            raise UsageError(f"cannot read {path}: {e.strerror or e}")
        if stat.S_ISDIR(st.st_mode):
            found = []
            for dirpath, dirnames, filenames in os.walk(
                    path, onerror=_walk_error):
                dirnames.sort()
                if os.path.realpath(dirpath) in skip:
                    dirnames[:] = []
                    continue
                for name in sorted(filenames):
                    full = os.path.join(dirpath, name)
                    try:
                        if not stat.S_ISREG(os.stat(full).st_mode):
                            continue
                    except OSError:
                        continue
                    if os.path.realpath(full) not in skip:
                        found.append((full, not name.startswith("ownsan.")))
            files.extend(found)
        elif stat.S_ISREG(st.st_mode):
            files.append((path, False))
        else:
            raise UsageError(f"cannot read {path}: not a regular file or "
                             "directory")
    seen = set()
    unique = []
    for f, sniff in files:
        key = os.path.realpath(f)
        if key not in seen:
            seen.add(key)
            unique.append((f, sniff))
    return unique


def _walk_error(e):
    raise UsageError(f"cannot read {e.filename}: {e.strerror or e}")


def _write(path, what, writer):
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            writer(f)
    except OSError as e:
        raise UsageError(f"cannot write {what} {path}: {e.strerror or e}")


def check_outputs(args):
    """Fails early (before reading any input) on outputs that cannot be
    written: a missing parent directory, a directory where a file goes, a
    file where the HTML directory goes."""
    for path, what in ((args.sarif, "SARIF"), (args.junit, "JUnit")):
        if not path:
            continue
        parent = os.path.dirname(path) or "."
        if not os.path.isdir(parent):
            raise UsageError(f"cannot write {what} {path}: No such file or "
                             "directory")
        if os.path.isdir(path):
            raise UsageError(f"cannot write {what} {path}: Is a directory")
    if args.html and os.path.exists(args.html) and \
            not os.path.isdir(args.html):
        raise UsageError(f"cannot write HTML to {args.html}: not a directory")


def write_outputs(args, problems, col, paths):
    if args.sarif:
        doc = build_sarif(problems, col, paths, args.category)
        _write(args.sarif, "SARIF",
               lambda f: (json.dump(doc, f, indent=2, ensure_ascii=False),
                          f.write("\n")))
    if args.junit:
        tree = build_junit(problems, col, paths)
        try:
            tree.write(args.junit, encoding="UTF-8", xml_declaration=True)
        except OSError as e:
            raise UsageError(f"cannot write JUnit {args.junit}: "
                             f"{e.strerror or e}")
    if args.html:
        try:
            os.makedirs(args.html, exist_ok=True)
        except OSError as e:
            raise UsageError(f"cannot write HTML to {args.html}: "
                             f"{e.strerror or e}")
        if not os.path.isdir(args.html):
            raise UsageError(f"cannot write HTML to {args.html}: not a "
                             "directory")
        for i, p in enumerate(problems):
            link = lambda j: ((page_name(problems[j].problem_id),
                               f"{problems[j].kind} {problems[j].label}")
                              if 0 <= j < len(problems) else None)
            text = html_problem(p, col, paths, link(i - 1), link(i + 1))
            _write(os.path.join(args.html, page_name(p.problem_id)), "HTML",
                   lambda f, t=text: f.write(t))
        kinds = html_kinds(problems)
        _write(os.path.join(args.html, ownsan_pages.KINDS_PAGE), "HTML",
               lambda f: f.write(kinds))
        index = html_index(problems, col, paths)
        _write(os.path.join(args.html, "index.html"), "HTML",
               lambda f: f.write(index))


def main(argv=None):
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):
            pass
    try:
        args = parse_args(argv)
        check_outputs(args)
        skip = set()
        for out in (args.sarif, args.junit, args.html):
            if out:
                skip.add(os.path.realpath(out))
        files = collect_inputs(args.paths, skip)
        col = Collector()
        if KINDS_PROBLEM:
            print(f"{PROG}: warning: {oneline(KINDS_PROBLEM)}",
                  file=sys.stderr)
        for f, sniff in files:
            col.read_file(f, sniff)
        if not col.records:
            # A CI gate must not pass on logs that were never written.
            raise UsageError(
                f"no ownsan record in {' '.join(args.paths)}: nothing was "
                "checked, or the logs are elsewhere (write them with "
                "OWNSAN_OPTIONS=report_format=json:log_path=DIR/NAME; a "
                "clean run leaves its exit summary there)")
        problems = col.finish()
        paths = Paths(args.source_root, fold=not args.all_frames)
        write_outputs(args, problems, col, paths)
    except UsageError as e:
        print(f"{PROG}: error: {oneline(str(e))}", file=sys.stderr)
        return 2
    terminal_summary(problems, col, paths, sys.stdout)
    sys.stdout.flush()
    return 1 if problems else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # `ownsan report ... | head`: stop quietly; stdout goes nowhere now.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
