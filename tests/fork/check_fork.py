#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ownsan across fork() and exec: tests/fork/fork.c under `ownsan run`.

    check_fork.py --case CASE --ownsan OWNSAN --program FORK [--timeout S]

Cases:
  bug          a multi-threaded parent forks 4 children while its threads
               use the runtime; each child runs threads of its own, then
               makes a seeded use-after-free. Every child must end (no
               deadlock on a lock inherited from the parent), killed by
               SIGABRT after exactly one report from its own pid: kind
               use-after-free, LLVMGetValueName2 argument 1, the use, free
               and creation stacks (child_use, child_dispose, child_make),
               "freed by LLVMDisposeModule(module "child")", the chain. The
               parent reports nothing and finishes.
  clean        the same children without the bug: all exit 0, nothing from
               OwnSan anywhere.
  single       one child with the bug, from a single-threaded parent.
  from_thread  as bug, the forks made by a worker thread.
  claimed      the child uses a context that a parent thread was inside an
               LLVM-C call on at the moment of the fork: no context-race
               (that thread does not exist in the child), the seeded bug
               reported.
  leaks        report_leaks=1 with children that exit(): a child reports
               only the objects it made itself and never disposed (one
               module, made by child_leaky_make, exit status 1), not the
               parent's context, module and builder it inherited; a child
               that leaks nothing of its own exits 0 with no report; the
               parent, which disposes its objects, reports nothing.
  exec         the preload reaches processes started by the program:
               posix_spawn() of `fork bug_only` from a multi-threaded
               parent, and `ownsan run -- sh -c 'fork bug_only; ...'`: the
               grandchild's seeded bug is reported from its own pid.

--options OPTS runs everything with OWNSAN_OPTIONS=OPTS. With
quarantine_size_mb=0 the memory of freed objects goes back to malloc at once
(as in a long-running process whose quarantine is full); fork.c frees an
instruction right before each fork, so the allocations the runtime makes
around fork() reuse memory of an object it remembers as freed.

Prints one PASS/FAIL line per check and "N passed, M failed".
"""

import os
import re
import signal
import sys

from ownsan_testing import (FormatError, case_main, clean_env, ownsan_lines,
                            parse_leak_reports, parse_reports, run,
                            sanitizer_errors)

CHILD_RE = re.compile(r"^fork: child (\d+) pid (\d+) (?:status (-?\d+)|"
                      r"(timeout))$", re.M)


def subjects(err):
    """pid -> {role: pointer} from "fork: PID ROLE = 0x..." lines."""
    out = {}
    for m in re.finditer(r"^fork: (\d+) (\w+) = (?:0x)?([0-9a-fA-F]+)$", err,
                         re.M):
        out.setdefault(int(m[1]), {})[m[2]] = int(m[3], 16)
    return out


def ownsan(a, args, options=None):
    env = clean_env()
    options = ":".join(o for o in (a.options, options) if o)
    if options:
        env["OWNSAN_OPTIONS"] = options
    return run([a.ownsan, "run", "--"] + args, env=env, timeout=a.timeout)


def check_seeded_report(c, rep, pid, subj, what, thread=None):
    """The child's report of its seeded use-after-free."""
    if rep is None:
        c.check(False, f"{what}: a report from pid {pid}")
        return
    c.equal(rep.kind, "use-after-free", f"{what}: kind use-after-free",
            rep.text)
    c.check(subj is not None and rep.handle == subj and
            rep.handle_type == "LLVMValueRef" and
            rep.label == 'function @victim in module "child"',
            f"{what}: about the child's function @victim "
            f"({subj and hex(subj)})", rep.text)
    use = rep.section("passed as argument")
    c.check(use is not None and re.fullmatch(
        r"passed as argument 1 of LLVMGetValueName2 on thread T\d+",
        use.heading) is not None and "child_use" in use.functions(),
        f"{what}: the use: argument 1 of LLVMGetValueName2 in child_use",
        rep.text)
    free = rep.section("freed by")
    c.check(free is not None and re.fullmatch(
        r'freed by LLVMDisposeModule\(module "child"\) on thread T\d+, '
        r"because it belonged to that module", free.heading) is not None
        and "child_dispose" in free.functions()
        and "child_use" not in free.functions(),
        f"{what}: the free: LLVMDisposeModule(module \"child\") in "
        "child_dispose", rep.text)
    create = rep.section("created by")
    c.check(create is not None and re.fullmatch(
        r"created by LLVMAddFunction on thread T\d+", create.heading)
        is not None and "child_make" in create.functions(),
        f"{what}: the creation: LLVMAddFunction in child_make", rep.text)
    if thread is not None:
        for s, name in ((use, "use"), (free, "free"), (create, "create")):
            c.check(s is not None and s.heading.split(" on thread ")[-1]
                    .startswith(f"T{thread}"),
                    f"{what}: the {name} happened on thread T{thread}",
                    rep.text)
    c.check(rep.chain is not None and re.fullmatch(
        r'context 0x[0-9a-f]+ -> module "child" -> function @victim',
        rep.chain) is not None, f"{what}: the ownership chain", rep.text)


def check_children(c, a, r, what, n, with_bug, expect_signal=signal.SIGABRT):
    c.check(not r.timed_out and r.returncode == 0 and
            "fork: parent done" in r.out,
            f"{what}: the parent finishes normally (exit 0, no deadlock)", r)
    kids = [(int(m[1]), int(m[2]), m[3], m[4]) for m in CHILD_RE.finditer(r.out)]
    c.equal(len(kids), n, f"{what}: {n} children waited for", r)
    reps = parse_reports(r.err, strict=False)
    subj = subjects(r.err)
    c.equal([x.pid for x in reps if x.pid == r.pid], [],
            f"{what}: no report from the parent", r)
    c.equal(sanitizer_errors(r.err), [], f"{what}: no sanitizer diagnostic",
            r)
    for k, pid, status, timeout in kids:
        cw = f"{what}: child {k} (pid {pid})"
        c.check(not timeout, f"{cw}: ends by itself (no deadlock after "
                "fork)", r)
        if timeout:
            continue
        st = int(status)
        c.check(f"fork: child {k} ok" in r.out, f"{cw}: did its work "
                "(modules created and disposed on several threads)", r)
        mine = [x for x in reps if x.pid == pid]
        if not with_bug:
            c.check(os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0,
                    f"{cw}: exit status 0 (wait status {st})", r)
            c.equal(len(mine), 0, f"{cw}: no report", r)
            continue
        c.check(os.WIFSIGNALED(st) and os.WTERMSIG(st) == expect_signal,
                f"{cw}: stopped by ownsan (SIGABRT; wait status {st})", r)
        c.equal(len(mine), 1, f"{cw}: exactly one report, from the child's "
                "pid", r)
        check_seeded_report(c, mine[0] if mine else None, pid,
                            subj.get(pid, {}).get("subject"), cw)
    if not with_bug:
        c.equal(ownsan_lines(r.err), [], f"{what}: nothing from OwnSan", r)


def case_bug(c, a):
    r = ownsan(a, [a.program, "bug", "4"])
    check_children(c, a, r, "fork (bug)", 4, True)


def case_clean(c, a):
    r = ownsan(a, [a.program, "clean", "4"])
    check_children(c, a, r, "fork (clean)", 4, False)
    want = "".join(f"fork: child {k} ok\nfork: child {k} pid P status 0\n"
                   for k in range(4)) + "fork: parent done\n"
    c.equal(re.sub(r"pid \d+", "pid P", r.out), want,
            "fork (clean): stdout is the program's own, nothing else", r)


def case_single(c, a):
    r = ownsan(a, [a.program, "single"])
    check_children(c, a, r, "fork from a single-threaded parent", 1, True)


def case_from_thread(c, a):
    r = ownsan(a, [a.program, "from_thread", "3"])
    check_children(c, a, r, "fork from a worker thread", 3, True)


def case_from_handler(c, a):
    """A child forked inside a signal handler is a process of its own, with
    a consistent heap and fresh runtime locks: its calls are checked (they
    were all forwarded unchecked, as the handler's, which hid PostgreSQL's
    parallel workers from ownsan)."""
    r = ownsan(a, [a.program, "from_handler"])
    check_children(c, a, r, "fork inside a signal handler", 1, True)
    c.check("made in signal handlers" not in r.err, "fork inside a signal "
            "handler: no call counted as a signal handler's", r)


def case_claimed(c, a):
    r = ownsan(a, [a.program, "claimed"])
    check_children(c, a, r, "fork while a thread is inside a call", 1, True)
    c.equal([x.kind for x in parse_reports(r.err, strict=False) if x.kind ==
             "context-race"], [], "claimed: no context-race in the child "
            "(the claiming thread does not exist there)", r)


def case_leaks(c, a):
    r = ownsan(a, [a.program, "leaks"], options="report_leaks=1")
    c.check(not r.timed_out and r.returncode == 0 and
            "fork: parent done" in r.out,
            "leaks: the parent finishes normally and exits 0", r)
    kids = {int(m[1]): (int(m[2]), m[3]) for m in CHILD_RE.finditer(r.out)}
    c.equal(sorted(kids), [0, 1], "leaks: two children waited for", r)
    try:
        leaks = {lr.pid: lr for lr in parse_leak_reports(r.err)}
    except FormatError as e:
        c.check(False, f"leaks: the leak reports follow the format ({e})", r)
        leaks = {}
    c.check(r.pid not in leaks, "leaks: no leak report from the parent", r)
    subj = subjects(r.err)
    for k, (pid, status) in sorted(kids.items()):
        st = int(status) if status is not None else None
        what = f"leaks: child {k} (pid {pid})"
        if k == 1:
            c.check(st is not None and os.WIFEXITED(st) and
                    os.WEXITSTATUS(st) == 0, f"{what}, which made nothing "
                    f"it kept, exits 0 (wait status {st})", r)
            c.check(pid not in leaks, f"{what}: no leak report (the "
                    "parent's objects are not its leaks)", r)
            continue
        c.check(st is not None and os.WIFEXITED(st) and
                os.WEXITSTATUS(st) == 1, f"{what}: exit status 1 "
                f"(exitcode) for its own leak (wait status {st})", r)
        lr = leaks.get(pid)
        if not c.check(lr is not None, f"{what}: a leak report from the "
                       "child's pid", r):
            continue
        c.equal([(g.count, g.handle_type, g.fn) for g in lr.groups],
                [(1, "LLVMModuleRef", "LLVMModuleCreateWithNameInContext")],
                f"{what}: exactly one leaked object, its own module (not "
                "the parent's context, module and builder)", r)
        leaked = subj.get(pid, {}).get("leaked")
        g = lr.groups[0] if lr.groups else None
        c.check(g is not None and leaked is not None and
                int(g.example, 16) == leaked, f"{what}: the leaked module is "
                f"the one the child made ({leaked and hex(leaked)})", r)
        c.check(g is not None and g.frames and
                g.frames[0].function == "child_leaky_make",
                f"{what}: created in child_leaky_make", r)
        c.equal((lr.leaked, lr.sites), (1, 1), f"{what}: 'SUMMARY: OwnSan: "
                "1 leaked object(s) from 1 allocation site(s)'", r)


def case_exec(c, a):
    # posix_spawn from a multi-threaded parent.
    r = ownsan(a, [a.program, "spawn", a.program, "bug_only"])
    m = re.search(r"^spawn: child pid (\d+) status (-?\d+)$", r.out, re.M)
    c.check(r.returncode == 0 and m is not None,
            "spawn: the parent waits for its child and exits 0", r)
    if m:
        pid, st = int(m[1]), int(m[2])
        c.check(os.WIFSIGNALED(st) and os.WTERMSIG(st) == signal.SIGABRT,
                f"spawn: the spawned child was stopped by ownsan (wait "
                f"status {st})", r)
        mine = [x for x in parse_reports(r.err, strict=False) if x.pid == pid]
        c.equal(len(mine), 1, "spawn: one report, from the spawned child's "
                f"pid {pid}", r)
        check_seeded_report(c, mine[0] if mine else None, pid,
                            subjects(r.err).get(pid, {}).get("subject"),
                            "spawn", thread=0)
    # A shell in between (sh forks, the child execs the program).
    script = f"'{a.program}' bug_only; echo \"sh: status $?\""
    r = ownsan(a, ["sh", "-c", script], options="abort_on_error=0")
    m = re.search(r"^fork: bug_only pid (\d+)$", r.out, re.M)
    c.check(r.returncode == 0 and "sh: status 1" in r.out and m is not None,
            "sh -c: the grandchild ends with exitcode 1 (abort_on_error=0), "
            "the shell goes on", r)
    if m:
        pid = int(m[1])
        c.check(pid != r.pid, "sh -c: the program ran in a process of its "
                "own (a grandchild of ownsan run)", r)
        mine = [x for x in parse_reports(r.err, strict=False) if x.pid == pid]
        c.equal(len(mine), 1, f"sh -c: one report, from the grandchild's pid "
                f"{pid}", r)
        check_seeded_report(c, mine[0] if mine else None, pid,
                            subjects(r.err).get(pid, {}).get("subject"),
                            "sh -c", thread=0)


# CASE.quarantine_off: the same with the quarantine off; memory of freed
# objects is reused at once, also by the allocations the runtime's fork
# handlers make.
VARIANTS = {"quarantine_off": (("bug", "single", "from_thread"),
                               {"options": "quarantine_size_mb=0"})}


def main():
    def more(p):
        p.add_argument("--options", default="",
                       help="OWNSAN_OPTIONS for every run, e.g. "
                       "quarantine_size_mb=0")
    return case_main("fork", globals(), 400, more,
                     lambda a: f" [{a.options}]" if a.options else "",
                     variants=VARIANTS)



if __name__ == "__main__":
    sys.exit(main())
