# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""How `ownsan report` words a problem, the same in every output: where a
frame is (source paths shown relative to --source-root: Paths), the call,
the free, the other thread, a leak, the counts, the tests; and text made
safe for the terminal (oneline) and for XML (xml_text)."""

import os
import re

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def oneline(s):
    """s with control characters shown as \\xNN (for the terminal)."""
    return _CONTROL.sub(lambda m: "\\x%02x" % ord(m.group()), s)


def xml_text(s):
    """s without the characters XML 1.0 cannot carry."""
    return _XML_BAD.sub("\ufffd", s)


def plural(n, word):
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word}" + ("es" if word.endswith("s") else "s")


_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def plain(markdown):
    """The table's Markdown as text: links become their text, no backticks."""
    return _MD_LINK.sub(r"\1", markdown).replace("`", "")


class Paths:
    """Shows source paths relative to --source-root when under it."""

    def __init__(self, root, fold=True):
        self.fold = fold  # fold the runner's frames in HTML stacks
        self.roots = []
        if root:
            for r in (os.path.normpath(os.path.abspath(root)),
                      os.path.realpath(root)):
                if r not in self.roots:
                    self.roots.append(r)

    def relative(self, path):
        """(path relative to the root, True) or (path, False)."""
        if path and os.path.isabs(path):
            norm = os.path.normpath(path)
            for r in self.roots:
                if norm == r:
                    return ".", True
                prefix = r.rstrip("/") + "/"
                if norm.startswith(prefix):
                    return norm[len(prefix):], True
        return path, False

    def show(self, path):
        return self.relative(path)[0]


def frame_where(f, paths):
    """file:line[:col] in function (or the module when there is no file)."""
    fn = f.function or "<unknown>"
    if f.file:
        loc = paths.show(f.file)
        if f.line:
            loc += f":{f.line}"
            if f.column:
                loc += f":{f.column}"
        return f"{loc} in {fn}"
    if f.module:
        pc = f"+{f.pc}" if f.pc else ""
        return f"{fn} ({os.path.basename(f.module)}{pc})"
    return fn


def call_text(rep):
    fn = rep.call_function or "an LLVM-C function"
    s = fn
    if rep.call_argument:
        s += f" (argument {rep.call_argument}"
        s += f", {rep.handle_type})" if rep.handle_type else ")"
    return s


def free_text(ev):
    """What freed the object: call(target), cause."""
    if ev is None:
        return None
    if ev.function and ev.target:
        s = f"{ev.function}({ev.target})"
        if ev.cause:
            s += f", {ev.cause}"
        return s
    if ev.during:
        return f"LLVM itself during {ev.during}"
    if ev.function:
        return ev.function + (f", {ev.cause}" if ev.cause else "")
    return "outside any LLVM-C call"


def thread_name(t):
    return f"T{t}" if t is not None else "T?"


def other_text(ev):
    """context-race: what the other thread is doing."""
    return (f"thread {thread_name(ev.thread)} is inside "
            f"{ev.function or 'an LLVM-C call'} on the same context")


def outside_text(rep):
    """Where an object ownsan did not see created came from."""
    s = "outside the LLVM-C API"
    if rep.first_seen_in:
        s += f" (first seen in a call to {rep.first_seen_in})"
    return s


def leak_objects(leak):
    """'3 LLVMModuleRefs (module 0x..., ...)', as the runtime says it."""
    many = leak.count != 1
    s = plural(leak.count, leak.handle_type) if leak.handle_type else \
        plural(leak.count, "object")
    if leak.example:
        s += f" ({leak.object_kind} {leak.example}{', ...' if many else ''})"
    return s


def stack_lines(stack, paths):
    return [f"    #{f.index} {frame_where(f, paths)}" for f in stack]


def leak_text(p, paths):
    """The leak as a text report (JUnit's failure text)."""
    leak = p.leak
    lines = [f"leak: {leak_objects(leak)} created by {leak.function} on "
             f"thread {thread_name(leak.thread)}, never disposed:"]
    lines += stack_lines(leak.stack, paths)
    return "\n".join(lines) + "\n"


def leak_seen(p):
    return (f"{plural(p.count, 'object')} never disposed in "
            f"{plural(len(p.processes), 'process')}")


def tests_text(p):
    return ", ".join(p.tests) if p.tests else "(none named)"


def summary_text(p, paths):
    """The problem's SUMMARY with its source path relative to
    --source-root."""
    s = p.summary
    if p.report is not None:
        for f in p.report.use.stack:
            if f.file and f.file in s:
                return s.replace(f.file, paths.show(f.file), 1)
    return s
