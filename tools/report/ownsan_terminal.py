# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The summary `ownsan report` prints on stdout: one block per problem,
the suppressions used, what the runs could not check, and the last line
(distinct problems, reports, processes)."""

from ownsan_frames import binding_frame
from ownsan_records import PROG
from ownsan_text import (call_text, frame_where, free_text, leak_objects,
                         leak_seen, oneline, other_text, outside_text, plural,
                         tests_text, thread_name)


def terminal_summary(problems, col, paths, out):
    for n, p in enumerate(problems, 1):
        rep = p.report
        lines = [f"[{n}] {p.kind}: {p.label}"]
        rows = []
        if p.leak is not None:
            where = binding_frame(p.leak.stack)
            rows.append(("created by", p.leak.function +
                         (f" at {frame_where(where, paths)}" if where
                          else "") +
                         f" on thread {thread_name(p.leak.thread)}"))
            rows.append(("leaked", leak_seen(p)))
            rows.append(("objects", leak_objects(p.leak)))
        elif rep is not None:
            rows.append(("call", call_text(rep)))
            bf = binding_frame(rep.use.stack)
            rows.append(("at", frame_where(bf, paths) if bf
                         else "(no source frame in the use stack)"))
            if rep.free is not None:
                where = binding_frame(rep.free.stack)
                rows.append(("freed by", free_text(rep.free) +
                             (f" at {frame_where(where, paths)}" if where
                              else "")))
            else:
                rows.append(("freed by", "(no free recorded)"))
            if rep.create is not None:
                where = binding_frame(rep.create.stack)
                rows.append(("created by", (rep.create.function or "?") +
                             (f" at {frame_where(where, paths)}" if where
                              else "")))
            elif rep.first_seen_in:
                rows.append(("created", outside_text(rep)))
            if rep.other is not None:
                where = binding_frame(rep.other.stack)
                rows.append(("other call", other_text(rep.other) +
                             (f", entered at {frame_where(where, paths)}"
                              if where else "")))
            if rep.note:
                rows.append(("note", rep.note))
        else:
            rows.append(("details", "not in the logs (only counted by an "
                         "exit summary): " + p.summary))
        if p.leak is None:
            rows.append(("seen", f"{plural(p.count, 'time')} in "
                         f"{plural(len(p.processes), 'process')}"))
        rows.append(("tests", tests_text(p)))
        rows.append(("problem id", p.problem_id))
        for key, value in rows:
            lines.append(f"    {key + ':':<12}{value}")
        out.write(oneline_block(lines) + "\n\n")
    if col.suppressed:
        items = ", ".join(f"{pat} ({c})" for pat, c in
                          sorted(col.suppressed.items()))
        out.write(oneline(f"suppressed: {items}") + "\n")
    for (what, where), pids in sorted(col.blind_spots.items()):
        out.write(oneline(f"not checked: {what} ({where}) in "
                          f"{plural(len(pids), 'process')}; see "
                          "docs/blind-spots.md") + "\n")
    out.write(f"{PROG}: {len(problems)} distinct problems in "
              f"{col.report_lines} reports from {col.process_count} "
              "processes\n")


def oneline_block(lines):
    return "\n".join(oneline(l) for l in lines)
