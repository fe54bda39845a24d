#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""LLVM's own tests of its C API and of its OCaml bindings, run as lit runs
them, with every run of the program under test also under `ownsan run`.

    run_lit.py --suite SUITE --source DIR --list
    run_lit.py --suite SUITE --source DIR --case NAME --ownsan OWNSAN
               [--llvm-major N]

DIR is the top of Debian's llvm-toolchain-N source, as
scripts/fetch-llvm-source.sh fetches it (never committed). The suites
(SUITES below), each a directory of lit scripts written by LLVM's
developers:

  llvm_c  llvm/test/Bindings/llvm-c: llvm-c-test (Debian's build of it)
          in each of its modes: --echo cloning modules instruction by
          instruction, module and bitcode dumps (lazy ones too, and invalid
          bitcode), metadata, debug information, attributes, diagnostic
          handlers, object files, the disassembler, --calc.
  ocaml   llvm/test/Bindings/OCaml: each test built with ocamlc (bytecode:
          ocamlrun dlopens the bindings' stubs) and with ocamlopt over
          Debian's libllvm-N-ocaml-dev, run, and what it wrote checked;
          ext_exc.ml raises an OCaml exception out of a C API call.

--case NAME runs one script in a fresh directory, each RUN line with sh
(lit's substitutions: %s %S %p %t %ocamlc %ocamlopt; the LLVM N tools
first in PATH). A line that runs the program under test runs twice: as
written, then with each run of that program under `ownsan run`
(verbosity=1; what a pipe gives FileCheck is also kept, since a `2>&1 |`
in the script sends ownsan's lines there too). Checks: the same exit
status, both 0 (a script's `not` included), the same stdout, nothing from
OwnSan but the statistics, and at least one checked call (silence must
mean ownsan looked). The lines after it
check what the run under ownsan wrote. Prints "N passed, M failed".
"""
import argparse
import pathlib
import re
import shlex
import sys
import tempfile

from ownsan_testing import Checker, check_ran_alike, clean_env, run

# suite: (directory in the source, file patterns, the program under test:
# where a RUN line runs it, before substitution).
SUITES = {
    "llvm_c": ("llvm/test/Bindings/llvm-c", ("*.ll", "*.test"),
               r"\bllvm-c-test\b"),
    "ocaml": ("llvm/test/Bindings/OCaml", ("*.ml",), r"^%t/executable\b"),
}

RUN_RE = re.compile(r"^\s*(?:;|#|\(\*|\*|//)?\s*RUN:\s?(?P<cmd>.*?)\s*$")


def scripts(suite, source):
    """{case name: file}: the suite's files with RUN lines (a file in a
    subdirectory is DIR.NAME)."""
    top = pathlib.Path(source) / SUITES[suite][0]
    out = {}
    for pattern in SUITES[suite][1]:
        for path in top.rglob(pattern):
            if run_lines(path):
                rel = path.relative_to(top).with_suffix("")
                out[".".join(rel.parts)] = path
    return dict(sorted(out.items()))


def run_lines(path):
    """The commands of the RUN lines of `path`, in order (a line ending in
    a backslash goes on in the next RUN line)."""
    out, pending = [], ""
    for line in path.read_text(errors="replace").splitlines():
        m = RUN_RE.match(line)
        if not m:
            continue
        cmd = pending + m["cmd"]
        if cmd.endswith("\\"):
            pending = cmd[:-1] + " "
            continue
        out.append(cmd)
        pending = ""
    return out


def substitute(cmd, path, tmp, llvm_lib):
    ocaml = f"ocamlfind {{}} -cclib -L{llvm_lib} -cclib -Wl,-rpath,{llvm_lib}"
    for key, value in (
            ("%ocamlc", ocaml.format("ocamlc")),
            ("%ocamlopt", ocaml.format("ocamlopt")),
            ("%s", shlex.quote(str(path))),
            ("%S", shlex.quote(str(path.parent))),
            ("%p", shlex.quote(str(path.parent))),
            ("%t", shlex.quote(str(tmp)))):
        cmd = cmd.replace(key, value)
    return cmd


def run_case(c, a, path):
    program = re.compile(SUITES[a.suite][2])
    llvm = pathlib.Path(f"/usr/lib/llvm-{a.llvm_major}")
    env = clean_env()
    env["PATH"] = f"{llvm / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}"
    under = f"{shlex.quote(a.ownsan)} run --llvm {a.llvm_major} -- "
    lines = run_lines(path)
    c.check(any(program.search(cmd) for cmd in lines),
            f"{path.name}: its script runs the program under test")
    runs = 0
    with tempfile.TemporaryDirectory() as work:
        tmp = pathlib.Path(work) / "t"
        for cmd in lines:
            line = substitute(cmd, path, tmp, llvm / "lib")
            plain = run(["/bin/sh", "-c", line], env=env, cwd=work,
                        timeout=a.timeout)
            if not c.equal(plain.returncode, 0, f"RUN: {cmd}", plain):
                return
            if not program.search(cmd):
                continue
            runs += 1
            piped = pathlib.Path(work) / f"piped-{runs}"
            piped.touch()
            checked_cmd = program.sub(lambda m: under + m[0], cmd)
            checked_cmd = re.sub(r"\|\s*FileCheck\b",
                                 f"| tee -a {piped} | FileCheck", checked_cmd)
            checked = run(["/bin/sh", "-c", substitute(checked_cmd, path, tmp,
                                                       llvm / "lib")],
                          env=dict(env, OWNSAN_OPTIONS="verbosity=1"),
                          cwd=work, timeout=a.timeout)
            check_ran_alike(c, f"RUN: {cmd}", plain, checked,
                            checked.err + piped.read_text(errors="replace"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", choices=sorted(SUITES), required=True)
    ap.add_argument("--source", required=True,
                    help="the top of the LLVM source (llvm-toolchain-N)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--case")
    ap.add_argument("--ownsan")
    ap.add_argument("--llvm-major", type=int, default=19)
    ap.add_argument("--timeout", type=float, default=300)
    a = ap.parse_args()
    cases = scripts(a.suite, a.source)
    if a.list:
        print("\n".join(cases))
        return 0
    if a.case not in cases or not a.ownsan:
        ap.error(f"--case (one of {', '.join(cases)}) and --ownsan needed")
    c = Checker(f"upstream.{a.suite}.{a.case}")
    run_case(c, a, cases[a.case])
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
