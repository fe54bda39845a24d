#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Generate docs/ownership.md from the ownership spec.

One table, one row per entry of src/profiles/llvm_c/ownership.spec: what the function
does to ownership (in words, from its effects), the LLVM versions among the
supported ones (scripts/llvm-majors.txt) it applies to, and the entry's
`# why (source)` comment. Rows are in spec order, under the spec's
`# --- Section ---` headings. A second table lists the arguments exempt from
the cross-context check (data_only effects), one row per argument. A last
section, "Expected handle kinds", lists src/profiles/llvm_c/handle_kinds.spec the same
way: its kind sets, parameter-type rules and one row per checked argument.

A version is listed when the entry's since=/until= range includes it AND the
function is declared in that version's llvm-c headers
(/usr/lib/llvm-N/include by default), read the way tools/gen_wrappers.py
reads them. The spec parser is the generator's own (tools/wrapgen/spec.py);
what each effect says in words is tools/ownership_words.py.

Usage (Debian's /usr/bin/python3: it has python3-clang):
  tools/gen_ownership_doc.py            rewrite docs/ownership.md
  tools/gen_ownership_doc.py --check    exit 1 with a unified diff if the
                                        checked-in page is out of date; 77 if
                                        a version's headers are not installed

Another profile's page (MLIR-C's, docs/ownership-mlir.md) is made with its
conventions, the options of tools/gen_conventions.py as
tools/gen_wrappers.py takes them, its spec, kinds, handle-type table,
majors (--major) and headers (--include-dir, a search path as
tools/check_spec_versions.py's), the top of its page (--intro, a Markdown
file; {regenerate} and {majors} are replaced) and how the page says to
regenerate it (--regenerate). tests/mlir/CMakeLists.txt has MLIR-C's: the
ctest docs.ownership_mlir checks the page, the target ownership_mlir_doc
rewrites it.
"""

import argparse
import difflib
import os
import re
import sys
from typing import Dict, List, Optional, Sequence, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_spec_versions  # noqa: E402
import gen_conventions  # noqa: E402
from gen_wrappers import spec_label_for, write_if_changed  # noqa: E402
from ownership_words import (DocError, arg_text, effect_words,  # noqa: E402
                             sentence)
from wrapgen import api_profile  # noqa: E402
from wrapgen.api_profile import (HANDLE_TYPES_DEF, REPO_ROOT,  # noqa: E402
                                 read_handle_types)
from wrapgen.headers import DEFAULT_LIBCLANG  # noqa: E402
from wrapgen.kinds import KindsSpec, parse_kinds_file  # noqa: E402
from wrapgen.model import Function, GenError, SpecEntry  # noqa: E402
from wrapgen.spec import parse_spec_file  # noqa: E402

DEFAULT_SPEC = os.path.join(REPO_ROOT, "src", "profiles", "llvm_c", "ownership.spec")
DEFAULT_KINDS = os.path.join(REPO_ROOT, "src", "profiles", "llvm_c", "handle_kinds.spec")
DEFAULT_OUT = os.path.join(REPO_ROOT, "docs", "ownership.md")
DEFAULT_INCLUDE = "/usr/lib/llvm-{major}/include"

# The versions the project supports and tests (scripts/test.sh reads the
# same file).
MAJORS = tuple(check_spec_versions.read_majors(
    check_spec_versions.DEFAULT_MAJORS))

# Printed in the page and by --check; the path is repo-relative on purpose
# so that the page does not depend on where the checkout lives.
REGENERATE = "/usr/bin/python3 tools/gen_ownership_doc.py"
# What the page and --check say instead (main()'s --regenerate).
REGENERATE_TEXT = REGENERATE

# ctest's SKIP_RETURN_CODE for docs.ownership.
EXIT_SKIP = 77

_SECTION_RE = re.compile(r"^#\s*---\s*(.*?)\s*-*\s*$")


# --------------------------------------------------------------------------
# Spec layout: sections and comments (the entries come from wrapgen.spec)
# --------------------------------------------------------------------------


def read_layout(path: str) -> Tuple[Dict[int, str], Dict[int, str],
                                    Dict[str, str]]:
    """Returns (line -> section title, line -> `# why` comment,
    section title -> its prose) for the spec at path.

    The prose is the comment block right under a section heading (e.g. why
    builders are tracked); it ends at a blank line or the first entry.
    """
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    section_of: Dict[int, str] = {}
    comment_of: Dict[int, str] = {}
    prose: Dict[str, str] = {}
    section = ""
    in_prose = False
    for line_no, line in enumerate(lines, start=1):
        stripped = line.strip()
        m = _SECTION_RE.match(stripped)
        if m:
            section = m.group(1)
            prose.setdefault(section, "")
            in_prose = True
            continue
        if in_prose and stripped.startswith("#"):
            text = stripped[1:].strip()
            prose[section] = (prose[section] + " " + text).strip()
            continue
        in_prose = False
        section_of[line_no] = section
        if "#" in line and line.split("#", 1)[0].strip():
            comment_of[line_no] = line.split("#", 1)[1].strip()
    return section_of, comment_of, prose


# --------------------------------------------------------------------------
# Versions
# --------------------------------------------------------------------------


def load_declared(include_patterns: Sequence[str], libclang: str
                  ) -> Dict[int, Optional[Dict[str, Function]]]:
    """Major -> declared functions (None: headers not installed), the
    headers found as tools/check_spec_versions.py finds them."""
    if isinstance(include_patterns, str):
        include_patterns = [include_patterns]
    declared: Dict[int, Optional[Dict[str, Function]]] = {}
    for major in MAJORS:
        try:
            declared[major] = check_spec_versions.load_headers(
                major, include_patterns, libclang)
        except check_spec_versions.NotInstalled:
            declared[major] = None
    return declared


def versions_text(entry: SpecEntry,
                  declared: Dict[int, Optional[Dict[str, Function]]]
                  ) -> str:
    """"19, 22 (since=19)", with notes for what could not be decided."""
    listed, missing, undeclared = [], [], []
    for major in MAJORS:
        functions = declared[major]
        if functions is None:
            missing.append(str(major))
        elif entry.applies_to(major):
            if entry.function in functions:
                listed.append(str(major))
            else:
                # gen_wrappers rejects this spec for that version.
                undeclared.append(str(major))
    text = ", ".join(listed) or "none"
    notes = []
    if entry.since is not None:
        notes.append(f"since={entry.since}")
    if entry.until is not None:
        notes.append(f"until={entry.until}")
    if undeclared:
        notes.append("not declared in the headers of " + ", ".join(undeclared))
    if missing:
        notes.append("headers not installed: " + ", ".join(missing))
    if notes:
        text += " (" + "; ".join(notes) + ")"
    return text


def declaration_for(entry: SpecEntry,
                    declared: Dict[int, Optional[Dict[str, Function]]]
                    ) -> Optional[Function]:
    """The newest declaration the entry applies to (for parameter names)."""
    fallback = None
    for major in sorted(MAJORS, reverse=True):
        functions = declared[major] or {}
        fn = functions.get(entry.function)
        if fn is None:
            continue
        if entry.applies_to(major):
            return fn
        fallback = fallback or fn
    return fallback


# --------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------


def escape(text: str) -> str:
    """Makes spec prose safe in a Markdown table cell.

    `<Module>` would be swallowed as an HTML tag and `*D` start emphasis;
    `|` would end the cell.
    """
    return re.sub(r"([\\`*_<>|\[\]])", r"\\\1", text)


INTRO = """\
# Ownership effects, per function

<!-- GENERATED by tools/gen_ownership_doc.py from src/profiles/llvm_c/ownership.spec -
     DO NOT EDIT. Regenerate with: {regenerate} -->

This page lists every entry of `src/profiles/llvm_c/ownership.spec`: the LLVM-C
functions that do more to ownership than use the handles passed in. Every
other wrapped function only has its handle arguments checked and its
returned handles registered (see [architecture.md](architecture.md)); and
every non-null `LLVMErrorRef` a call returns is a new object the caller must
consume, with no entry. Functions whose names look like they free something,
or that return strings, but need no entry (or need an effect ownsan does not
have yet, `TODO(spec)`) are listed with the reason in `src/profiles/llvm_c/plain.txt`.

The page is generated from the spec and the llvm-c headers of LLVM
{majors} by `tools/gen_ownership_doc.py`; do not edit it by hand.
After changing the spec, regenerate it with

    {regenerate}

The ctest `docs.ownership` fails while it is out of date.

Arguments are numbered from 0, as in the C prototype; `*arg i` is what the
call writes through out-parameter i. **LLVM** lists the versions among
{majors} that the entry applies to: inside its `since=`/`until=`
range, and declared in that version's `llvm-c` headers. **Why** is the
entry's comment in the spec, with its source (`catalog` is the project's
LLVM-C ownership catalog, `shared/llvm-c-ownership.md` beside the
repository, and `Tn` one of the traps it lists).
"""


DATA_ONLY_INTRO = """
## Arguments exempt from the cross-context check

A call given objects of two contexts is reported as `cross-context` (see
[reports.md](reports.md)), except in the arguments below (spec effect
`data_only`): LLVM copies what it needs out of them (a shuffle mask's
integers) and keeps nothing, so an object of another context there mixes
nothing into the module. They take no part in the context checks; every
other argument of these calls is checked as usual.
"""


def render_data_only(entries: Sequence[SpecEntry], comment_of: Dict[int, str],
                     declared: Dict[int, Optional[Dict[str, Function]]]
                     ) -> List[str]:
    """The table of data_only arguments, one row per argument."""
    out = [DATA_ONLY_INTRO,
           f"| function | argument | {api_profile.CONVENTIONS.library_name} |"
           " why (source) |",
           "|---|---|---|---|"]
    for entry in entries:
        fn = declaration_for(entry, declared)
        why = escape(comment_of.get(entry.line_no, ""))
        for e in entry.effects:
            if e.kind == "data_only":
                out.append(f"| `{entry.function}` | {arg_text(fn, e.arg)} |"
                           f" {versions_text(entry, declared)} | {why} |")
    return out


def majors_text() -> str:
    """"14, 15, 16, 19 and 22"."""
    if len(MAJORS) == 1:
        return str(MAJORS[0])
    return ", ".join(str(m) for m in MAJORS[:-1]) + f" and {MAJORS[-1]}"


def render(entries: Sequence[SpecEntry], spec_path: str,
           declared: Dict[int, Optional[Dict[str, Function]]],
           intro: str = INTRO) -> str:
    """The whole page (`intro`: its top, {regenerate} and {majors}
    replaced)."""
    section_of, comment_of, prose = read_layout(spec_path)
    out = [intro.format(regenerate=REGENERATE_TEXT, majors=majors_text()),
           f"| function | what it does to ownership |"
           f" {api_profile.CONVENTIONS.library_name} | why (source) |",
           "|---|---|---|---|"]
    current = None
    for entry in entries:
        section = section_of.get(entry.line_no, "")
        if section != current:
            current = section
            if section:
                text = escape(prose.get(section, ""))
                out.append(f"| **{escape(section)}** | {text} | | |"
                           .replace("|  |", "| |"))
        fn = declaration_for(entry, declared)
        words = " ".join(sentence(effect_words(fn, e))
                         for e in entry.effects)
        why = escape(comment_of.get(entry.line_no, ""))
        out.append(f"| `{entry.function}` | {words} |"
                   f" {versions_text(entry, declared)} | {why} |")
    if any(e.kind == "data_only" for entry in entries
           for e in entry.effects):
        out += render_data_only(entries, comment_of, declared)
    return "\n".join(out) + "\n"


KINDS_INTRO = """
## Expected handle kinds

<!-- GENERATED by tools/gen_ownership_doc.py from src/profiles/llvm_c/handle_kinds.spec -->

The C API casts its `LLVMValueRef` and `LLVMBasicBlockRef` arguments
unchecked (`unwrap<Function>(Fn)` in `lib/IR/Core.cpp` is a static cast in a
release build): a global given to `LLVMGetFirstParam` makes LLVM read the
global as a function. This table, `src/profiles/llvm_c/handle_kinds.spec`, says which
kinds of value each listed argument may name. When the argument names a
live value ownsan registered and its kind is not listed, the call is
reported as `wrong-handle-kind` ([reports.md](reports.md#error-kinds))
before LLVM runs it. An argument ownsan cannot classify (a value it never
saw handed out) is let through, and what that call returns is not
registered. Functions not listed accept any value (or check the kind
themselves, as `LLVMIsA*` and `LLVMGetInstructionOpcode` do).

Kind sets:

| name | kinds | a report says | why (source) |
|---|---|---|---|
"""


NO_KINDS = """
## Expected handle kinds

<!-- GENERATED by tools/gen_ownership_doc.py from {kinds} -->

`{kinds}` lists no kind sets, parameter types or arguments: no
{api} argument is checked for the kind of object it names
(`wrong-handle-kind`, [reports.md](reports.md#error-kinds)).
"""


def render_kinds(spec: "KindsSpec", kinds_path: str,
                 declared: Dict[int, Optional[Dict[str, Function]]]
                 ) -> str:
    """The expected-kind section: sets, parameter types, then entries."""
    if not (spec.sets or spec.type_rules or spec.entries):
        return NO_KINDS.format(kinds=spec_label_for(kinds_path),
                               api=api_profile.CONVENTIONS.api_name)
    section_of, _, _ = read_layout(kinds_path)
    out = [KINDS_INTRO.rstrip("\n")]
    for name, ks in spec.sets.items():
        out.append(f"| `{name}` | {', '.join(ks.kinds)} |"
                   f" {escape(ks.description)} |"
                   f" {escape(spec.set_reasons.get(name, ''))} |")
    out += ["", "Every parameter of these C types:", "",
            "| parameter type | expects | why (source) |", "|---|---|---|"]
    for typedef, ks in spec.type_rules.items():
        out.append(f"| `{typedef}` | {escape(ks.description)} |"
                   f" {escape(spec.type_reasons[typedef])} |")
    out += ["", "| function | argument | expects |"
            f" {api_profile.CONVENTIONS.library_name} | why (source) |",
            "|---|---|---|---|---|"]
    current = None
    for entry in spec.entries:
        section = section_of.get(entry.line_no, "")
        if section != current:
            current = section
            if section:
                out.append(f"| **{escape(section)}** | | | | |")
        fn = declaration_for(entry, declared)
        for arg in sorted(entry.args):
            ks = entry.args[arg]
            name = (fn.params[arg].name
                    if fn is not None and arg < len(fn.params) else "")
            what = f"{arg} (`{name}`)" if name else str(arg)
            out.append(f"| `{entry.function}` | {what} |"
                       f" {escape(ks.description)} |"
                       f" {versions_text(entry, declared)} |"
                       f" {escape(entry.reason)} |")
    return "\n".join(out) + "\n"


def generate(spec_path: str, include_pattern, libclang: str,
             kinds_path: str = DEFAULT_KINDS, intro: str = INTRO
             ) -> Tuple[str, List[int]]:
    """Returns (the page, the majors whose headers are not installed).
    include_pattern: a pattern or a list of them (a search path)."""
    entries = parse_spec_file(spec_path)
    kinds = parse_kinds_file(kinds_path)
    declared = load_declared(include_pattern, libclang)
    missing = [m for m, fns in declared.items() if fns is None]
    return (render(entries, spec_path, declared, intro) +
            render_kinds(kinds, kinds_path, declared)), missing


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------


def check(path: str, text: str, spec_path: str = DEFAULT_SPEC,
          kinds_path: str = DEFAULT_KINDS) -> int:
    """Compares the checked-in page with `text`; prints a diff if stale."""
    try:
        with open(path, encoding="utf-8") as f:
            current = f.read()
    except OSError:
        current = ""
    if current == text:
        print(f"{os.path.relpath(path, REPO_ROOT)} matches the spec")
        return 0
    label = os.path.relpath(path, REPO_ROOT)
    sys.stdout.writelines(difflib.unified_diff(
        current.splitlines(keepends=True), text.splitlines(keepends=True),
        fromfile=f"{label} (checked in)",
        tofile=f"{label} (generated from the spec)"))
    print(f"\n{label} is out of date with {spec_label_for(spec_path)} or"
          f" {spec_label_for(kinds_path)};"
          f" regenerate it with\n  {REGENERATE_TEXT}")
    return 1


def main(argv: Optional[Sequence[str]] = None) -> int:
    global MAJORS, REGENERATE_TEXT
    parser = argparse.ArgumentParser(
        description="Generate docs/ownership.md from the ownership spec.")
    parser.add_argument("--spec", default=DEFAULT_SPEC,
                        help="ownership spec (default: src/profiles/llvm_c/"
                        "ownership.spec)")
    parser.add_argument("--kinds", default=DEFAULT_KINDS,
                        help="expected-kind table (default: src/profiles/llvm_c/"
                        "handle_kinds.spec)")
    parser.add_argument("--out", default=DEFAULT_OUT,
                        help="the page (default: docs/ownership.md)")
    parser.add_argument("--check", action="store_true",
                        help="do not write: exit 1 with a diff if --out"
                        " differs, 77 if headers are missing")
    check_spec_versions.add_version_arguments(parser)
    parser.add_argument("--libclang", default=DEFAULT_LIBCLANG,
                        help=f"libclang (default: {DEFAULT_LIBCLANG})")
    parser.add_argument("--handle-types", default=HANDLE_TYPES_DEF,
                        help="the profile's handle-type table (default:"
                        " src/profiles/llvm_c/handle_types.def)")
    parser.add_argument("--intro",
                        help="the top of the page, Markdown with {regenerate}"
                        " and {majors} (default: LLVM-C's)")
    parser.add_argument("--regenerate", default=REGENERATE,
                        help="the command the page and --check give to"
                        " regenerate it (default: %(default)s)")
    gen_conventions.add_arguments(parser)
    args = parser.parse_args(argv)
    REGENERATE_TEXT = args.regenerate
    include_patterns = args.include_dir or [DEFAULT_INCLUDE]
    try:
        api_profile.CONVENTIONS = check_spec_versions.conventions_of(args)
        (api_profile.NAMED_HANDLE_TYPES,
         api_profile.OBJECT_KINDS) = read_handle_types(args.handle_types)
        MAJORS = tuple(check_spec_versions.majors_of(args))
        intro = INTRO
        if args.intro:
            try:
                with open(args.intro, encoding="utf-8") as f:
                    intro = f.read()
            except OSError as e:
                raise DocError(f"cannot read {args.intro}: {e}")
        text, missing = generate(args.spec, include_patterns, args.libclang,
                                 args.kinds, intro)
    except GenError as e:
        print(f"gen_ownership_doc.py: error: {e}", file=sys.stderr)
        return 1
    conv = api_profile.CONVENTIONS
    missing_text = ", ".join(str(m) for m in missing)
    where = " or ".join(include_patterns)
    if args.check:
        if missing:
            # Without every version's headers the version column cannot be
            # computed; a diff would only show that.
            hint = "; ".join(args.missing_hint.format(major=m)
                             for m in missing)
            how = "" if args.missing_hint == \
                check_spec_versions.DEFAULT_MISSING_HINT else f": {hint}"
            print(f"SKIP: the {conv.header_dir} headers of"
                  f" {conv.library_name} {missing_text} are not"
                  f" installed ({where}); cannot check"
                  f" {os.path.relpath(args.out, REPO_ROOT)}{how}")
            return EXIT_SKIP
        return check(args.out, text, args.spec, args.kinds)
    if missing:
        print(f"gen_ownership_doc.py: warning: no {conv.header_dir} headers"
              f" for {conv.library_name} {missing_text}; the page says so in"
              f" its {conv.library_name} column. Check in a page made where"
              " all are installed.", file=sys.stderr)
    write_if_changed(args.out, text)
    print(f"wrote {os.path.relpath(args.out, REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
