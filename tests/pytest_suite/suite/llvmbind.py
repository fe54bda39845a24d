# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""llvmbind: a tiny ctypes binding of the LLVM-C API for the pytest suite.

Each wrapper method makes its LLVM-C call on a line marked `# BIND: name`,
so the suite's driver can tell where a report's innermost Python frame must
point. The library is env OWNSAN_TEST_LIBLLVM.
"""
import ctypes
import os

_H = ctypes.c_void_p
_lib = ctypes.CDLL(os.environ["OWNSAN_TEST_LIBLLVM"])
for _name, _res, _args in [
        ("LLVMContextCreate", _H, []),
        ("LLVMContextDispose", None, [_H]),
        ("LLVMModuleCreateWithNameInContext", _H, [ctypes.c_char_p, _H]),
        ("LLVMDisposeModule", None, [_H]),
        ("LLVMPrintModuleToString", _H, [_H]),
        ("LLVMDisposeMessage", None, [_H]),
        ("LLVMInt32TypeInContext", _H, [_H]),
        ("LLVMVoidTypeInContext", _H, [_H]),
        ("LLVMFunctionType", _H, [_H, ctypes.POINTER(_H), ctypes.c_uint,
                                  ctypes.c_int]),
        ("LLVMAddFunction", _H, [_H, ctypes.c_char_p, _H]),
        ("LLVMGetNamedFunction", _H, [_H, ctypes.c_char_p]),
        ("LLVMGetValueName2", ctypes.c_char_p,
         [_H, ctypes.POINTER(ctypes.c_size_t)]),
        ("LLVMCountBasicBlocks", ctypes.c_uint, [_H]),
        ("LLVMCountParams", ctypes.c_uint, [_H]),
        ("LLVMGetParam", _H, [_H, ctypes.c_uint]),
        ("LLVMAppendBasicBlockInContext", _H, [_H, _H, ctypes.c_char_p]),
        ("LLVMCreateBuilderInContext", _H, [_H]),
        ("LLVMPositionBuilderAtEnd", None, [_H, _H]),
        ("LLVMBuildAdd", _H, [_H, _H, _H, ctypes.c_char_p]),
        ("LLVMBuildRet", _H, [_H, _H]),
        ("LLVMDisposeBuilder", None, [_H]),
        ("LLVMConstInt", _H, [_H, ctypes.c_ulonglong, ctypes.c_int]),
        ("LLVMVerifyModule", ctypes.c_int, [_H, ctypes.c_int,
                                            ctypes.POINTER(_H)])]:
    _f = getattr(_lib, _name)
    _f.restype, _f.argtypes = _res, _args


class Context:
    def __init__(self):
        self.handle = _lib.LLVMContextCreate()  # BIND: Context.__init__

    def dispose(self):
        _lib.LLVMContextDispose(self.handle)  # BIND: Context.dispose

    def i32(self):
        return _lib.LLVMInt32TypeInContext(self.handle)

    def function_type(self, ret, params):
        arr = (_H * len(params))(*params)
        return _lib.LLVMFunctionType(ret, arr, len(params), 0)


class Module:
    def __init__(self, ctx, name):
        self.ctx = ctx
        n, c = name.encode(), ctx.handle
        self.handle = _lib.LLVMModuleCreateWithNameInContext(n, c)  # BIND: Module.__init__

    def dispose(self):
        _lib.LLVMDisposeModule(self.handle)  # BIND: Module.dispose

    def add_function(self, name, fn_type):
        n = name.encode()
        h = _lib.LLVMAddFunction(self.handle, n, fn_type)  # BIND: Module.add_function
        return Function(h)

    def get_function(self, name):
        h = _lib.LLVMGetNamedFunction(self.handle, name.encode())
        return Function(h) if h else None

    def ir(self):
        p = _lib.LLVMPrintModuleToString(self.handle)
        text = ctypes.string_at(p).decode()
        _lib.LLVMDisposeMessage(p)
        return text

    def verify(self):
        return _lib.LLVMVerifyModule(self.handle, 2, None) == 0


class Function:
    def __init__(self, handle):
        self.handle = handle

    @property
    def name(self):
        n = ctypes.c_size_t()
        s = _lib.LLVMGetValueName2(self.handle, ctypes.byref(n))  # BIND: Function.name
        return (s or b"").decode()

    def block_count(self):
        return _lib.LLVMCountBasicBlocks(self.handle)  # BIND: Function.block_count

    def param_count(self):
        return _lib.LLVMCountParams(self.handle)

    def param(self, i):
        return _lib.LLVMGetParam(self.handle, i)

    def append_block(self, ctx, name):
        return _lib.LLVMAppendBasicBlockInContext(ctx.handle, self.handle,
                                                  name.encode())


class Builder:
    def __init__(self, ctx):
        self.ctx = ctx
        self.handle = _lib.LLVMCreateBuilderInContext(ctx.handle)  # BIND: Builder.__init__

    def position_at_end(self, block):
        _lib.LLVMPositionBuilderAtEnd(self.handle, block)

    def add(self, a, b, name):
        return _lib.LLVMBuildAdd(self.handle, a, b, name.encode())

    def ret(self, v):
        return _lib.LLVMBuildRet(self.handle, v)

    def const_i32(self, value):
        return _lib.LLVMConstInt(self.ctx.i32(), value, 0)

    def dispose(self):
        _lib.LLVMDisposeBuilder(self.handle)  # BIND: Builder.dispose
