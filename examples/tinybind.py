#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""tinybind: a deliberately buggy miniature LLVM binding, for ownsan's demo.

It wraps a few LLVM-C functions with ctypes the way many real bindings do:
Python objects hold raw handles, and Module.dispose() frees the module. Its
bug is the classic one: Function objects keep their handle after the module
that owns them was disposed, so `fn.name` reads freed memory. Run it under
ownsan to see the report:

    build/bin/ownsan run -- /usr/bin/python3 examples/tinybind.py
"""
import ctypes
import os
import sys

LIB = os.environ.get("TINYBIND_LIBLLVM", "/usr/lib/llvm-19/lib/libLLVM.so.19.1")
llvm = ctypes.CDLL(LIB)


def _fn(name, restype, *argtypes):
    f = getattr(llvm, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


P = ctypes.c_void_p
_create_module = _fn("LLVMModuleCreateWithName", P, ctypes.c_char_p)
_dispose_module = _fn("LLVMDisposeModule", None, P)
_int32 = _fn("LLVMInt32Type", P)
_function_type = _fn("LLVMFunctionType", P, P, ctypes.POINTER(P),
                     ctypes.c_uint, ctypes.c_int)
_add_function = _fn("LLVMAddFunction", P, P, ctypes.c_char_p, P)
_value_name = _fn("LLVMGetValueName2", ctypes.c_char_p, P,
                  ctypes.POINTER(ctypes.c_size_t))


class Function:
    def __init__(self, handle):
        self.handle = handle

    @property
    def name(self):
        n = ctypes.c_size_t()
        return _value_name(self.handle, ctypes.byref(n)).decode()


class Module:
    def __init__(self, name):
        self.handle = _create_module(name.encode())

    def add_function(self, name):
        i32 = _int32()
        params = (P * 1)(i32)
        fty = _function_type(i32, params, 1, 0)
        return Function(_add_function(self.handle, name.encode(), fty))

    def dispose(self):
        _dispose_module(self.handle)  # frees every function in it too


def compile_unit():
    mod = Module("demo")
    fn = mod.add_function("answer")
    print("built function", fn.name)
    return mod, fn


def main():
    mod, fn = compile_unit()
    mod.dispose()
    if "--fixed" in sys.argv:
        print("done")
        return
    # BUG: the function died with its module.
    print("function is still called", fn.name)


if __name__ == "__main__":
    main()
