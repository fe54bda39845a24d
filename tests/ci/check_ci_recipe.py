#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs the CI recipes of docs/ci.md as written, on a local ownsan .deb.

    check_ci_recipe.py --deb DEB --suite DIR [--doc docs/ci.md]

Reads the page's two YAML blocks (the GitHub Actions workflow and the
GitLab job), checks their shape, then runs each in a fresh directory that
holds a copy of DIR as tests/ (a binding's repository): the workflow's
`run` steps in order with their `env`, the `get-ownsan` step replaced by a
copy of DEB; the GitLab script in one shell. DIR is a pytest suite with
seeded bugs (tests/pytest_suite/suite), so each job must fail with the
bugs in its SARIF and JUnit files. Installs the package (apt-get, as root)
and removes it. Prints one line per check and "N passed, M failed".
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
SEEDED_MARK = "@pytest.mark.seeded"


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, what, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"ok: {what}")
        else:
            self.failed += 1
            print(f"FAILED: {what}")
            if detail:
                print("    " + detail.strip().replace("\n", "\n    ")[-3000:])
        return ok


def yaml_blocks(doc):
    """{first comment line: parsed YAML} of the ```yaml blocks."""
    out = {}
    for m in re.finditer(r"```yaml\n(.*?)```", doc, re.S):
        text = m.group(1)
        out[text.split("\n", 1)[0].lstrip("# ").strip()] = yaml.safe_load(text)
    return out


def workflow_shape(wf):
    """Problems with the workflow's shape, as GitHub reads it."""
    problems = []
    # (YAML 1.1 reads the key `on` as True.)
    if "on" not in wf and True not in wf:
        problems.append("no `on`")
    for name, job in (wf.get("jobs") or {}).items():
        for i, step in enumerate(job.get("steps") or []):
            if ("uses" in step) == ("run" in step):
                problems.append(f"{name} step {i}: needs one of uses/run")
            if "uses" in step and not re.fullmatch(r"[\w.-]+/[\w./-]+@v\d+",
                                                    step["uses"]):
                problems.append(f"{name} step {i}: unpinned {step['uses']}")
            if step.get("if", "always()") != "always()":
                problems.append(f"{name} step {i}: if {step['if']}")
        if not job.get("steps"):
            problems.append(f"{name}: no steps")
    if not wf.get("jobs"):
        problems.append("no jobs")
    return problems


def gitlab_shape(gl):
    problems = []
    jobs = {k: v for k, v in gl.items() if isinstance(v, dict)}
    if not jobs:
        problems.append("no job")
    for name, job in jobs.items():
        if not job.get("image"):
            problems.append(f"{name}: no image")
        if not isinstance(job.get("script"), list):
            problems.append(f"{name}: no script list")
        if not (job.get("artifacts", {}).get("reports", {}).get("junit")):
            problems.append(f"{name}: no JUnit report")
    return problems


def expand(value, env):
    """${{ vars.X }} and ${{ env.X }} as the runner would (vars: unset)."""
    def one(m):
        scope, name = m.group(1), m.group(2)
        return env.get(name, "") if scope == "env" else ""
    return re.sub(r"\$\{\{\s*(\w+)\.(\w+)\s*\}\}", one, str(value))


def repo_with_suite(suite):
    repo = pathlib.Path(tempfile.mkdtemp(prefix="ownsan-ci-"))
    shutil.copytree(suite, repo / "tests")
    return repo


def bash(script, cwd, env):
    return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script],
                          cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900)


def remove_package():
    subprocess.run(["apt-get", "remove", "-y", "ownsan"],
                   capture_output=True, check=False)


def check_outputs(c, who, repo, seeded, log):
    sarif = repo / "ownsan.sarif"
    try:
        results = json.loads(sarif.read_text())["runs"][0]["results"]
    except (OSError, ValueError, KeyError, IndexError) as e:
        results = None
        c.check(f"{who}: ownsan.sarif is SARIF", False, f"{e}\n{log}")
    if results is not None:
        c.check(f"{who}: one SARIF result per seeded bug ({seeded})",
                len(results) == seeded, f"{len(results)} results")
    junit = (repo / "ownsan.xml").read_text() if (
        repo / "ownsan.xml").exists() else ""
    c.check(f"{who}: ownsan.xml has the failures",
            re.search(r'failures="[1-9]', junit) is not None, junit[:500])
    pytest_xml = (repo / "pytest.xml").read_text() if (
        repo / "pytest.xml").exists() else ""
    m = re.search(r'failures="(\d+)"', pytest_xml)
    # (-p ownsan: each seeded test fails in pytest's own JUnit too.)
    c.check(f"{who}: pytest.xml fails the {seeded} seeded tests",
            m is not None and int(m.group(1)) >= seeded, pytest_xml[:500])
    c.check(f"{who}: the HTML index written",
            (repo / "ownsan-html" / "index.html").exists())


def run_github(c, wf, deb, suite, base_env, seeded):
    (name, job), = wf["jobs"].items()
    repo = repo_with_suite(suite)
    env = dict(base_env)
    env.update({k: expand(v, env) for k, v in (wf.get("env") or {}).items()})
    env.update({k: expand(v, env) for k, v in (job.get("env") or {}).items()})
    failed_at = None
    log = []
    for step in job["steps"]:
        label = step.get("name") or step.get("uses")
        if failed_at and step.get("if") != "always()":
            log.append(f"skipped: {label}")
            continue
        if "uses" in step:
            if step["uses"].startswith("actions/checkout@"):
                continue  # (the repository is there)
            inputs = step.get("with") or {}
            paths = [p for k in ("sarif_file", "path") if k in inputs
                     for p in str(inputs[k]).split()]
            missing = [p for p in paths if not (repo / p).exists()]
            c.check(f"github: `{label}` finds its inputs {paths}",
                    not missing, f"missing {missing}")
            continue
        step_env = dict(env)
        step_env.update({k: expand(v, env)
                         for k, v in (step.get("env") or {}).items()})
        if step.get("id") == "get-ownsan":
            # The one step not run as written: the download.
            shutil.copy(deb, repo / step_env["OWNSAN_DEB"])
            continue
        r = bash(step["run"], repo, step_env)
        log.append(f"{label}: exit {r.returncode}\n{r.stdout[-1500:]}"
                   f"{r.stderr[-1500:]}")
        if r.returncode and not failed_at:
            failed_at = label
    detail = "\n".join(log)
    c.check("github: the job fails on the seeded bugs, in the test step",
            failed_at == "Run the tests under ownsan", detail)
    c.check("github: ownsan was installed by its step",
            shutil.which("ownsan") == "/usr/bin/ownsan", detail)
    check_outputs(c, "github", repo, seeded, detail)
    remove_package()
    shutil.rmtree(repo, ignore_errors=True)


def run_gitlab(c, gl, deb, suite, base_env, seeded):
    (name, job), = ((k, v) for k, v in gl.items() if isinstance(v, dict))
    repo = repo_with_suite(suite)
    env = dict(base_env)
    env["CI_PROJECT_DIR"] = str(repo)
    env.update({k: str(v) for k, v in (job.get("variables") or {}).items()})
    lines = []
    for line in job["script"]:
        if line.startswith("curl ") and "$OWNSAN_DEB_URL" in line:
            # The one line not run as written: the download.
            line = f'cp {deb} "$OWNSAN_DEB"'
        lines.append(line)
    r = bash("\n".join(lines), repo, env)
    detail = r.stdout[-2000:] + r.stderr[-2000:]
    c.check("gitlab: the job fails on the seeded bugs", r.returncode != 0,
            detail)
    for report in job["artifacts"]["reports"]["junit"]:
        c.check(f"gitlab: JUnit report {report} written",
                (repo / report).exists(), detail)
    check_outputs(c, "gitlab", repo, seeded, detail)
    remove_package()
    shutil.rmtree(repo, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deb", required=True)
    ap.add_argument("--suite", required=True)
    ap.add_argument("--doc", default=str(ROOT / "docs" / "ci.md"))
    args = ap.parse_args()
    deb = os.path.abspath(args.deb)
    suite = pathlib.Path(args.suite).resolve()
    seeded = sum(p.read_text().count(SEEDED_MARK)
                 for p in suite.glob("test_*.py"))
    blocks = yaml_blocks(pathlib.Path(args.doc).read_text())
    c = Checks()
    wf = blocks.get(".github/workflows/ownsan.yml")
    gl = blocks.get(".gitlab-ci.yml")
    c.check("docs/ci.md has both recipes", wf is not None and gl is not None,
            f"blocks: {list(blocks)}")
    if wf is None or gl is None:
        print(f"{c.passed} passed, {c.failed} failed")
        return 1
    problems = workflow_shape(wf)
    c.check("github: the workflow's shape", not problems, "; ".join(problems))
    problems = gitlab_shape(gl)
    c.check("gitlab: the job's shape", not problems, "; ".join(problems))
    remove_package()
    base_env = dict(os.environ)
    base_env.pop("OWNSAN_OPTIONS", None)
    base_env["DEBIAN_FRONTEND"] = "noninteractive"
    # As in the debian:12 container: the system's Python, not a developer's.
    base_env["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:" \
        "/sbin:/bin"
    run_github(c, wf, deb, suite, base_env, seeded)
    run_gitlab(c, gl, deb, suite, base_env, seeded)
    print(f"{c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
