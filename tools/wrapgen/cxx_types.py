# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""How the generated C++ spells the API's types: aliases for the types that
cannot be written `T name`, parameter and return types, function pointer
types, and the pointer a handle (or a struct handle) holds."""

from typing import Sequence

from wrapgen.model import Function, Param


def needs_alias(spelling: str) -> bool:
    """Function pointer and array types cannot be written `T name`."""
    return "(" in spelling or "[" in spelling


def param_alias(fn: Function, index: int) -> str:
    """Name of the alias for a parameter type (see render_aliases)."""
    return f"{fn.name}_p{index}"


def ret_alias(fn: Function) -> str:
    """Name of the alias for a return type (see render_aliases)."""
    return f"{fn.name}_ret"


def cxx_param_type(fn: Function, param: Param) -> str:
    """The C++ spelling of a parameter type."""
    if needs_alias(param.spelling):
        return f"ownsan::gen::{param_alias(fn, param.index)}"
    return param.spelling


def cxx_ret_type(fn: Function) -> str:
    """The C++ spelling of the return type."""
    if needs_alias(fn.ret):
        return f"ownsan::gen::{ret_alias(fn)}"
    return fn.ret


def cxx_ret_type_value(fn: Function) -> str:
    """The return type as a type-id usable in `T{}` (a value-initialized,
    neutral result)."""
    return f"std::remove_cv_t<{cxx_ret_type(fn)}>"


def cxx_fn_pointer_type(fn: Function) -> str:
    """`R (*)(A0, A1)` for the real entry point of fn."""
    args = ", ".join(cxx_param_type(fn, p) for p in fn.params)
    return f"{cxx_ret_type(fn)} (*)({args})"


def declaration_with_name(spelling: str, name: str) -> str:
    """`const char *` + `p0` -> `const char *p0`."""
    sep = "" if spelling.endswith("*") else " "
    return f"{spelling}{sep}{name}"


def render_aliases(functions: Sequence[Function]) -> str:
    """The `using` aliases for types that contain `(` or `[`."""
    lines = []
    for fn in functions:
        if needs_alias(fn.ret):
            lines.append(f"using {ret_alias(fn)} = {fn.ret};")
        for param in fn.params:
            if needs_alias(param.spelling):
                alias = param_alias(fn, param.index)
                lines.append(f"using {alias} = {param.spelling};")
    if not lines:
        return ""
    return ("// Types that cannot be written as `T name`.\n"
            "namespace ownsan::gen {\n" + "\n".join(lines) +
            "\n} // namespace ownsan::gen\n\n")


def handle_enum(handle: str) -> str:
    """`ownsan::HandleType::X`."""
    return f"ownsan::HandleType::{handle}"


def handle_value(expr: str, is_struct: bool) -> str:
    """The pointer a handle expression holds: `p0`, or `p0.ptr` for a
    struct handle (CONVENTIONS.struct_handles)."""
    return f"{expr}.ptr" if is_struct else expr


def param_value(p: Param) -> str:
    """The pointer handle parameter p holds."""
    return handle_value(f"p{p.index}", p.struct_handle)
