#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Two libLLVM majors in one process: each call reaches its own library.

    check_two_majors.py --ownsan PATH --llvm-major M --other-major N
        --linked-own PROG --linked-other PROG --own-lib LIB --other-lib LIB

Both programs are tests/majors/two_majors.c: one linked against this
build's libLLVM (major M) that dlopen()s the other major's (N), one the
other way round. Each builds the same function in both libraries and prints
it; LLVM 14 prints `i32*` where later majors print `ptr`, so a call that
reached the wrong library shows in the output. Under `ownsan run --llvm M`:

  1. stdout is the native one byte for byte, exit status 0, and stderr is
     the native one plus exactly one note line naming the other library;
  2. the runtime still checks its own major: a use of a function after its
     module was disposed, through LLVM M (PLT or dlsym, whichever the
     program uses for M), is reported as such.
"""

import argparse
import os
import re
import sys

from ownsan_testing import (
    Checker, ReportFormatError, parse_reports, run)


def note_re(other_major, own_major):
    """The one line the runtime prints about the unchecked library."""
    return re.compile(
        rf"==\d+==OwnSan: note: calls into (?P<path>\S+) \(LLVM "
        rf"{other_major}\) are not checked; this runtime is for LLVM "
        rf"{own_major} \(ownsan run --llvm {other_major} checks them\)")


def check_identical(c, args, what, program, lib):
    native = run([program, lib])
    if not c.check(native.returncode == 0 and native.err == "",
                   f"{what}: without ownsan, exit 0 and nothing on stderr",
                   native):
        return
    pointer = {14: "i32*"}
    for tag, major in (("linked", args.linked_major(program)),
                       ("dlopened", args.dlopened_major(program))):
        want = pointer.get(major, "ptr")
        c.check(f"define i32 @load_{tag}({want} %0)" in native.out,
                f"{what}: without ownsan, the {tag} LLVM {major} prints "
                f"the pointer as {want}", native)
    under = run([args.ownsan, "run", "--llvm", str(args.llvm_major), "--",
                 program, lib])
    shown = f"{native.describe()}\n{under.describe()}"
    c.check(under.returncode == 0, f"{what}: under ownsan, exit 0", shown)
    c.check(under.stdout == native.stdout,
            f"{what}: under ownsan, the same stdout (each call reached "
            f"the library it was bound to)", shown)
    lines = under.err.splitlines()
    m = note_re(args.other_major, args.llvm_major).fullmatch(
        lines[0]) if len(lines) == 1 else None
    c.check(m is not None and os.path.realpath(m["path"]) ==
            os.path.realpath(args.other_lib),
            f"{what}: under ownsan, stderr is one note line saying calls "
            f"into {args.other_lib} (LLVM {args.other_major}) are not "
            f"checked", shown)


def check_seeded(c, args, what, program, lib, route):
    tag = route.rsplit("-", 1)[1]
    under = run([args.ownsan, "run", "--llvm", str(args.llvm_major), "--",
                 program, lib, route])
    try:
        reports = parse_reports(under.err)
    except ReportFormatError as e:
        c.check(False, f"{what}: the report is well formed", f"{e}\n"
                f"{under.describe()}")
        return
    if not c.check(len(reports) == 1 and under.returncode not in (0, None),
                   f"{what}: one report, and the run stops", under):
        return
    r = reports[0]
    c.equal((r.kind, r.handle_type, r.label),
            ("use-after-free", "LLVMValueRef",
             f'function @load_{tag} in module "module_{tag}"'),
            f"{what}: use-after-free on function @load_{tag}")
    use = r.use.fields if r.use else {}
    c.equal((use.get("call"), use.get("arg")), ("LLVMGetValueName2", "1"),
            f"{what}: passed as argument 1 of LLVMGetValueName2")
    free = r.free.fields if r.free else {}
    c.equal((free.get("call"), free.get("label")),
            ("LLVMDisposeModule", f'module "module_{tag}"'),
            f"{what}: freed by LLVMDisposeModule(module \"module_{tag}\")")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ownsan", required=True)
    p.add_argument("--llvm-major", required=True, type=int)
    p.add_argument("--other-major", required=True, type=int)
    p.add_argument("--linked-own", required=True)
    p.add_argument("--linked-other", required=True)
    p.add_argument("--own-lib", required=True)
    p.add_argument("--other-lib", required=True)
    args = p.parse_args(argv)
    args.linked_major = lambda prog: (args.llvm_major if prog ==
                                    args.linked_own else args.other_major)
    args.dlopened_major = lambda prog: (args.other_major if prog ==
                                      args.linked_own else args.llvm_major)
    c = Checker(f"LLVM {args.llvm_major} runtime, LLVM {args.other_major} "
                f"in the same process")
    own, other = args.llvm_major, args.other_major
    check_identical(c, args, f"linked to LLVM {other}, dlopens LLVM {own}",
                    args.linked_other, args.own_lib)
    check_identical(c, args, f"linked to LLVM {own}, dlopens LLVM {other}",
                    args.linked_own, args.other_lib)
    check_seeded(c, args, f"bug through the dlopened LLVM {own}",
                 args.linked_other, args.own_lib, "use-after-free-dlopened")
    check_seeded(c, args, f"bug through the linked LLVM {own} (PLT)",
                 args.linked_own, args.other_lib, "use-after-free-linked")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
