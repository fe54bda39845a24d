#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Where the runtime's own instructions go, by source file: a callgrind
profile taken with --dump-instr=yes, each instruction's self cost given to
the source line it was compiled from (inlined code counts for the header
it came from: the record cache's probe in every wrapper is record_cache.h).

    strip --strip-debug -o /tmp/ownsan-s.so build-bench/lib/libownsan.so
    GLIBC_TUNABLES=glibc.malloc.hugetlb=1 LD_PRELOAD=/tmp/ownsan-s.so \\
        valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=OUT \\
        build-bench/bench/ownsan_bench_ir_workload modules 3000
    bench/callgrind_by_source.py OUT build-bench/lib/libownsan.so \\
        --object ownsan-s.so [--lines N] [--callers-of FILE]

(valgrind 3.19 cannot read clang's debug info, so the profiled runtime is
the stripped copy; its addresses are those of the unstripped library,
which addr2line reads.) Prints the total, then one row per source file
(or the N costliest lines, or, with --callers-of, the cost of FILE's
inlined code by the function it was inlined into).
"""

import argparse
import collections
import re
import subprocess
import sys

_NAMED = re.compile(r"^(c?ob)=\((\d+)\)(?: (.*))?$")


def self_costs(text, object_substring):
    """{instruction address: self cost} of the object file whose name
    contains `object_substring`, from a callgrind profile with positions
    `instr line` (--dump-instr=yes; ValueError otherwise: a profile of
    source lines has no addresses to read). The cost line that follows a
    `calls=` line is the callee's inclusive cost, not this instruction's,
    and is skipped."""
    if not re.search(r"^positions: instr\b", text, re.MULTILINE):
        raise ValueError("not a profile of instructions: take it with "
                         "valgrind --tool=callgrind --dump-instr=yes")
    names = {}
    current = None
    address = 0
    after_calls = False
    costs = collections.Counter()
    for line in text.splitlines():
        named = _NAMED.match(line)
        if named:
            kind, ident, name = named.groups()
            if name:
                names[ident] = name
            if kind == "ob":
                current = names.get(ident, "")
            continue
        if line.startswith("calls="):
            after_calls = True
            continue
        if not line or line[0] not in "0123456789+-*":
            continue
        fields = line.split()
        position = fields[0]
        if position.startswith("0x"):
            address = int(position, 16)
        elif position[0] in "+-":
            address += int(position)
        elif position != "*":
            address = int(position)
        if after_calls:
            after_calls = False
            continue
        if current and object_substring in current and len(fields) > 2:
            costs[address] += int(fields[2])
    return costs


def parse_addr2line(output):
    """{address: [(function, "file:line"), ...]} from the output of
    `addr2line -a -f -i`: each address's line, then its frames, innermost
    inlined frame first."""
    frames = {}
    current = None
    lines = output.splitlines()
    i = 0
    while i < len(lines):
        if re.fullmatch(r"0x[0-9a-f]+", lines[i]):
            current = frames.setdefault(int(lines[i], 16), [])
            i += 1
            continue
        function, location = lines[i], lines[i + 1]
        location = re.sub(r" \(discriminator \d+\)$", "", location)
        current.append((function, location.rsplit("/", 1)[-1]))
        i += 2
    return frames


def addr2line_frames(library, addresses):
    """parse_addr2line() of what addr2line reads from `library`."""
    out = subprocess.run(
        ["addr2line", "-e", library, "-a", "-f", "-C", "-i"] +
        [hex(a) for a in addresses], capture_output=True, text=True,
        check=True).stdout
    return parse_addr2line(out)


def by_source(costs, frames, whole_line=False):
    """Self cost by the source file (or "file:line") of each instruction's
    innermost frame."""
    totals = collections.Counter()
    for address, cost in costs.items():
        chain = frames.get(address) or [("??", "??:0")]
        location = chain[0][1]
        totals[location if whole_line else location.split(":")[0]] += cost
    return totals


def callers_of(costs, frames, source_file):
    """The cost of `source_file`'s code by the outermost function it was
    inlined into (the function the instructions belong to)."""
    totals = collections.Counter()
    for address, cost in costs.items():
        chain = frames.get(address) or []
        if any(loc.split(":")[0] == source_file for _, loc in chain):
            totals[chain[-1][0]] += cost
    return totals


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("profile")
    ap.add_argument("library", help="the unstripped runtime, for addr2line")
    ap.add_argument("--object", default="libownsan",
                    help="part of the profiled object's file name")
    ap.add_argument("--lines", type=int, default=0,
                    help="print the N costliest source lines instead")
    ap.add_argument("--callers-of", metavar="FILE",
                    help="FILE's cost by the function it is inlined into")
    args = ap.parse_args()
    with open(args.profile) as f:
        try:
            costs = self_costs(f.read(), args.object)
        except ValueError as e:
            sys.exit(f"{args.profile}: {e}")
    if not costs:
        sys.exit(f"no costs for an object named like {args.object!r}")
    frames = addr2line_frames(args.library, sorted(costs))
    total = sum(costs.values())
    if args.callers_of:
        rows = callers_of(costs, frames, args.callers_of)
    elif args.lines:
        rows = by_source(costs, frames, whole_line=True)
    else:
        rows = by_source(costs, frames)
    print(f"{total:>15,}  total")
    for name, cost in rows.most_common(args.lines or 30):
        print(f"{cost:>15,}  {100 * cost / total:5.1f} %  {name}")


if __name__ == "__main__":
    main()
