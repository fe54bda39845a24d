# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The expected-kinds spec (handle_kinds.spec): which kinds of value an
argument must name, parsed, resolved for one LLVM major, and rendered as
the runtime's kKindExpectations table."""

import dataclasses
import re
from typing import Dict, List, Optional, Sequence, Set

from wrapgen import api_profile
from wrapgen.model import (Function, GenError, KindSet, Param, SpecEntry,
                           SpecError)
from wrapgen.spec import VERSION_RE, applicable_entries


# Base kinds of the kinds spec -> ownsan::ObjectKind enumerator (how the
# runtime classifies a value, with LLVMGetValueKind), and the words a report
# uses for one.
BASE_KINDS = {
    "function": ("Function", "a function"),
    "global_variable": ("GlobalVariable", "a global variable"),
    "global_alias": ("GlobalAlias", "a global alias"),
    "global_ifunc": ("GlobalIFunc", "an ifunc"),
    "block": ("BasicBlock", "a basic block"),
    "instruction": ("Instruction", "an instruction"),
    "argument": ("Argument", "a function argument"),
    "constant_data": ("Constant", "a constant that is not a global value"),
    "other_value": ("OtherValue", "inline asm or metadata"),
}
# Parameter types a kind expectation may apply to.
KIND_PARAM_TYPES = {"LLVMValueRef", "LLVMBasicBlockRef"}

_KINDS_SET_RE = re.compile(r'^kinds\s+(\w+)\s*=\s*([\w|]+)\s+"([^"]+)"$')
_KINDS_TYPE_RE = re.compile(r"^(LLVM\w+Ref)\s*=\s*([\w|]+)$")
_KINDS_ARG_RE = re.compile(r"^(\d+)=([\w|]+)$")


@dataclasses.dataclass
class KindsEntry:
    """One function line of the kinds spec: argument -> kind set."""

    function: str
    args: Dict[int, KindSet]
    since: Optional[int]
    until: Optional[int]
    path: str
    line_no: int
    reason: str

    def applies_to(self, major: int) -> bool:
        return SpecEntry.applies_to(self, major)  # (same since/until rule)

    def error(self, message: str) -> SpecError:
        return SpecError(self.path, self.line_no,
                         f"{self.function}: {message}")


@dataclasses.dataclass
class KindsSpec:
    """The whole kinds spec."""

    sets: Dict[str, KindSet]
    type_rules: Dict[str, KindSet]  # C type -> kinds, for every parameter
    type_reasons: Dict[str, str]
    entries: List[KindsEntry]
    set_reasons: Dict[str, str] = dataclasses.field(default_factory=dict)


def _kind_set(text: str, sets: Dict[str, KindSet], path: str,
              line_no: int) -> KindSet:
    """`function|global_variable` or a set name -> a KindSet."""
    if text in sets:
        return sets[text]
    kinds: Set[str] = set()
    for name in text.split("|"):
        if name in BASE_KINDS:
            kinds.add(name)
        elif name in sets:
            kinds.update(sets[name].kinds)
        else:
            raise SpecError(path, line_no, f"unknown kind '{name}'")
    ordered = tuple(sorted(kinds))
    description = " or ".join(BASE_KINDS[k][1] for k in ordered)
    return KindSet(text, ordered, description)


def parse_kinds_text(text: str, path: str = "<kinds>") -> KindsSpec:
    """Parses the kinds spec; errors raise SpecError naming the line."""
    spec = KindsSpec(sets={}, type_rules={}, type_reasons={}, entries=[])
    seen: Dict[str, int] = {}
    for line_no, line in enumerate(text.splitlines(), start=1):
        body, _, reason = line.partition("#")
        body = body.strip()
        if not body:
            continue
        reason = reason.strip()
        if not reason:
            raise SpecError(path, line_no, "no `# why (source)` comment")
        m = _KINDS_SET_RE.match(body)
        if m:
            name = m.group(1)
            if name in BASE_KINDS or name in spec.sets:
                raise SpecError(path, line_no, f"kind '{name}' defined twice")
            base = _kind_set(m.group(2), spec.sets, path, line_no)
            spec.sets[name] = KindSet(name, base.kinds, m.group(3))
            spec.set_reasons[name] = reason
            continue
        m = _KINDS_TYPE_RE.match(body)
        if m:
            if m.group(1) not in KIND_PARAM_TYPES:
                raise SpecError(path, line_no,
                                f"{m.group(1)}: kinds apply to "
                                f"{' and '.join(sorted(KIND_PARAM_TYPES))}")
            spec.type_rules[m.group(1)] = _kind_set(m.group(2), spec.sets,
                                                    path, line_no)
            spec.type_reasons[m.group(1)] = reason
            continue
        tokens = body.split()
        function = tokens[0]
        if not api_profile.CONVENTIONS.function_name_re().match(function):
            raise SpecError(path, line_no,
                            f"expected a function name, got '{function}'")
        entry = KindsEntry(function, {}, None, None, path, line_no, reason)
        for token in tokens[1:]:
            m = VERSION_RE.match(token)
            if m:
                setattr(entry, m.group(1), int(m.group(2)))
                continue
            m = _KINDS_ARG_RE.match(token)
            if not m:
                raise entry.error(f"expected ARG=KINDS, got '{token}'")
            entry.args[int(m.group(1))] = _kind_set(m.group(2), spec.sets,
                                                    path, line_no)
        if not entry.args:
            raise entry.error("no ARG=KINDS")
        key = function
        if key in seen and entry.since is None and entry.until is None:
            raise entry.error(f"duplicate entry (also on line {seen[key]})")
        seen.setdefault(key, line_no)
        spec.entries.append(entry)
    return spec


def parse_kinds_file(path: str) -> KindsSpec:
    """Reads and parses the kinds spec file."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise GenError(f"cannot read kinds spec {path}: {e}")
    return parse_kinds_text(text, path)


def _param_typedef(param: Param) -> str:
    return param.spelling.replace("const", "").strip()


def resolve_kinds(spec: KindsSpec, major: int,
                  declared: Dict[str, Function]
                  ) -> Dict[str, Dict[int, KindSet]]:
    """Function name -> argument -> expected kinds, for this LLVM major:
    the type rules for every parameter of their type, then the entries.

    An applicable entry for an undeclared function, an argument out of
    range, or an argument that is not an LLVMValueRef/LLVMBasicBlockRef is a
    SpecError; so is a second applicable entry for one function."""
    result: Dict[str, Dict[int, KindSet]] = {}
    for name, fn in declared.items():
        for p in fn.params:
            rule = spec.type_rules.get(_param_typedef(p))
            if rule is not None:
                result.setdefault(name, {})[p.index] = rule
    for entry, fn in applicable_entries(spec.entries, major, declared):
        for arg, kinds in entry.args.items():
            if arg >= len(fn.params):
                raise entry.error(f"argument {arg} out of range")
            if _param_typedef(fn.params[arg]) not in KIND_PARAM_TYPES:
                raise entry.error(f"argument {arg} is not an LLVMValueRef or"
                                  " LLVMBasicBlockRef")
            result.setdefault(entry.function, {})[arg] = kinds
    return result


def kind_set_table(expects: Dict[str, Dict[int, KindSet]]) -> List[KindSet]:
    """The distinct kind sets, in a stable order; index 0 is reserved for
    "no expectation" (the runtime's kKindExpectations[0])."""
    return sorted({k for args in expects.values() for k in args.values()},
                  key=lambda k: (k.name, k.kinds))


def render_kind_expectations(table: Sequence[KindSet]) -> str:
    """kKindExpectations[]: a bit per ObjectKind, and the words."""
    lines = ["namespace ownsan {", "",
             "const KindExpectation kKindExpectations[] = {",
             "    {0, nullptr},"]
    for ks in table:
        unknown = [BASE_KINDS[k][0] for k in ks.kinds
                   if BASE_KINDS[k][0] not in api_profile.OBJECT_KINDS]
        if unknown:
            raise GenError(f"ObjectKind {unknown[0]} is not a row of"
                           " the handle-type table")
        bits = " | ".join(
            f"(1u << unsigned(ObjectKind::{BASE_KINDS[k][0]}))"
            for k in ks.kinds)
        description = ks.description.replace('"', '\\"')
        lines.append(f'    {{{bits}, "{description}"}},')
    lines += ["};", "", "} // namespace ownsan", ""]
    return "\n".join(lines)
