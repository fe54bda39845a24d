#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Tests for tools/check_spec_versions.py: the range rule on made-up
versions, and the majors file (no LLVM needed).

Run from the repository root:
    /usr/bin/python3 -m unittest tests/unit/test_check_spec_versions.py
"""

import os
import sys
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
import check_spec_versions as csv  # noqa: E402
from wrapgen.model import GenError  # noqa: E402
from wrapgen.spec import parse_spec_text  # noqa: E402

# Three supported majors; LLVMNew appears in 15, LLVMOld goes after 15,
# LLVMHalf is declared everywhere but exported from 16 on.
DECLARED = {14: {"LLVMOld", "LLVMAll", "LLVMHalf"},
            15: {"LLVMOld", "LLVMNew", "LLVMAll", "LLVMHalf"},
            16: {"LLVMNew", "LLVMAll", "LLVMHalf"}}
EXPORTED = {14: {"LLVMOld", "LLVMAll"},
            15: {"LLVMOld", "LLVMNew", "LLVMAll"},
            16: {"LLVMNew", "LLVMAll", "LLVMHalf"}}


def problems(spec_text):
    entries = parse_spec_text(spec_text, "test.spec")
    return csv.range_problems(entries, DECLARED, EXPORTED)


class RangeRule(unittest.TestCase):
    def test_exact_ranges_pass(self):
        self.assertEqual(problems(
            "LLVMNew free(0) since=15\n"
            "LLVMOld free(0) until=15\n"
            "LLVMAll free(0)\n"
            "LLVMHalf free(0) since=16\n"), [])

    def test_since_too_high_leaves_a_present_version_out(self):
        found = problems("LLVMNew free(0) since=16\n")
        self.assertEqual(len(found), 1)
        self.assertIn("test.spec:1: LLVMNew (since=16) excludes LLVM 15",
                      found[0])

    def test_until_too_low_leaves_a_present_version_out(self):
        found = problems("LLVMOld free(0) until=14\n")
        self.assertEqual(len(found), 1)
        self.assertIn("LLVMOld (until=14) excludes LLVM 15", found[0])

    def test_since_too_low_names_what_is_missing(self):
        found = problems("LLVMNew free(0) since=14\n")
        self.assertEqual(found, [
            "test.spec:1: LLVMNew (since=14) applies to LLVM 14, which does"
            " not declare or export it"])

    def test_declared_but_not_exported_is_absent(self):
        found = problems("LLVMHalf free(0) since=15\n")
        self.assertEqual(found, [
            "test.spec:1: LLVMHalf (since=15) applies to LLVM 15, which does"
            " not export it"])

    def test_no_range_must_be_everywhere(self):
        found = problems("LLVMNew free(0)\n")
        self.assertEqual(len(found), 1)
        self.assertIn("LLVMNew (no since=/until=) applies to LLVM 14", found[0])


class MajorsFile(unittest.TestCase):
    def read(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".txt",
                                         delete=False) as f:
            f.write(text)
        self.addCleanup(os.unlink, f.name)
        return csv.read_majors(f.name)

    def test_comments_and_blank_lines(self):
        self.assertEqual(self.read("# supported\n14\n\n19  # newest\n"),
                         [14, 19])

    def test_rejects_a_non_number(self):
        with self.assertRaises(GenError):
            self.read("14\nnineteen\n")

    def test_rejects_an_empty_list(self):
        with self.assertRaises(GenError):
            self.read("# nothing\n")

    def test_repository_list_is_sorted_without_repeats(self):
        majors = csv.read_majors(csv.DEFAULT_MAJORS)
        self.assertEqual(majors, sorted(set(majors)))


class SearchPaths(unittest.TestCase):
    """--lib and --include-dir of another profile's majors (MLIR-C's: one
    installed, one unpacked from its packages)."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.root = tmp.name
        for rel in ("sys/19/libA.a", "sys/19/libB.a", "unpacked/22/libA.a",
                    "sys/19/include/api-c/Core.h",
                    "unpacked/22/include/api-c/Core.h"):
            path = os.path.join(self.root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").close()
        self.libs = [os.path.join(self.root, "sys/{major}/lib*.a"),
                     os.path.join(self.root, "unpacked/{major}/lib*.a")]

    def test_first_pattern_that_matches_gives_the_libraries(self):
        self.assertEqual(
            [os.path.basename(p) for p in csv.find_libs(19, self.libs)],
            ["libA.a", "libB.a"])
        self.assertEqual(csv.find_libs(22, self.libs),
                         [os.path.join(self.root, "unpacked/22/libA.a")])

    def test_a_major_found_nowhere_is_not_installed(self):
        with self.assertRaises(csv.NotInstalled) as e:
            csv.find_libs(16, self.libs, "unpack {major}")
        self.assertIn("(unpack 16)", str(e.exception))

    def test_one_plain_path_is_left_to_nm(self):
        # LLVM-C's default: nm says the library is not found, as before.
        self.assertEqual(csv.find_libs(16, ["/nowhere/{major}/libLLVM.so"]),
                         ["/nowhere/16/libLLVM.so"])

    def test_include_dirs_that_exist_in_order(self):
        patterns = [os.path.join(self.root, "sys/{major}/include"),
                    os.path.join(self.root, "unpacked/{major}/include")]
        self.assertEqual(csv.include_dirs(22, patterns), [patterns[1].format(
            major=22)])
        self.assertEqual(len(csv.include_dirs(19, patterns)), 1)

    def test_release_names_the_library(self):
        self.assertEqual(csv.release(19), "LLVM 19")


if __name__ == "__main__":
    unittest.main()
