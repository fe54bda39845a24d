/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Input for the llvm-c-test --echo test: vectors (shufflevector, also with
   undefined lanes; extractelement and insertelement with constant
   indices), GEPs with constant indices into arrays of structs, and a
   constant GEP expression in a global initializer. llvm-c-test 14 to 19
   rebuilds each shuffle mask from LLVMConstInt/LLVMGetUndef constants of
   the global context, not the module's (22 uses the module's): LLVM only
   reads the mask's integers (spec: data_only), no report. Kept to
   the subset --echo can clone at -O0 in LLVM 14 to 22 (no switch, no sign
   or zero extension, no floating-point constants, no poison operands). */
typedef unsigned long v2u64 __attribute__((vector_size(16)));
typedef unsigned int v4u32 __attribute__((vector_size(16)));

struct pair {
  unsigned long first;
  unsigned long second[4];
};

struct pair pairs[3];
unsigned long *second_of_last = &pairs[2].second[1];
unsigned long **where = &second_of_last;

v2u64 swap(v2u64 a) { return __builtin_shufflevector(a, a, 1, 0); }

v4u32 interleave(v4u32 a, v4u32 b) {
  return __builtin_shufflevector(a, b, 0, 4, 1, 5);
}

v4u32 evens(v4u32 a) { return __builtin_shufflevector(a, a, 0, -1, 2, -1); }

unsigned long high_lane(v2u64 a) { return a[1]; }

v2u64 with_lane(v2u64 a, unsigned long x) {
  a[0] = x;
  return a ^ swap(a);
}

unsigned int lane_sum(v4u32 a) { return a[0] + a[1] + a[2] + a[3]; }

unsigned long fill_pairs(unsigned long n) {
  for (unsigned long i = 0; i < 3; ++i) {
    pairs[i].first = n + i;
    pairs[i].second[i] = n * i;
    pairs[i].second[3] = pairs[i].first ^ n;
  }
  return **where + pairs[1].second[1];
}

/* Vectors start from zeroed globals: one built lane by lane from nothing
   starts as a poison vector, which --echo clones as undef (14-22). */
v2u64 pair_seed;
v4u32 quad_seed;

unsigned long run_vectors(unsigned long n) {
  v2u64 a = pair_seed;
  a[0] = n;
  a[1] = n + 1;
  return high_lane(with_lane(swap(a), n * 3)) + fill_pairs(n);
}

unsigned int run_lanes(unsigned int n) {
  v4u32 b = quad_seed;
  b[0] = n;
  b[2] = n + 2;
  return lane_sum(interleave(evens(b), b));
}
