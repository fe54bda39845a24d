#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`ownsan report --html`: self-contained postmortem pages, rendered in
headless Chromium.

    test_html.py --ownsan PATH

Checks OUTDIR/index.html and one page per distinct problem: no scripts, no
external resources, well-formed, input escaped; the ownership chain as boxes
in order with the freed object highlighted; the timeline created -> freed ->
used and the three stacks. Then renders problem pages in headless Chromium
(Debian's `chromium`, installed by scripts/install-deps.sh; this test fails,
not skips, without it) and checks the screenshot: a PNG of the window's size
in which each chain box's background colour (ownsan_html.CHAIN_COLORS) is
present, left to right in chain order, with the freed-object border colour
around the module box only. The race fixture: the other thread's call of a
context-race in the timeline, the facts and the stacks; the call an object
created outside the API was first seen in; what each kind means and how to
fix it, from the kind list (share/ownsan/error_kinds.json).
"""

import html.parser
import os
import re
import shutil
import subprocess
import sys
import tempfile

from ownsan_testing import Checker
from report_common import (A, B, C, D, E, LABEL_B, RACE, RUN, R, SUMMARY_ONLY,
                           X, PNGError, count_in_box, find_color, hex_rgb,
                           load_kinds, load_module, parse_args, read_png,
                           report)

WIDTH, HEIGHT = 1200, 900
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
        "meta", "source", "track", "wbr"}


class Page(html.parser.HTMLParser):
    """Collects what the checks need, and nesting errors."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.errors = []
        self.tags = []      # (tag, attrs dict)
        self.boxes = []     # class lists of the chain's boxes, in order
        self.texts = []
        self.in_chain = 0
        self.steps = []     # text of each timeline step
        self.step_depth = None
        self.binding_rows = []
        self.row = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        classes = (a.get("class") or "").split()
        if tag not in VOID:
            self.stack.append((tag, classes))
        if tag == "div" and "box" in classes and any(
                "chain" in cl for _, cl in self.stack[:-1]):
            self.boxes.append(classes)
        if tag == "div" and "step" in classes:
            self.steps.append("")
            self.step_depth = len(self.stack)
        if tag == "tr":
            self.row = [] if "binding" in classes else None

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1][0] != tag:
            self.errors.append(f"unexpected </{tag}> (open: "
                               f"{[t for t, _ in self.stack][-4:]})")
            return
        if self.step_depth is not None and len(self.stack) == self.step_depth:
            self.step_depth = None
        self.stack.pop()
        if tag == "tr" and self.row is not None:
            self.binding_rows.append(self.row)
            self.row = None

    def handle_data(self, data):
        self.texts.append(data)
        if self.step_depth is not None:
            self.steps[-1] += data + " "
        if self.row is not None and data.strip():
            self.row.append(data)

    def close(self):
        super().close()
        if self.stack:
            self.errors.append(f"unclosed: {[t for t, _ in self.stack]}")


def parse_page(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    p = Page()
    p.feed(text)
    p.close()
    return text, p


def static_checks(c, outdir, ids):
    index = os.path.join(outdir, "index.html")
    if not c.check(os.path.exists(index), "OUTDIR/index.html is written"):
        return {}
    text, idx = parse_page(index)
    links = [a.get("href") for t, a in idx.tags if t == "a"]
    pages = sorted(f for f in os.listdir(outdir) if f.startswith("problem"))
    c.equal(len(pages), len(ids), f"one page per distinct problem "
            f"({len(ids)})")
    c.equal(sorted(l for l in links if l.startswith("problem")), pages,
            "index.html links every problem page")
    c.check(os.path.exists(os.path.join(outdir, "kinds.html")) and
            all(l.startswith("kinds.html#") for l in links
                if not l.startswith("problem")),
            "index.html links each kind to its section of kinds.html", links)
    for pid in ids:
        c.check(f"problem-{pid}.html" in pages,
                f"problem {pid} has page problem-{pid}.html")
    parsed = {}
    for name in ["index.html"] + pages:
        text, p = parse_page(os.path.join(outdir, name))
        parsed[name] = (text, p)
        low = text.lower()
        c.check(text.startswith("<!DOCTYPE html>") and
                '<meta charset="utf-8">' in text,
                f"{name}: an HTML5 document declaring UTF-8")
        c.check(not p.errors, f"{name}: every element is closed in order",
                "\n".join(p.errors[:10]))
        c.check("<style>" in text, f"{name}: the CSS is inline")
        tags = {t for t, _ in p.tags}
        c.check(not tags & {"script", "link", "img", "iframe", "object",
                            "embed"},
                f"{name}: no script, link, img, iframe, object or embed "
                "element", tags)
        bad = [s for s in ("src=", "url(", "@import", "http://", "https://",
                           "javascript:", " on")
               if s in low and not (s == " on" and
                                    not re.search(r"<[^>]* on[a-z]+=", low))]
        c.check(not bad, f"{name}: no external resources or event handlers",
                bad)
        hrefs = [a.get("href") for t, a in p.tags if t == "a"]
        c.check(all(h and "/" not in h and ":" not in h for h in hrefs),
                f"{name}: links stay inside OUTDIR", hrefs)
    return parsed


def content_checks(c, parsed):
    text, p = parsed.get(f"problem-{A}.html", ("", Page()))
    kinds = [next((cl[5:] for cl in classes if cl.startswith("kind-")), None)
             for classes in p.boxes]
    c.equal(kinds, ["context", "module", "function", "block", "instruction"],
            "A: the chain is drawn as five boxes, context -> instruction")
    states = [sorted({"freed", "died", "used"} & set(cl)) for cl in p.boxes]
    c.equal(states, [[], ["freed"], ["died"], ["died"], ["died", "used"]],
            "A: the module (the free's target) is highlighted as freed, its "
            "descendants died with it, the instruction is the one used")
    c.equal(text.count('class="arrow"'), 4 + 2,
            "A: four arrows in the chain, two in the timeline")
    c.equal(len(p.steps), 3, "A: the timeline has three steps")
    if len(p.steps) == 3:
        c.check(p.steps[0].startswith("1. created") and
                "LLVMBuildAdd" in p.steps[0],
                "A: step 1 created by LLVMBuildAdd", p.steps)
        c.check(p.steps[1].startswith("2. freed") and
                'LLVMDisposeModule(module "m")' in p.steps[1] and
                "because it belonged to that module" in p.steps[1],
                "A: step 2 freed, with the call, target and cause", p.steps)
        c.check(p.steps[2].startswith("3. used") and
                "LLVMGetValueName2" in p.steps[2] and
                "tests/test_mod.py:42 in test_use_after_close" in p.steps[2],
                "A: step 3 used, at the user's frame past the binding's "
                "wrapper", p.steps)
    c.equal(text.count('<table class="stack">'), 3,
            "A: three stack tables (created, freed, used)")
    c.equal([row[2] if len(row) > 2 else row for row in p.binding_rows],
            ["test_use_after_close", "test_use_after_close", "make_sum"],
            "A: each stack's user frame is marked, the use stack first (as "
            "a sanitizer prints it)")

    text, p = parsed.get(f"problem-{B}.html", ("", Page()))
    c.check("<script>alert" not in text and
            "&lt;script&gt;alert(&#x27;m&amp;1&#x27;)&lt;/script&gt;" in text,
            "B: markup from the input is escaped")
    c.check(LABEL_B in "".join(p.texts),
            "B: and reads back as the original label")
    c.equal([sorted({"freed", "died", "used"} & set(cl)) for cl in p.boxes],
            [[], ["freed", "used"]],
            "B (double-free): the module is both freed and used")

    text, p = parsed.get(f"problem-{C}.html", ("", Page()))
    c.check(not any("freed" in cl for cl in p.boxes),
            "C (no free): no box is highlighted as freed")
    c.check(len(p.steps) == 3 and "no free recorded" in p.steps[1],
            "C: the timeline says no free was recorded", p.steps)

    text, p = parsed.get(f"problem-{D}.html", ("", Page()))
    related = [cl for cl in p.boxes if "related" in cl]
    c.check(len(related) == 1 and "freed" in related[0] and
            "kind-block" in related[0],
            "D: the builder's insertion point is drawn as a freed block box",
            p.boxes)
    c.check(not any("freed" in cl for cl in p.boxes if "related" not in cl),
            "D: the builder itself is not marked freed", p.boxes)

    text, p = parsed.get(f"problem-{E}.html", ("", Page()))
    c.check("details are not in the logs" in text,
            "E: a summary-only problem says its details are missing")


def nav_checks(c, ownsan, outdir, parsed):
    """Previous/next links in the index's order, the use stack first, the
    kinds page, the index's filter (radio buttons and CSS, no script)."""
    text, idx = parsed.get("index.html", ("", Page()))
    order = [a["href"] for t, a in idx.tags
             if t == "a" and a.get("href", "").startswith("problem")]
    for i, name in enumerate(order):
        _, p = parsed.get(name, ("", Page()))
        rel = {a.get("rel"): a.get("href") for t, a in p.tags
               if t == "a" and a.get("rel")}
        want = {}
        if i:
            want["prev"] = order[i - 1]
        if i + 1 < len(order):
            want["next"] = order[i + 1]
        c.equal(rel, want, f"{name}: previous/next links follow the index")
    text_a, _ = parsed.get(f"problem-{A}.html", ("", Page()))
    heads = re.findall(r"<h3>(\d)\. (\w+)", text_a)
    c.equal(heads, [("3", "used"), ("2", "freed"), ("1", "created")],
            "A: the use stack first, then the free and the creation")
    kinds = load_kinds(ownsan)
    ktext, kp = parse_page(os.path.join(outdir, "kinds.html"))
    ids = {a.get("id") for t, a in kp.tags if t == "section"}
    c.check(all(k["doc_anchor"] in ids for k in kinds) and not kp.errors,
            "kinds.html has a section per kind, anchored as in "
            "docs/reports.md", sorted(ids))
    c.check(f'href="kinds.html#{kinds[0]["doc_anchor"]}"' in ktext or any(
        f'href="kinds.html#{k["doc_anchor"]}"' in text_a for k in kinds),
        "A's page links its kind to kinds.html")
    radios = [a.get("id") for t, a in idx.tags
              if t == "input" and a.get("type") == "radio"]
    rows = [a.get("class", "").split() for t, a in idx.tags
            if t == "tr" and "p" in a.get("class", "").split()]
    kind_ids = sorted({cl for r in rows for cl in r if re.fullmatch(
        r"k\d+", cl)})
    c.check("fk-all" in radios and "ft-all" in radios and
            all("f" + k in radios for k in kind_ids) and
            all(f"#f{k}:checked~table.list tr.p:not(.{k})" in text
                for k in kind_ids) and
            all(sum(cl.startswith("k") for cl in r) == 1 for r in rows) and
            len(rows) == len(order),
            "index.html: a filter by kind and by test (a radio button and a "
            "CSS rule per kind; each row has its kind's class)",
            (radios, rows))


def race_checks(c, ownsan, parsed):
    kinds = {k["name"]: k for k in load_kinds(ownsan)}
    text, p = parsed.get(f"problem-{R}.html", ("", Page()))
    c.equal(len(p.steps), 4, "R (context-race): the timeline has the three "
            "steps and the other thread's", p.steps)
    if len(p.steps) == 4:
        c.check(p.steps[3].startswith("other thread") and
                "thread T1 is inside LLVMBuildAdd on the same context" in
                p.steps[3] and "tests/test_threads.py:24 in worker" in
                p.steps[3],
                "R: the other thread's step names its call and where it "
                "entered it", p.steps)
    c.check("<th>other thread</th><td>thread T1 is inside LLVMBuildAdd on "
            "the same context</td>" in text, "R: a fact names the other "
            "thread")
    c.equal(text.count('<table class="stack">'), 3,
            "R: stack tables for the creation, the use and the other thread")
    c.check("meanwhile: thread T1 is inside LLVMBuildAdd" in text and
            any(row[2:3] == ["worker"] for row in p.binding_rows),
            "R: the other thread's stack is shown, its binding frame marked",
            p.binding_rows)
    race = kinds.get("context-race", {})
    c.check(race and "<h2>What it means</h2><p>" + race["meaning"] in text
            and "How to fix the binding" in text and
            "docs/reports.md#" + race["doc_anchor"] in text,
            "R: what a context-race means and how to fix it, from the kind "
            "list, with its docs anchor")
    text, p = parsed.get(f"problem-{X}.html", ("", Page()))
    c.check(bool(p.steps) and p.steps[0].startswith("1. created") and
            "outside the LLVM-C API" in p.steps[0] and
            "first seen in a call to LLVMGetGlobalParent" in p.steps[0],
            "X: step 1 says it was created outside the API and names the "
            "call it was first seen in", p.steps)
    c.check("no creation recorded: outside the LLVM-C API (first seen in a "
            "call to LLVMGetGlobalParent)" in text,
            "X: the creation stack's place says the same")


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def screenshot(c, browser, page, png, tmp):
    profile = tempfile.mkdtemp(prefix="profile-", dir=tmp)
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={profile}",
           "--force-color-profile=srgb", "--hide-scrollbars",
           f"--screenshot={png}", f"--window-size={WIDTH},{HEIGHT}",
           "file://" + page]
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=180)
        detail = proc.stderr.decode("utf-8", "replace")[-3000:]
    except subprocess.TimeoutExpired:
        detail = "chromium timed out after 180 s"
    ok = c.check(os.path.exists(png) and os.path.getsize(png) > 0,
                 f"chromium wrote a screenshot of {os.path.basename(page)}",
                 detail)
    if not ok:
        return None
    try:
        img = read_png(png)
    except (PNGError, OSError, ValueError) as e:
        c.check(False, "the screenshot is a valid PNG", e)
        return None
    c.check(True, "the screenshot is a valid PNG (signature, CRCs, data)")
    c.equal((img.width, img.height), (WIDTH, HEIGHT),
            f"the screenshot is {WIDTH}x{HEIGHT}")
    return img


def render_checks(c, ownsan, outdir, tmp):
    browser = chromium()
    if not c.check(browser is not None,
                   "headless Chromium is installed (Debian package "
                   "'chromium'; scripts/install-deps.sh installs it)"):
        return
    drawing = load_module(ownsan, "ownsan_html")
    order = ["context", "module", "function", "block", "instruction"]
    colors = {k: hex_rgb(drawing.CHAIN_COLORS[k]) for k in order}
    red = hex_rgb(drawing.FREED_COLOR)

    img = screenshot(c, browser, os.path.join(outdir, f"problem-{A}.html"),
                     os.path.join(tmp, "a.png"), tmp)
    if img is None:
        return
    found = {k: find_color(img, rgb) for k, rgb in colors.items()}
    for k in order:
        c.check(found[k][0] >= 2000, f"A's screenshot shows the {k} box "
                f"(colour {drawing.CHAIN_COLORS[k]}, {found[k][0]} pixels)")
    if not all(found[k][0] for k in order):
        return
    xs = [found[k][5] for k in order]
    c.check(xs == sorted(xs), "the boxes are drawn left to right in chain "
            "order: context, module, function, block, instruction", xs)
    tops = [found[k][3] for k in order]
    bottoms = [found[k][4] for k in order]
    c.check(max(tops) < min(bottoms), "the boxes share one row", (tops,
                                                                  bottoms))
    c.check(max(bottoms) < HEIGHT * 0.5, "the chain is in the upper half of "
            "the first screen", bottoms)

    def around(k, pad=10):
        n, x0, x1, y0, y1 = found[k][:5]
        return (x0 - pad, x1 + pad, y0 - pad, y1 + pad)

    c.check(count_in_box(img, red, around("module")) >= 500,
            "a thick freed-object border surrounds the module box")
    c.check(count_in_box(img, red, around("context")) == 0,
            "the context box (alive) has no freed border")
    # The arrows between boxes: the gaps hold the arrow's grey.
    grey = hex_rgb("#5f6b7a")
    gaps = [(found[a][2], found[b][1]) for a, b in zip(order, order[1:])]
    y_mid = (max(tops) + min(bottoms)) // 2
    arrows = [count_in_box(img, grey, (x0 + 1, x1 - 1, y_mid - 12,
                                       y_mid + 12)) for x0, x1 in gaps]
    c.check(all(n >= 40 for n in arrows), "an arrow is drawn between each "
            "pair of boxes", arrows)

    img = screenshot(c, browser, os.path.join(outdir, f"problem-{C}.html"),
                     os.path.join(tmp, "c.png"), tmp)
    if img is None:
        return
    found = {k: find_color(img, rgb) for k, rgb in colors.items()}
    c.check(all(found[k][0] >= 2000 for k in order),
            "C's screenshot shows all five chain boxes",
            {k: found[k][0] for k in order})
    if all(found[k][0] for k in order):
        row = (0, WIDTH - 1, min(found[k][3] for k in order) - 10,
               max(found[k][4] for k in order) + 10)
        c.equal(count_in_box(img, red, row), 0,
                "C (nothing freed): no freed border in the chain's row")


def main():
    args = parse_args(__doc__)
    c = Checker("ownsan report --html (and headless Chromium)")
    with tempfile.TemporaryDirectory(prefix="ownsan-html-") as tmp:
        outdir = os.path.join(tmp, "html")
        r = report(args.ownsan, "--html", outdir, RUN, SUMMARY_ONLY)
        c.equal(r.returncode, 1, "exit 1 with problems", r)
        parsed = static_checks(c, outdir, [A, B, C, D, E])
        content_checks(c, parsed)
        nav_checks(c, args.ownsan, outdir, parsed)
        render_checks(c, args.ownsan, outdir, tmp)
        outdir2 = os.path.join(tmp, "race")
        r = report(args.ownsan, "--html", outdir2, RACE)
        c.equal(r.returncode, 1, "race fixture: exit 1", r)
        race_checks(c, args.ownsan, static_checks(c, outdir2, [R, X]))
    sys.exit(c.finish())


if __name__ == "__main__":
    main()
