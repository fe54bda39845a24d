#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""LLVM-C clients (through ctypes) with one seeded ownership bug each.

Usage: seeded.py CASE [--fixed]

The Python twin of tests/seeded/c/seeded.c: the same cases, the same steps
(one Python function each, named like the C function), the same stdout.
Every case but the pass manager builder's builds, in a fresh context:

    ; module "m"
    define void @foo(i32 %x) {
    entry:
      %sum = add i32 %x, 1
      ret void
    }

and then makes one ownership mistake; with --fixed the same steps run in a
correct order (or without the extra free) and the program exits 0.

Each step prints "<step>: <what it calls>" to stdout before calling LLVM, and
the handles a report talks about go to stderr as "seeded: <role> = 0x...".
The report each case must give is written after the line that triggers it,
as "# CHECK-<case>:" FileCheck lines (the C twin explains them); these
frames are Python's, so the lines are this file's own.
A case that the loaded LLVM cannot express prints
"case not available in LLVM <major>" and exits 77.

The library is env OWNSAN_TEST_LIBLLVM, default
/usr/lib/llvm-19/lib/libLLVM.so.19.1 (LLVM 14: /usr/lib/llvm-14/lib/libLLVM-14.so.1).
"""

import ctypes
import os
import re
import sys
from ctypes import POINTER, c_char_p, c_int, c_size_t, c_uint, c_ulonglong

DEFAULT_LIBLLVM = "/usr/lib/llvm-19/lib/libLLVM.so.19.1"
EXIT_CASE_NOT_AVAILABLE = 77
EXIT_USAGE = 2

LLVM_INTEGER_TYPE_KIND = 8  # LLVMIntegerTypeKind, the same in 14 and 19
LLVM_ADD = 8  # LLVMAdd opcode, the same in 14 and 19

Handle = ctypes.c_void_p  # every LLVM*Ref

# name: (restype, argtypes). Strings that LLVM returns come back as a raw
# pointer (Handle) so that we read exactly what LLVM hands out.
SIGNATURES = {
    "LLVMContextCreate": (Handle, []),
    "LLVMContextDispose": (None, [Handle]),
    "LLVMInt32TypeInContext": (Handle, [Handle]),
    "LLVMVoidTypeInContext": (Handle, [Handle]),
    "LLVMFunctionType": (Handle, [Handle, POINTER(Handle), c_uint, c_int]),
    "LLVMGetTypeKind": (c_int, [Handle]),
    "LLVMModuleCreateWithNameInContext": (Handle, [c_char_p, Handle]),
    "LLVMDisposeModule": (None, [Handle]),
    "LLVMAddFunction": (Handle, [Handle, c_char_p, Handle]),
    "LLVMDeleteFunction": (None, [Handle]),
    "LLVMGetParam": (Handle, [Handle, c_uint]),
    "LLVMGetValueName2": (Handle, [Handle, POINTER(c_size_t)]),
    "LLVMSetValueName2": (None, [Handle, c_char_p, c_size_t]),
    "LLVMPrintValueToString": (Handle, [Handle]),
    "LLVMDisposeMessage": (None, [Handle]),
    "LLVMConstInt": (Handle, [Handle, c_ulonglong, c_int]),
    "LLVMAppendBasicBlockInContext": (Handle, [Handle, Handle, c_char_p]),
    "LLVMGetBasicBlockName": (Handle, [Handle]),
    "LLVMDeleteBasicBlock": (None, [Handle]),
    "LLVMRemoveBasicBlockFromParent": (None, [Handle]),
    "LLVMAppendExistingBasicBlock": (None, [Handle, Handle]),
    "LLVMGetInstructionOpcode": (c_int, [Handle]),
    "LLVMInstructionEraseFromParent": (None, [Handle]),
    "LLVMInstructionRemoveFromParent": (None, [Handle]),
    "LLVMCreateBuilderInContext": (Handle, [Handle]),
    "LLVMPositionBuilderAtEnd": (None, [Handle, Handle]),
    "LLVMBuildAdd": (Handle, [Handle, Handle, Handle, c_char_p]),
    "LLVMBuildRetVoid": (Handle, [Handle]),
    "LLVMInsertIntoBuilder": (None, [Handle, Handle]),
    "LLVMDisposeBuilder": (None, [Handle]),
}
# Functions that only some LLVM versions export.
OPTIONAL_SIGNATURES = {
    "LLVMDeleteInstruction": (None, [Handle]),  # LLVM >= 15
    # The legacy pass manager builder: LLVM 14 to 16.
    "LLVMPassManagerBuilderCreate": (Handle, []),
    "LLVMPassManagerBuilderDispose": (None, [Handle]),
    "LLVMPassManagerBuilderSetOptLevel": (None, [Handle, c_uint]),
    "LLVMGetVersion": (None, [POINTER(c_uint)] * 3),  # LLVM >= 16
}


class LLVM:
    """The LLVM-C functions this program calls, typed."""

    def __init__(self, path):
        self.path = path
        self.lib = ctypes.CDLL(path)
        for name, (restype, argtypes) in SIGNATURES.items():
            self._bind(name, restype, argtypes)
        for name, (restype, argtypes) in OPTIONAL_SIGNATURES.items():
            if hasattr(self.lib, name):
                self._bind(name, restype, argtypes)

    def _bind(self, name, restype, argtypes):
        fn = getattr(self.lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
        setattr(self, name, fn)

    def has(self, name):
        return hasattr(self, name)

    def major_version(self):
        if self.has("LLVMGetVersion"):
            major, minor, patch = c_uint(), c_uint(), c_uint()
            self.LLVMGetVersion(ctypes.byref(major), ctypes.byref(minor),
                                ctypes.byref(patch))
            return major.value
        match = re.search(r"libLLVM-?(\d+)", os.path.basename(self.path))
        return int(match.group(1)) if match else "(unknown version)"


llvm = None  # set by main()


def say(message):
    """Prints "<calling function>: <message>" to stdout."""
    step = sys._getframe(1).f_code.co_name
    print(f"{step}: {message}", flush=True)


def note_handle(role, handle):
    print(f"seeded: {role} = {handle:#x}", file=sys.stderr, flush=True)


class Foo:
    """The tiny module every case starts from."""

    ctx = i32 = mod = fn = entry = builder = sum = None


# --- Steps that create -------------------------------------------------------

def make_context():
    say("LLVMContextCreate()")
    ctx = llvm.LLVMContextCreate()
    note_handle("context", ctx)
    return ctx


def make_i32_type(ctx):
    say("LLVMInt32TypeInContext(context)")
    return llvm.LLVMInt32TypeInContext(ctx)


def make_module(ctx):
    say('LLVMModuleCreateWithNameInContext("m", context)')
    return llvm.LLVMModuleCreateWithNameInContext(b"m", ctx)


def make_function(ctx, mod, i32):
    say('LLVMAddFunction(module "m", "foo", void (i32))')
    params = (Handle * 1)(i32)
    fn_type = llvm.LLVMFunctionType(llvm.LLVMVoidTypeInContext(ctx), params,
                                    1, 0)
    fn = llvm.LLVMAddFunction(mod, b"foo", fn_type)
    llvm.LLVMSetValueName2(llvm.LLVMGetParam(fn, 0), b"x", 1)
    return fn


def make_entry_block(ctx, fn):
    say('LLVMAppendBasicBlockInContext(context, @foo, "entry")')
    return llvm.LLVMAppendBasicBlockInContext(ctx, fn, b"entry")


def make_other_block(ctx, fn):
    say('LLVMAppendBasicBlockInContext(context, @foo, "other")')
    return llvm.LLVMAppendBasicBlockInContext(ctx, fn, b"other")


def make_bar_function(ctx, mod):
    say('LLVMAddFunction(module "m", "bar", void ())')
    fn_type = llvm.LLVMFunctionType(llvm.LLVMVoidTypeInContext(ctx), None, 0,
                                    0)
    return llvm.LLVMAddFunction(mod, b"bar", fn_type)


def make_builder(ctx):
    say("LLVMCreateBuilderInContext(context)")
    return llvm.LLVMCreateBuilderInContext(ctx)


def build_sum(builder, entry, fn, i32):
    say('LLVMBuildAdd(builder, %x, i32 1, "sum")')
    llvm.LLVMPositionBuilderAtEnd(builder, entry)
    one = llvm.LLVMConstInt(i32, 1, 0)
    return llvm.LLVMBuildAdd(builder, llvm.LLVMGetParam(fn, 0), one, b"sum")


def build_return(builder):
    say("LLVMBuildRetVoid(builder)")
    llvm.LLVMBuildRetVoid(builder)


def print_function(fn):
    say("LLVMPrintValueToString(@foo)")
    text = llvm.LLVMPrintValueToString(fn)
    ir = ctypes.string_at(text).decode()
    print(ir if ir.endswith("\n") else ir + "\n", end="", flush=True)
    llvm.LLVMDisposeMessage(text)


def build_foo():
    """Builds @foo in a new context; the builder stays alive."""
    f = Foo()
    f.ctx = make_context()
    f.i32 = make_i32_type(f.ctx)
    f.mod = make_module(f.ctx)
    f.fn = make_function(f.ctx, f.mod, f.i32)
    f.entry = make_entry_block(f.ctx, f.fn)
    f.builder = make_builder(f.ctx)
    f.sum = build_sum(f.builder, f.entry, f.fn, f.i32)
    build_return(f.builder)
    print_function(f.fn)
    return f


# --- Steps that free ---------------------------------------------------------

def dispose_the_builder(builder):
    say("LLVMDisposeBuilder(builder)")
    llvm.LLVMDisposeBuilder(builder)


def dispose_builder_again(builder):
    say("LLVMDisposeBuilder(builder)")
    llvm.LLVMDisposeBuilder(builder)


def dispose_the_module(mod):
    say('LLVMDisposeModule(module "m")')
    llvm.LLVMDisposeModule(mod)


def dispose_module_again(mod):
    say('LLVMDisposeModule(module "m")')
    llvm.LLVMDisposeModule(mod)


def dispose_the_context(ctx):
    say("LLVMContextDispose(context)")
    llvm.LLVMContextDispose(ctx)


def delete_the_block(block):
    say("LLVMDeleteBasicBlock(%entry)")
    llvm.LLVMDeleteBasicBlock(block)


def delete_the_function(fn):
    say("LLVMDeleteFunction(@foo)")
    llvm.LLVMDeleteFunction(fn)


def erase_the_instruction(inst):
    say("LLVMInstructionEraseFromParent(%sum)")
    llvm.LLVMInstructionEraseFromParent(inst)


def delete_the_other_block(block):
    say("LLVMDeleteBasicBlock(%other)")
    llvm.LLVMDeleteBasicBlock(block)


def delete_the_bar_function(fn):
    say("LLVMDeleteFunction(@bar)")
    llvm.LLVMDeleteFunction(fn)


def delete_the_instruction(inst):
    say("LLVMDeleteInstruction(%sum)")
    llvm.LLVMDeleteInstruction(inst)


# --- Steps that detach and re-attach ----------------------------------------

def detach_the_instruction(inst):
    say("LLVMInstructionRemoveFromParent(%sum)")
    llvm.LLVMInstructionRemoveFromParent(inst)


def detach_the_block(block):
    say("LLVMRemoveBasicBlockFromParent(%entry)")
    llvm.LLVMRemoveBasicBlockFromParent(block)


def reinsert_the_instruction(builder, block, inst):
    say("LLVMInsertIntoBuilder(builder at the end of %other, %sum)")
    llvm.LLVMPositionBuilderAtEnd(builder, block)
    llvm.LLVMInsertIntoBuilder(builder, inst)


def move_block_to_bar(bar, block):
    say("LLVMAppendExistingBasicBlock(@bar, %entry)")
    llvm.LLVMAppendExistingBasicBlock(bar, block)


# --- Steps that use ----------------------------------------------------------

def use_function_name(fn):
    say("LLVMGetValueName2(@foo)")
    length = c_size_t(0)
    name = llvm.LLVMGetValueName2(fn, ctypes.byref(length))
    say(f'got "{ctypes.string_at(name, length.value).decode()}"')


def use_type_kind(type_):
    say("LLVMGetTypeKind(i32)")
    kind = llvm.LLVMGetTypeKind(type_)
    suffix = " (LLVMIntegerTypeKind)" if kind == LLVM_INTEGER_TYPE_KIND else ""
    say(f"got {kind}{suffix}")


def use_instruction_name(inst):
    say("LLVMGetValueName2(%sum)")
    length = c_size_t(0)
    name = llvm.LLVMGetValueName2(inst, ctypes.byref(length))
    say(f'got "{ctypes.string_at(name, length.value).decode()}"')


def append_block_to_function(ctx, fn):
    say('LLVMAppendBasicBlockInContext(context, @foo, "next")')
    llvm.LLVMAppendBasicBlockInContext(ctx, fn, b"next")
    say("appended %next")


def use_block_name(block):
    say("LLVMGetBasicBlockName(%entry)")
    name = llvm.LLVMGetBasicBlockName(block)
    say(f'got "{ctypes.string_at(name).decode()}"')


def use_instruction_opcode(inst):
    say("LLVMGetInstructionOpcode(%sum)")
    op = llvm.LLVMGetInstructionOpcode(inst)
    say(f"got {op}{' (LLVMAdd)' if op == LLVM_ADD else ''}")


# --- The cases ---------------------------------------------------------------
# Each case disposes of the builder before the interesting part unless the
# builder is the subject, and always ends by freeing what is left. The C twin
# (tests/seeded/c/seeded.c) notes what valgrind says about each bug.

def case_use_after_module_dispose(fixed):
    f = build_foo()
    # CHECK-use_after_module_dispose: seeded: context = [[CTX:0x[0-9a-f]+]]
    dispose_the_builder(f.builder)
    note_handle("subject", f.fn)
    # CHECK-use_after_module_dispose: seeded: subject = [[FN:0x[0-9a-f]+]]
    if fixed:
        use_function_name(f.fn)
        dispose_the_module(f.mod)
    else:
        dispose_the_module(f.mod)
        use_function_name(f.fn)  # BUG: @foo died with its module.
        # CHECK-use_after_module_dispose: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[FN]] (function @foo in module "m"){{$}}
        # CHECK-use_after_module_dispose-NEXT: passed as argument 1 of LLVMGetValueName2 on thread T0:
        # CHECK-use_after_module_dispose-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in use_function_name (python)
        # CHECK-use_after_module_dispose-NEXT: #1 {{.*}}seeded.py:[[@LINE-4]] in case_use_after_module_dispose (python)
        # CHECK-use_after_module_dispose-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-use_after_module_dispose: freed by LLVMDisposeModule(module "m") on thread T0, because it belonged to that module:
        # CHECK-use_after_module_dispose-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in dispose_the_module (python)
        # CHECK-use_after_module_dispose-NEXT: #1 {{.*}}seeded.py:[[@LINE-9]] in case_use_after_module_dispose (python)
        # CHECK-use_after_module_dispose-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-use_after_module_dispose: created by LLVMAddFunction on thread T0:
        # CHECK-use_after_module_dispose-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in make_function (python)
        # CHECK-use_after_module_dispose-NEXT: #1 {{.*}}seeded.py:{{[0-9]+}} in build_foo (python)
        # CHECK-use_after_module_dispose-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in case_use_after_module_dispose (python)
        # CHECK-use_after_module_dispose: ownership chain when freed: context [[CTX]] -> module "m" -> function @foo{{$}}
        # CHECK-use_after_module_dispose-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {{.*}}seeded.py:{{[0-9]+}} in use_function_name{{$}}
    dispose_the_context(f.ctx)
    return 0


def case_use_after_context_dispose(fixed):
    f = build_foo()
    # CHECK-use_after_context_dispose: seeded: context = [[CTX:0x[0-9a-f]+]]
    dispose_the_builder(f.builder)
    note_handle("subject", f.i32)
    # CHECK-use_after_context_dispose: seeded: subject = [[I32:0x[0-9a-f]+]]
    # Module "m" is freed by its context in both runs.
    if fixed:
        use_type_kind(f.i32)
        dispose_the_context(f.ctx)
    else:
        dispose_the_context(f.ctx)
        use_type_kind(f.i32)  # BUG: i32 died with its context.
        # CHECK-use_after_context_dispose: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMTypeRef [[I32]] (type i32){{$}}
        # CHECK-use_after_context_dispose-NEXT: passed as argument 1 of LLVMGetTypeKind on thread T0:
        # CHECK-use_after_context_dispose-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in use_type_kind (python)
        # CHECK-use_after_context_dispose-NEXT: #1 {{.*}}seeded.py:[[@LINE-4]] in case_use_after_context_dispose (python)
        # CHECK-use_after_context_dispose-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-use_after_context_dispose: freed by LLVMContextDispose(context [[CTX]]) on thread T0, because it belonged to that context:
        # CHECK-use_after_context_dispose-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in dispose_the_context (python)
        # CHECK-use_after_context_dispose-NEXT: #1 {{.*}}seeded.py:[[@LINE-9]] in case_use_after_context_dispose (python)
        # CHECK-use_after_context_dispose-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-use_after_context_dispose: created by LLVMInt32TypeInContext on thread T0:
        # CHECK-use_after_context_dispose-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in make_i32_type (python)
        # CHECK-use_after_context_dispose-NEXT: #1 {{.*}}seeded.py:{{[0-9]+}} in build_foo (python)
        # CHECK-use_after_context_dispose-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in case_use_after_context_dispose (python)
        # CHECK-use_after_context_dispose: ownership chain when freed: context [[CTX]] -> type i32{{$}}
        # CHECK-use_after_context_dispose-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetTypeKind {{.*}}seeded.py:{{[0-9]+}} in use_type_kind{{$}}
    return 0


def case_use_instruction_after_block_delete(fixed):
    f = build_foo()
    # CHECK-use_instruction_after_block_delete: seeded: context = [[CTX:0x[0-9a-f]+]]
    dispose_the_builder(f.builder)
    note_handle("subject", f.sum)
    # CHECK-use_instruction_after_block_delete: seeded: subject = [[SUM:0x[0-9a-f]+]]
    if fixed:
        use_instruction_name(f.sum)
        delete_the_block(f.entry)
    else:
        delete_the_block(f.entry)
        use_instruction_name(f.sum)  # BUG: %sum died with %entry.
        # CHECK-use_instruction_after_block_delete: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[SUM]] (instruction %sum in block %entry of function @foo in module "m"){{$}}
        # CHECK-use_instruction_after_block_delete-NEXT: passed as argument 1 of LLVMGetValueName2 on thread T0:
        # CHECK-use_instruction_after_block_delete-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in use_instruction_name (python)
        # CHECK-use_instruction_after_block_delete-NEXT: #1 {{.*}}seeded.py:[[@LINE-4]] in case_use_instruction_after_block_delete (python)
        # CHECK-use_instruction_after_block_delete-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-use_instruction_after_block_delete: freed by LLVMDeleteBasicBlock(block %entry of function @foo in module "m") on thread T0, because it belonged to that block:
        # CHECK-use_instruction_after_block_delete-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in delete_the_block (python)
        # CHECK-use_instruction_after_block_delete-NEXT: #1 {{.*}}seeded.py:[[@LINE-9]] in case_use_instruction_after_block_delete (python)
        # CHECK-use_instruction_after_block_delete-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-use_instruction_after_block_delete: created by LLVMBuildAdd on thread T0:
        # CHECK-use_instruction_after_block_delete-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in build_sum (python)
        # CHECK-use_instruction_after_block_delete-NEXT: #1 {{.*}}seeded.py:{{[0-9]+}} in build_foo (python)
        # CHECK-use_instruction_after_block_delete-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in case_use_instruction_after_block_delete (python)
        # CHECK-use_instruction_after_block_delete: ownership chain when freed: context [[CTX]] -> module "m" -> function @foo -> block %entry -> instruction %sum{{$}}
        # CHECK-use_instruction_after_block_delete-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {{.*}}seeded.py:{{[0-9]+}} in use_instruction_name{{$}}
    dispose_the_module(f.mod)
    dispose_the_context(f.ctx)
    return 0


def case_use_after_delete_function(fixed):
    f = build_foo()
    # CHECK-use_after_delete_function: seeded: context = [[CTX:0x[0-9a-f]+]]
    dispose_the_builder(f.builder)
    note_handle("subject", f.fn)
    # CHECK-use_after_delete_function: seeded: subject = [[FN:0x[0-9a-f]+]]
    if fixed:
        append_block_to_function(f.ctx, f.fn)
        delete_the_function(f.fn)
    else:
        delete_the_function(f.fn)
        append_block_to_function(f.ctx, f.fn)  # BUG: @foo is deleted.
        # CHECK-use_after_delete_function: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[FN]] (function @foo in module "m"){{$}}
        # CHECK-use_after_delete_function-NEXT: passed as argument 2 of LLVMAppendBasicBlockInContext on thread T0:
        # CHECK-use_after_delete_function-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in append_block_to_function (python)
        # CHECK-use_after_delete_function-NEXT: #1 {{.*}}seeded.py:[[@LINE-4]] in case_use_after_delete_function (python)
        # CHECK-use_after_delete_function-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-use_after_delete_function: freed by LLVMDeleteFunction(function @foo in module "m") on thread T0:
        # CHECK-use_after_delete_function-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in delete_the_function (python)
        # CHECK-use_after_delete_function-NEXT: #1 {{.*}}seeded.py:[[@LINE-9]] in case_use_after_delete_function (python)
        # CHECK-use_after_delete_function-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-use_after_delete_function: created by LLVMAddFunction on thread T0:
        # CHECK-use_after_delete_function-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in make_function (python)
        # CHECK-use_after_delete_function-NEXT: #1 {{.*}}seeded.py:{{[0-9]+}} in build_foo (python)
        # CHECK-use_after_delete_function-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in case_use_after_delete_function (python)
        # CHECK-use_after_delete_function: ownership chain when freed: context [[CTX]] -> module "m" -> function @foo{{$}}
        # CHECK-use_after_delete_function-NEXT: SUMMARY: OwnSan: use-after-free in LLVMAppendBasicBlockInContext {{.*}}seeded.py:{{[0-9]+}} in append_block_to_function{{$}}
    dispose_the_module(f.mod)
    dispose_the_context(f.ctx)
    return 0


def case_use_block_after_delete_function(fixed):
    f = build_foo()
    # CHECK-use_block_after_delete_function: seeded: context = [[CTX:0x[0-9a-f]+]]
    dispose_the_builder(f.builder)
    note_handle("subject", f.entry)
    # CHECK-use_block_after_delete_function: seeded: subject = [[ENTRY:0x[0-9a-f]+]]
    if fixed:
        use_block_name(f.entry)
        delete_the_function(f.fn)
    else:
        delete_the_function(f.fn)
        use_block_name(f.entry)  # BUG: %entry died with @foo.
        # CHECK-use_block_after_delete_function: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMBasicBlockRef [[ENTRY]] (block %entry of function @foo in module "m"){{$}}
        # CHECK-use_block_after_delete_function-NEXT: passed as argument 1 of LLVMGetBasicBlockName on thread T0:
        # CHECK-use_block_after_delete_function-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in use_block_name (python)
        # CHECK-use_block_after_delete_function-NEXT: #1 {{.*}}seeded.py:[[@LINE-4]] in case_use_block_after_delete_function (python)
        # CHECK-use_block_after_delete_function-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-use_block_after_delete_function: freed by LLVMDeleteFunction(function @foo in module "m") on thread T0, because it belonged to that function:
        # CHECK-use_block_after_delete_function-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in delete_the_function (python)
        # CHECK-use_block_after_delete_function-NEXT: #1 {{.*}}seeded.py:[[@LINE-9]] in case_use_block_after_delete_function (python)
        # CHECK-use_block_after_delete_function-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-use_block_after_delete_function: created by LLVMAppendBasicBlockInContext on thread T0:
        # CHECK-use_block_after_delete_function-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in make_entry_block (python)
        # CHECK-use_block_after_delete_function-NEXT: #1 {{.*}}seeded.py:{{[0-9]+}} in build_foo (python)
        # CHECK-use_block_after_delete_function-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in case_use_block_after_delete_function (python)
        # CHECK-use_block_after_delete_function: ownership chain when freed: context [[CTX]] -> module "m" -> function @foo -> block %entry{{$}}
        # CHECK-use_block_after_delete_function-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetBasicBlockName {{.*}}seeded.py:{{[0-9]+}} in use_block_name{{$}}
    dispose_the_module(f.mod)
    dispose_the_context(f.ctx)
    return 0


def case_double_dispose_module(fixed):
    f = build_foo()
    # CHECK-double_dispose_module: seeded: context = [[CTX:0x[0-9a-f]+]]
    dispose_the_builder(f.builder)
    note_handle("subject", f.mod)
    # CHECK-double_dispose_module: seeded: subject = [[M:0x[0-9a-f]+]]
    dispose_the_module(f.mod)
    if not fixed:
        dispose_module_again(f.mod)  # BUG: already disposed.
        # CHECK-double_dispose_module: ==[[PID]]==ERROR: OwnSan: double-free on LLVMModuleRef [[M]] (module "m"){{$}}
        # CHECK-double_dispose_module-NEXT: passed as argument 1 of LLVMDisposeModule on thread T0:
        # CHECK-double_dispose_module-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in dispose_module_again (python)
        # CHECK-double_dispose_module-NEXT: #1 {{.*}}seeded.py:[[@LINE-4]] in case_double_dispose_module (python)
        # CHECK-double_dispose_module-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-double_dispose_module: freed by LLVMDisposeModule(module "m") on thread T0:
        # CHECK-double_dispose_module-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in dispose_the_module (python)
        # CHECK-double_dispose_module-NEXT: #1 {{.*}}seeded.py:[[@LINE-10]] in case_double_dispose_module (python)
        # CHECK-double_dispose_module-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-double_dispose_module: created by LLVMModuleCreateWithNameInContext on thread T0:
        # CHECK-double_dispose_module-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in make_module (python)
        # CHECK-double_dispose_module-NEXT: #1 {{.*}}seeded.py:{{[0-9]+}} in build_foo (python)
        # CHECK-double_dispose_module-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in case_double_dispose_module (python)
        # CHECK-double_dispose_module: ownership chain when freed: context [[CTX]] -> module "m"{{$}}
        # CHECK-double_dispose_module-NEXT: SUMMARY: OwnSan: double-free in LLVMDisposeModule {{.*}}seeded.py:{{[0-9]+}} in dispose_module_again{{$}}
    dispose_the_context(f.ctx)
    return 0


def case_dispose_module_after_context(fixed):
    f = build_foo()
    # CHECK-dispose_module_after_context: seeded: context = [[CTX:0x[0-9a-f]+]]
    dispose_the_builder(f.builder)
    note_handle("subject", f.mod)
    # CHECK-dispose_module_after_context: seeded: subject = [[M:0x[0-9a-f]+]]
    if fixed:
        dispose_the_module(f.mod)
        dispose_the_context(f.ctx)
    else:
        dispose_the_context(f.ctx)
        dispose_the_module(f.mod)  # BUG: the context deleted "m" already.
        # CHECK-dispose_module_after_context: ==[[PID]]==ERROR: OwnSan: double-free on LLVMModuleRef [[M]] (module "m"){{$}}
        # CHECK-dispose_module_after_context-NEXT: passed as argument 1 of LLVMDisposeModule on thread T0:
        # CHECK-dispose_module_after_context-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in dispose_the_module (python)
        # CHECK-dispose_module_after_context-NEXT: #1 {{.*}}seeded.py:[[@LINE-4]] in case_dispose_module_after_context (python)
        # CHECK-dispose_module_after_context-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-dispose_module_after_context: freed by LLVMContextDispose(context [[CTX]]) on thread T0, because it belonged to that context:
        # CHECK-dispose_module_after_context-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in dispose_the_context (python)
        # CHECK-dispose_module_after_context-NEXT: #1 {{.*}}seeded.py:[[@LINE-9]] in case_dispose_module_after_context (python)
        # CHECK-dispose_module_after_context-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-dispose_module_after_context: created by LLVMModuleCreateWithNameInContext on thread T0:
        # CHECK-dispose_module_after_context-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in make_module (python)
        # CHECK-dispose_module_after_context-NEXT: #1 {{.*}}seeded.py:{{[0-9]+}} in build_foo (python)
        # CHECK-dispose_module_after_context-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in case_dispose_module_after_context (python)
        # CHECK-dispose_module_after_context: ownership chain when freed: context [[CTX]] -> module "m"{{$}}
        # CHECK-dispose_module_after_context-NEXT: SUMMARY: OwnSan: double-free in LLVMDisposeModule {{.*}}seeded.py:{{[0-9]+}} in dispose_the_module{{$}}
    return 0


def case_double_dispose_builder(fixed):
    f = build_foo()
    # CHECK-double_dispose_builder: seeded: context = [[CTX:0x[0-9a-f]+]]
    note_handle("subject", f.builder)
    # CHECK-double_dispose_builder: seeded: subject = [[B:0x[0-9a-f]+]]
    dispose_the_builder(f.builder)
    if not fixed:
        dispose_builder_again(f.builder)  # BUG: already disposed.
        # CHECK-double_dispose_builder: ==[[PID]]==ERROR: OwnSan: double-free on LLVMBuilderRef [[B]] (builder [[B]]){{$}}
        # CHECK-double_dispose_builder-NEXT: passed as argument 1 of LLVMDisposeBuilder on thread T0:
        # CHECK-double_dispose_builder-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in dispose_builder_again (python)
        # CHECK-double_dispose_builder-NEXT: #1 {{.*}}seeded.py:[[@LINE-4]] in case_double_dispose_builder (python)
        # CHECK-double_dispose_builder-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-double_dispose_builder: freed by LLVMDisposeBuilder(builder [[B]]) on thread T0:
        # CHECK-double_dispose_builder-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in dispose_the_builder (python)
        # CHECK-double_dispose_builder-NEXT: #1 {{.*}}seeded.py:[[@LINE-10]] in case_double_dispose_builder (python)
        # CHECK-double_dispose_builder-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-double_dispose_builder: created by LLVMCreateBuilderInContext on thread T0:
        # CHECK-double_dispose_builder-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in make_builder (python)
        # CHECK-double_dispose_builder-NEXT: #1 {{.*}}seeded.py:{{[0-9]+}} in build_foo (python)
        # CHECK-double_dispose_builder-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in case_double_dispose_builder (python)
        # CHECK-double_dispose_builder: ownership chain when freed: builder [[B]]{{$}}
        # CHECK-double_dispose_builder-NEXT: SUMMARY: OwnSan: double-free in LLVMDisposeBuilder {{.*}}seeded.py:{{[0-9]+}} in dispose_builder_again{{$}}
    dispose_the_module(f.mod)
    dispose_the_context(f.ctx)
    return 0


def case_delete_attached_instruction(fixed):
    if not llvm.has("LLVMDeleteInstruction"):
        print(f"case not available in LLVM {llvm.major_version()}", flush=True)
        return EXIT_CASE_NOT_AVAILABLE
    f = build_foo()
    # CHECK-delete_attached_instruction: seeded: context = [[CTX:0x[0-9a-f]+]]
    dispose_the_builder(f.builder)
    note_handle("subject", f.sum)
    # CHECK-delete_attached_instruction: seeded: subject = [[SUM:0x[0-9a-f]+]]
    if fixed:
        detach_the_instruction(f.sum)
    delete_the_instruction(f.sum)  # BUG unless detached: still in %entry.
    # CHECK-delete_attached_instruction: ==[[PID]]==ERROR: OwnSan: invalid-free on LLVMValueRef [[SUM]] (instruction %sum in block %entry of function @foo in module "m"){{$}}
    # CHECK-delete_attached_instruction-NEXT: LLVMDeleteInstruction frees only detached instructions; this one is still in block %entry{{$}}
    # CHECK-delete_attached_instruction-NEXT: passed as argument 1 of LLVMDeleteInstruction on thread T0:
    # CHECK-delete_attached_instruction-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in delete_the_instruction (python)
    # CHECK-delete_attached_instruction-NEXT: #1 {{.*}}seeded.py:[[@LINE-5]] in case_delete_attached_instruction (python)
    # CHECK-delete_attached_instruction-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
    # CHECK-delete_attached_instruction-NOT: freed
    # CHECK-delete_attached_instruction: created by LLVMBuildAdd on thread T0:
    # CHECK-delete_attached_instruction-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in build_sum (python)
    # CHECK-delete_attached_instruction-NEXT: #1 {{.*}}seeded.py:{{[0-9]+}} in build_foo (python)
    # CHECK-delete_attached_instruction-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in case_delete_attached_instruction (python)
    # CHECK-delete_attached_instruction: ownership chain: context [[CTX]] -> module "m" -> function @foo -> block %entry -> instruction %sum{{$}}
    # CHECK-delete_attached_instruction-NEXT: SUMMARY: OwnSan: invalid-free in LLVMDeleteInstruction {{.*}}seeded.py:{{[0-9]+}} in delete_the_instruction{{$}}
    dispose_the_module(f.mod)
    dispose_the_context(f.ctx)
    return 0


def case_use_erased_instruction(fixed):
    f = build_foo()
    # CHECK-use_erased_instruction: seeded: context = [[CTX:0x[0-9a-f]+]]
    dispose_the_builder(f.builder)
    note_handle("subject", f.sum)
    # CHECK-use_erased_instruction: seeded: subject = [[SUM:0x[0-9a-f]+]]
    if fixed:
        use_instruction_opcode(f.sum)
        erase_the_instruction(f.sum)
    else:
        erase_the_instruction(f.sum)
        use_instruction_opcode(f.sum)  # BUG: %sum is erased.
        # CHECK-use_erased_instruction: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[SUM]] (instruction %sum in block %entry of function @foo in module "m"){{$}}
        # CHECK-use_erased_instruction-NEXT: passed as argument 1 of LLVMGetInstructionOpcode on thread T0:
        # CHECK-use_erased_instruction-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in use_instruction_opcode (python)
        # CHECK-use_erased_instruction-NEXT: #1 {{.*}}seeded.py:[[@LINE-4]] in case_use_erased_instruction (python)
        # CHECK-use_erased_instruction-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-use_erased_instruction: freed by LLVMInstructionEraseFromParent(instruction %sum in block %entry of function @foo in module "m") on thread T0:
        # CHECK-use_erased_instruction-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in erase_the_instruction (python)
        # CHECK-use_erased_instruction-NEXT: #1 {{.*}}seeded.py:[[@LINE-9]] in case_use_erased_instruction (python)
        # CHECK-use_erased_instruction-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-use_erased_instruction: created by LLVMBuildAdd on thread T0:
        # CHECK-use_erased_instruction-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in build_sum (python)
        # CHECK-use_erased_instruction-NEXT: #1 {{.*}}seeded.py:{{[0-9]+}} in build_foo (python)
        # CHECK-use_erased_instruction-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in case_use_erased_instruction (python)
        # CHECK-use_erased_instruction: ownership chain when freed: context [[CTX]] -> module "m" -> function @foo -> block %entry -> instruction %sum{{$}}
        # CHECK-use_erased_instruction-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetInstructionOpcode {{.*}}seeded.py:{{[0-9]+}} in use_instruction_opcode{{$}}
    dispose_the_module(f.mod)
    dispose_the_context(f.ctx)
    return 0


def case_use_reinserted_instruction_after_new_block_delete(fixed):
    f = build_foo()
    # CHECK-use_reinserted_instruction_after_new_block_delete: seeded: context = [[CTX:0x[0-9a-f]+]]
    dispose_the_builder(f.builder)
    note_handle("subject", f.sum)
    # CHECK-use_reinserted_instruction_after_new_block_delete: seeded: subject = [[SUM:0x[0-9a-f]+]]
    detach_the_instruction(f.sum)
    delete_the_block(f.entry)  # %sum is detached: it survives.
    other = make_other_block(f.ctx, f.fn)
    builder = make_builder(f.ctx)
    reinsert_the_instruction(builder, other, f.sum)
    dispose_the_builder(builder)
    delete_the_other_block(other)
    if not fixed:
        use_instruction_name(f.sum)  # BUG: %sum died with %other.
        # CHECK-use_reinserted_instruction_after_new_block_delete: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[SUM]] (instruction <unnamed> in block %other of function @foo in module "m"){{$}}
        # CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: passed as argument 1 of LLVMGetValueName2 on thread T0:
        # CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in use_instruction_name (python)
        # CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: #1 {{.*}}seeded.py:[[@LINE-4]] in case_use_reinserted_instruction_after_new_block_delete (python)
        # CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-use_reinserted_instruction_after_new_block_delete: freed by LLVMDeleteBasicBlock(block %other of function @foo in module "m") on thread T0, because it belonged to that block:
        # CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in delete_the_other_block (python)
        # CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: #1 {{.*}}seeded.py:[[@LINE-10]] in case_use_reinserted_instruction_after_new_block_delete (python)
        # CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-use_reinserted_instruction_after_new_block_delete: created by LLVMBuildAdd on thread T0:
        # CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in build_sum (python)
        # CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: #1 {{.*}}seeded.py:{{[0-9]+}} in build_foo (python)
        # CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in case_use_reinserted_instruction_after_new_block_delete (python)
        # CHECK-use_reinserted_instruction_after_new_block_delete: ownership chain when freed: context [[CTX]] -> module "m" -> function @foo -> block %other -> instruction <unnamed>{{$}}
        # CHECK-use_reinserted_instruction_after_new_block_delete-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {{.*}}seeded.py:{{[0-9]+}} in use_instruction_name{{$}}
    dispose_the_module(f.mod)
    dispose_the_context(f.ctx)
    return 0


def case_use_detached_block_after_function_delete(fixed):
    f = build_foo()
    # CHECK-use_detached_block_after_function_delete: seeded: context = [[CTX:0x[0-9a-f]+]]
    dispose_the_builder(f.builder)
    # %sum uses @foo's %x; erased so that %entry holds no use of it when @foo
    # dies (see the C twin).
    erase_the_instruction(f.sum)
    note_handle("subject", f.entry)
    # CHECK-use_detached_block_after_function_delete: seeded: subject = [[ENTRY:0x[0-9a-f]+]]
    detach_the_block(f.entry)
    delete_the_function(f.fn)  # %entry is detached: it survives.
    bar = make_bar_function(f.ctx, f.mod)
    move_block_to_bar(bar, f.entry)
    delete_the_bar_function(bar)
    if not fixed:
        use_block_name(f.entry)  # BUG: %entry died with @bar.
        # CHECK-use_detached_block_after_function_delete: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMBasicBlockRef [[ENTRY]] (block %entry of function @bar in module "m"){{$}}
        # CHECK-use_detached_block_after_function_delete-NEXT: passed as argument 1 of LLVMGetBasicBlockName on thread T0:
        # CHECK-use_detached_block_after_function_delete-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in use_block_name (python)
        # CHECK-use_detached_block_after_function_delete-NEXT: #1 {{.*}}seeded.py:[[@LINE-4]] in case_use_detached_block_after_function_delete (python)
        # CHECK-use_detached_block_after_function_delete-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-use_detached_block_after_function_delete: freed by LLVMDeleteFunction(function @bar in module "m") on thread T0, because it belonged to that function:
        # CHECK-use_detached_block_after_function_delete-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in delete_the_bar_function (python)
        # CHECK-use_detached_block_after_function_delete-NEXT: #1 {{.*}}seeded.py:[[@LINE-10]] in case_use_detached_block_after_function_delete (python)
        # CHECK-use_detached_block_after_function_delete-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-use_detached_block_after_function_delete: created by LLVMAppendBasicBlockInContext on thread T0:
        # CHECK-use_detached_block_after_function_delete-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in make_entry_block (python)
        # CHECK-use_detached_block_after_function_delete-NEXT: #1 {{.*}}seeded.py:{{[0-9]+}} in build_foo (python)
        # CHECK-use_detached_block_after_function_delete-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in case_use_detached_block_after_function_delete (python)
        # CHECK-use_detached_block_after_function_delete: ownership chain when freed: context [[CTX]] -> module "m" -> function @bar -> block %entry{{$}}
        # CHECK-use_detached_block_after_function_delete-NEXT: SUMMARY: OwnSan: use-after-free in LLVMGetBasicBlockName {{.*}}seeded.py:{{[0-9]+}} in use_block_name{{$}}
    dispose_the_module(f.mod)
    dispose_the_context(f.ctx)
    return 0


# --- The legacy pass manager builder (LLVM 14 to 16) ------------------------

def make_pass_manager_builder():
    say("LLVMPassManagerBuilderCreate()")
    return llvm.LLVMPassManagerBuilderCreate()


def dispose_the_pass_manager_builder(pmb):
    say("LLVMPassManagerBuilderDispose(pass manager builder)")
    llvm.LLVMPassManagerBuilderDispose(pmb)


def set_the_opt_level(pmb):
    say("LLVMPassManagerBuilderSetOptLevel(pass manager builder, 2)")
    llvm.LLVMPassManagerBuilderSetOptLevel(pmb, 2)


def case_use_after_pass_manager_builder_dispose(fixed):
    if not llvm.has("LLVMPassManagerBuilderCreate"):
        print(f"case not available in LLVM {llvm.major_version()}", flush=True)
        return EXIT_CASE_NOT_AVAILABLE
    pmb = make_pass_manager_builder()
    note_handle("subject", pmb)
    # CHECK-use_after_pass_manager_builder_dispose: seeded: subject = [[PMB:0x[0-9a-f]+]]
    if fixed:
        set_the_opt_level(pmb)
    dispose_the_pass_manager_builder(pmb)
    if not fixed:
        set_the_opt_level(pmb)  # BUG: already disposed.
        # CHECK-use_after_pass_manager_builder_dispose: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMPassManagerBuilderRef [[PMB]] (pass manager builder [[PMB]]){{$}}
        # CHECK-use_after_pass_manager_builder_dispose-NEXT: passed as argument 1 of LLVMPassManagerBuilderSetOptLevel on thread T0:
        # CHECK-use_after_pass_manager_builder_dispose-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in set_the_opt_level (python)
        # CHECK-use_after_pass_manager_builder_dispose-NEXT: #1 {{.*}}seeded.py:[[@LINE-4]] in case_use_after_pass_manager_builder_dispose (python)
        # CHECK-use_after_pass_manager_builder_dispose-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-use_after_pass_manager_builder_dispose: freed by LLVMPassManagerBuilderDispose(pass manager builder [[PMB]]) on thread T0:
        # CHECK-use_after_pass_manager_builder_dispose-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in dispose_the_pass_manager_builder (python)
        # CHECK-use_after_pass_manager_builder_dispose-NEXT: #1 {{.*}}seeded.py:[[@LINE-10]] in case_use_after_pass_manager_builder_dispose (python)
        # CHECK-use_after_pass_manager_builder_dispose-NEXT: #2 {{.*}}seeded.py:{{[0-9]+}} in main (python)
        # CHECK-use_after_pass_manager_builder_dispose: created by LLVMPassManagerBuilderCreate on thread T0:
        # CHECK-use_after_pass_manager_builder_dispose-NEXT: #0 {{.*}}seeded.py:{{[0-9]+}} in make_pass_manager_builder (python)
        # CHECK-use_after_pass_manager_builder_dispose-NEXT: #1 {{.*}}seeded.py:{{[0-9]+}} in case_use_after_pass_manager_builder_dispose (python)
        # CHECK-use_after_pass_manager_builder_dispose: ownership chain when freed: pass manager builder [[PMB]]{{$}}
        # CHECK-use_after_pass_manager_builder_dispose-NEXT: SUMMARY: OwnSan: use-after-free in LLVMPassManagerBuilderSetOptLevel {{.*}}seeded.py:{{[0-9]+}} in set_the_opt_level{{$}}
    return 0


CASES = {
    "use_after_module_dispose": case_use_after_module_dispose,
    "use_after_context_dispose": case_use_after_context_dispose,
    "use_instruction_after_block_delete": case_use_instruction_after_block_delete,
    "use_after_delete_function": case_use_after_delete_function,
    "use_block_after_delete_function": case_use_block_after_delete_function,
    "double_dispose_module": case_double_dispose_module,
    "dispose_module_after_context": case_dispose_module_after_context,
    "double_dispose_builder": case_double_dispose_builder,
    "delete_attached_instruction": case_delete_attached_instruction,
    "use_erased_instruction": case_use_erased_instruction,
    "use_reinserted_instruction_after_new_block_delete":
        case_use_reinserted_instruction_after_new_block_delete,
    "use_detached_block_after_function_delete":
        case_use_detached_block_after_function_delete,
    "use_after_pass_manager_builder_dispose":
        case_use_after_pass_manager_builder_dispose,
}


def usage():
    print(f"usage: {sys.argv[0]} CASE [--fixed]\ncases:", file=sys.stderr)
    for name in CASES:
        print(f"  {name}", file=sys.stderr)
    return EXIT_USAGE


def main(argv):
    global llvm
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] != "--fixed"):
        return usage()
    case = CASES.get(argv[1])
    if case is None:
        print(f"{argv[0]}: unknown case '{argv[1]}'", file=sys.stderr)
        return usage()
    fixed = len(argv) == 3
    llvm = LLVM(os.environ.get("OWNSAN_TEST_LIBLLVM", DEFAULT_LIBLLVM))
    say(f"case {argv[1]}{' (fixed)' if fixed else ''}")
    status = case(fixed)
    if status == 0:
        say("done")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
