# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Rendering the wrapper of one function (the shape of
interpose/wrapper_api.h): the checks before the call, the real call, and
what the runtime is told after it."""

from typing import Dict, List, Sequence

from wrapgen import api_profile
from wrapgen.cxx_types import (cxx_fn_pointer_type, cxx_param_type,
                               cxx_ret_type, cxx_ret_type_value,
                               declaration_with_name, handle_enum,
                               handle_value, param_value)
from wrapgen.model import (RET, STRING_EFFECTS, Classification, Effect,
                           Function)


def field_args(fn: Function, cls: "Classification") -> List[Effect]:
    """The effects naming struct fields, one per pseudo argument, in order."""
    seen: Dict[int, Effect] = {}
    for e in cls.effects:
        if e.field and e.arg not in seen:
            seen[e.arg] = e
    return [seen[i] for i in sorted(seen)]


def field_value_expr(fn: Function, e: Effect) -> str:
    """C++ expression for the value of a struct field an effect names, read
    before the call. A versioned options struct (a following integer
    `SizeOf*` parameter, as LLVMCreateMCJITCompilerForModule's) is read only
    where the size the caller passed covers the field, as LLVM does."""
    p = fn.params[e.field_param]
    value = "(const void *)" + handle_value(f"p{p.index}->{e.field}",
                                            e.field in p.field_structs)
    cond = f"p{p.index}"
    following = (fn.params[p.index + 1]
                 if p.index + 1 < len(fn.params) else None)
    if (following is not None and following.is_integer
            and following.name.startswith("SizeOf")):
        cond += (f" && (size_t)p{following.index} >= offsetof({p.record},"
                 f" {e.field}) + sizeof(p{p.index}->{e.field})")
    return f"({cond}) ? {value} : nullptr"


def render_count_expr(fn: Function, effect: Effect,
                      declared: Dict[str, Function]) -> str:
    """The element count of an out_array effect, as a C++ expression."""
    if effect.count_fn is None:
        return f"(size_t)p{effect.count_arg}"
    count_fn = declared[effect.count_fn]
    args = ", ".join(f"p{i}" for i in effect.count_args)
    return (f"(size_t)OWNSAN_REAL({count_fn.name}, "
            f"{cxx_fn_pointer_type(count_fn)})({args})")


def _checks_before_call(fn: Function, cls: Classification,
                        hook_args: str) -> List[str]:
    """Statements of the first Checking() block: checks, then Before."""
    arrays = {a.param: a for a in cls.arrays}
    lines = []
    for param in fn.params:
        i = param.index
        if param.handle is not None and i in cls.expects:
            lines.append(f"call.CheckHandle({i}, {param_value(param)}, "
                         f"{handle_enum(param.handle)}, "
                         f"{cls.expects[i][0]});")
        elif param.handle is not None:
            lines.append(f"call.CheckHandle({i}, {param_value(param)}, "
                         f"{handle_enum(param.handle)});")
        elif param.string_ref:
            lines.append(f"call.CheckStringRef({i}, p{i}.data);")
        elif i in arrays:
            array = arrays[i]
            lines.append(f"call.CheckArray({i}, (const void *const *)p{i}, "
                         f"(size_t)p{array.count}, "
                         f"{handle_enum(array.handle)});")
    if cls.has_hooks:
        if any(e.kind in ("consume", "consume_if_ok") for e in cls.effects):
            lines.append(f"call.Before({hook_args}, slots);")
        else:
            lines.append(f"call.Before({hook_args});")
    return lines


def _checks_after_call(fn: Function, cls: Classification, hook_args: str,
                       declared: Dict[str, Function]) -> List[str]:
    """Statements of the second Checking() block: After, out arrays,
    returned handles, out-handles."""
    lines = []
    if cls.has_hooks:
        r = handle_value("r", fn.ret_struct)
        ret = (f"(const void *){r}"
               if fn.ret_handle is not None or fn.ret.replace(" ", "") in
               ("char*", "constchar*") else "nullptr")
        # Success: 0 / no error; a function returning an object fails with
        # NULL (LLVMCreateBinary); anything else cannot tell.
        ok = api_profile.CONVENTIONS.out_success_conditions.get(
            fn.ret_typedef, f"{r} != nullptr" if fn.ret_handle is not None
            else "true")
        lines.append(f"call.After({hook_args}, {ret}, {ok});")
    for effect in cls.effects:
        if effect.kind != "out_array":
            continue
        i = effect.arg
        count = render_count_expr(fn, effect, declared)
        elem = handle_enum(fn.params[i].elem_handle)
        if cls.expects:
            # (An argument of unverified kind: the count may be garbage.)
            lines.append("if (!call.Unverified())")
            lines.append(f"  call.OutArray({i}, (const void *const *)p{i}, "
                         f"{count}, {elem});")
        else:
            lines.append(f"call.OutArray({i}, (const void *const *)p{i}, "
                         f"{count}, {elem});")
    # (An untyped handle, HandleType::Other, is never registered:
    # Runtime::Register drops it first thing, so no call is made for one.)
    if fn.ret_handle is not None and fn.ret_handle != "Other":
        lines.append(f"call.Returned({handle_value('r', fn.ret_struct)}, "
                     f"{handle_enum(fn.ret_handle)});")
    for out in cls.outs:
        if out.handle == "Other":
            continue
        i = out.param
        value = f"p{i}->ptr" if fn.params[i].elem_struct else f"*p{i}"
        lines.append(f"if ({cls.out_condition} && p{i})")
        lines.append(f"  call.Returned({value}, "
                     f"{handle_enum(out.handle)});")
    for effect in cls.effects:
        if effect.kind != "lends":
            continue
        context_fn = declared[effect.count_fn]
        j = effect.count_args[0]
        lines.append("if (r.data && r.length)")
        lines.append(f"  call.LentString(r.data, r.length, (const void *)"
                     f"OWNSAN_REAL({context_fn.name}, "
                     f"{cxx_fn_pointer_type(context_fn)})(p{j}).ptr);")
    if lends_string(fn, cls):
        handles = [f"(const void *){param_value(p)}" if p.handle
                   else "nullptr" for p in fn.params]
        handles += ["nullptr"] * (3 - len(handles))
        lines.append(f"call.BorrowedString(r, {', '.join(handles)}, "
                     f"&ownsan_reget_{fn.name});")
    return lines


# Integer out params a borrowed-string getter may take (a length).
_LENGTH_OUT_TYPES = ("size_t*", "unsigned*", "unsignedint*", "uint64_t*")


def lends_string(fn: Function, cls: "Classification") -> bool:
    """A getter whose `const char *` result LLVM only lends (no message
    effect), asked for with handles and at most a length out param: its
    results are remembered so LLVMDisposeMessage on one can be reported."""
    if fn.ret.replace(" ", "") not in ("char*", "constchar*"):
        return False
    if any(e.arg == RET and e.kind in STRING_EFFECTS for e in cls.effects):
        return False
    if not fn.params or len(fn.params) > 3:
        return False
    if not any(p.handle for p in fn.params):
        return False
    return all(p.handle or p.spelling.replace(" ", "") in _LENGTH_OUT_TYPES
               for p in fn.params)


def render_reget(fn: Function) -> str:
    """`ownsan_reget_F(args)`: calls F again with the same handles (a fresh
    local for each length out param)."""
    lines = [f"static const char *ownsan_reget_{fn.name}("
             "const void *const *a) {"]
    call_args = []
    for p in fn.params:
        t = cxx_param_type(fn, p)
        if p.handle and p.struct_handle:
            # (Its `ptr` is `void *` or `const void *`: both take this.)
            call_args.append(f"{t}{{const_cast<void *>(a[{p.index}])}}")
        elif p.handle:
            call_args.append(f"reinterpret_cast<{t}>(const_cast<void *>("
                             f"a[{p.index}]))")
        else:
            lines.append(f"  std::remove_pointer_t<{t}> o{p.index}{{}};")
            call_args.append(f"&o{p.index}")
    lines.append(f"  return OWNSAN_REAL({fn.name}, {cxx_fn_pointer_type(fn)})"
                 f"({', '.join(call_args)});")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _checking_block(statements: Sequence[str]) -> List[str]:
    """`if (call.Checking()) { ... }`, or nothing if there is nothing to do."""
    if not statements:
        return []
    return (["  if (call.Checking()) {"]
            + [f"    {line}" for line in statements]
            + ["  }"])


def render_wrapper(fn: Function, cls: Classification,
                   declared: Dict[str, Function]) -> str:
    """One `extern "C"` wrapper in the shape of interpose/wrapper_api.h."""
    params = ", ".join(
        declaration_with_name(cxx_param_type(fn, p), f"p{p.index}")
        for p in fn.params)
    fn_id = f"ownsan::kFn_{fn.name}"
    signature = declaration_with_name(cxx_ret_type(fn),
                                      f"OWNSAN_WRAPPER_NAME({fn.name})")
    out = [f'extern "C" OWNSAN_EXPORT {signature}({params}) {{',
           f"  ownsan::CallScope call({fn_id}, __builtin_return_address(0));"]
    if cls.effects:
        # What src/profiles/llvm_c/ownership.spec says of it, next to what it does.
        out.insert(0, f"// spec: {fn.name} " +
                   " ".join(e.spec_text() for e in cls.effects))

    hook_args = "nullptr"  # a zero-argument function has no args array
    if cls.has_hooks and fn.params:
        hook_args = "args"
        # Handles, and the strings a cause_text effect names.
        texts = {e.arg for e in cls.effects
                 if e.kind in ("cause_text", "free_message",
                               "free_error_message")
                 or (e.kind in ("new", "message") and e.out)
                 or e.kind == "own_by_out"}
        texts |= {e.other for e in cls.effects if e.kind == "own_by_out"}
        values = [
            f"(const void *){param_value(p)}" if p.handle
            else f"(const void *)p{p.index}" if p.index in texts
            else "nullptr"
            for p in fn.params]
        # Struct fields the effects name, after the real arguments.
        values += [field_value_expr(fn, e) for e in field_args(fn, cls)]
        out.append(f"  const void *args[] = {{{', '.join(values)}}};")
        if any(e.kind in ("consume", "consume_if_ok") for e in cls.effects):
            slots = ", ".join(f"(void *)&p{p.index}" for p in fn.params)
            out.append(f"  void *const slots[] = {{{slots}}};")

    out += _checking_block(_checks_before_call(fn, cls, hook_args))
    if (any(p.handle or p.string_ref for p in fn.params) or cls.arrays
            or cls.has_hooks):
        # The runtime may hold the call back (a report in continue mode, or
        # a freed memory buffer waiting in the quarantine); the caller then
        # gets a neutral result.
        neutral = "return;" if fn.returns_void else (
            f"return {cxx_ret_type_value(fn)}{{}};")
        out.append("  if (call.Skipped())")
        out.append(f"    {neutral}")

    call_args = ", ".join(f"p{p.index}" for p in fn.params)
    real_call = (f"OWNSAN_REAL({fn.name}, {cxx_fn_pointer_type(fn)})"
                 f"({call_args});")
    if fn.returns_void:
        out.append(f"  {real_call}")
    else:
        result = declaration_with_name(cxx_ret_type(fn), "r")
        out.append(f"  {result} = {real_call}")

    out += _checking_block(_checks_after_call(fn, cls, hook_args, declared))

    if not fn.returns_void:
        out.append("  return r;")
    out.append("}")
    return "\n".join(out) + "\n"
