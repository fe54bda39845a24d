# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What each kind of problem means, for every output of `ownsan report`:
the kind list share/ownsan/error_kinds.json (generated from
src/report/error_kinds.def), read once when this module is imported
(KINDS; KINDS_PROBLEM says why when it cannot be read), the leak kind
`ownsan report` adds to it, and where the kinds' docs are (doc_uri)."""

import json
import os
import pathlib

# What each error kind means and how to fix the binding: the SARIF rules,
# the HTML pages and the terminal share this list. It is generated from the
# report-kind table src/report/error_kinds.def at build time and lies beside
# this file, in a build tree and in an install (share/ownsan/). A kind not in
# it (a newer runtime's) gets a generic rule.
KINDS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "error_kinds.json")
KINDS_DOC = "docs/reports.md"


def load_kinds(path):
    """({kind name: entry}, None) in the table's order, or ({}, why not).
    Also sets TOOL_INFO from the list's tool_version and homepage."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for key in ("tool_version", "homepage"):
            if isinstance(doc.get(key), str):
                TOOL_INFO[key] = doc[key]
        kinds = {}
        for k in doc["kinds"]:
            for field in ("name", "id", "meaning", "details", "hint",
                          "sarif_level", "doc_anchor"):
                if not isinstance(k.get(field), str):
                    raise ValueError(f"a kind without a '{field}' string")
            kinds[k["name"]] = k
        return kinds, None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else e
        return {}, (f"cannot read the kind list {path} ({why}); every kind "
                    "gets a generic description")


TOOL_INFO = {}  # tool_version, homepage: from the kind list
# The docs installed beside this script (share/doc/ownsan, as in the build
# tree): where rules link when the build names no published home page.
INSTALLED_DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                              os.pardir, "doc", "ownsan")


def doc_uri(doc, anchor=""):
    """An absolute URI of `doc` (a path of ownsan's repository) at `anchor`:
    on the published home page, else the installed copy (file:), else ""."""
    fragment = f"#{anchor}" if anchor else ""
    if TOOL_INFO.get("homepage"):
        return f"{TOOL_INFO['homepage']}/blob/main/{doc}{fragment}"
    path = os.path.realpath(os.path.join(INSTALLED_DOCS,
                                         os.path.basename(doc)))
    return (pathlib.Path(path).as_uri() + fragment
            if os.path.exists(path) else "")
KINDS, KINDS_PROBLEM = load_kinds(KINDS_FILE)

# Leaks are not a kind of the runtime's table (they are found at exit, not
# at a call); `ownsan report` makes them problems of this kind.
LEAK_KIND = "leak"
LEAK_ENTRY = {
    "name": LEAK_KIND, "id": "Leak",
    "meaning": "An LLVM object the program owns was never disposed.",
    "details": "With `report_leaks=1` the runtime lists at exit the owned "
               "objects still alive (contexts the program created, modules, "
               "builders, memory buffers...), grouped by the call and stack "
               "that created them; the process then exits with `exitcode`.",
    "hint": "Dispose of the object when the binding is done with it (its "
            "`LLVMDispose...` call), or hand it to an owner that does.",
    "sarif_level": "error", "doc_anchor": "leak-reports",
    "cwe": 401, "security_severity": None}


def kind_entry(kind):
    """The kind's table entry (the leak entry for leaks), or None."""
    return KINDS.get(kind) or (LEAK_ENTRY if kind == LEAK_KIND else None)
