# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""unittest's command line, where a test during which ownsan reports fails.

    ownsan run -- python3 -m ownsan.unittest [unittest's arguments]

As `python3 -m unittest`, with a result class that turns the reports made
while a test ran (setUp, the test, tearDown, cleanups) into a failure of
that test, the report as its text (docs/reports.md, "The pytest plugin").
"""

import sys
import unittest

from ownsan._reports import Reports

_reports = Reports()


class OwnsanReport(AssertionError):
    pass


class OwnsanResult(unittest.TextTestResult):
    def _reported(self, test):
        text = _reports.take()
        if text:
            super().addFailure(test, (OwnsanReport, OwnsanReport(
                "\n" + text), None))
        return bool(text)

    def addSuccess(self, test):
        if not self._reported(test):
            super().addSuccess(test)

    def addSkip(self, test, reason):
        if not self._reported(test):
            super().addSkip(test, reason)

    def addExpectedFailure(self, test, err):
        if not self._reported(test):
            super().addExpectedFailure(test, err)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._reported(test)

    def addError(self, test, err):
        super().addError(test, err)
        self._reported(test)


class OwnsanRunner(unittest.TextTestRunner):
    resultclass = OwnsanResult


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    _reports.install()
    # A class, not an instance: unittest.main passes it -v, -f, -b.
    unittest.main(module=None, argv=["python3 -m ownsan.unittest"] + argv,
                  testRunner=OwnsanRunner)


if __name__ == "__main__":
    main()
