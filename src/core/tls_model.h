//===- tls_model.h - How the runtime's thread locals are reached -*- C++
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//-*-===//
//
// Preloaded, the runtime is loaded with the program, so its thread locals
// take the initial-exec model: one TLS-relative load, no call. Linked into a
// shared object that may be dlopen'ed (link mode, an extension module
// embedding LLVM), they cannot: glibc has little static TLS to spare for
// objects loaded later. There they take the default model, which the
// linker turns back into a plain load when the runtime is linked into an
// executable.
//
//===----------------------------------------------------------------------===//
#ifndef OWNSAN_CORE_TLS_MODEL_H
#define OWNSAN_CORE_TLS_MODEL_H

#if OWNSAN_LINK_MODE
#define OWNSAN_TLS_MODEL
#else
#define OWNSAN_TLS_MODEL __attribute__((tls_model("initial-exec")))
#endif

#endif // OWNSAN_CORE_TLS_MODEL_H
