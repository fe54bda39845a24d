#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The `ownsan` command line.

    test_cli.py --ownsan PATH --llvm-major N --preloadable LIB.so [--static]

Usage errors exit 2 with a message on stderr; a command that cannot be run
exits 127 (not found) or 126 (not executable) with one line naming it;
--version names the LLVM major the build is for; `ownsan run` execs the
command, so the child keeps the pid; the runtime goes first in LD_PRELOAD and
an LD_PRELOAD already set (LIB.so, any library that can be preloaded) stays
after it. With --static (the builds that are not sanitized), the CLI is a
static executable: its own exec, before the program's, runs no dynamic
loader and maps no library.
"""

import argparse
import os
import re
import resource
import shutil
import sys
import tempfile

from ownsan_testing import Checker, clean_env, needed_libraries, run


def run_capped(cmd, timeout=20):
    """`run` with the address space capped at 2 GiB and a short timeout
    (returncode None when it ran out)."""
    def cap():
        limit = 2 << 30
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return run(cmd, timeout=timeout, preexec_fn=cap)


def lines(text):
    return text.splitlines()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ownsan", required=True)
    p.add_argument("--llvm-major", type=int, required=True)
    p.add_argument("--preloadable", required=True,
                   help="a shared library that can be put in LD_PRELOAD")
    p.add_argument("--static", action="store_true",
                   help="the CLI must be linked statically")
    args = p.parse_args(argv)
    ownsan = args.ownsan
    runtime = os.path.realpath(os.path.join(
        os.path.dirname(os.path.realpath(ownsan)), "..", "lib",
        "libownsan.so"))
    c = Checker("the ownsan command line")

    # --- Usage errors -------------------------------------------------------
    r = run([ownsan])
    c.equal(r.returncode, 2, "`ownsan` with no arguments exits 2")
    c.check("usage:" in r.err, "`ownsan` with no arguments prints the usage "
            "on stderr", r)
    c.equal(r.out, "", "`ownsan` with no arguments prints nothing on stdout")

    for cmd in (["run"], ["run", "--"]):
        shown = "ownsan " + " ".join(cmd)
        r = run([ownsan] + cmd)
        c.equal(r.returncode, 2, f"`{shown}` (no command) exits 2")
        c.check(r.err.startswith("ownsan: ") and "command" in lines(r.err)[0],
                f"`{shown}` says on stderr that a command is missing", r)
        c.equal(r.out, "", f"`{shown}` prints nothing on stdout")

    r = run([ownsan, "run", "--bogus", "x"])
    c.equal(r.returncode, 2, "`ownsan run --bogus x` exits 2")
    c.check("--bogus" in r.err, "`ownsan run --bogus x` names the unknown "
            "option '--bogus' on stderr", r)
    c.equal(r.out, "", "`ownsan run --bogus x` prints nothing on stdout")

    r = run([ownsan, "frobnicate"])
    c.equal(r.returncode, 2, "`ownsan frobnicate` (unknown command) exits 2")
    c.check("frobnicate" in r.err, "`ownsan frobnicate` names it on stderr",
            r)

    r = run([ownsan, "run", "--llvm", "abc", "--", "/bin/true"])
    c.equal(r.returncode, 2, "`ownsan run --llvm abc` exits 2")
    c.check("abc" in r.err, "`ownsan run --llvm abc` names the bad value", r)

    r = run([ownsan, "run", "--llvm", "999", "--", "/bin/echo", "ran"])
    c.equal(r.returncode, 2,
            "`ownsan run --llvm 999` (no such runtime) exits 2")
    c.check("999" in r.err and r.out == "",
            "`ownsan run --llvm 999` names LLVM 999 and does not run the "
            "command", r)

    # --- Commands that cannot be run -----------------------------------------
    missing = "/nonexistent/cmd"
    r = run([ownsan, "run", "--", missing])
    c.equal(r.returncode, 127, f"`ownsan run -- {missing}` exits 127")
    c.check(len(lines(r.err)) == 1 and missing in r.err,
            f"`ownsan run -- {missing}` prints one line naming {missing}", r)
    c.equal(r.out, "", f"`ownsan run -- {missing}` prints nothing on stdout")

    not_executable = "/etc/passwd"
    r = run([ownsan, "run", "--", not_executable])
    c.equal(r.returncode, 126,
            f"`ownsan run -- {not_executable}` (not executable) exits 126")
    c.check(len(lines(r.err)) == 1 and not_executable in r.err,
            f"`ownsan run -- {not_executable}` prints one line naming it", r)

    # Not regular files: `ownsan run` must fail at once as exec does (the
    # same errno text and status as `env CMD`), not read /dev/zero until
    # memory runs out (capped here at 2 GiB) nor wait on a FIFO's writer.
    fifo_dir = tempfile.mkdtemp(prefix="ownsan-cli-")
    fifo = os.path.join(fifo_dir, "fifo")
    os.mkfifo(fifo)
    os.chmod(fifo, 0o755)
    for special in ("/dev/zero", fifo, fifo_dir):
        env_run = run_capped(["/usr/bin/env", special])
        r = run_capped([ownsan, "run", "--", special])
        c.check(r.returncode is not None,
                f"`ownsan run -- {special}` ends at once (no hang, no "
                f"reading without end)", r)
        c.check(r.returncode == env_run.returncode,
                f"`ownsan run -- {special}` exits as `env {special}` does "
                f"({env_run.returncode})", r)
        reason = env_run.err.strip().rsplit(": ", 1)[-1]
        c.check(len(lines(r.err)) == 1 and special in r.err and
                r.err.strip().endswith(": " + reason),
                f"`ownsan run -- {special}` prints one line naming it and "
                f"the reason ({reason!r})", r)
        c.equal(r.out, "", f"`ownsan run -- {special}` prints nothing on "
                "stdout")
    shutil.rmtree(fifo_dir)

    # --- --version and --help -----------------------------------------------
    r = run([ownsan, "--version"])
    c.equal(r.returncode, 0, "`ownsan --version` exits 0")
    c.check(len(lines(r.out)) == 1 and
            re.search(rf"\bLLVM {args.llvm_major}\b", r.out),
            f"`ownsan --version` prints one line naming LLVM "
            f"{args.llvm_major}", r)
    for cmd in (["--help"], ["-h"], ["run", "--help"], ["run", "-h"],
                ["run", "--llvm", "19", "--help"], ["link-flags", "--help"]):
        r = run([ownsan] + cmd)
        c.check(r.returncode == 0 and "usage: ownsan run" in r.out and
                r.err == "", f"`ownsan {' '.join(cmd)}` prints the usage on "
                "stdout and exits 0", r)
    r = run([ownsan, "run", "--", "--help"])
    c.check(r.returncode == 127 and "cannot run '--help'" in r.err,
            "`ownsan run -- --help` runs a command named --help (there is "
            "none: 127)", r)

    # --- How it is linked ---------------------------------------------------
    if args.static:
        headers = run(["readelf", "-l", "-W", ownsan])
        c.check(headers.returncode == 0 and "LOAD" in headers.out and
                "INTERP" not in headers.out,
                "the CLI has no program interpreter (no dynamic loader runs "
                "before `ownsan run` execs the program)", headers)
        c.equal(needed_libraries(ownsan), [], "the CLI needs no shared "
                "library")

    # --- What the child gets --------------------------------------------------
    r = run([ownsan, "run", "--", "sh", "-c", "echo $$"])
    c.check(r.returncode == 0 and r.out.strip() == str(r.pid),
            f"`ownsan run -- sh -c 'echo $$'` prints the pid of the process "
            f"the test started ({r.pid}): ownsan execs the command", r)

    r = run([ownsan, "run", "--", "sh", "-c", 'printf "[%s]\\n" "$@"', "sh",
             "a b", "--", "--bogus", ""])
    c.equal(r.out, "[a b]\n[--]\n[--bogus]\n[]\n",
            "the command's own arguments (spaces, '--', '--bogus', empty) "
            "reach it unchanged")

    r = run([ownsan, "run", "/bin/echo", "no", "separator"])
    c.check(r.returncode == 0 and r.out == "no separator\n",
            "`ownsan run /bin/echo ...` works without '--'", r)

    # (The allocator `ownsan run` preloads after the runtime, if the build
    # found one, is named in OWNSAN_RUN_HEAP_ALLOCATOR: tests/options,
    # case heap_allocator, checks which.)
    show_preload = ["sh", "-c", 'printf "%s\\n%s\\n" "$LD_PRELOAD" '
                    '"$OWNSAN_RUN_HEAP_ALLOCATOR"']

    def preload_and_heap(r):
        lines = r.out.split("\n")
        heap = lines[1] if len(lines) > 1 else ""
        return lines[0].split(":"), [heap] if heap else []

    r = run([ownsan, "run", "--"] + show_preload)
    preload, heap = preload_and_heap(r)
    c.equal(preload, [runtime] + heap,
            f"with no LD_PRELOAD set, the child's LD_PRELOAD is the runtime "
            f"({runtime}) and the allocator ownsan run added ({heap})")

    for old in ([args.preloadable],
                [args.preloadable, args.preloadable]):
        env = clean_env(LD_PRELOAD=":".join(old))
        r = run([ownsan, "run", "--"] + show_preload, env=env)
        preload, heap = preload_and_heap(r)
        c.equal(preload, [runtime] + heap + old,
                f"with LD_PRELOAD={':'.join(old)}, the child's LD_PRELOAD is "
                "the runtime (and its allocator) followed by the existing "
                "value")

    env = clean_env(LD_PRELOAD=args.preloadable)
    r = run([ownsan, "run", "--", "/bin/cat", "/proc/self/maps"], env=env)
    maps = r.out
    c.check(r.returncode == 0 and runtime in maps
            and os.path.realpath(args.preloadable) in maps,
            "with LD_PRELOAD set, the child has both the runtime and the "
            "existing preload loaded (/proc/self/maps)", r)

    env = clean_env(OWNSAN_OPTIONS="verbosity=0", CALLPATHS_VAR="kept")
    r = run([ownsan, "run", "--", "sh", "-c",
             'printf "%s %s\\n" "$OWNSAN_OPTIONS" "$CALLPATHS_VAR"'], env=env)
    c.equal(r.out, "verbosity=0 kept\n",
            "OWNSAN_OPTIONS and the rest of the environment reach the child "
            "unchanged")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
