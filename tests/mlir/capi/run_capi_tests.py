#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""MLIR's own C API tests (mlir/test/CAPI/*.c), built and checked as lit does.

The tests come from Debian's llvm-toolchain-N source package, fetched by
`scripts/fetch-llvm-source.sh N` (only mlir/test/CAPI, mlir/lib/CAPI and
mlir/include/mlir-c). For each test this driver

* reads the test's `RUN:` lines (the program's name, mlir-capi-*-test, and
  the FileCheck arguments: `%s` is the test file) and its `REQUIRES:` /
  `UNSUPPORTED:` lines;
* reads mlir/test/CAPI/CMakeLists.txt for the program's sources and the
  MLIRCAPI* archives it links (`_add_capi_test_executable`), and the `if()`
  around it (MLIR_ENABLE_EXECUTION_ENGINE, from the installed
  MLIRConfig.cmake);
* compiles the sources with `cc -c -I MLIR/include -I LLVM/include`, links
  them with `c++`: the objects, then the --link-flags words, then the
  archives in a --start-group, libMLIR.so, libLLVM.so and -lm -lpthread
  (with --linker lld, `-fuse-ld=lld`: ld.bfd takes ~14 s over link
  mode's --wrap list and MLIR's archives, lld ~0.5 s);
* runs the program (stderr into stdout, `2>&1`) and pipes the output into
  FileCheck with the RUN line's arguments. A test passes when the program
  exits 0 and FileCheck accepts (lit runs the pipeline with pipefail).

Modes:
  --native              the baseline only: the programs without ownsan.
  --link-flags "WORDS"  the baseline, then the same programs linked with
                        WORDS after their objects (where link mode's
                        `ownsan link-flags` go: `-Wl,@DIR/ownsan.wrap
                        DIR/ownsan_link_runtime.o ...`) and run with the
                        --env variables: a test that passes natively must
                        pass checked, with no `==PID==ERROR: OwnSan` and no
                        `WARNING: OwnSan` line in its output.
A test that fails natively (an archive not installed, a JIT the host does
not have, ...) is listed as "skipped: fails natively: REASON"; it fails
nothing. The exit status is 1 when a test passing natively fails checked,
or, in --native mode, when no test passes at all; 77 (ctest's
SKIP_RETURN_CODE) when the fetched source is absent; 2 on a usage error.

Examples:
  scripts/fetch-llvm-source.sh 19
  tests/mlir/capi/run_capi_tests.py --llvm 19 --native
  tests/mlir/capi/run_capi_tests.py --llvm 19 \\
      --link-flags "$(build/bin/ownsan link-flags --llvm 19)" \\
      --env OWNSAN_OPTIONS=halt_on_error=0
An MLIR that is not installed (Debian's libmlir-N-dev packages conflict
with each other: one major per machine) can be unpacked from its .debs
(`apt-get download libmlir-22 libmlir-22-dev`, `dpkg-deb -x`) and named
with --mlir-root DEB_ROOT/usr/lib/llvm-22.
"""

import argparse
import os
import pathlib
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

EXIT_SKIP = 77
# A report (`==PID==ERROR: OwnSan: ...`) or a warning (`==PID==WARNING:
# OwnSan: ...`, or without the pid) anywhere in the output.
OWNSAN_LINE = re.compile(r"^.*(?:==\d+==ERROR: OwnSan|WARNING: OwnSan).*$",
                         re.IGNORECASE | re.MULTILINE)


# --- What the source says -----------------------------------------------------

def directive_lines(text, keyword):
    """The `KEYWORD:` lines of a test file, continuations (`\\`) joined."""
    out, pending = [], None
    for line in text.splitlines():
        m = re.search(r"\b" + keyword + r":(.*)$", line)
        if pending is not None:
            body = re.sub(r"^\s*(//|/\*|\*)?", "", line)
            body = re.sub(r"\*/\s*$", "", body).rstrip()
            m = None
        elif m:
            body = re.sub(r"\*/\s*$", "", m.group(1)).rstrip()
        else:
            continue
        pending = (pending or "") + " " + body.rstrip("\\").strip()
        if not body.endswith("\\"):
            out.append(pending.strip())
            pending = None
    return out


def parse_run(line):
    """`PROG [ARGS] [2>&1] | FileCheck ARGS` -> (prog, args, merge, fc_args);
    None for any other shape."""
    parts = line.split("|")
    if len(parts) != 2:
        return None
    left, right = shlex.split(parts[0]), shlex.split(parts[1])
    if not left or not right or right[0] != "FileCheck":
        return None
    merge = "2>&1" in left
    left = [w for w in left if w != "2>&1"]
    return left[0], left[1:], merge, right[1:]


def cmake_calls(text, function):
    """[(args, conditions)] for each FUNCTION(...) call of a CMakeLists,
    with the if() conditions around it."""
    text = re.sub(r"#[^\n]*", "", text)
    calls, stack = [], []
    token = re.compile(r"(\w+)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)", re.S)
    for m in token.finditer(text):
        name, args = m.group(1).lower(), m.group(2)
        if name == "if":
            stack.append(args.strip())
        elif name == "endif" and stack:
            stack.pop()
        elif name == function.lower():
            calls.append((args.split(), list(stack)))
    return calls


def cmake_set_values(config):
    """set(VAR "value") of an installed *Config.cmake."""
    values = {}
    try:
        text = config.read_text()
    except OSError:
        return values
    for m in re.finditer(r'^set\((\w+)\s+"([^"]*)"\)', text, re.M):
        values[m.group(1)] = m.group(2)
    return values


def capi_dependencies(targets):
    """{MLIRCAPIX: [the MLIRCAPI* targets it links]} from the installed
    MLIRTargets.cmake (INTERFACE_LINK_LIBRARIES): what CMake adds to a link
    of MLIRCAPIX. (mlir-capi-execution-engine-test names no MLIRCAPIIR but
    calls it: it comes through MLIRCAPIRegisterEverything.)"""
    deps = {}
    try:
        text = targets.read_text()
    except OSError:
        return deps
    for m in re.finditer(r'set_target_properties\((\w+) PROPERTIES\s+'
                         r'INTERFACE_LINK_LIBRARIES "([^"]*)"', text):
        deps[m.group(1)] = [d for d in m.group(2).split(";")
                            if d.startswith("MLIRCAPI")]
    return deps


def with_dependencies(archives, deps):
    """archives, then the MLIRCAPI* targets they need (transitively)."""
    out, todo = [], list(archives)
    while todo:
        a = todo.pop(0)
        if a not in out:
            out.append(a)
            todo += deps.get(a, [])
    return out


def cmake_true(value):
    v = (value or "").upper()
    return v not in ("", "0", "OFF", "NO", "FALSE", "N", "IGNORE",
                     "NOTFOUND") and not v.endswith("-NOTFOUND")


class Test:
    def __init__(self, path):
        self.path = path
        self.name = path.stem
        text = path.read_text()
        self.runs = [parse_run(r) for r in directive_lines(text, "RUN")]
        self.requires = directive_lines(text, "REQUIRES")
        self.unsupported = directive_lines(text, "UNSUPPORTED")
        self.program = self.runs[0][0] if self.runs and self.runs[0] else None
        self.sources = [path]
        self.archives = []  # CMakeLists.txt's LINK_LIBS
        self.link_archives = []  # and what they link (MLIRTargets.cmake)
        self.conditions = []
        self.in_cmake = False


def load_tests(capi_dir, deps):
    tests = {t.name: t for t in
             (Test(p) for p in sorted(capi_dir.glob("*.c")))}
    by_program = {t.program: t for t in tests.values() if t.program}
    cmake = capi_dir / "CMakeLists.txt"
    for args, conds in cmake_calls(cmake.read_text(),
                                   "_add_capi_test_executable"):
        if not args:
            continue
        t = by_program.get(args[0])
        if t is None:
            continue
        rest = args[1:]
        cut = rest.index("LINK_LIBS") if "LINK_LIBS" in rest else len(rest)
        t.sources = [capi_dir / s for s in rest[:cut]
                     if s not in ("PARTIAL_SOURCES_INTENDED",)]
        t.archives = [a for a in rest[cut + 1:]
                      if a not in ("PRIVATE", "PUBLIC", "INTERFACE")]
        t.link_archives = with_dependencies(t.archives, deps)
        t.conditions = conds
        t.in_cmake = True
    return [tests[n] for n in sorted(tests)]


# --- Building and running -------------------------------------------------------

class Result:
    def __init__(self):
        self.built = False
        self.build_error = ""
        self.status = None  # exit status text
        self.returncode = None
        self.filecheck = None  # True / False / None (not run)
        self.filecheck_error = ""
        self.ownsan_lines = []
        self.build_seconds = 0.0
        self.run_seconds = 0.0  # the program and FileCheck
        self.reason = ""  # why it did not pass
        self.notes = []

    @property
    def passed(self):
        return (self.built and self.returncode == 0 and
                self.filecheck is True and not self.ownsan_lines)


def status_text(returncode):
    if returncode is None:
        return "timed out"
    if returncode < 0:
        try:
            return "killed by " + signal.Signals(-returncode).name
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit {returncode}"


def first_lines(text, n=3):
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return " | ".join(lines[:n])[:300]


def why_not_buildable(test, cfg, mlir_config):
    """A reason the test cannot be built here, or ""."""
    if not test.program:
        return "no RUN line of the shape 'PROG 2>&1 | FileCheck ...'"
    if not all(test.runs):
        return "a RUN line of another shape than 'PROG 2>&1 | FileCheck ...'"
    if len({r[0] for r in test.runs}) != 1:
        return "RUN lines naming different programs"
    if not test.in_cmake:
        return f"{test.program} is not in CMakeLists.txt"
    for cond in test.conditions:
        if re.fullmatch(r"\w+", cond) and not cmake_true(mlir_config.get(cond)):
            return f"if({cond}) is off in the installed MLIRConfig.cmake"
    machine = platform.machine()
    for line in test.unsupported:
        for pat in re.findall(r"target=([\w{}.*-]+)", line):
            rx = re.escape(pat).replace(r"\{\{\.\*\}\}", ".*")
            if re.match(rx, machine):
                return f"UNSUPPORTED: target={pat} ({machine})"
    for a in test.link_archives:
        if not (cfg.mlir_lib / f"lib{a}.a").exists():
            return f"no lib{a}.a in {cfg.mlir_lib}"
    return ""


def run_cmd(cmd, timeout, env=None, merge=False):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT if merge else subprocess.PIPE,
                           timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr or b""
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or b"", e.stderr or b""


def build(test, cfg, out_dir, link_words, notes):
    """Compiles and links test into out_dir; (ok, message). When the
    archives CMake would link leave symbols undefined, links again with
    every libMLIRCAPI*.a in the group, and says so in notes."""
    out_dir.mkdir(parents=True, exist_ok=True)
    objects = []
    includes = [f"-I{cfg.mlir_include}"]
    if cfg.llvm_include != cfg.mlir_include:
        includes.append(f"-I{cfg.llvm_include}")
    for src in test.sources:
        obj = out_dir / (src.stem + ".o")
        cmd = [cfg.cc, "-c", "-O0", "-g", "-fno-omit-frame-pointer",
               *includes, str(src), "-o", str(obj)]
        rc, out, err = run_cmd(cmd, cfg.timeout)
        if rc != 0:
            return False, "compile: " + first_lines((out + err).decode(
                errors="replace"))
        objects.append(str(obj))
    exe = out_dir / test.program
    archives = [str(cfg.mlir_lib / f"lib{a}.a") for a in test.link_archives]
    every = [str(p) for p in sorted(cfg.mlir_lib.glob("libMLIRCAPI*.a"))]
    rpaths = [f"-Wl,-rpath,{d}" for d in dict.fromkeys(
        [str(cfg.mlir_lib), str(cfg.llvm_lib)])]
    for group in (archives, every):
        if cfg.libs is not None:
            libs = shlex.split(cfg.libs)
        else:
            libs = (["-Wl,--start-group", *group, "-Wl,--end-group",
                     str(cfg.mlir_lib / "libMLIR.so"),
                     str(cfg.llvm_lib / "libLLVM.so"),
                     "-lm", "-lpthread"])
        cmd = [cfg.cxx, *cfg.linker_words, *objects, *link_words, *libs,
               *rpaths, "-o", str(exe)]
        (out_dir / "link.cmd").write_text(shlex.join(cmd) + "\n")
        rc, out, err = run_cmd(cmd, cfg.timeout)
        if rc == 0:
            return True, str(exe)
        text = (out + err).decode(errors="replace")
        undef = sorted(set(re.findall(r"undefined reference to `([^']+)'",
                                      text)))
        if not undef:
            return False, "link: " + first_lines(text)
        message = (f"link: {len(undef)} undefined symbols, e.g. "
                   + ", ".join(undef[:3]))
        if cfg.libs is not None or group is every:
            return False, message
        notes.append(f"every libMLIRCAPI*.a linked: CMake's archives left "
                     f"{len(undef)} undefined ({undef[0]}, ...)")
    return False, message


def check(test, cfg, out_dir, link_words, env):
    r = Result()
    start = time.monotonic()
    ok, msg = build(test, cfg, out_dir, link_words, r.notes)
    r.built = ok
    r.build_seconds = time.monotonic() - start
    start = time.monotonic()
    if not ok:
        r.build_error = r.reason = msg
        return r
    exe = msg
    for prog, args, merge, fc_args in test.runs:
        rc, out, err = run_cmd([exe, *args], cfg.timeout, env=env, merge=merge)
        output = out + err
        (out_dir / f"{test.name}.out").write_bytes(output)
        r.returncode, r.status = rc, status_text(rc)
        text = output.decode(errors="replace")
        r.ownsan_lines += [m.group(0) for m in OWNSAN_LINE.finditer(text)]
        fc = [cfg.filecheck] + [str(test.path) if a == "%s" else a
                                for a in fc_args]
        # (FileCheck reads the pipe: stdout, and stderr with 2>&1.)
        try:
            p = subprocess.run(fc, input=out, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=cfg.timeout)
            fc_ok, fc_text = p.returncode == 0, p.stdout.decode(errors="replace")
        except subprocess.TimeoutExpired:
            fc_ok, fc_text = False, "FileCheck timed out"
        r.filecheck = fc_ok if r.filecheck is None else (r.filecheck and fc_ok)
        if not fc_ok and not r.filecheck_error:
            r.filecheck_error = first_lines(fc_text, 2)
        if rc != 0 and not r.reason:
            r.reason = f"{r.status}: {first_lines(text, 2)}"
    if not r.reason and not r.filecheck:
        r.reason = "FileCheck: " + r.filecheck_error
    if not r.reason and r.ownsan_lines:
        r.reason = f"{len(r.ownsan_lines)} ownsan lines: {r.ownsan_lines[0]}"
    r.run_seconds = time.monotonic() - start
    return r


def seconds(r):
    """"build+run" seconds."""
    return f"{r.build_seconds:.1f}+{r.run_seconds:.1f}" if r else "-"


def describe(r):
    if r is None:
        return "-"
    if not r.built:
        return "not built"
    fc = {True: "FileCheck pass", False: "FileCheck FAIL",
          None: "no FileCheck"}[r.filecheck]
    return f"{r.status}, {fc}"


# --- Main -------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--llvm", type=int, required=True, metavar="N",
                    help="the LLVM major (/usr/lib/llvm-N)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--native", action="store_true",
                      help="the baseline only, without ownsan")
    mode.add_argument("--link-flags", metavar="WORDS",
                      help="words for the link line after the objects "
                           "(ownsan's link mode); runs the baseline too")
    ap.add_argument("--env", action="append", default=[], metavar="K=V",
                    help="environment of the checked runs (with --native: "
                         "of the native runs); repeatable")
    ap.add_argument("--source", type=pathlib.Path,
                    help="the fetched source (default: $OWNSAN_SOURCE_CACHE "
                         "or ~/.cache/ownsan, then llvm-toolchain-N)")
    ap.add_argument("--llvm-root", type=pathlib.Path,
                    help="default /usr/lib/llvm-N: include/, lib/libLLVM.so, "
                         "bin/FileCheck")
    ap.add_argument("--mlir-root", type=pathlib.Path,
                    help="where include/mlir-c, lib/libMLIR.so and "
                         "lib/libMLIRCAPI*.a are (default: --llvm-root)")
    ap.add_argument("--libs", metavar="WORDS",
                    help="replaces the libraries after the --link-flags "
                         "(default: the test's MLIRCAPI archives in a group, "
                         "libMLIR.so, libLLVM.so, -lm -lpthread)")
    ap.add_argument("--filecheck", help="default LLVM-ROOT/bin/FileCheck")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--cxx", default=os.environ.get("CXX", "c++"))
    ap.add_argument("--linker", metavar="NAME",
                    help="link with -fuse-ld=NAME (bfd, lld; default: the "
                         "compiler's)")
    ap.add_argument("--build-dir", type=pathlib.Path,
                    help="where the programs go (default: a temporary "
                         "directory, removed)")
    ap.add_argument("--test", action="append", default=[], metavar="NAME",
                    help="only this test (file stem: ir, pass, ...); "
                         "repeatable")
    ap.add_argument("--timeout", type=float, default=600,
                    help="seconds per compile, link, run (default 600)")
    ap.add_argument("--list", action="store_true",
                    help="print each test, its program, sources and archives")
    args = ap.parse_args(argv)
    if not (args.native or args.link_flags is not None or args.list):
        ap.error("one of --native, --link-flags WORDS or --list")
    for kv in args.env:
        if "=" not in kv:
            ap.error(f"--env {kv}: not K=V")
    return args


class Config:
    def __init__(self, args):
        root = args.llvm_root or pathlib.Path(f"/usr/lib/llvm-{args.llvm}")
        mroot = args.mlir_root or root
        self.llvm_include = root / "include"
        self.llvm_lib = root / "lib"
        self.mlir_include = mroot / "include"
        self.mlir_lib = mroot / "lib"
        self.mlir_config = self.mlir_lib / "cmake" / "mlir" / "MLIRConfig.cmake"
        self.filecheck = args.filecheck or str(root / "bin" / "FileCheck")
        self.cc, self.cxx = args.cc, args.cxx
        self.linker_words = [f"-fuse-ld={args.linker}"] if args.linker else []
        self.libs = args.libs
        self.timeout = args.timeout


def main(argv=None):
    args = parse_args(argv)
    cache = pathlib.Path(os.environ.get("OWNSAN_SOURCE_CACHE") or
                         pathlib.Path.home() / ".cache" / "ownsan")
    source = args.source or cache / f"llvm-toolchain-{args.llvm}"
    capi_dir = source / "mlir" / "test" / "CAPI"
    if not (capi_dir / "CMakeLists.txt").exists():
        print(f"skipped: no MLIR C API tests in {capi_dir}; fetch them with "
              f"scripts/fetch-llvm-source.sh {args.llvm}")
        return EXIT_SKIP
    stamp = source / ".ownsan-source"
    version = ""
    if stamp.exists():
        m = re.search(r"^version=(.*)$", stamp.read_text(), re.M)
        version = m.group(1) if m else ""
    cfg = Config(args)
    tests = load_tests(capi_dir, capi_dependencies(
        cfg.mlir_config.parent / "MLIRTargets.cmake"))
    if args.test:
        unknown = set(args.test) - {t.name for t in tests}
        if unknown:
            print(f"no such test: {', '.join(sorted(unknown))}",
                  file=sys.stderr)
            return 2
        tests = [t for t in tests if t.name in args.test]
    if args.list:
        for t in tests:
            print(f"{t.name} {t.program} "
                  f"sources={','.join(s.name for s in t.sources)} "
                  f"archives={','.join(t.archives)}"
                  f" links={','.join(t.link_archives)}"
                  + (f" if={';'.join(t.conditions)}" if t.conditions else ""))
        return 0
    missing = [p for p in (cfg.mlir_lib / "libMLIR.so",
                           cfg.llvm_lib / "libLLVM.so",
                           pathlib.Path(cfg.filecheck)) if not p.exists()]
    if missing:
        print(f"skipped: not installed: {', '.join(map(str, missing))} "
              f"(libmlir-{args.llvm}-dev, llvm-{args.llvm}-tools)")
        return EXIT_SKIP
    mlir_config = cmake_set_values(cfg.mlir_config)

    checked_env = dict(os.environ)
    for kv in args.env:
        k, v = kv.split("=", 1)
        checked_env[k] = v
    native_env = checked_env if args.native else dict(os.environ)
    link_words = shlex.split(args.link_flags) if args.link_flags else []

    tmp = None
    if args.build_dir:
        build_dir = args.build_dir
    else:
        tmp = tempfile.mkdtemp(prefix="ownsan-capi-")
        build_dir = pathlib.Path(tmp)
    print(f"MLIR C API tests of llvm-toolchain-{args.llvm} {version} "
          f"({capi_dir}) against {cfg.mlir_lib}")
    if link_words:
        print(f"checked link: OBJECTS {shlex.join(link_words)} LIBS")
    rows, regressions, native_passes = [], [], 0
    total_start = time.monotonic()
    try:
        for t in tests:
            reason = why_not_buildable(t, cfg, mlir_config)
            native = checked = None
            if not reason:
                native = check(t, cfg, build_dir / "native" / t.name, [],
                               native_env)
                if native.passed:
                    native_passes += 1
                else:
                    reason = native.reason
            if link_words and not reason:
                checked = check(t, cfg, build_dir / "checked" / t.name,
                                link_words, checked_env)
            if reason:
                verdict = f"skipped: fails natively: {reason}"
            elif checked is None:
                verdict = "pass"
            elif checked.passed:
                verdict = "pass (native and checked)"
            else:
                verdict = f"REGRESSION: {checked.reason}"
                regressions.append(t.name)
            rows.append((t, native, checked, verdict))
            print(f"  {t.name}: {verdict}", flush=True)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    total = time.monotonic() - total_start

    header = ["test", "program", "native", "build+run s"]
    if link_words:
        header += ["checked", "ownsan lines", "build+run s"]
    header.append("verdict")
    table = [header]
    for t, n, c, verdict in rows:
        row = [t.name, t.program or "-", describe(n), seconds(n)]
        if link_words:
            row += [describe(c), str(len(c.ownsan_lines)) if c else "-",
                    seconds(c)]
        row.append(verdict)
        table.append(row)
    widths = [max(len(r[i]) for r in table) for i in range(len(header) - 1)]
    print()
    for r in table:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1])
    for t, n, c, _ in rows:
        for which, r in (("native", n), ("checked", c)):
            for note in (r.notes if r else []):
                print(f"note: {t.name} ({which}): {note}")
    skipped = sum(1 for _, _, _, v in rows if v.startswith("skipped"))
    print(f"\n{len(rows)} tests: {native_passes} pass natively, {skipped} "
          f"skipped (fail natively)"
          + (f", {len(regressions)} fail checked" if link_words else "")
          + f"; {total:.0f} s")
    if regressions:
        print("fail checked: " + ", ".join(regressions))
        return 1
    if native_passes == 0:
        print("no test passes natively: the harness or the installation is "
              "broken")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
