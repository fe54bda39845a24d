#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What the preload cannot see is said, never silent
(src/runtime/blind_spots.cpp, docs/blind-spots.md).

    check_blind.py --case CASE --ownsan OWNSAN --program BLIND_DYNAMIC
                   --static BLIND_STATIC --embedded LIBBLIND_EMBEDDED
                   --loader BLIND_LOADER --linked LIBBLIND_LINKED
                   --allocator BLIND_ALLOCATOR --reuse BLIND_REUSE
                   --runtime LIBOWNSAN --heap-allocator LIBMIMALLOC
                   --libllvm LIBLLVM
                   --unseen BLIND_UNSEEN
                   --fully-static BLIND_FULLY_STATIC

Cases (every program is correct and prints "ok"; its output and exit status
must be as without ownsan):
  static_llvm      LLVM linked into the executable: one start-up line naming
                   the executable and how many LLVM-C functions it defines,
                   and the exit line repeating it; nothing else.
  static_llvm_json the same with report_format=json and log_path: the log has
                   one {"ownsan_blind_spot":1,...} object for it.
  static_llvm_off  warn_blind_spots=0: nothing.
  embedded_dlopen  a shared object embedding a static LLVM, dlopen'ed after
                   start-up (the llvmlite-wheel layout): one line at exit
                   naming it.
  deepbind         a shared object linked against the shared libLLVM,
                   dlopen'ed with RTLD_DEEPBIND: its calls bind straight to
                   libLLVM; one exit line naming it (and one for the
                   libLLVM no checked call went through).
  dlopen_linked    the same object dlopen'ed without RTLD_DEEPBIND: seen,
                   no line.
  allocator        the program's own operator new/delete, LLVM's values
                   freed and their addresses reused by the next context's:
                   no report (ownsan checks nothing), one line naming the
                   executable, and the exit line; the same run by a
                   symlink's absolute path (named by the resolved path).
  allocator_preload_order  the same program without an allocator of its
                   own, run with another allocator preloaded ahead of
                   ownsan's runtime (LD_PRELOAD=libmimalloc:libownsan): the
                   same, the line naming that allocator and saying to put
                   ownsan first.
  deepbind_libllvm libLLVM itself dlopen'ed with RTLD_DEEPBIND and called
                   through dlsym (ownsan's wrappers), values reused across
                   contexts as in `allocator`: its operator new/delete are
                   libstdc++'s; no report (nothing checked), one line at the
                   first call naming the libLLVM and libstdc++ (and, on the
                   heap `ownsan run` preloads, that its free() is libc's),
                   and the exit line; the same with --glibc-heap, one heap.
  no_checked_call  libLLVM loaded, no LLVM-C call made: one exit line naming
                   the libLLVM.
  unseen_handles   a module made with LLVM's C++ API, read only through
                   LLVM-C: one exit line naming the libLLVM and how many of
                   the checked calls' handle arguments ownsan never saw made.
  fully_static     no dynamic loader (-static): `ownsan run` says it cannot
                   be preloaded; one line.
  clean_dynamic    the same program against the shared libLLVM: no line at
                   all (nothing new for a program ownsan sees).
"""
import json
import os
import re
import sys
import tempfile

from ownsan_testing import case_main, run

WARNING_RE = re.compile(r"==(\d+)==WARNING: OwnSan: (.*)")


def under_ownsan(a, args, options="", run_options=()):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env["OWNSAN_OPTIONS"] = options
    return run([a.ownsan, "run", *run_options, "--"] + args, env=env,
               timeout=a.timeout)


def warnings(c, r):
    """The stderr lines, each a WARNING line of the run's process."""
    lines = r.err.splitlines()
    found = []
    for line in lines:
        m = WARNING_RE.fullmatch(line)
        c.check(m is not None, f"stderr line is an OwnSan warning: {line!r}",
                r)
        if m:
            c.equal(int(m[1]), r.pid, "the warning's pid is the program's", r)
            found.append(m[2])
    return found


def ran_as_without(c, r, what):
    c.equal(r.returncode, 0, f"{what}: exit status 0", r)
    c.equal(r.out, "ok\n", f"{what}: the program's own output", r)


def start_and_exit(c, a, program, what):
    """Runs `program` under ownsan: it must run as without, and say one
    blind spot `what` at start-up and again in the exit line. Returns the
    start-up line (None if the lines are not those two) and the path."""
    r = under_ownsan(a, [program])
    ran_as_without(c, r, what)
    lines = warnings(c, r)
    path = os.path.realpath(program)
    c.equal(len(lines), 2, "two lines: start-up and exit", r)
    if len(lines) != 2:
        return None, path, r
    c.equal(lines[1], f"not checked in this run: {what} ({path})",
            "exit: repeats it", r)
    return lines[0], path, r


def case_static_llvm(c, a):
    line, path, r = start_and_exit(c, a, a.static, "static-llvm")
    if line is not None:
        m = re.fullmatch(re.escape(path) + r" defines (\d+) LLVM-C functions "
                         r"itself \(LLVM linked in statically\): its calls "
                         r"to them are not checked; .*", line)
        c.check(m is not None and int(m[1]) >= 10,
                "start-up: names the executable and its LLVM-C functions", r)


def case_static_llvm_json(c, a):
    with tempfile.TemporaryDirectory() as d:
        r = under_ownsan(a, [a.static],
                         f"report_format=json:log_path={d}/ownsan")
        ran_as_without(c, r, "static, json")
        c.equal(len(warnings(c, r)), 2, "the two lines stay on stderr", r)
        logs = os.listdir(d)
        c.equal(logs, [f"ownsan.{r.pid}"], "one log file, of the process", r)
        objs = []
        for name in logs:
            with open(os.path.join(d, name)) as f:
                objs += [json.loads(line) for line in f if line.strip()]
        spots = [o for o in objs if o.get("ownsan_blind_spot") == 1]
        c.equal(len(spots), 1, "one blind-spot object in the log", objs)
        if spots:
            c.equal((spots[0]["what"], spots[0]["object"], spots[0]["pid"]),
                    ("static-llvm", os.path.realpath(a.static), r.pid),
                    "its what, object and pid", spots[0])
            c.check("LLVM linked in statically" in spots[0]["message"],
                    "its message is the line's", spots[0])
        check_ownsan_report(c, a, d, os.path.realpath(a.static))


def check_ownsan_report(c, a, logdir, where):
    """`ownsan report` over the log says what was not checked: a line of
    its summary, and a SARIF tool notification (valid against the schema
    subset tests/report uses)."""
    with tempfile.TemporaryDirectory() as out:
        sarif = os.path.join(out, "o.sarif")
        r = run([a.ownsan, "report", "--sarif", sarif, logdir])
        c.equal(r.returncode, 0, "ownsan report: exit 0 (no problem)", r)
        c.check(f"not checked: static-llvm ({where}) in 1 process; see "
                "docs/blind-spots.md" in r.out.splitlines(),
                "ownsan report: its summary names the blind spot", r)
        with open(sarif) as f:
            doc = json.load(f)
        notes = [n for inv in doc["runs"][0].get("invocations", [])
                 for n in inv.get("toolExecutionNotifications", [])]
        c.equal([(n["level"], n["descriptor"]["id"],
                  n["properties"]["object"]) for n in notes],
                [("warning", "static-llvm", where)],
                "ownsan report: one SARIF tool notification", doc)
        if a.sarif_schema:
            import jsonschema
            with open(a.sarif_schema) as f:
                schema = json.load(f)
            errors = [e.message for e in
                      jsonschema.Draft7Validator(schema).iter_errors(doc)]
            c.equal(errors, [], "ownsan report: the SARIF is valid", doc)


def case_static_llvm_off(c, a):
    r = under_ownsan(a, [a.static], "warn_blind_spots=0")
    ran_as_without(c, r, "static, warn_blind_spots=0")
    c.equal(r.err, "", "nothing on stderr", r)


def case_embedded_dlopen(c, a):
    r = under_ownsan(a, [a.loader, "--dlopen", a.embedded])
    ran_as_without(c, r, "embedded")
    lines = warnings(c, r)
    path = os.path.realpath(a.embedded)
    c.equal(len(lines), 1, "one line, at exit (loaded after start-up)", r)
    c.check(bool(lines) and lines[0].startswith(
        f"{path} defines ") and "LLVM linked in statically" in lines[0],
        "it names the shared object", r)


def case_deepbind(c, a):
    r = under_ownsan(a, [a.loader, "--dlopen-deepbind", a.linked])
    ran_as_without(c, r, "deepbind")
    lines = warnings(c, r)
    path = os.path.realpath(a.linked)
    c.equal(len(lines), 2, "two lines at exit: the bypass, no checked call",
            r)
    c.check(any(re.fullmatch(
        re.escape(path) + r" calls (\d+) LLVM-C functions straight into "
        r"libLLVM, past ownsan \(loaded with RTLD_DEEPBIND, or bound past "
        r"the global scope\): its calls to them are not checked", line)
        for line in lines), "a line names the object that bypasses", r)
    c.check(any(line.endswith("was loaded but the program made no LLVM-C "
                              "call through it that ownsan checked")
                for line in lines), "a line says no call was checked", r)


def case_dlopen_linked(c, a):
    r = under_ownsan(a, [a.loader, "--dlopen", a.linked])
    ran_as_without(c, r, "dlopen")
    c.equal(r.err, "", "nothing on stderr (its calls were seen)", r)


ALLOCATOR_LINE = ("operator new/delete of {} replace ownsan's: LLVM's own "
                  "deletions and reused addresses would go unseen and "
                  "reports could be false, so nothing is checked in this "
                  "process")


def case_allocator(c, a):
    line, path, r = start_and_exit(c, a, a.allocator, "allocator")
    if line is not None:
        c.equal(line, ALLOCATOR_LINE.format(path),
                "start-up: names the executable, says nothing is checked", r)
    # Run by a symlink's absolute path: still the executable (no preload
    # to reorder), named by its resolved path.
    with tempfile.TemporaryDirectory() as d:
        link = os.path.join(d, "allocator_link")
        os.symlink(os.path.realpath(a.allocator), link)
        line, _, r = start_and_exit(c, a, link, "allocator")
        if line is not None:
            c.equal(line, ALLOCATOR_LINE.format(path),
                    "by a symlink: the executable's resolved path, no "
                    "LD_PRELOAD advice", r)


def case_allocator_preload_order(c, a):
    c.check(bool(a.heap_allocator), "--heap-allocator names an allocator "
            "library (the build's OWNSAN_HEAP_ALLOCATOR: libmimalloc-dev)")
    if not a.heap_allocator:
        return
    env = dict(os.environ)
    env["LD_PRELOAD"] = f"{a.heap_allocator}:{a.runtime}"
    env["OWNSAN_OPTIONS"] = ""
    r = run([a.reuse], env=env, timeout=a.timeout)
    ran_as_without(c, r, "allocator preloaded first")
    lines = warnings(c, r)
    where = a.heap_allocator
    c.equal(lines, [ALLOCATOR_LINE.format(where) + "; put ownsan's runtime "
                    "first in LD_PRELOAD (`ownsan run` does)",
                    f"not checked in this run: allocator ({where})"],
            "start-up names the allocator and the fix; exit repeats it", r)


def case_deepbind_libllvm(c, a):
    deep = [a.loader, "--dlopen-llvm-deepbind", a.libllvm]
    unseen = (re.escape(a.libllvm) + r" calls the operator new/delete of "
              r"(/\S*/libstdc\+\+\.so\.6), not ownsan's \(loaded with "
              r"RTLD_DEEPBIND, or bound past the global scope\): LLVM's own "
              r"deletions and reused addresses would go unseen and reports "
              r"could be false, so nothing is checked in this process")
    # `ownsan run` preloads a heap (a.heap_allocator) the libLLVM's own
    # free() does not reach: said too; with --glibc-heap there is one heap.
    heaps = (r"; its free\(\) is (/\S*/libc\.so\.6)'s, the process's " +
             re.escape(a.heap_allocator or "") + r"'s: a string it hands "
             r"out may be freed on the wrong heap \(`ownsan run "
             r"--glibc-heap` keeps one heap\)")
    for run_options, tail in (([], heaps if a.heap_allocator else ""),
                              (["--glibc-heap"], "")):
        r = under_ownsan(a, deep, run_options=run_options)
        what = " ".join(["libLLVM deepbind"] + run_options)
        ran_as_without(c, r, what)
        lines = warnings(c, r)
        c.equal(len(lines), 2, f"{what}: two lines: at the first call, at "
                "exit", r)
        if len(lines) != 2:
            continue
        c.check(re.fullmatch(unseen + tail, lines[0]) is not None,
                f"{what}: names the libLLVM and libstdc++, says nothing is "
                "checked" + (" and that two heaps meet" if tail else ""), r)
        c.equal(lines[1], f"not checked in this run: allocator "
                f"({a.libllvm})", f"{what}: exit: repeats it", r)


def case_no_checked_call(c, a):
    r = under_ownsan(a, [a.program, "--no-call"])
    ran_as_without(c, r, "no call")
    lines = warnings(c, r)
    c.equal(len(lines), 1, "one line, at exit", r)
    c.check(bool(lines) and re.fullmatch(
        r"/\S*libLLVM\S* was loaded but the program made no LLVM-C call "
        r"through it that ownsan checked", lines[0]) is not None,
        "it names the libLLVM", r)


def case_unseen_handles(c, a):
    r = under_ownsan(a, [a.unseen])
    ran_as_without(c, r, "unseen")
    lines = warnings(c, r)
    c.equal(len(lines), 1, "one line, at exit", r)
    # (4 rounds of 4 calls, each on the C++-made module.)
    c.check(bool(lines) and re.fullmatch(
        r"16 handle arguments of the 16 LLVM-C calls ownsan checked "
        r"\(through /\S*libLLVM\S*\) named objects it never saw made "
        r"\(made with LLVM's C\+\+ API, or not LLVM objects\): uses of them "
        r"after they are freed are not reported", lines[0]) is not None,
        "it counts the unseen handle arguments and names the libLLVM", r)


def case_fully_static(c, a):
    c.check(bool(a.fully_static), "--fully-static names the program (not "
            "built in sanitized builds, which do not run this case)")
    if not a.fully_static:
        return
    r = under_ownsan(a, [a.fully_static])
    ran_as_without(c, r, "fully static")
    lines = warnings(c, r)
    c.equal(lines, [f"{a.fully_static} is statically linked (no dynamic "
                    "loader): ownsan cannot be preloaded into it, so nothing "
                    "in it is checked"], "one line from `ownsan run`", r)


def case_clean_dynamic(c, a):
    r = under_ownsan(a, [a.program])
    ran_as_without(c, r, "dynamic")
    c.equal(r.err, "", "nothing on stderr", r)


LABELS = {name: ["sanitized"] for name in ("static_llvm", "clean_dynamic")}


def main():
    def more(p):
        p.add_argument("--static")
        p.add_argument("--embedded")
        p.add_argument("--loader")
        p.add_argument("--linked")
        p.add_argument("--allocator")
        p.add_argument("--reuse")
        p.add_argument("--runtime")
        p.add_argument("--heap-allocator")
        p.add_argument("--libllvm")
        p.add_argument("--unseen")
        p.add_argument("--fully-static")
        p.add_argument("--sarif-schema")
    return case_main("blind", globals(), 120, more, labels=LABELS)


if __name__ == "__main__":
    sys.exit(main())
