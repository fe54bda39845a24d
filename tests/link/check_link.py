#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Link mode beyond the seeded cases (docs/link-mode.md).

    check_link.py --case CASE --ownsan OWNSAN --program unused --dir DIR

DIR holds the programs tests/link/CMakeLists.txt builds, each NAME_link (in
link mode) and NAME_static (the same objects, no ownsan).

Cases:
  ir_workload  bench/ir_workload.c building, verifying and disposing 300
               modules: exactly the stdout and exit status of the program
               without ownsan, no OwnSan line on stderr; with verbosity=1
               the runtime says it is linked in and counts the checked
               calls (it checked, rather than passing silently).
  clone        tests/link/clone.c, an echo-style cloner (`llvm-c-test
               --echo`'s job: the whole module rebuilt call by call), over
               tests/clients/echo_inputs/*.c compiled by this LLVM's clang
               at -O0, -O1 and -O2: the output and exit status of the
               cloner without ownsan, no OwnSan line; each copy printed
               and verified; with verbosity=1 the calls were checked.
  json_report  a seeded case with report_format=json and log_path: the JSON
               report of the link-mode program says what the preload's
               says of the same program linked against the shared libLLVM
               (kind, object, call, freeing call and cause, and each stack
               as function, file name and line), and `ownsan report` on the
               log lists the problem and exits 1.
  suppressions a suppression naming the seeded case's use site: no report,
               and the rule listed as used.
  allocator    tests/blind/blind_allocator.cpp, a program with its own
               operator new/delete whose values' addresses LLVM reuses
               across contexts: it runs as without ownsan ("ok", no false
               report) and one start-up line (and the exit line) says the
               allocator blind spot, naming the executable, and that
               nothing is checked.
"""
import glob
import json
import os
import re
import tempfile

from ownsan_testing import case_main, parse_suppressions_used, run

WARNING_RE = re.compile(r"==\d+==WARNING: OwnSan: (.*)")


def add_arguments(p):
    p.add_argument("--dir", default=".")
    p.add_argument("--preload-program",
                   help="seeded.c linked against the shared libLLVM")
    p.add_argument("--llvm-bin", help="this LLVM's bin directory (clang)")


def clean_env(options=""):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env["OWNSAN_OPTIONS"] = options
    return env


def case_ir_workload(c, a):
    args = ["modules", "300"]
    linked = os.path.join(a.dir, "ir_workload_link")
    plain = run([os.path.join(a.dir, "ir_workload_static")] + args,
                env=clean_env(), timeout=a.timeout)
    c.equal(plain.returncode, 0, "the program without ownsan exits 0",
            plain.err)
    r = run([linked] + args, env=clean_env(), timeout=a.timeout)
    c.equal(r.returncode, plain.returncode, "exit status as without ownsan",
            r.err)
    c.check(r.stdout == plain.stdout, "stdout as without ownsan",
            f"with: {r.out!r}\nwithout: {plain.out!r}")
    c.check("OwnSan" not in r.err, "nothing on stderr from ownsan", r.err)
    v = run([linked] + args, env=clean_env("verbosity=1"),
            timeout=a.timeout)
    c.check(f"linked into {os.path.realpath(linked)} (link mode" in v.err,
            "verbosity=1: the runtime is linked in", v.err)
    m = re.search(r"work: (\d+) checked calls", v.err)
    c.check(m is not None and int(m.group(1)) > 100000,
            "verbosity=1: the calls were checked", v.err)


ECHO_INPUTS = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "clients", "echo_inputs")


def case_clone(c, a):
    linked = os.path.join(a.dir, "clone_link")
    plain = os.path.join(a.dir, "clone_static")
    inputs = sorted(glob.glob(os.path.join(ECHO_INPUTS, "*.c")))
    c.check(len(inputs) >= 4, "the echo inputs are there", ECHO_INPUTS)
    with tempfile.TemporaryDirectory() as d:
        for src in inputs:
            for opt in ("-O0", "-O1", "-O2"):
                what = f"{os.path.basename(src)} {opt}"
                bc = os.path.join(d, "in.bc")
                cc = run([os.path.join(a.llvm_bin, "clang"), opt, "-c",
                          "-emit-llvm", src, "-o", bc], timeout=a.timeout)
                c.equal(cc.returncode, 0, f"{what}: clang", cc.err)
                want = run([plain, bc], env=clean_env(), timeout=a.timeout)
                got = run([linked, bc], env=clean_env(), timeout=a.timeout)
                c.equal(want.returncode, 0, f"{what}: cloned without ownsan",
                        want.err)
                c.check("verify: ok" in want.out.splitlines(),
                        f"{what}: the copy verifies", want.out[-2000:])
                c.equal(got.returncode, want.returncode,
                        f"{what}: exit status as without ownsan", got.err)
                c.check(got.stdout == want.stdout,
                        f"{what}: output as without ownsan")
                c.check("OwnSan" not in got.err,
                        f"{what}: nothing from ownsan", got.err)
        v = run([linked, bc], env=clean_env("verbosity=1"),
                timeout=a.timeout)
        m = re.search(r"work: (\d+) checked calls", v.err)
        c.check(m is not None and int(m.group(1)) > 1000,
                "verbosity=1: the calls were checked", v.err)


CASE = "use_after_module_dispose"


def comparable(report):
    """What must not depend on the way in: the report without addresses,
    pids, module paths and build directories."""
    def stack(event):
        return [(f.get("function"), os.path.basename(f.get("file") or ""),
                 f.get("line")) for f in (event or {}).get("stack", [])]
    free = report.get("free") or {}
    return {
        "kind": report["kind"],
        "handle_type": report["handle_type"],
        "object": {k: v for k, v in report["object"].items()
                   if k != "identity"},
        "call": report["call"],
        "free": {k: free.get(k) for k in ("function", "cause", "during")},
        "use_stack": stack(report.get("use")),
        "free_stack": stack(free),
        "create_stack": stack(report.get("create")),
    }


def json_log_report(c, cmd, what, timeout):
    with tempfile.TemporaryDirectory() as d:
        r = run(cmd, env=clean_env(f"report_format=json:log_path={d}/ownsan"),
                timeout=timeout)
        logs = glob.glob(os.path.join(d, "ownsan.*"))
        c.equal(len(logs), 1, f"{what}: one log file", r.err)
        reports = []
        for path in logs:
            with open(path, encoding="utf-8") as f:
                reports += [json.loads(line) for line in f
                            if line.startswith('{"ownsan_report"')]
        c.equal(len(reports), 1, f"{what}: one JSON report", r.err)
        return r, reports[0] if reports else None, d


def case_json_report(c, a):
    linked = os.path.join(a.dir, "seeded_link")
    r, mine, _ = json_log_report(c, [linked, CASE], "link mode", a.timeout)
    _, theirs, _ = json_log_report(
        c, [a.ownsan, "run", "--", a.preload_program, CASE], "preload",
        a.timeout)
    if mine and theirs:
        c.equal(comparable(mine), comparable(theirs),
                "the JSON report is the preload's")
    with tempfile.TemporaryDirectory() as d:
        run([linked, CASE],
            env=clean_env(f"report_format=json:log_path={d}/ownsan"),
            timeout=a.timeout)
        rep = run([a.ownsan, "report", d], env=clean_env(), timeout=a.timeout)
        c.equal(rep.returncode, 1, "ownsan report: exit 1 (a problem)",
                rep.out + rep.err)
        c.check("use-after-free: function @foo in module \"m\"" in rep.out,
                "ownsan report lists the problem", rep.out + rep.err)


def case_suppressions(c, a):
    linked = os.path.join(a.dir, "seeded_link")
    with tempfile.TemporaryDirectory() as d:
        rules = os.path.join(d, "supp.txt")
        with open(rules, "w", encoding="utf-8") as f:
            f.write("fun:use_function_name\n")
        r = run([linked, CASE], env=clean_env(f"suppressions={rules}"),
                timeout=a.timeout)
    c.check("ERROR: OwnSan" not in r.err, "no report", r.err)
    c.equal([rules for _, rules in parse_suppressions_used(r.err)],
            [[(1, "fun:use_function_name")]], "the rule is listed as used",
            r.err)


def case_allocator(c, a):
    linked = os.path.join(a.dir, "allocator_link")
    exe = os.path.realpath(linked)
    with tempfile.TemporaryDirectory() as d:
        # (By a symlink's absolute path too: named by the resolved path.)
        symlink = os.path.join(d, "allocator_symlink")
        os.symlink(exe, symlink)
        # (Under `ownsan run` too: the preloaded runtime stands aside for
        # the linked one, silently; it said the allocator line again, and
        # that nothing was checked, when the mark was not exported.)
        for how, command in (("", [linked]), ("by a symlink: ", [symlink]),
                             ("under ownsan run: ",
                              [a.ownsan, "run", "--", linked])):
            r = run(command, env=clean_env(), timeout=a.timeout)
            c.equal(r.returncode, 0, how + "exits 0", r.err)
            c.equal(r.out, "ok\n", how + "prints ok", r.err)
            warned = [m.group(1) for m in
                      map(WARNING_RE.match, r.err.splitlines()) if m]
            c.check(len(warned) == 2 and
                    warned[0] == f"operator new/delete of {exe} replace "
                    "ownsan's: LLVM's own deletions and reused addresses "
                    "would go unseen and reports could be false, so nothing "
                    "is checked in this process" and
                    warned[1] == f"not checked in this run: allocator ({exe})",
                    how + "the allocator line at start-up and at exit", r.err)
            c.check("ERROR: OwnSan" not in r.err, how + "no report", r.err)


if __name__ == "__main__":
    raise SystemExit(case_main("link", globals(), timeout=300,
                               add_arguments=add_arguments))
