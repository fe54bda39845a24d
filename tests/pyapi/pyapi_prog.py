#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A tiny ctypes binding that cooperates with ownsan through ownsan_api.py.

    pyapi_prog.py [callback|restore]

Prints what it observes as `fact NAME = JSON` lines on stdout, for
check_pyapi.py to judge; it asserts nothing itself. The library is env
OWNSAN_TEST_LIBLLVM.

  callback  (default) live/freed/unknown states, descriptions, and, under
            ownsan, an error callback turning a use-after-free and a double
            dispose into LLVMMemoryError; the program then goes on and ends
            normally (exit 0). Without ownsan the misuses are not made.
  restore   installs the callback, removes it again, then makes a
            use-after-free: ownsan's default (stop the program) is back.
"""

import ctypes
import json
import os
import sys

from ownsan_api import (OWNSAN_HANDLE_FREED, OWNSAN_HANDLE_LIVE,
                        OWNSAN_HANDLE_UNKNOWN, LLVMMemoryError, checked,
                        ownsan)

H = ctypes.c_void_p
_lib = ctypes.CDLL(os.environ["OWNSAN_TEST_LIBLLVM"])
SIGNATURES = {
    "LLVMContextCreate": (H, []),
    "LLVMContextDispose": (None, [H]),
    "LLVMModuleCreateWithNameInContext": (H, [ctypes.c_char_p, H]),
    "LLVMDisposeModule": (None, [H]),
    "LLVMVoidTypeInContext": (H, [H]),
    "LLVMFunctionType": (H, [H, H, ctypes.c_uint, ctypes.c_int]),
    "LLVMAddFunction": (H, [H, ctypes.c_char_p, H]),
    "LLVMGetValueName2": (ctypes.c_char_p, [H, ctypes.POINTER(ctypes.c_size_t)]),
    "LLVMCountBasicBlocks": (ctypes.c_uint, [H]),
}
llvm = {}
for _name, (_res, _args) in SIGNATURES.items():
    _f = getattr(_lib, _name)
    _f.restype, _f.argtypes = _res, _args
    llvm[_name] = checked(_f)

STATE = {OWNSAN_HANDLE_UNKNOWN: "unknown", OWNSAN_HANDLE_LIVE: "live",
         OWNSAN_HANDLE_FREED: "freed"}


def fact(name, value):
    print(f"fact {name} = {json.dumps(value)}", flush=True)


def function_name(fn):
    n = ctypes.c_size_t()
    return llvm["LLVMGetValueName2"](fn, ctypes.byref(n))


def build():
    ctx = llvm["LLVMContextCreate"]()
    mod = llvm["LLVMModuleCreateWithNameInContext"](b"m", ctx)
    fty = llvm["LLVMFunctionType"](llvm["LLVMVoidTypeInContext"](ctx), None,
                                   0, 0)
    fn = llvm["LLVMAddFunction"](mod, b"answer", fty)
    return ctx, mod, fn


def misuse(what, thunk):
    """Runs thunk(); records the exception the binding raised, if any."""
    try:
        result = thunk()
        fact(f"{what}.raised", None)
        fact(f"{what}.result", repr(result))
    except LLVMMemoryError as e:
        fact(f"{what}.raised", type(e).__name__)
        fact(f"{what}.kind", e.kind)
        fact(f"{what}.report", e.report)


def mode_callback():
    fact("present", ownsan.present)
    ctx, mod, fn = build()
    fact("name_alive", function_name(fn).decode())
    fact("state.module_alive", STATE[ownsan.handle_state(mod)])
    fact("state.function_alive", STATE[ownsan.handle_state(fn)])
    fact("state.null", STATE[ownsan.handle_state(None)])
    other = ctypes.create_string_buffer(64)  # memory LLVM never handed out
    fact("state.foreign", STATE[ownsan.handle_state(ctypes.addressof(other))])
    fact("describe.function_alive", ownsan.describe(fn))
    if ownsan.present:
        # Truncation: the full length comes back; the text is cut.
        full = ownsan._describe(fn, None, 0)
        small = ctypes.create_string_buffer(8)
        n = ownsan._describe(fn, small, 8)
        fact("describe.length", [full, n, small.value.decode()])
    ownsan.raise_on_errors()
    llvm["LLVMDisposeModule"](mod)
    fact("state.function_freed", STATE[ownsan.handle_state(fn)])
    fact("state.module_freed", STATE[ownsan.handle_state(mod)])
    fact("state.context_alive", STATE[ownsan.handle_state(ctx)])
    fact("describe.function_freed", ownsan.describe(fn))
    fact("describe.foreign", ownsan.describe(ctypes.addressof(other)))
    if ownsan.present:
        misuse("use", lambda: function_name(fn))
        misuse("use_again", lambda: llvm["LLVMCountBasicBlocks"](fn))
        misuse("double_dispose", lambda: llvm["LLVMDisposeModule"](mod))
    # The program goes on with fresh objects.
    mod2 = llvm["LLVMModuleCreateWithNameInContext"](b"m2", ctx)
    fty = llvm["LLVMFunctionType"](llvm["LLVMVoidTypeInContext"](ctx), None,
                                   0, 0)
    fn2 = llvm["LLVMAddFunction"](mod2, b"again", fty)
    fact("after.name", function_name(fn2).decode())
    llvm["LLVMDisposeModule"](mod2)
    llvm["LLVMContextDispose"](ctx)
    fact("done", True)
    return 0


def mode_restore():
    fact("present", ownsan.present)
    ctx, mod, fn = build()
    ownsan.raise_on_errors()
    ownsan.raise_on_errors(False)
    llvm["LLVMDisposeModule"](mod)
    fact("about_to_misuse", True)
    if ownsan.present:
        misuse("use", lambda: function_name(fn))
    llvm["LLVMContextDispose"](ctx)
    fact("done", True)
    return 0


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "callback"
    sys.exit({"callback": mode_callback, "restore": mode_restore}[mode]())
