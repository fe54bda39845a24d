#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""LLVM's own tests of its OCaml bindings, run as lit runs them, with every
run of their programs also under `ownsan run`.

    run_upstream.py --list --tests DIR
    run_upstream.py --case NAME --tests DIR --ownsan OWNSAN --llvm-major N

DIR is llvm/test/Bindings/OCaml of Debian's llvm-toolchain-N source
(scripts/fetch-llvm-source.sh fetches it; never committed): files written
by LLVM's developers over Debian's libllvm-N-ocaml-dev, each a lit script
(its `RUN:` lines) that builds the test with ocamlc (bytecode: the
bindings' stubs are dlopen'ed by ocamlrun) and with ocamlopt (native), runs
it, and checks what it wrote with llvm-dis and FileCheck. The tests cover
the whole binding: modules, values, metadata, debug information, bitcode,
the execution engine, pass pipelines, diagnostic handlers and an OCaml
exception raised out of one (ext_exc.ml).

--case NAME runs NAME.ml's script in a fresh directory, each line with sh
(lit's substitutions: %s %S %t %ocamlc %ocamlopt; llvm-dis and FileCheck
of LLVM N). A line that runs the test program (`%t/executable ...`) is run
twice, as written and then under `ownsan run --llvm N` (verbosity=1), and
requires: both exit 0 with the same stdout, nothing from OwnSan but the
statistics, and at least one checked call (silence must mean ownsan
looked). The lines after it check what the run under ownsan wrote. Prints
"N passed, M failed".
"""
import argparse
import pathlib
import re
import shlex
import sys
import tempfile

from ownsan_testing import (Checker, checked_calls, clean_env,
                            ownsan_problems, run)

RUN_RE = re.compile(r"^\s*(?:\(\*|\*)?\s*RUN:\s*(?P<cmd>.*?)\s*$")
PROGRAM = "%t/executable"


def run_lines(path):
    """The commands of the `RUN:` lines of `path`, in order."""
    return [m["cmd"] for line in path.read_text().splitlines()
            if (m := RUN_RE.match(line))]


def substitute(cmd, source, tmp, llvm_bin):
    ocaml = "ocamlfind {} -cclib -L{lib} -cclib -Wl,-rpath,{lib}"
    lib = str(pathlib.Path(llvm_bin).parent / "lib")
    for key, value in (
            ("%ocamlc", ocaml.format("ocamlc", lib=lib)),
            ("%ocamlopt", ocaml.format("ocamlopt", lib=lib)),
            ("%s", shlex.quote(str(source))),
            ("%S", shlex.quote(str(source.parent))),
            ("%t", shlex.quote(str(tmp)))):
        cmd = cmd.replace(key, value)
    return cmd


def run_case(c, a):
    source = pathlib.Path(a.tests) / f"{a.case}.ml"
    llvm_bin = f"/usr/lib/llvm-{a.llvm_major}/bin"
    env = clean_env(OWNSAN_OPTIONS="verbosity=1")
    env["PATH"] = llvm_bin + ":" + env.get("PATH", "/usr/bin:/bin")
    under = f"{shlex.quote(a.ownsan)} run --llvm {a.llvm_major} -- "
    lines = run_lines(source)
    c.check(any(cmd.startswith(PROGRAM) for cmd in lines),
            f"{source.name}: its script runs the test program")
    programs = 0
    with tempfile.TemporaryDirectory() as work:
        tmp = pathlib.Path(work) / "t"
        for cmd in lines:
            line = substitute(cmd, source, tmp, llvm_bin)
            if not cmd.startswith(PROGRAM):
                r = run(["/bin/sh", "-c", line], env=env, cwd=work,
                        timeout=a.timeout)
                if not c.equal(r.returncode, 0, f"RUN: {cmd}", r):
                    return
                continue
            programs += 1
            plain = run(["/bin/sh", "-c", line], env=env, cwd=work,
                        timeout=a.timeout)
            if not c.equal(plain.returncode, 0, f"RUN: {cmd}", plain):
                return
            checked = run(["/bin/sh", "-c", under + line], env=env, cwd=work,
                          timeout=a.timeout)
            what = f"RUN: {cmd} (program {programs}, under ownsan)"
            c.equal(checked.returncode, 0, f"{what}: exit 0", checked)
            c.equal(checked.out, plain.out, f"{what}: the same stdout",
                    checked)
            c.equal(ownsan_problems(checked.err), [], f"{what}: no report",
                    checked)
            calls = sum(checked_calls(checked.err).values())
            c.check(calls > 0, f"{what}: ownsan checked its LLVM-C calls "
                    f"({calls:,})", checked)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--case")
    ap.add_argument("--tests", required=True,
                    help="llvm/test/Bindings/OCaml of the LLVM source")
    ap.add_argument("--ownsan")
    ap.add_argument("--llvm-major", type=int, default=19)
    ap.add_argument("--timeout", type=float, default=300)
    a = ap.parse_args()
    names = sorted(p.stem for p in pathlib.Path(a.tests).glob("*.ml"))
    if a.list:
        print("\n".join(names))
        return 0
    if a.case not in names or not a.ownsan:
        ap.error(f"--case (one of {', '.join(names)}) and --ownsan needed")
    c = Checker(f"ocaml.upstream.{a.case}")
    run_case(c, a)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
