# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The HTML pages of `ownsan report --html`: a page per problem (the
ownership chain drawn as boxes, the timeline, the facts, what the kind
means, the stacks), the index and kinds.html; inline CSS only, all input
escaped (h). The navigation and the index's filter are ownsan_pages.py's."""

import hashlib
import html
import re

import ownsan_frames
import ownsan_pages
from ownsan_frames import binding_frame
from ownsan_kinds import KINDS, KINDS_DOC, LEAK_KIND, kind_entry
from ownsan_text import (call_text, frame_where, free_text, leak_objects,
                         leak_seen, leak_text, other_text, outside_text, plain,
                         plural, summary_text, thread_name, xml_text)

# Background colour of each kind of object in the ownership chain drawing.
# The chromium test reads this table; the colours are used nowhere else on
# a page.
CHAIN_COLORS = {
    "context": "#cfe0fb",
    "module": "#c6efcd",
    "function": "#fdf0b4",
    "block": "#e4d2f7",
    "instruction": "#ffd6c2",
}
CHAIN_OTHER_COLOR = "#e2e5e9"
FREED_COLOR = "#c62828"  # border of the freed object's box


def h(s):
    """HTML-escaped text (everything taken from input goes through here)."""
    if s is None:
        return ""
    return html.escape(xml_text(str(s)), quote=True)


CSS = """
*{box-sizing:border-box}
body{margin:0;padding:20px 28px;font:14px/1.45 "DejaVu Sans",Arial,sans-serif;
 color:#1d2330;background:#ffffff}
a{color:#1a56b0}
h1{font-size:20px;margin:4px 0 6px}
h2{font-size:16px;margin:22px 0 8px;border-bottom:1px solid #d5d9e0;
 padding-bottom:3px}
h3{font-size:14px;margin:16px 0 6px}
.kindtag{display:inline-block;background:#1d2330;color:#ffffff;
 border-radius:4px;padding:1px 8px;margin-right:6px;font-size:15px}
.summary{font-family:"DejaVu Sans Mono",monospace;font-size:13px;
 color:#404858;margin:0 0 4px}
.nav{margin:0 0 6px;font-size:13px}
.chain{display:flex;flex-wrap:nowrap;align-items:stretch;margin:8px 0 4px}
.box{flex:1 1 0;min-width:0;border:2px solid #5f6b7a;border-radius:8px;
 padding:10px 10px 12px;overflow-wrap:anywhere}
.box .bkind{font-size:11px;text-transform:uppercase;letter-spacing:.06em;
 color:#4a5365}
.box .blabel{font-family:"DejaVu Sans Mono",monospace;font-size:13px;
 margin-top:2px}
.box.freed{border:5px solid #c62828}
.box.died{border:3px dashed #c62828}
.box.used{box-shadow:0 0 0 3px #1d2330}
.badge{display:inline-block;margin-top:6px;margin-right:4px;
 padding:0 6px;border-radius:3px;font-size:11px;font-weight:bold;
 color:#ffffff;background:#c62828}
.badge.usedb{background:#1d2330}
.badge.diedb{background:#ffffff;color:#c62828;border:1px solid #c62828}
.arrow{flex:0 0 34px;position:relative;align-self:center;height:16px}
.arrow::before{content:"";position:absolute;left:3px;right:11px;top:6px;
 height:4px;background:#5f6b7a}
.arrow::after{content:"";position:absolute;right:1px;top:0;
 border-left:11px solid #5f6b7a;border-top:8px solid transparent;
 border-bottom:8px solid transparent}
.relsep{flex:0 0 auto;align-self:center;margin:0 10px;padding:2px 0;
 font-size:11px;color:#566074;border-top:3px dotted #5f6b7a;
 border-bottom:3px dotted #5f6b7a}
.box.related{flex:1 1 0}
.legend{font-size:12px;color:#566074;margin:6px 0 0}
.timeline{display:flex;align-items:stretch;margin:6px 0}
.step{flex:1 1 0;min-width:0;border:1px solid #b8c0cc;border-radius:8px;
 padding:8px 10px;background:#f6f7f9;overflow-wrap:anywhere}
.step.freedstep{border-left:6px solid #c62828}
.step.usedstep{border-left:6px solid #1d2330}
.step.createdstep{border-left:6px solid #3d7a4a}
.step.otherstep{border-left:6px solid #8a5a00}
.step .stitle{font-weight:bold}
.step .where{font-family:"DejaVu Sans Mono",monospace;font-size:12px;
 color:#404858}
table{border-collapse:collapse}
table.facts td,table.facts th{padding:2px 10px 2px 0;vertical-align:top;
 text-align:left}
table.facts th{color:#566074;font-weight:normal;white-space:nowrap}
table.stack,table.list{width:100%;font-size:12.5px}
table.stack th,table.stack td,table.list th,table.list td{
 border:1px solid #d5d9e0;padding:3px 6px;text-align:left;vertical-align:top;
 overflow-wrap:anywhere}
table.stack th,table.list th{background:#eef0f3;white-space:nowrap}
table.stack td.nw,table.list td.nw{white-space:nowrap;overflow-wrap:normal}
table.stack td.mono,table.list td.mono{font-family:"DejaVu Sans Mono",
 monospace}
tr.binding td{background:#fff8dc;font-weight:bold}
pre{background:#f6f7f9;border:1px solid #d5d9e0;padding:10px;
 overflow-x:auto;font-size:12px;white-space:pre-wrap}
.muted{color:#6b7385}
.kindtag a{color:#ffffff}
"""


def kind_class(kind):
    return "kind-" + (re.sub(r"[^a-z0-9]+", "-", (kind or "object").lower())
                      .strip("-") or "object")


def chain_css():
    rules = [f".{kind_class(k)}{{background:{c}}}"
             for k, c in CHAIN_COLORS.items()]
    known = "".join(f":not(.{kind_class(k)})" for k in CHAIN_COLORS)
    rules.append(f".box{known}{{background:{CHAIN_OTHER_COLOR}}}")
    return "\n".join(rules)


def page(title, body, css=""):
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
            "<meta charset=\"utf-8\">\n"
            f"<title>{h(title)}</title>\n"
            f"<style>{CSS}\n{chain_css()}\n{css}</style>\n</head>\n<body>\n"
            f"{body}\n</body>\n</html>\n")


def page_name(problem_id):
    if re.fullmatch(r"[0-9A-Za-z-]{1,64}", problem_id):
        return f"problem-{problem_id}.html"
    return "problem_" + hashlib.sha256(
        problem_id.encode("utf-8", "replace")).hexdigest()[:16] + ".html"


def _names(target, label):
    """Does a free's target (a full label: 'function @f in module "m"')
    name the object with this (short or full) label?"""
    return target == label or target.startswith(label + " ")


def freed_index(rep):
    """Which link of the chain the free started at: the link the free's
    target names (the deepest, when several prefixes match), or the object
    itself when the free has no target (LLVM deleted it itself); None when
    the freed object is not in the chain (a builder's insertion point)."""
    if rep.free is None or not rep.chain:
        return None
    target = rep.free.target
    if target is None:
        return len(rep.chain) - 1
    for i, (_, label) in enumerate(rep.chain):
        if label == target:
            return i
    best = None
    for i, (_, label) in enumerate(rep.chain):
        if _names(target, label):
            best = i
    if best is None and rep.object_label and _names(target, rep.object_label):
        best = len(rep.chain) - 1
    return best


def html_box(kind, label, classes, badges):
    return (f'<div class="{" ".join(["box", kind_class(kind)] + classes)}">'
            f'<div class="bkind">{h(kind)}</div>'
            f'<div class="blabel">{h(label)}</div>{"".join(badges)}</div>')


def html_chain(rep):
    chain = list(rep.chain)
    if not chain:
        chain = [(rep.object_kind or "object",
                  rep.object_label or rep.handle or "object")]
        freed = (0 if rep.free is not None and (
            rep.free.target is None or not rep.object_label
            or _names(rep.free.target, rep.object_label)) else None)
    else:
        freed = freed_index(rep)
    arrow = '<div class="arrow" aria-hidden="true"></div>'
    parts = []
    last = len(chain) - 1
    for i, (kind, label) in enumerate(chain):
        classes = []
        badges = []
        if freed is not None and i == freed:
            classes.append("freed")
            badges.append('<span class="badge">freed</span>')
        elif freed is not None and i > freed:
            classes.append("died")
            badges.append('<span class="badge diedb">died with it</span>')
        if i == last:
            classes.append("used")
            badges.append('<span class="badge usedb">used</span>')
        if i:
            parts.append(arrow)
        parts.append(html_box(kind, label, classes, badges))
    legend = "Arrows point from owner to owned object"
    if freed is not None:
        legend += ("; the red box is the object whose free destroyed the "
                   "used one")
    legend += "; the dark outline is the object the handle names."
    if rep.related is not None:
        # The object the report also involves: a builder's freed insertion
        # point, or the live object that now has a stale handle's address.
        kind, label, identity = rep.related
        # A dangling insertion point's block is dead, whatever freed it.
        related_freed = rep.kind == "dangling-insertion-point" or (
            rep.free is not None and rep.free.target is not None
            and _names(rep.free.target, label))
        word = "insertion point" if rep.object_kind == "builder" else "related"
        parts.append('<div class="relsep">' + h(word) + "</div>")
        parts.append(html_box(
            kind, label + (f" ({identity})" if identity else ""),
            ["related"] + (["freed"] if related_freed else []),
            ['<span class="badge">freed</span>'] if related_freed else []))
        legend += (" The box after the gap is the " + h(word) +
                   " object" + (", freed" if related_freed else "") + ".")
    return (f'<div class="chain">{"".join(parts)}</div>'
            f'<p class="legend">{legend}</p>')


def html_where(frame, paths):
    if frame is None:
        return '<div class="where muted">no source frame</div>'
    return f'<div class="where">at {h(frame_where(frame, paths))}</div>'


def html_timeline(rep, paths):
    steps = []
    if rep.create is not None:
        steps.append(
            '<div class="step createdstep"><div class="stitle">1. created'
            f'</div><div>by {h(rep.create.function or "?")} on thread '
            f'{h(thread_name(rep.create.thread))}</div>'
            f'{html_where(binding_frame(rep.create.stack), paths)}</div>')
    elif rep.first_seen_in:
        steps.append('<div class="step createdstep"><div class="stitle">'
                     '1. created</div><div>outside the LLVM-C API</div>'
                     f'<div>first seen in a call to {h(rep.first_seen_in)}'
                     '</div></div>')
    else:
        steps.append('<div class="step createdstep"><div class="stitle">'
                      '1. created</div><div class="muted">outside the LLVM-C '
                      'API, or before ownsan saw it</div></div>')
    if rep.free is not None:
        cause = f"<div>{h(rep.free.cause)}</div>" if rep.free.cause else ""
        during = (f"<div>during {h(rep.free.during)}</div>"
                  if rep.free.during and rep.free.target else "")
        target = (f"{h(rep.free.function or '?')}({h(rep.free.target)})"
                  if rep.free.target else h(free_text(rep.free)))
        steps.append(
            '<div class="step freedstep"><div class="stitle">2. freed</div>'
            f'<div>by {target} on thread {h(thread_name(rep.free.thread))}'
            f'</div>{cause}{during}'
            f'{html_where(binding_frame(rep.free.stack), paths)}</div>')
    else:
        steps.append('<div class="step freedstep"><div class="stitle">'
                     '2. freed</div><div class="muted">no free recorded'
                     '</div></div>')
    note = f"<div>{h(rep.note)}</div>" if rep.note else ""
    steps.append(
        '<div class="step usedstep"><div class="stitle">3. used</div>'
        f'<div>{h(call_text(rep))} on thread {h(thread_name(rep.use.thread))}'
        f'</div>{note}{html_where(binding_frame(rep.use.stack), paths)}</div>')
    arrow = '<div class="arrow" aria-hidden="true"></div>'
    timeline = arrow.join(steps)
    if rep.other is not None:
        # context-race: the other thread's call, at the same time as the use.
        timeline += (
            '<div class="relsep">meanwhile</div>'
            '<div class="step otherstep"><div class="stitle">other thread'
            f'</div><div>{h(other_text(rep.other))}</div>'
            f'{html_where(binding_frame(rep.other.stack), paths)}</div>')
    return f'<div class="timeline">{timeline}</div>'


def html_stack(title, stack, paths):
    if not stack:
        return f"<h3>{h(title)}</h3><p class=\"muted\">no stack recorded</p>"
    bf = binding_frame(stack)
    rows = []
    for f in ownsan_frames.fold(stack, paths.fold):
        if isinstance(f, tuple):  # a run of the runner's frames
            rows.append(f'<tr class="folded"><td colspan="6" class="muted">'
                        f"... {f[0]} frames in {h(f[1])}</td></tr>")
            continue
        loc = ""
        if f.file:
            loc = paths.show(f.file)
            if f.line:
                loc += f":{f.line}" + (f":{f.column}" if f.column else "")
        cls = ' class="binding"' if f is bf else ""
        rows.append(
            f'<tr{cls}><td class="nw">#{f.index}</td>'
            f'<td class="nw">{h(f.language)}</td>'
            f'<td class="mono">{h(f.function or "<unknown>")}</td>'
            f'<td class="mono">{h(loc)}</td>'
            f'<td class="mono">{h(f.module or "")}</td>'
            f'<td class="mono nw">{h(f.pc or "")}</td></tr>')
    return (f"<h3>{h(title)}</h3><table class=\"stack\"><tr><th>#</th>"
            "<th>language</th><th>function</th><th>location</th>"
            "<th>module</th><th>pc</th></tr>" + "".join(rows) + "</table>")


def html_problem(p, col, paths, prev_link=None, next_link=None):
    rep = p.report
    title = f"ownsan: {p.kind} on {p.label}"
    body = [ownsan_pages.nav(prev_link, next_link),
            f'<h1><span class="kindtag">{kind_link(p.kind)}</span>'
            f'{h(p.label)}</h1>',
            f'<p class="summary">SUMMARY: {h(summary_text(p, paths))}</p>']
    facts = []
    leak = p.leak
    if leak is not None:
        body.append("<h2>Timeline</h2>")
        body.append(
            '<div class="timeline"><div class="step createdstep">'
            f'<div class="stitle">1. created</div><div>by '
            f'{h(leak.function)} on thread {h(thread_name(leak.thread))}'
            f'</div>{html_where(binding_frame(leak.stack), paths)}</div>'
            '<div class="arrow" aria-hidden="true"></div>'
            '<div class="step freedstep"><div class="stitle">2. never '
            'disposed</div><div>still alive when the process exited</div>'
            '</div></div>')
        facts.append(("objects", leak_objects(leak)))
        facts.append(("created by", leak.function))
    elif rep is not None:
        body.append("<h2>Ownership chain</h2>")
        body.append(html_chain(rep))
        body.append("<h2>Timeline</h2>")
        body.append(html_timeline(rep, paths))
        if rep.handle:
            facts.append(("handle", f"{rep.handle_type or ''} {rep.handle}"))
        if rep.identity:
            facts.append(("identity", rep.identity))
        facts.append(("call", call_text(rep)))
        if rep.note:
            facts.append(("note", rep.note))
        if rep.expected:
            facts.append(("expected", rep.expected))
        if rep.create is None and rep.first_seen_in:
            facts.append(("created", outside_text(rep)))
        if rep.other is not None:
            facts.append(("other thread", other_text(rep.other)))
    else:
        body.append('<p class="muted">This problem was only counted by an '
                    'exit summary (for example after max_reports); its '
                    'details are not in the logs.</p>')
    seen = (leak_seen(p) if leak is not None else
            f"{plural(p.count, 'time')} in "
            f"{plural(len(p.processes), 'process')}")
    facts.append(("leaked" if leak is not None else "seen", seen
                  + (f" (pids {', '.join(str(x) for x in p.pids)})"
                     if p.pids else "")))
    facts.append(("tests", ", ".join(p.tests) if p.tests else "(none named)"))
    facts.append(("problem id", p.problem_id))
    body.append("<h2>Facts</h2><table class=\"facts\">" + "".join(
        f"<tr><th>{h(k)}</th><td>{h(v)}</td></tr>" for k, v in facts)
        + "</table>")
    kind = kind_entry(p.kind)
    if kind is not None:
        body.append(
            f"<h2>What it means</h2><p>{h(kind['meaning'])}</p>"
            f"<p>{h(plain(kind['details']))}</p>"
            f"<h2>How to fix the binding</h2><p>{h(plain(kind['hint']))}</p>"
            f'<p class="muted">See {kind_link(p.kind)} ({h(KINDS_DOC)}#'
            f'{h(kind["doc_anchor"])})</p>')
    if leak is not None:
        body.append("<h2>Stacks</h2>")
        body.append(html_stack(
            f"1. created by {leak.function} on thread "
            f"{thread_name(leak.thread)}", leak.stack, paths))
        body.append(f"<h2>Report</h2><pre>{h(leak_text(p, paths))}</pre>")
    if rep is not None:
        # The use first, as a sanitizer prints it: where the program failed.
        body.append("<h2>Stacks</h2>")
        body.append(html_stack(
            f"3. used: {call_text(rep)} on thread "
            f"{thread_name(rep.use.thread)}", rep.use.stack, paths))
        if rep.free is not None:
            body.append(html_stack(
                f"2. freed by {free_text(rep.free)} on thread "
                f"{thread_name(rep.free.thread)}", rep.free.stack, paths))
        else:
            body.append("<h3>2. freed</h3><p class=\"muted\">no free "
                        "recorded</p>")
        if rep.create is not None:
            body.append(html_stack(
                f"1. created by {rep.create.function or '?'} on thread "
                f"{thread_name(rep.create.thread)}", rep.create.stack, paths))
        else:
            body.append("<h3>1. created</h3><p class=\"muted\">no creation "
                        f"recorded: {h(outside_text(rep))}</p>")
        if rep.other is not None:
            body.append(html_stack(
                f"meanwhile: {other_text(rep.other)}, entered at",
                rep.other.stack, paths))
        if rep.text:
            body.append(f"<h2>Report</h2><pre>{h(rep.text)}</pre>")
    return page(title, "\n".join(body))


def kind_link(kind):
    """The kind linking to its section of kinds.html (its doc section)."""
    k = kind_entry(kind)
    return ownsan_pages.kind_link(kind, k["doc_anchor"] if k else kind)


def html_kinds(problems):
    """kinds.html: each kind's documentation, anchored as in docs/reports.md
    (the kind list's text)."""
    entries = []
    names = list(KINDS) + [LEAK_KIND] + [p.kind for p in problems]
    for name in dict.fromkeys(names):
        k = kind_entry(name)
        if k is None:
            entries.append((name, name, f"ownsan reported {name}.", "", ""))
        else:
            entries.append((name, k["doc_anchor"], k["meaning"],
                            plain(k["details"]), plain(k["hint"])))
    return page("ownsan: error kinds", ownsan_pages.kinds_page_body(entries))


def html_index(problems, col, paths):
    filt = ownsan_pages.IndexFilter(problems)
    rows = []
    for n, p in enumerate(problems, 1):
        at = ""
        call = ""
        if p.report is not None:
            bf = binding_frame(p.report.use.stack)
            at = frame_where(bf, paths) if bf else ""
            call = p.report.call_function or ""
        elif p.leak is not None:
            bf = binding_frame(p.leak.stack)
            at = frame_where(bf, paths) if bf else ""
            call = p.leak.function
        rows.append(
            f'<tr class="{filt.row_class(p)}">'
            f"<td>{n}</td><td>{kind_link(p.kind)}</td>"
            f'<td><a href="{page_name(p.problem_id)}">{h(p.label)}</a></td>'
            f'<td class="mono nw">{h(call)}</td><td class="mono">{h(at)}</td>'
            f'<td class="nw">{p.count}</td>'
            f"<td>{h(', '.join(p.tests))}</td></tr>")
    head = (f"{len(problems)} distinct problems in {col.report_lines} reports "
            f"from {col.process_count} processes")
    body = [f"<h1>ownsan report</h1><p>{h(head)}</p>"]
    if rows:
        body.append(filt.controls())
        body.append(
            '<table class="list"><tr><th>#</th><th>kind</th><th>object</th>'
            "<th>call</th><th>at</th><th>count</th><th>tests</th></tr>"
            + "".join(rows) + "</table>")
    else:
        body.append("<p>No ownership problems were reported.</p>")
    if col.suppressed:
        body.append("<h2>Suppressed</h2><ul>" + "".join(
            f"<li>{h(pat)}: {c}</li>"
            for pat, c in sorted(col.suppressed.items())) + "</ul>")
    return page("ownsan report", "\n".join(body), filt.css())
