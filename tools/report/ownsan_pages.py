# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The HTML pages' navigation (ownsan_html.py, `ownsan report --html`):
previous/next links between problem pages, the index's filter by kind and
by test, and the page of the kinds' documentation each kind links to. No
script: the filter is radio buttons and CSS
(`#fk1:checked ~ table tr:not(.k1)`)."""

import html

KINDS_PAGE = "kinds.html"


def h(s):
    return html.escape(s or "", quote=True)


def nav(prev_link, next_link):
    """The links at the top of a problem page; each link is (href, text) or
    None."""
    parts = ['<a href="index.html">&uarr; all problems</a>']
    if prev_link:
        parts.append(f'<a rel="prev" href="{h(prev_link[0])}">&larr; '
                     f"previous: {h(prev_link[1])}</a>")
    if next_link:
        parts.append(f'<a rel="next" href="{h(next_link[0])}">next: '
                     f"{h(next_link[1])} &rarr;</a>")
    return '<p class="nav">' + " | ".join(parts) + "</p>"


def kind_link(kind, anchor):
    """The kind's name linking to its section of the kinds page."""
    return f'<a href="{KINDS_PAGE}#{h(anchor)}">{h(kind)}</a>'


class IndexFilter:
    """Radio buttons for each kind and each test, placed before the table
    (CSS's `~` needs them as its earlier siblings), and the classes of each
    row."""

    def __init__(self, problems):
        self.kinds, self.tests = [], []
        for p in problems:
            if p.kind not in self.kinds:
                self.kinds.append(p.kind)
            self.tests += [t for t in p.tests if t not in self.tests]

    def row_class(self, p):
        return " ".join(["p", f"k{self.kinds.index(p.kind)}"] +
                        [f"t{self.tests.index(t)}" for t in p.tests])

    def controls(self):
        def group(name, label, values):
            out = [f'<span class="flabel">{h(label)}:</span>'
                   f'<input type="radio" name="{name}" id="{name}-all" '
                   f'checked><label for="{name}-all">all</label>']
            for i, v in enumerate(values):
                out.append(f'<input type="radio" name="{name}" '
                           f'id="{name}{i}"><label for="{name}{i}">{h(v)}'
                           "</label>")
            return "".join(out)
        return (group("fk", "kind", self.kinds) + "<br>" +
                group("ft", "test", self.tests))

    def css(self):
        rules = [f"#fk{i}:checked~table.list tr.p:not(.k{i})"
                 for i in range(len(self.kinds))]
        rules += [f"#ft{i}:checked~table.list tr.p:not(.t{i})"
                  for i in range(len(self.tests))]
        return ("".join(r + "{display:none}\n" for r in rules) +
                ".flabel{margin:0 6px 0 0;color:#566074}"
                "input+label{margin:0 12px 0 2px}")


def kinds_page_body(entries):
    """The kinds page: one section per (name, anchor, meaning, details,
    hint) entry, its id the anchor docs/reports.md uses."""
    body = ['<p class="nav"><a href="index.html">&uarr; all problems</a>'
            "</p><h1>Error kinds</h1>"]
    for name, anchor, meaning, details, hint in entries:
        body.append(
            f'<section id="{h(anchor)}"><h2>{h(name)}</h2>'
            f"<p>{h(meaning)}</p><p>{h(details)}</p>"
            f"<h3>How to fix the binding</h3><p>{h(hint)}</p>"
            f'<p class="muted">docs/reports.md#{h(anchor)}</p></section>')
    return "\n".join(body)
