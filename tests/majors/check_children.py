#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Child processes: LD_PRELOAD takes the runtime into every program started.

    check_children.py --ownsan PATH --llvm-major M --other-major N
        --other-bin DIR --work-dir DIR

The parent is a Python process under `ownsan run --llvm M`; it runs a child
and passes on its exit status:

  1. tools of another LLVM major (DIR/llc, DIR/clang -c) run as such a child
     exactly as without ownsan: exit status, stdout and the object file are
     the same, and stderr is the native one plus at most one note line;
  2. by default the child inherits the runtime (LD_PRELOAD names it, it is
     mapped); with OWNSAN_OPTIONS=follow_children=0 the parent still has
     it, the child neither has it in LD_PRELOAD nor maps it, and the other
     LD_PRELOAD entries reach the child unchanged.
"""

import argparse
import os
import re
import sys

from ownsan_testing import Checker, clean_env, run

PYTHON = "/usr/bin/python3"
# Runs argv[1:] as a child, then exits with its status.
RUN_CHILD = ("import subprocess, sys; "
             "sys.exit(subprocess.call(sys.argv[1:]))")
# Prints whether the parent maps the runtime, then runs a child that prints
# its LD_PRELOAD and whether it maps the runtime.
SHOW_CHILD = """
import subprocess, sys
def maps_runtime():
    return "libownsan.so" in open("/proc/self/maps").read()
print("parent maps the runtime:", maps_runtime(), flush=True)
subprocess.run([sys.executable, "-c", '''
import os
print("child LD_PRELOAD:", os.environ.get("LD_PRELOAD"))
print("child maps the runtime:", "libownsan.so" in open("/proc/self/maps").read())
'''], check=True)
"""

LL_SOURCE = """\
define i32 @add(i32 %a, i32 %b) {
entry:
  %s = add i32 %a, %b
  ret i32 %s
}
"""
C_SOURCE = "int twice(int x) { return 2 * x; }\n"


def note_re(args):
    return re.compile(
        rf"==\d+==OwnSan: note: calls into \S+ \(LLVM {args.other_major}\) "
        rf"are not checked; this runtime is for LLVM {args.llvm_major} "
        rf"\(ownsan run --llvm {args.other_major} checks them\)")


def ownsan_run(args, cmd, options=None):
    env = clean_env(OWNSAN_OPTIONS=options)
    return run([args.ownsan, "run", "--llvm", str(args.llvm_major), "--"] +
               cmd, env=env)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def check_tool(c, args, what, cmd, output=None):
    """`cmd` run natively and as the child of a parent under ownsan."""
    if output and os.path.exists(output):
        os.unlink(output)
    native = run(cmd)
    native_output = read(output) if output and native.returncode == 0 else b""
    if not c.check(native.returncode == 0,
                   f"{what}: without ownsan, exit 0", native):
        return
    if output:
        os.unlink(output)
    under = ownsan_run(args, [PYTHON, "-c", RUN_CHILD] + cmd)
    shown = f"{native.describe()}\n{under.describe()}"
    c.check(under.returncode == 0, f"{what}: as a child under ownsan, exit 0",
            shown)
    c.check(under.stdout == native.stdout,
            f"{what}: as a child under ownsan, the same stdout", shown)
    if output:
        c.check(os.path.exists(output) and read(output) == native_output,
                f"{what}: as a child under ownsan, the same {output}", shown)
    extra = under.err.replace(native.err, "", 1).splitlines()
    c.check(under.err.startswith(native.err) and len(extra) <= 1 and
            all(note_re(args).fullmatch(line) for line in extra),
            f"{what}: stderr is the native one plus at most one note line "
            f"saying LLVM {args.other_major} is not checked", shown)


def check_follow(c, args, what, options, user_preload, want_child_preload,
                 want_child_maps):
    cmd = [PYTHON, "-c", SHOW_CHILD]
    env = clean_env(OWNSAN_OPTIONS=options, LD_PRELOAD=user_preload)
    under = run([args.ownsan, "run", "--llvm", str(args.llvm_major), "--"] +
                cmd, env=env)
    lines = under.out.splitlines()
    if not c.check(under.returncode == 0 and len(lines) == 3,
                   f"{what}: the parent and its child ran", under):
        return
    c.equal(lines[0], "parent maps the runtime: True",
            f"{what}: the parent is checked (maps the runtime)")
    preload = lines[1][len("child LD_PRELOAD: "):]
    c.check(want_child_preload(preload),
            f"{what}: the child's LD_PRELOAD is as expected", under)
    c.equal(lines[2], f"child maps the runtime: {want_child_maps}",
            f"{what}: the child {'maps' if want_child_maps else 'does not map'}"
            f" the runtime")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ownsan", required=True)
    p.add_argument("--llvm-major", required=True, type=int)
    p.add_argument("--other-major", required=True, type=int)
    p.add_argument("--other-bin", required=True,
                   help="bin/ of the other LLVM (llc, clang)")
    p.add_argument("--work-dir", required=True)
    args = p.parse_args(argv)
    os.makedirs(args.work_dir, exist_ok=True)
    ll = os.path.join(args.work_dir, "add.ll")
    c_file = os.path.join(args.work_dir, "twice.c")
    obj = os.path.join(args.work_dir, "twice.o")
    with open(ll, "w") as f:
        f.write(LL_SOURCE)
    with open(c_file, "w") as f:
        f.write(C_SOURCE)
    c = Checker(f"children of a process under the LLVM {args.llvm_major} "
                f"runtime")
    other = args.other_major
    check_tool(c, args, f"llc (LLVM {other})",
               [os.path.join(args.other_bin, "llc"), ll, "-o", "-"])
    check_tool(c, args, f"clang -c (LLVM {other})",
               [os.path.join(args.other_bin, "clang"), "-c", c_file, "-o",
                obj], output=obj)

    user = "/lib/x86_64-linux-gnu/libm.so.6"
    check_follow(c, args, "default", None, None,
                 lambda p: "libownsan.so" in p, True)
    check_follow(c, args, "follow_children=0", "follow_children=0", None,
                 lambda p: p == "None", False)
    check_follow(c, args, "follow_children=0 with a program's own preload",
                 "follow_children=0", user, lambda p: p == user, False)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
