#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A ctypes LLVM-C client with one use-after-free (for python_frames).

    opts_py.py

use_after_dispose() calls LLVMGetValueName2 on a function whose module
dispose_module() disposed. The library is env OWNSAN_TEST_LIBLLVM.
"""

import ctypes
import os
import sys

H = ctypes.c_void_p
lib = ctypes.CDLL(os.environ["OWNSAN_TEST_LIBLLVM"])
for name, res, args in [
        ("LLVMContextCreate", H, []),
        ("LLVMContextDispose", None, [H]),
        ("LLVMModuleCreateWithNameInContext", H, [ctypes.c_char_p, H]),
        ("LLVMDisposeModule", None, [H]),
        ("LLVMVoidTypeInContext", H, [H]),
        ("LLVMFunctionType", H, [H, H, ctypes.c_uint, ctypes.c_int]),
        ("LLVMAddFunction", H, [H, ctypes.c_char_p, H]),
        ("LLVMGetValueName2", H, [H, ctypes.POINTER(ctypes.c_size_t)])]:
    f = getattr(lib, name)
    f.restype, f.argtypes = res, args


def make_function(ctx, mod):
    fn_type = lib.LLVMFunctionType(lib.LLVMVoidTypeInContext(ctx), None, 0, 0)
    return lib.LLVMAddFunction(mod, b"f", fn_type)  # PY-CREATE


def dispose_module(mod):
    lib.LLVMDisposeModule(mod)  # PY-FREE


def use_after_dispose(fn):
    n = ctypes.c_size_t()
    return lib.LLVMGetValueName2(fn, ctypes.byref(n))  # PY-USE


def main():
    ctx = lib.LLVMContextCreate()
    mod = lib.LLVMModuleCreateWithNameInContext(b"m", ctx)
    fn = make_function(ctx, mod)
    dispose_module(mod)
    name = use_after_dispose(fn)
    print("use_after_dispose returned", "NULL" if name is None else "a name")
    lib.LLVMContextDispose(ctx)
    print("opts_py: done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
