/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A shared library that does nothing: preloaded into bench/one_call.c, it
   measures what any LD_PRELOAD costs a process that links libLLVM (the
   loader maps one more object and looks each of libLLVM's symbols up in it
   first), the floor of ownsan's preload. */
int ownsan_bench_empty_preload = 1;
