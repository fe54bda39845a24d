// A Rust program on LLVM's C API with no crates: the LLVM-C functions are
// declared in an `extern "C"` block and LLVM is linked in statically (as
// llvm-sys does by default). `seeded` uses a function after disposing its
// module; `seeded --fixed` reads the name first. tests/link/check_rust.py
// runs it linked in link mode and checks the report against the CHECK
// lines below: the Rust source lines must be in the stacks.
#![allow(non_camel_case_types)]
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_uint};

#[repr(C)]
pub struct LLVMOpaque {
    _private: [u8; 0],
}
type LLVMContextRef = *mut LLVMOpaque;
type LLVMModuleRef = *mut LLVMOpaque;
type LLVMTypeRef = *mut LLVMOpaque;
type LLVMValueRef = *mut LLVMOpaque;

extern "C" {
    fn LLVMContextCreate() -> LLVMContextRef;
    fn LLVMContextDispose(c: LLVMContextRef);
    fn LLVMModuleCreateWithNameInContext(name: *const c_char, c: LLVMContextRef) -> LLVMModuleRef;
    fn LLVMDisposeModule(m: LLVMModuleRef);
    fn LLVMVoidTypeInContext(c: LLVMContextRef) -> LLVMTypeRef;
    fn LLVMFunctionType(ret: LLVMTypeRef, params: *mut LLVMTypeRef, count: c_uint, var_arg: c_int) -> LLVMTypeRef;
    fn LLVMAddFunction(m: LLVMModuleRef, name: *const c_char, t: LLVMTypeRef) -> LLVMValueRef;
    fn LLVMGetValueName2(v: LLVMValueRef, len: *mut usize) -> *const c_char;
}

#[inline(never)]
fn add_function(m: LLVMModuleRef, c: LLVMContextRef) -> LLVMValueRef {
    unsafe {
        let t = LLVMFunctionType(LLVMVoidTypeInContext(c), std::ptr::null_mut(), 0, 0);
        LLVMAddFunction(m, b"foo\0".as_ptr() as *const c_char, t)
    }
}

#[inline(never)]
fn dispose_the_module(m: LLVMModuleRef) {
    unsafe { LLVMDisposeModule(m) }
}

#[inline(never)]
fn function_name(f: LLVMValueRef) -> String {
    let mut len = 0usize;
    let name = unsafe { LLVMGetValueName2(f, &mut len) };
    unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned()
}

fn main() {
    let fixed = std::env::args().any(|a| a == "--fixed");
    let c = unsafe { LLVMContextCreate() };
    let m = unsafe { LLVMModuleCreateWithNameInContext(b"m\0".as_ptr() as *const c_char, c) };
    let f = add_function(m, c);
    eprintln!("seeded: subject = {:?}", f);
    if fixed {
        println!("{}", function_name(f));
        dispose_the_module(m);
    } else {
        dispose_the_module(m);
        println!("{}", function_name(f));
        // (Rust's legacy symbol names end in a hash: ::h0123...)
        // CHECK-rust: ==[[PID]]==ERROR: OwnSan: use-after-free on LLVMValueRef [[FN:0x[0-9a-f]+]] (function @foo in module "m"){{$}}
        // CHECK-rust-NEXT: passed as argument 1 of LLVMGetValueName2 on thread T0:
        // CHECK-rust-NEXT: #0 {{.*}} in seeded::function_name{{(::h[0-9a-f]+)?}} {{.*}}seeded.rs:47:
        // CHECK-rust-NEXT: #1 {{.*}} in seeded::main{{(::h[0-9a-f]+)?}} {{.*}}seeded.rs:62:
        // CHECK-rust: freed by LLVMDisposeModule(module "m") on thread T0, because it belonged to that module:
        // CHECK-rust-NEXT: #0 {{.*}} in seeded::dispose_the_module{{(::h[0-9a-f]+)?}} {{.*}}seeded.rs:41:
        // CHECK-rust-NEXT: #1 {{.*}} in seeded::main{{(::h[0-9a-f]+)?}} {{.*}}seeded.rs:61:
        // CHECK-rust: created by LLVMAddFunction on thread T0:
        // CHECK-rust-NEXT: #0 {{.*}} in seeded::add_function{{(::h[0-9a-f]+)?}} {{.*}}seeded.rs:35:
        // CHECK-rust-NEXT: #1 {{.*}} in seeded::main{{(::h[0-9a-f]+)?}} {{.*}}seeded.rs:55:
        // CHECK-rust: ownership chain when freed: context {{0x[0-9a-f]+}} -> module "m" -> function @foo
        // CHECK-rust: SUMMARY: OwnSan: use-after-free in LLVMGetValueName2 {{.*}}seeded.rs:47:{{[0-9]+}} in seeded::function_name
    }
    unsafe { LLVMContextDispose(c) };
}
