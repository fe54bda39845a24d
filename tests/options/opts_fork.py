#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A ctypes LLVM-C client that reports, forks, and reports in the child.

    opts_fork.py

The parent disposes a builder twice (one report), then forks; the child
disposes a module twice (another report) and exits normally with status 0,
the parent waits for it and prints "child status N" (the raw wait status)
and exits 0. The library is env OWNSAN_TEST_LIBLLVM.
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
        ("LLVMCreateBuilderInContext", H, [H]),
        ("LLVMDisposeBuilder", None, [H])]:
    f = getattr(lib, name)
    f.restype, f.argtypes = res, args


def parent_bug(ctx):
    b = lib.LLVMCreateBuilderInContext(ctx)
    lib.LLVMDisposeBuilder(b)
    lib.LLVMDisposeBuilder(b)  # FORK-PARENT


def child_bug(ctx):
    m = lib.LLVMModuleCreateWithNameInContext(b"child", ctx)
    lib.LLVMDisposeModule(m)
    lib.LLVMDisposeModule(m)  # FORK-CHILD


def main():
    ctx = lib.LLVMContextCreate()
    parent_bug(ctx)
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        child_bug(ctx)
        print("child pid", os.getpid(), flush=True)
        sys.exit(0)
    _, status = os.waitpid(pid, 0)
    print("child status", status, flush=True)
    lib.LLVMContextDispose(ctx)
    return 0


if __name__ == "__main__":
    sys.exit(main())
