/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Input for the llvm-c-test --echo test: pointers, loops, calls, globals.
   llvm-c-test --echo clones only a subset of IR (no switch, no sign
   extension, no floating-point constants), so these inputs stay in it. */
long counter;
long table[64];

long *slot(long i) { return &table[i & 63]; }

long fill(long n) {
  for (long i = 0; i < n; ++i)
    *slot(i) = i * 7 + counter;
  return n;
}

long sum_range(long *p, long n) {
  long s = 0;
  for (long i = 0; i < n; ++i)
    s += p[i];
  return s;
}

long reverse(long *p, long n) {
  for (long i = 0, j = n - 1; i < j; ++i, --j) {
    long t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
  return p[0];
}

long run_lists(long n) {
  counter += fill(n);
  reverse(table, n < 64 ? n : 64);
  return sum_range(table, n < 64 ? n : 64) + counter;
}
