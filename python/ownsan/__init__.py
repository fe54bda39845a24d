# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ownsan's pytest plugin: a test during which ownsan reports fails.

    ownsan run -- python3 -m pytest -p ownsan tests/

(`ownsan run` puts this package on PYTHONPATH.) The plugin installs an
error callback with the runtime's public C API (`ownsan_set_error_callback`,
include/ownsan/ownsan.h): a report no longer stops the process, the
offending LLVM-C call is skipped, and the report becomes the failure of the
test phase it happened in: a failure of the test when it happened in its
setup or body (the text report is the failure's text, its SUMMARY line the
message), an error of the test when it happened in a fixture's teardown, a
collection error while a test module is imported. So pytest's exit status,
`--junitxml` and `-n N` (pytest-xdist: each worker installs its own
callback) are right whatever OWNSAN_OPTIONS says about halting. A report
outside any test fails the session. Without the runtime in the process the
plugin does nothing.

unittest: `python3 -m ownsan.unittest [unittest's arguments]`.
"""

from ownsan._reports import Reports, summary_line

try:
    import pytest
except ImportError:  # (ownsan.unittest without pytest installed)
    pytest = None

_reports = Reports()


def _longrepr(text, location):
    """A failure whose message is the SUMMARY line and whose text is the
    report, in the form pytest's own failures have (so JUnit's message and
    `-ra`'s one line show the summary; xdist serializes it)."""
    try:
        from _pytest._code.code import (ReprEntryNative, ReprExceptionInfo,
                                        ReprFileLocation, ReprTraceback)
        path, lineno = location
        return ReprExceptionInfo(
            ReprTraceback([ReprEntryNative([text])], None, "native"),
            ReprFileLocation(path, lineno, summary_line(text)))
    except Exception:  # another pytest's internals: the text alone
        return text


def _fail(rep, text, location):
    if rep.failed:
        # Already failing: the report is added to the failure's text.
        if hasattr(rep.longrepr, "addsection"):
            rep.longrepr.addsection("ownsan", text)
        else:
            rep.longrepr = f"{rep.longrepr}\n\n{text}"
        return
    rep.outcome = "failed"
    if hasattr(rep, "wasxfail"):
        del rep.wasxfail  # not the failure the test expected
    rep.longrepr = _longrepr(text, location)


if pytest is not None:

    def pytest_configure(config):
        _reports.install()

    def pytest_unconfigure(config):
        _reports.uninstall()

    def pytest_report_header(config):
        if _reports.active:
            return "ownsan: a report fails the test it happens in"
        return None

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_makereport(item, call):
        outcome = yield
        text = _reports.take()
        if text:
            path, lineno = item.location[:2]
            _fail(outcome.get_result(), text, (path, (lineno or 0) + 1))

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_make_collect_report(collector):
        outcome = yield
        text = _reports.take()
        if text:
            _fail(outcome.get_result(), text, (str(collector.path), 0))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(session, exitstatus):
        text = _reports.take()
        if text:
            _reports.outside.append(text)
            if session.exitstatus == 0:
                session.exitstatus = 1

    def pytest_terminal_summary(terminalreporter):
        for text in _reports.outside:
            terminalreporter.section("ownsan: reports outside any test")
            terminalreporter.write(text)
