/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Input for the llvm-c-test --echo test: a state machine with branches,
   unsigned arithmetic and shifts, kept to the subset --echo can clone. */
unsigned long seed = 88172645463325252ul;
unsigned long transitions[16];

unsigned long next_random(void) {
  seed ^= seed << 13;
  seed ^= seed >> 7;
  seed ^= seed << 17;
  return seed;
}

unsigned long step(unsigned long state, unsigned long input) {
  if (state == 0)
    return input & 1;
  if (state == 1) {
    if (input % 5 == 0)
      return 2;
    if (input > 1000)
      return 3;
    return 1;
  }
  if (state == 2) {
    if (input & 2)
      return 1;
    return 2;
  }
  return 3;
}

unsigned long run_machine(unsigned long steps) {
  unsigned long s = 0, total = 0;
  for (unsigned long i = 0; i < steps && s != 3; ++i) {
    unsigned long n = step(s, next_random() % 2000);
    transitions[(s << 2 | n) & 15] += 1;
    total += s * 3 + n;
    s = n;
  }
  return total;
}

unsigned long popcount_all(unsigned long *v, unsigned long n) {
  unsigned long c = 0;
  for (unsigned long i = 0; i < n; ++i) {
    unsigned long x = v[i];
    while (x) {
      x &= x - 1;
      ++c;
    }
  }
  return c;
}
