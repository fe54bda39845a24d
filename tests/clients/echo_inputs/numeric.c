/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Input for the llvm-c-test --echo test: recursion, select, division and
   comparisons, kept to the subset --echo can clone. */
long fib(long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

long gcd(long a, long b) {
  while (b != 0) {
    long t = a % b;
    a = b;
    b = t;
  }
  return a;
}

long clamp(long x, long lo, long hi) { return x < lo ? lo : (x > hi ? hi : x); }

long power(long base, long exp) {
  long r = 1;
  while (exp > 0) {
    if (exp & 1)
      r *= base;
    base *= base;
    exp >>= 1;
  }
  return r;
}

long mix(long a, long b) {
  return clamp(gcd(a, b) + power(a, 3) / (b | 1), -1000, 1000) + fib(12);
}
