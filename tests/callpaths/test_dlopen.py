#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A client that reaches LLVM only through dlopen(RTLD_LOCAL) + dlsym/dlvsym.

    test_dlopen.py --case dlsym|dlvsym|aliases --ownsan PATH
                   --program DL_CLIENT --libllvm LIBLLVM --readelf READELF
    test_dlopen.py --list

DL_CLIENT is tests/callpaths/dl_client.c built without libLLVM. It opens
LIBLLVM with dlopen(RTLD_NOW|RTLD_LOCAL) and gets each LLVM-C function from
that handle with dlsym (case dlsym), or with dlvsym and the library's own
symbol version, read here from `readelf --dyn-syms` (case dlvsym). Checked:

  * the client really has no DT_NEEDED libLLVM;
  * without ownsan, the fixed client exits 0 (the reference stdout);
  * under ownsan, the fixed client exits 0 with the same stdout, nothing from
    OwnSan on stderr, and the LLVM-C pointers it looked up are ownsan's
    wrappers; look-ups of names that do not exist still give NULL and set
    dlerror(), and a function found by name works;
  * under ownsan, the buggy client (uses @dl_answer after LLVMDisposeModule)
    stops at the misuse with exactly one use-after-free report that names
    LLVMGetValueName2, the function, LLVMDisposeModule, LLVMAddFunction and
    the client's own functions in the three stacks.

Case aliases: the client instead opens LIBLLVM by each of its other names
(the symlinks next to it and the real file, e.g. libLLVM.so, libLLVM-19.so,
libLLVM.so.1): whatever name a binding dlopen()s, the fixed client must run
silently and the buggy one must get its report. Names that ownsan does not
handle yet would be listed in KNOWN_ALIAS_BUGS and reported as "xfail".
"""

import os
import re
import sys

from ownsan_testing import (ReportFormatError, case_main, needed_libraries,
                            parse_reports, report_headers, run)

LABEL = 'function @dl_answer in module "dlmod"'
MODULE_LABEL = 'module "dlmod"'
# The client's step that makes each call; each must be in its own stack only.
USE_STEP = "ask_function_name"
FREE_STEP = "dispose_dl_module"
CREATE_STEP = "add_dl_function"
MISUSE_LINE = f"{USE_STEP}: LLVMGetValueName2(@dl_answer)"

SUBJECT_RE = re.compile(r"dl_client: subject = (0x[0-9a-fA-F]+)")
RESOLVED_RE = re.compile(r"dl_client: LLVMAddFunction resolved in (.+)")


# Names of the library whose handling is a known ownsan bug:
# {file name: (the checks that fail: "fixed" and/or "bug", why)}. Empty:
# ownsan identifies a libLLVM by its soname, whatever name opened it.
KNOWN_ALIAS_BUGS = {}


def missing_lookup_lines(mode):
    """The client's stdout lines for look-ups that must fail."""
    lookups = ['dlsym(libLLVM, "LLVMOwnsanNoSuchFunction")',
               'dlsym(libLLVM, "ownsan_no_such_symbol")']
    if mode == "dlvsym":
        lookups += ['dlvsym(libLLVM, "LLVMOwnsanNoSuchFunction", VERSION)',
                    'dlvsym(libLLVM, "LLVMContextCreate", "LLVM_0.0")']
    return [f"check_missing_lookups: {what} = NULL, dlerror() set"
            for what in lookups]


def symbol_version(readelf, libllvm):
    """The version of LLVMContextCreate's default definition in libllvm
    ("LLVM_19.1", "LLVM_14"), or None."""
    r = run([readelf, "--dyn-syms", "-W", libllvm])
    m = re.search(r"\bLLVMContextCreate@@(\S+)", r.out)
    return m.group(1) if m else None


def check_report(c, bug, subject):
    """The one report of the buggy run."""
    try:
        reports = parse_reports(bug.err)
    except ReportFormatError as e:
        c.check(False, "the report follows the OwnSan report format", str(e))
        return
    if not c.check(len(reports) == 1, "the report parses", bug):
        return
    r = reports[0]
    c.equal(r.pid, bug.pid, "the report's ==PID== is the client's own pid")
    c.equal(r.kind, "use-after-free", "the report's kind is use-after-free")
    c.equal(r.handle_type, "LLVMValueRef", "the handle is an LLVMValueRef")
    c.equal(r.label, LABEL, f"the header labels the handle ({LABEL})")
    if subject is not None:
        c.equal(hex(r.address), hex(subject),
                "the header names @dl_answer's handle (the pointer the "
                "client printed)")

    c.check(r.use is not None, "a use section (passed as argument ...)")
    if r.use:
        c.equal(r.use.fields["call"], "LLVMGetValueName2",
                "the misuse is a call of LLVMGetValueName2")
        c.equal(r.use.fields["arg"], "1", "the handle was argument 1")
    c.check(r.free is not None, "a 'freed by ...' section")
    if r.free:
        c.equal(r.free.fields["call"], "LLVMDisposeModule",
                "freed by LLVMDisposeModule")
        c.equal(r.free.fields["label"], MODULE_LABEL,
                f"the freeing call freed {MODULE_LABEL}")
        c.equal(r.free.fields["because"], "module",
                "freed because it belonged to that module")
    c.check(r.create is not None, "a 'created by ...' section")
    if r.create:
        c.equal(r.create.fields["call"], "LLVMAddFunction",
                "created by LLVMAddFunction")
    c.check(r.order == ["use", "free", "create"],
            "the stacks come in the order use, free, creation",
            f"order: {r.order}")

    steps = {"use": USE_STEP, "free": FREE_STEP, "create": CREATE_STEP}
    for name, step in steps.items():
        section = getattr(r, name)
        if section is None:
            continue
        functions = section.functions()
        c.check(step in functions,
                f"the {name} stack has a frame in the client's {step}()",
                f"frames are in {functions}")
        c.check("main" in functions,
                f"the {name} stack reaches the client's main()",
                f"frames are in {functions}")
        others = [s for other, s in steps.items()
                  if other != name and s in functions]
        c.check(not others,
                f"the {name} stack has no frame of the other stacks' steps",
                f"also has {others}; frames are in {functions}")

    c.check(r.summary is not None, "a SUMMARY line")
    if r.summary_fields:
        c.equal((r.summary_fields["kind"], r.summary_fields["call"]),
                ("use-after-free", "LLVMGetValueName2"),
                "SUMMARY: OwnSan: use-after-free in LLVMGetValueName2")
        c.check(USE_STEP in (r.summary_fields["rest"] or ""),
                f"the SUMMARY line locates the misuse in {USE_STEP}",
                f"SUMMARY rest: {r.summary_fields['rest']!r}")


def aliases_of(libllvm):
    """Other paths of the same file: libLLVM* entries of its directory that
    resolve to it, and the real file itself."""
    real = os.path.realpath(libllvm)
    directory = os.path.dirname(libllvm)
    found = {os.path.join(directory, name) for name in os.listdir(directory)
             if name.startswith("libLLVM") and ".so" in name
             and os.path.realpath(os.path.join(directory, name)) == real}
    found.add(real)
    found.discard(libllvm)
    return sorted(found)


def check_aliases(c, args, ownsan):
    need_libllvm(args)
    reference = run([args.program, args.libllvm, "dlsym", "--fixed"])
    if not c.check(reference.returncode == 0,
                   "without ownsan, the fixed client exits 0", reference):
        return
    aliases = aliases_of(args.libllvm)
    c.check(aliases, f"{args.libllvm} has other names to try")
    for path in aliases:
        client = [args.program, path, "dlsym"]
        fixed = run(ownsan + client + ["--fixed"])
        bug = run(ownsan + client)
        reports = []
        try:
            reports = parse_reports(bug.err)
        except ReportFormatError:
            pass
        fixed_ok = (fixed.returncode == 0 and "OwnSan" not in fixed.err
                    and fixed.stdout == reference.stdout)
        bug_ok = (len(report_headers(bug.err)) == 1 and len(reports) == 1
                  and reports[0].kind == "use-after-free"
                  and reports[0].label == LABEL)
        checks = [
            ("fixed", fixed_ok,
             f"dlopen(\"{path}\"): under ownsan, the fixed client exits 0 "
             "silently with the reference stdout", fixed),
            ("bug", bug_ok,
             f"dlopen(\"{path}\"): under ownsan, the buggy client gets one "
             f"use-after-free report on {LABEL}", bug),
        ]
        failing, why = KNOWN_ALIAS_BUGS.get(os.path.basename(path),
                                          (set(), None))
        for name, ok, expected, details in checks:
            if name in failing:
                c.known_bug(ok, expected, why)
            else:
                c.check(ok, expected, details)


# The cases of the sanitized builds (tests/CMakeLists.txt): the client is C.
LABELS = {"dlsym": ["sanitized"], "dlvsym": ["sanitized"]}


def case_dlsym(c, a):
    check_client(c, a, "dlsym")


def case_dlvsym(c, a):
    check_client(c, a, "dlvsym")


def case_aliases(c, a):
    check_aliases(c, a, [a.ownsan, "run", "--"])


def check_client(c, args, mode):
    need_libllvm(args)
    needed = needed_libraries(args.program, args.readelf)
    c.check(needed and not any("LLVM" in n for n in needed),
            "the client is not linked against libLLVM (no DT_NEEDED libLLVM)",
            f"DT_NEEDED: {needed}")

    client = [args.program, args.libllvm, mode]
    if mode == "dlvsym":
        version = symbol_version(args.readelf, args.libllvm)
        if not c.check(version is not None,
                       f"readelf --dyn-syms shows a symbol version for "
                       f"LLVMContextCreate in {args.libllvm}"):
            return
        c.note(f"symbol version of {args.libllvm}: {version}")
        client.append(version)
    ownsan = [args.ownsan, "run", "--"]

    # 1. The reference: the fixed client without ownsan.
    reference = run(client + ["--fixed"])
    if not c.check(reference.returncode == 0,
                   "without ownsan, the fixed client exits 0", reference):
        return
    m = RESOLVED_RE.search(reference.err)
    c.check(m and os.path.realpath(m.group(1)) ==
            os.path.realpath(args.libllvm),
            "without ownsan, the looked-up LLVMAddFunction is libLLVM's own",
            reference)

    # 2. The fixed client under ownsan: same output, silent.
    fixed = run(ownsan + client + ["--fixed"])
    c.check(fixed.returncode == 0, "under ownsan, the fixed client exits 0",
            fixed)
    c.check(fixed.stdout == reference.stdout,
            "under ownsan, the fixed client's stdout is identical to the "
            "run without ownsan",
            f"--- with ownsan:\n{fixed.out}--- without:\n{reference.out}")
    c.check("OwnSan" not in fixed.err,
            'under ownsan, the fixed client has no "OwnSan" on stderr', fixed)
    m = RESOLVED_RE.search(fixed.err)
    c.check(m and os.path.basename(m.group(1)) == "libownsan.so",
            f"under ownsan, {mode}(libLLVM handle, \"LLVMAddFunction\") "
            "gives ownsan's wrapper (a pointer into libownsan.so)", fixed)
    lines = fixed.out.splitlines()
    for line in missing_lookup_lines(mode):
        c.check(line in lines,
                f"under ownsan, a look-up that must fail still does: {line!r}",
                fixed)
    c.check("check_resolved_function_works: width 32" in lines,
            "under ownsan, a function found by name works "
            "(LLVMGetIntTypeWidth(i32) == 32)", fixed)
    c.check("ask_function_name: got \"dl_answer\"" in lines,
            "under ownsan, the fixed client reads the name \"dl_answer\"",
            fixed)

    # 3. The buggy client under ownsan: one report, stopped at the misuse.
    bug = run(ownsan + client)
    c.check(bug.returncode not in (0, None),
            "under ownsan, the buggy client ends with a failure status "
            f"(got: {bug.status()})", bug)
    headers = report_headers(bug.err)
    c.equal(len(headers), 1,
            "the buggy run prints exactly one OwnSan report header")
    out_lines = bug.out.splitlines()
    c.check(out_lines and out_lines[-1] == MISUSE_LINE,
            f"the buggy run stopped at the misuse (last stdout line "
            f"{MISUSE_LINE!r})", bug)
    m = SUBJECT_RE.search(bug.err)
    subject = int(m.group(1), 16) if m else None
    c.check(subject is not None,
            "the client printed @dl_answer's handle on stderr", bug)
    if headers:
        check_report(c, bug, subject)
    if c.failed:
        c.note("buggy run:\n" + bug.describe())


def need_libllvm(args):
    if not args.libllvm:
        sys.exit("test_dlopen.py: --libllvm is required")


def more_arguments(p):
    p.add_argument("--libllvm", help="the libLLVM to dlopen")
    p.add_argument("--readelf", default="readelf")


if __name__ == "__main__":
    sys.exit(case_main("callpaths.dlopen", globals(), 300, more_arguments,
                       label=lambda a: f" (dlopen of {a.libllvm})",
                       labels=LABELS))
