#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""`ownsan report --sarif`: SARIF 2.1.0, one result per distinct problem.

    test_sarif.py --ownsan PATH

The official SARIF 2.1.0 JSON schema is not available offline (no network
here, and no Debian package ships it: python3-sarif-python-om and
golang-github-haya14busa-go-sarif-dev carry only object models). So the
output is checked twice:
  1. with python3-jsonschema (Debian) against sarif-2.1.0-subset.schema.json,
     a schema written by hand from the SARIF 2.1.0 specification for the
     objects ownsan writes (required properties, types, enumerations,
     minimums; and no property the spec does not define);
  2. by a structural validator below for the properties every SARIF
     consumer needs: version, $schema, runs[].tool.driver.name/rules,
     results[].ruleId (and ruleIndex pointing at that rule), message.text,
     locations[].physicalLocation.artifactLocation.uri and region.startLine,
     relatedLocations ids, and uriBaseIds defined in originalUriBaseIds.
Then the content: locations at the binding's frames, related locations for
the free and create frames, fingerprints, paths relative to --source-root;
one rule per kind of the kind list (share/ownsan/error_kinds.json, from
src/report/error_kinds.def) with its texts, level and docs anchor; the other
thread of a context-race and the first call an object created outside the
API was seen in.
"""

import json
import os
import pathlib
import re
import sys
import tempfile
import urllib.parse

from ownsan_testing import Checker
from report_common import (A, B, C, CLEAN, D, E, LABEL_A, LABEL_B, RACE, RUN,
                           R, SOURCE_ROOT, SUMMARY_A, SUMMARY_B, SUMMARY_ONLY,
                           X, kinds_path, load_kinds, parse_args, report)

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "sarif-2.1.0-subset.schema.json")
FINGERPRINT = "ownsanProblemId/v1"


def schema_errors(doc):
    """Messages of every schema violation (python3-jsonschema)."""
    try:
        import jsonschema
    except ImportError:
        return ["python3-jsonschema is not installed: run "
                "scripts/install-deps.sh (apt-get install python3-jsonschema)"]
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    v = jsonschema.Draft7Validator(schema)
    return [f"{'/'.join(str(p) for p in e.absolute_path)}: {e.message}"
            for e in sorted(v.iter_errors(doc), key=lambda e: list(
                map(str, e.absolute_path)))]


def _is_uri_reference(s):
    if not isinstance(s, str) or not s or any(ch in s for ch in " \t\n\"<>\\"):
        return False
    try:
        urllib.parse.urlsplit(s)
    except ValueError:
        return False
    return True


def structural_errors(doc):
    """The SARIF 2.1.0 properties consumers rely on, checked by hand."""
    errors = []

    def need(cond, msg):
        if not cond:
            errors.append(msg)
        return cond

    if not need(isinstance(doc, dict), "the log is not a JSON object"):
        return errors
    need(doc.get("version") == "2.1.0", "version is not '2.1.0'")
    schema = doc.get("$schema")
    need(isinstance(schema, str) and schema.startswith("https://") and
         "sarif" in schema and "2.1.0" in schema,
         "$schema is not an https URI of the SARIF 2.1.0 schema")
    runs = doc.get("runs")
    if not need(isinstance(runs, list) and runs, "runs is not a non-empty "
                "array"):
        return errors
    for ri, run in enumerate(runs):
        where = f"runs[{ri}]"
        driver = (run.get("tool") or {}).get("driver") or {}
        need(isinstance(driver.get("name"), str) and driver["name"],
             f"{where}.tool.driver.name missing")
        rules = driver.get("rules")
        if not need(isinstance(rules, list), f"{where}.tool.driver.rules is "
                    "not an array"):
            rules = []
        ids = [r.get("id") for r in rules]
        need(len(ids) == len(set(ids)), f"{where}: rule ids are not unique")
        for i, rule in enumerate(rules):
            need(isinstance(rule.get("id"), str) and rule["id"],
                 f"{where}.rules[{i}].id missing")
            need(isinstance((rule.get("shortDescription") or {}).get("text"),
                            str), f"{where}.rules[{i}].shortDescription.text "
                 "missing")
        bases = run.get("originalUriBaseIds") or {}
        for name, base in bases.items():
            uri = base.get("uri", "")
            need(uri.endswith("/") and _is_uri_reference(uri),
                 f"{where}.originalUriBaseIds.{name}.uri must be a URI "
                 "ending in '/'")
        results = run.get("results")
        if not need(isinstance(results, list), f"{where}.results is not an "
                    "array"):
            continue

        def check_location(loc, at, physical_required):
            phys = loc.get("physicalLocation")
            if phys is None:
                need(not physical_required, f"{at}.physicalLocation missing")
                return
            art = phys.get("artifactLocation") or {}
            need(_is_uri_reference(art.get("uri")),
                 f"{at}.physicalLocation.artifactLocation.uri is not a URI "
                 "reference")
            base = art.get("uriBaseId")
            need(base is None or base in bases,
                 f"{at}: uriBaseId {base!r} not in originalUriBaseIds")
            region = phys.get("region")
            if region is not None:
                line = region.get("startLine")
                need(isinstance(line, int) and line >= 1,
                     f"{at}.physicalLocation.region.startLine is not an "
                     "integer >= 1")

        for i, res in enumerate(results):
            at = f"{where}.results[{i}]"
            rule_id = res.get("ruleId")
            need(isinstance(rule_id, str) and rule_id in ids,
                 f"{at}.ruleId {rule_id!r} is not a rule of the driver")
            if "ruleIndex" in res:
                need(0 <= res["ruleIndex"] < len(ids) and
                     ids[res["ruleIndex"]] == rule_id,
                     f"{at}.ruleIndex does not point at rule {rule_id!r}")
            need(isinstance((res.get("message") or {}).get("text"), str) and
                 res["message"]["text"], f"{at}.message.text missing")
            for j, loc in enumerate(res.get("locations", [])):
                check_location(loc, f"{at}.locations[{j}]", True)
            rel_ids = []
            for j, loc in enumerate(res.get("relatedLocations", [])):
                check_location(loc, f"{at}.relatedLocations[{j}]", True)
                need(isinstance(loc.get("id"), int) and loc["id"] >= 0,
                     f"{at}.relatedLocations[{j}].id is not an integer >= 0")
                rel_ids.append(loc.get("id"))
            need(len(rel_ids) == len(set(rel_ids)),
                 f"{at}: relatedLocations ids are not unique")
            for k, st in enumerate(res.get("stacks", [])):
                for m, fr in enumerate(st.get("frames", [])):
                    check_location(fr.get("location", {}),
                                   f"{at}.stacks[{k}].frames[{m}].location",
                                   False)
    return errors


def loc_of(loc):
    """(uri, uriBaseId, startLine, startColumn) of a location."""
    phys = loc.get("physicalLocation") or {}
    art = phys.get("artifactLocation") or {}
    region = phys.get("region") or {}
    return (art.get("uri"), art.get("uriBaseId"), region.get("startLine"),
            region.get("startColumn"))


def validate(c, doc, what):
    errs = schema_errors(doc)
    c.check(not errs, f"{what}: valid against the SARIF 2.1.0 schema subset "
            "(python3-jsonschema)", "\n".join(errs[:30]))
    errs = structural_errors(doc)
    c.check(not errs, f"{what}: the structural SARIF 2.1.0 checks pass",
            "\n".join(errs[:30]))


def by_id(doc):
    out = {}
    for res in doc["runs"][0]["results"]:
        out[res.get("partialFingerprints", {}).get(FINGERPRINT)] = res
    return out


def check_tool_metadata(c, doc, ownsan):
    """What code scanning reads besides the results (issue 21, item 7): the
    tool's version and home page, each rule's help and its page, tags and a
    security-severity for the memory-safety kinds."""
    with open(kinds_path(ownsan), encoding="utf-8") as f:
        kind_list = json.load(f)
    driver = doc["runs"][0]["tool"]["driver"]
    home = kind_list.get("homepage", "")
    # Without a published home page: the docs installed beside the report
    # tool (share/doc/ownsan), as file: URIs of files that exist.
    docs = os.path.join(os.path.dirname(kinds_path(ownsan)), os.pardir,
                        "doc", "ownsan")

    def doc(name, anchor=""):
        if home:
            return f"{home}/blob/main/docs/{name}" + (
                f"#{anchor}" if anchor else "")
        return pathlib.Path(os.path.realpath(os.path.join(
            docs, name))).as_uri() + (f"#{anchor}" if anchor else "")
    c.check(re.fullmatch(r"\d+\.\d+\.\d+", driver.get("version", "")) and
            driver.get("version") == kind_list.get("tool_version"),
            "tool.driver.version is the build's version", driver)
    info = home or pathlib.Path(os.path.realpath(os.path.join(
        docs, "README.md"))).as_uri()
    c.check(re.match(r"(https|file)://", info) and
            driver.get("informationUri") == info,
            "tool.driver.informationUri is the home page or the installed "
            "README (an absolute URI)", driver)
    c.check(home or os.path.exists(os.path.join(docs, "reports.md")),
            "the docs the rules link to are installed beside the tool")
    by_name = {k["name"]: k for k in kind_list["kinds"]}
    for rule in driver.get("rules", []):
        k = by_name.get(rule["id"])
        if k is None:
            continue
        props = rule.get("properties", {})
        c.equal(rule.get("helpUri"), doc("reports.md", k["doc_anchor"]),
                f"rule {k['name']}: helpUri is its section of "
                "docs/reports.md", rule)
        c.check(rule.get("help", {}).get("text"), f"rule {k['name']}: help")
        sev = props.get("security-severity")
        if k["security_severity"] is not None:
            c.check(isinstance(sev, str) and 0 < float(sev) <= 10 and
                    "security" in props.get("tags", []) and
                    f"external/cwe/cwe-{k['cwe']}" in props.get("tags", []),
                    f"rule {k['name']}: a memory-safety kind: tags security "
                    f"and its CWE, security-severity {sev}", rule)
        else:
            c.check(sev is None and props.get("tags") == ["correctness"],
                    f"rule {k['name']}: no security-severity, tagged "
                    "correctness", rule)
    memory_safety = {n for n, k in by_name.items() if k["security_severity"]}
    c.check({"use-after-free", "double-free", "invalid-free",
             "use-after-consume"} <= memory_safety and
            "cross-context" not in memory_safety,
            "the memory-safety kinds are the ones with a severity",
            sorted(memory_safety))


def check_automation_details(c, ownsan, tmp):
    """One SARIF category per LLVM major (a CI matrix uploads one SARIF per
    job; without distinct runs each upload replaces the previous one)."""
    def category(logs, *extra):
        d = tempfile.mkdtemp(dir=tmp)
        for i, major in enumerate(logs):
            with open(os.path.join(d, f"ownsan.{i + 1}"), "w") as f:
                f.write(json.dumps({
                    "ownsan_summary": 1, "pid": i + 1, "llvm_major": major,
                    "problems": [], "suppressed": [], "leaked": 0,
                    "exitcode": 0}) + "\n")
        out = os.path.join(d, "out.sarif")
        report(ownsan, "--sarif", out, *extra, d)
        with open(out, encoding="utf-8") as f:
            doc = json.load(f)
        validate(c, doc, f"logs of LLVM {logs} {extra}")
        return doc["runs"][0].get("automationDetails", {}).get("id")
    c.equal(category([19]), "ownsan/llvm-19/",
            "automationDetails.id names the LLVM major of the logs")
    c.equal(category([14]), "ownsan/llvm-14/",
            "another major, another category")
    c.equal(category([19, 14, 19]), "ownsan/llvm-14+19/",
            "logs of two majors: both, in order")
    c.equal(category([19], "--category", "py3.11"), "ownsan/py3.11/",
            "--category names the run")


def main():
    args = parse_args(__doc__)
    c = Checker("ownsan report --sarif")
    with tempfile.TemporaryDirectory(prefix="ownsan-sarif-") as tmp:
        out = os.path.join(tmp, "rooted.sarif")
        r = report(args.ownsan, "--sarif", out, "--source-root", SOURCE_ROOT,
                   RUN, SUMMARY_ONLY)
        c.equal(r.returncode, 1, "exit 1 with problems", r)
        try:
            with open(out, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            c.check(False, "the SARIF file is written and is JSON", e)
            sys.exit(c.finish())
        validate(c, doc, "fixtures with --source-root")

        run = doc["runs"][0]
        c.equal(run["tool"]["driver"]["name"], "ownsan", "driver name")
        rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
        for kind in ("use-after-free", "double-free", "invalid-free",
                     "dangling-insertion-point", "wrong-handle-kind"):
            c.check(kind in rules and rules[kind]["shortDescription"]["text"],
                    f"rule {kind} listed with a short description")
        results = by_id(doc)
        c.equal(len(run["results"]), 5, "one result per distinct problem "
                "(5), not per report line")
        c.equal(sorted(k for k in results if k), sorted([A, B, C, D, E]),
                "partialFingerprints carry the problem ids")
        c.equal(run.get("originalUriBaseIds", {}).get("SRCROOT", {}).get(
            "uri"), "file://" + SOURCE_ROOT + "/",
            "originalUriBaseIds.SRCROOT is the --source-root")

        a, b, cc = results.get(A, {}), results.get(B, {}), results.get(C, {})
        c.equal(a.get("ruleId"), "use-after-free", "A: ruleId is the kind")
        c.equal(a.get("level"), "error", "A: level error")
        c.equal(a.get("message", {}).get("text"),
                f"{SUMMARY_A} ({LABEL_A})", "A: message = summary + label")
        c.equal([loc_of(l) for l in a.get("locations", [])],
                [("tests/test_mod.py", "SRCROOT", 42, None)],
                "A: location at the user's use frame (the test's line, past "
                "the binding's wrapper mybind/core.py)")
        c.equal([(l.get("id"), loc_of(l)) for l in
                 a.get("relatedLocations", [])],
                [(1, ("tests/test_mod.py", "SRCROOT", 40, None)),
                 (2, ("tests/helpers.py", "SRCROOT", 12, None))],
                "A: related locations at the user's free (1) and create (2) "
                "frames")
        c.check(all(l.get("message", {}).get("text") for l in
                    a.get("relatedLocations", [])),
                "A: related locations say what happened there")
        c.equal(a.get("properties", {}).get("count"), 6, "A: count 6")
        c.equal(a.get("properties", {}).get("tests"),
                ["tests/test_mod.py::test_use_after_close",
                 "tests/test_other.py::test_reuse[2]"], "A: tests")
        c.equal(len(a.get("stacks", [])), 3, "A: the three stacks")

        c.equal(b.get("message", {}).get("text"),
                SUMMARY_B.replace(SOURCE_ROOT + "/", "") + f" ({LABEL_B})",
                "B: message keeps the label's characters as they are, its "
                "path relative to --source-root")
        c.equal([loc_of(l) for l in b.get("locations", [])],
                [("tests/seeded.c", "SRCROOT", 120, 3)],
                "B: native binding frame (not libownsan), relative to "
                "--source-root, with its column")
        c.equal([(l.get("id"), loc_of(l)) for l in
                 b.get("relatedLocations", [])],
                [(1, ("tests/seeded.c", "SRCROOT", 95, 3)),
                 (2, ("tests/seeded.c", "SRCROOT", 60, 10))],
                "B: free and create frames (the create skips libLLVM)")
        c.equal([l.get("id") for l in cc.get("relatedLocations", [])], [2],
                "C (free: null): only the create related location")
        c.equal([loc_of(l) for l in cc.get("locations", [])],
                [("tests/test_free.py", "SRCROOT", 17, None)],
                "C: location skips the stdlib ctypes frame and the binding")
        c.equal(results.get(E, {}).get("locations"), [],
                "E (only in an exit summary): a result without locations")
        c.equal(results.get(E, {}).get("ruleId"), "use-after-free",
                "E: its kind from the summary")

        # Without --source-root: absolute paths become file:// URIs.
        out2 = os.path.join(tmp, "plain.sarif")
        report(args.ownsan, "--sarif", out2, RUN)
        with open(out2, encoding="utf-8") as f:
            doc2 = json.load(f)
        validate(c, doc2, "fixtures/run without --source-root")
        res2 = by_id(doc2)
        c.equal([loc_of(l) for l in res2.get(B, {}).get("locations", [])],
                [("file:///home/ci/proj/tests/seeded.c", None, 120, 3)],
                "without --source-root an absolute path is a file:// URI")
        c.equal([loc_of(l) for l in res2.get(A, {}).get("locations", [])],
                [("tests/test_mod.py", None, 42, None)],
                "without --source-root a relative path stays relative")
        c.check("originalUriBaseIds" not in doc2["runs"][0],
                "without --source-root there are no uriBaseIds")

        # A clean run: a valid log with no results.
        out3 = os.path.join(tmp, "clean.sarif")
        r = report(args.ownsan, "--sarif", out3, CLEAN)
        with open(out3, encoding="utf-8") as f:
            doc3 = json.load(f)
        validate(c, doc3, "clean run")
        c.equal(doc3["runs"][0]["results"], [], "clean run: no results")

        # Paths with characters that must be percent-encoded in a URI.
        odd = os.path.join(tmp, "odd")
        os.mkdir(odd)
        frame = {"index": 0, "language": "python", "function": "f",
                 "file": "/home/ci/proj/dir with space/ü#?.py", "line": 3}
        with open(os.path.join(odd, "ownsan.5"), "w") as f:
            f.write(json.dumps({
                "ownsan_report": 1, "pid": 5, "kind": "brand-new-kind",
                "problem_id": "1111222233334444",
                "use": {"stack": [frame]}}) + "\n")
        out4 = os.path.join(tmp, "odd.sarif")
        report(args.ownsan, "--sarif", out4, "--source-root", SOURCE_ROOT,
               odd)
        with open(out4, encoding="utf-8") as f:
            doc4 = json.load(f)
        validate(c, doc4, "odd paths and an unknown kind")
        res4 = by_id(doc4).get("1111222233334444", {})
        uri = loc_of((res4.get("locations") or [{}])[0])[0]
        c.equal(uri, "dir%20with%20space/%C3%BC%23%3F.py",
                "a path with a space, non-ASCII, '#' and '?' is "
                "percent-encoded")
        c.check("brand-new-kind" in [r["id"] for r in
                                     doc4["runs"][0]["tool"]["driver"]
                                     ["rules"]],
                "a kind this version does not know still gets a rule")

        # Every kind of the kind list is a rule with the table's texts, and
        # the other thread / first_seen_in fields are carried.
        out5 = os.path.join(tmp, "race.sarif")
        r = report(args.ownsan, "--sarif", out5, RACE)
        c.equal(r.returncode, 1, "race fixture: exit 1", r)
        with open(out5, encoding="utf-8") as f:
            doc5 = json.load(f)
        validate(c, doc5, "context-race and first_seen_in")
        rules5 = doc5["runs"][0]["tool"]["driver"]["rules"]
        kinds = load_kinds(args.ownsan)
        c.equal([r_["id"] for r_ in rules5], [k["name"] for k in kinds],
                "one rule per kind of the kind list, in its order (9)")
        for k, rule in zip(kinds, rules5):
            c.check(rule.get("name") == k["id"] and
                    rule["shortDescription"]["text"] == k["meaning"] and
                    rule["fullDescription"]["markdown"] == k["details"] and
                    rule["help"]["markdown"] == k["hint"] and
                    "`" not in rule["help"]["text"] and
                    rule["defaultConfiguration"]["level"] ==
                    k["sarif_level"] and
                    rule.get("properties", {}).get("docs") ==
                    "docs/reports.md#" + k["doc_anchor"],
                    f"rule {k['name']}: name, meaning, details, hint (text "
                    "without Markdown), level and docs anchor from the kind "
                    "list", rule)
        check_tool_metadata(c, doc5, args.ownsan)
        res5 = by_id(doc5)
        race, cross = res5.get(R, {}), res5.get(X, {})
        c.equal(race.get("ruleId"), "context-race", "R: ruleId context-race")
        c.equal([(l.get("id"), loc_of(l)) for l in
                 race.get("relatedLocations", [])],
                [(2, ("mybind/builder.py", None, 12, None)),
                 (3, ("tests/test_threads.py", None, 24, None))],
                "R: related locations at the create (2) and at the other "
                "thread's call (3)")
        c.check("thread T1 is inside LLVMBuildAdd" in
                (race.get("relatedLocations") or [{}])[-1].get(
                    "message", {}).get("text", ""),
                "R: the other thread's location says what it is doing")
        flows = (race.get("codeFlows") or [{}])[0].get("threadFlows", [])
        c.equal([[loc_of(l["location"]) for l in f["locations"]]
                 for f in flows],
                [[("mybind/builder.py", None, 12, None),
                  ("tests/test_threads.py", None, 30, None)],
                 [("tests/test_threads.py", None, 24, None)]],
                "R: two thread flows: created -> used, and the other "
                "thread's call")
        c.equal(len(race.get("stacks", [])), 3,
                "R: the creation, use and other thread's stacks")
        c.equal((race.get("properties", {}).get("otherThread"),
                 race.get("properties", {}).get("otherFunction")),
                (1, "LLVMBuildAdd"), "R: properties name the other thread "
                "and its call")
        c.equal(cross.get("properties", {}).get("firstSeenIn"),
                "LLVMGetGlobalParent",
                "X (created outside the API): properties.firstSeenIn")
        c.check("otherThread" not in cross.get("properties", {}) and
                "firstSeenIn" not in race.get("properties", {}),
                "neither property where its field is null")

        check_automation_details(c, args.ownsan, tmp)

        # The schema subset itself rejects what it should (it is not vacuous).
        broken = json.loads(json.dumps(doc))
        broken["version"] = "2.0.0"
        located = [res for res in broken["runs"][0]["results"]
                   if res.get("locations")]
        located[0]["partialFingerPrints"] = {}
        del broken["runs"][0]["tool"]["driver"]["name"]
        located[1]["locations"][0]["physicalLocation"]["region"][
            "startLine"] = 0
        errs = schema_errors(broken)
        c.check(len(errs) >= 4, "the schema subset rejects a wrong version, "
                "a misspelt property, a missing driver name and line 0",
                "\n".join(errs))
        errs = structural_errors(broken)
        c.check(len(errs) >= 3, "the structural checks reject them too",
                "\n".join(errs))
    sys.exit(c.finish())


if __name__ == "__main__":
    main()
