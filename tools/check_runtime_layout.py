#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks the rules of the runtime's layout (docs/architecture.md, "The
runtime's files"), which a reviewer could also check with grep.

Each rule names what only some files of src/runtime may do (or none), as a
regular expression over code (comments are stripped first). A line that
breaks a rule is printed with its file and number; the exit status is 1 if
any does.
Run from anywhere: `tools/check_runtime_layout.py [--root DIR]`.
"""
import argparse
import pathlib
import re
import sys

TRACKER = {"tracker_registration.cpp", "tracker_deaths.cpp"}

SOURCES = (".cpp",)
ALL_FILES = (".cpp", ".h", ".inc")

# (what, pattern, files allowed to match, the files checked by suffix). Most
# rules read the .cpp files only: a header may declare what only one file
# may call (runtime.h declares NewReport).
RULES = [
    ("changes the shadow map or the ownership graph's structure",
     r"\b(shadow_|graph_)\s*\.\s*(Insert\w*|Evict|TakeOver|"
     r"DropRange|Add|Remove\w*|Recycle|SetParent)\s*\(",
     TRACKER, SOURCES),
    ("moves a record to another state or ownership sub-state",
     r"(->|\.)\s*state\s*(=[^=]|\.store\s*\()|"
     r"\b(owned_by_other|owner_untracked)\s*=[^=]",
     TRACKER, SOURCES),
    ("reads the spec's effects",
     r"\.\s*effects\s*\[|\bnum_effects\b",
     {"effects.cpp"}, SOURCES),
    ("builds a report or writes a report's sentence",
     r"\bNewReport\s*\(|\.\s*note\s*=[^=]",
     {"errors.cpp"}, SOURCES),
    ("spells the \"==PID==\" line prefix (report/output_line.h does)",
     r'"==',
     {"crash_handler.cpp", "runtime.cpp"},  # the lines that must not allocate
     SOURCES),
    ("renders a report or consults the suppressions",
     r"\bRender(Text|Json)\s*\(|\bsuppressions_\s*\.\s*(Match|Find|rules)",
     {"reporter.cpp"}, SOURCES),
    ("takes the report lock",
     r"\b(MutexLock\s+\w+\s*\(\s*&\s*report_mu_|report_mu_\s*\.\s*Lock)",
     {"reporter.cpp", "lifecycle.cpp", "runtime.cpp"}, SOURCES),
    # The runtime's files are the same for every LLVM major, so that ccache
    # shares their objects among the builds for each (CMakeLists.txt): what
    # a build was made for is in runtime/build_facts.h.
    ("depends on the LLVM major it is built for (the generated ids or "
     "functions, a major's define: read runtime/build_facts.h)",
     r'#\s*include\s*"(fn_ids|real_fns)\.h"|'
     r"\bOWNSAN_(LLVM_MAJOR|DEFAULT_SYMBOLIZER)\b",
     set(), ALL_FILES),
    # The generated ownsan::real::LLVMFoo(...) (build/gen/real_fns.h) carry
    # the header's own signature; a hand-written cast can drift from it.
    ("calls the real LLVM through a Real<signature> cast (call the typed "
     "ownsan::real::LLVMFoo(...) of build/gen/real_fns.h)",
     r"\bReal\s*<",
     set(), ALL_FILES),
]

# The runtime's files know no profile's API (src/runtime/profile.h): no
# function, type or enumerator of a checked C API, in code or in a string,
# and no call into the library but through the profile's hooks.
PROFILE_FREE_DIRS = ("runtime", "core", "report")
PROFILE_NAMES = (r'\bLLVM[A-Z]\w*|\bMlir[A-Z]\w*|\bmlir[A-Z]\w*|'
                 r'\breal::|"real_fns\.h"|[<"](llvm|mlir)(-c)?/')

EXEMPT = "(layout: not a tracked record)"
MAX_LINES = 600          # any hand-written file of src/
MAX_WIRING_LINES = 300   # src/runtime/runtime.cpp, the composition root


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                  text, flags=re.S)
    return [re.sub(r"//.*", "", line) for line in text.split("\n")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=pathlib.Path(__file__).resolve().parents[1])
    root = pathlib.Path(ap.parse_args().root)
    runtime = root / "src" / "runtime"
    problems = []
    for path in sorted(runtime.iterdir()):
        if path.suffix not in ALL_FILES:
            continue
        raw = path.read_text()
        lines = strip_comments(raw)
        # A line may say why it is no exception (a local record that only
        # describes an evicted object to a report is tracked by nobody).
        for n, line in enumerate(raw.split("\n")):
            if EXEMPT in line:
                lines[n] = ""
        for what, pattern, allowed, suffixes in RULES:
            if path.name in allowed or path.suffix not in suffixes:
                continue
            who = (f"which only {', '.join(sorted(allowed))} may do"
                   if allowed else "which no file of src/runtime may do")
            for n, line in enumerate(lines, 1):
                if re.search(pattern, line):
                    problems.append(f"{path.relative_to(root)}:{n}: {what}, "
                                    f"{who}: {line.strip()}")
    for d in PROFILE_FREE_DIRS:
        for path in sorted((root / "src" / d).iterdir()):
            if path.suffix not in ALL_FILES:
                continue
            for n, line in enumerate(strip_comments(path.read_text()), 1):
                if re.search(PROFILE_NAMES, line):
                    problems.append(
                        f"{path.relative_to(root)}:{n}: names a profile's API"
                        f" (only src/profiles/NAME may; the runtime asks"
                        f" through src/runtime/profile.h): {line.strip()}")
    for path in sorted((root / "src").rglob("*")):
        if path.suffix not in (".cpp", ".h", ".c", ".inc", ".def"):
            continue
        n = path.read_text().count("\n")
        if n > MAX_LINES:
            problems.append(f"{path.relative_to(root)}: {n} lines (at most "
                            f"{MAX_LINES}: split it by responsibility)")
    n = (runtime / "runtime.cpp").read_text().count("\n")
    if n > MAX_WIRING_LINES:
        problems.append(f"src/runtime/runtime.cpp: {n} lines (the wiring "
                        f"file: at most {MAX_WIRING_LINES})")
    for p in problems:
        print(p)
    print(f"{len(problems)} layout rule(s) broken" if problems
          else f"layout rules hold ({len(RULES)} rules, profile names,"
          " sizes)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
