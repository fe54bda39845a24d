# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The profile the generator runs for: the API's conventions, the
handle-type table and the function-name flag rules (LLVM-C's until told
otherwise).

CONVENTIONS, NAMED_HANDLE_TYPES, OBJECT_KINDS and FN_FLAG_RULES are set
again by gen_wrappers.main() and by the tools that reuse the generator for
another profile (MLIR-C), after import: the other modules read them here
when called (`api_profile.CONVENTIONS`), so import this module, not those
names."""

import os
import re
from typing import Dict, List, Tuple

import gen_conventions
from wrapgen.model import GenError


REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# The API's conventions (LLVM-C's unless main() is told otherwise).
CONVENTIONS = gen_conventions.Conventions()

# The table of handle types and object kinds, shared with the runtime.
# The LLVM-C profile's table (src/profiles/llvm_c/profile.cmake names it and
# passes it as --handle-types).
HANDLE_TYPES_DEF = os.path.join(REPO_ROOT, "src", "profiles", "llvm_c",
                                "handle_types.def")
_HANDLE_ROW_RE = re.compile(
    r'^OWNSAN_(HANDLE_TYPE|HANDLE_TYPE_ALIAS|OBJECT_KIND)\(\s*(\w+)\s*,'
    r'\s*(\w+)?\s*,?\s*"([^"]*)"', re.MULTILINE)


def read_handle_types(path: str = HANDLE_TYPES_DEF
                      ) -> Tuple[Dict[str, str], List[str]]:
    """The rows of a profile's handle_types.def: (C typedef -> HandleType
    enumerator, for the OWNSAN_HANDLE_TYPE(_ALIAS) rows with a typedef;
    the ObjectKind enumerators, in order)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise GenError(f"cannot read {path}: {e}")
    named: Dict[str, str] = {}
    kinds: List[str] = []
    for m in _HANDLE_ROW_RE.finditer(text):
        macro, first = m.group(1), m.group(2)
        if macro == "OBJECT_KIND":
            kinds.append(first)
        elif m.group(4):
            named[m.group(4)] = first
    if not named or not kinds:
        raise GenError(f"{path}: no handle type or object kind rows")
    return named, kinds


# Handle typedefs with their own HandleType; every other typedef named
# as CONVENTIONS.pointer_handles says (LLVM*Ref) whose canonical type is a
# (non-function) pointer is `Other`, and so is every other struct handle
# (CONVENTIONS.struct_handles).
NAMED_HANDLE_TYPES, OBJECT_KINDS = read_handle_types()


# Function-level facts that are not spec effects, decided from the
# function's name, once per function, by the profile's name rules
# (src/profiles/llvm_c/fn_flags.txt): kFnFlags[fn] in the generated tables.
# Flag -> the C++ bit of interpose/wrapper_api.h the runtime reads.
FN_FLAG_BITS = {
    "cast": "kFnIsCast",
    "insertion_point": "kFnUsesInsertionPoint",
    "creates": "kFnCreates",
}
FN_FLAGS_TXT = os.path.join(REPO_ROOT, "src", "profiles", "llvm_c",
                            "fn_flags.txt")


def read_fn_flags(path: str = FN_FLAGS_TXT) -> List[Tuple[str, str, str]]:
    """The rows of a profile's fn_flags.txt: (flag, "prefix"|"name", text)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise GenError(f"cannot read {path}: {e}")
    rows = []
    for n, line in enumerate(text.split("\n"), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if (len(words) != 3 or words[0] not in FN_FLAG_BITS or
                words[1] not in ("prefix", "name")):
            raise GenError(f"{path}:{n}: expected `FLAG prefix|name TEXT`"
                           f" with FLAG one of {sorted(FN_FLAG_BITS)}")
        rows.append((words[0], words[1], words[2]))
    return rows


FN_FLAG_RULES = read_fn_flags()


def fn_flags(name: str) -> List[str]:
    """The flags that hold for the function `name`, in FN_FLAG_BITS order."""
    hold = {flag for flag, how, text in FN_FLAG_RULES
            if (name.startswith(text) if how == "prefix" else name == text)}
    return [flag for flag in FN_FLAG_BITS if flag in hold]


def fn_flags_expr(name: str) -> str:
    """kFnFlags[] of the function `name`, as a C++ expression."""
    bits = [FN_FLAG_BITS[flag] for flag in fn_flags(name)]
    return " | ".join(bits) if bits else "0"
