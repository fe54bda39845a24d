# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The SARIF 2.1.0 log of `ownsan report --sarif`: a rule per kind of the
kind list, a result per problem (locations at the binding's frame, the
stacks, the created -> freed -> used code flow), the run's category and
what the runs could not check."""

import os
import re
import urllib.parse

from ownsan_frames import binding_frame
from ownsan_kinds import KINDS, KINDS_DOC, TOOL_INFO, doc_uri, kind_entry
from ownsan_text import (call_text, free_text, leak_seen, other_text, plain,
                         plural, summary_text)

TOOL_NAME = "ownsan"
SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/schemas/"
                "sarif-schema-2.1.0.json")
SARIF_FINGERPRINT = "ownsanProblemId/v1"
SRCROOT = "SRCROOT"


def sarif_artifact(path, paths):
    rel, under = paths.relative(path)
    if under or (paths.roots and not os.path.isabs(path)):
        return {"uri": urllib.parse.quote(rel, safe="/"), "uriBaseId": SRCROOT}
    if os.path.isabs(path):
        return {"uri": "file://" + urllib.parse.quote(path, safe="/")}
    return {"uri": urllib.parse.quote(path, safe="/")}


def sarif_physical(f, paths):
    loc = {"artifactLocation": sarif_artifact(f.file, paths)}
    if f.line:
        region = {"startLine": f.line}
        if f.column:
            region["startColumn"] = f.column
        loc["region"] = region
    return loc


def sarif_location(f, paths, message=None, loc_id=None):
    loc = {}
    if loc_id is not None:
        loc["id"] = loc_id
    if f is not None and f.file:
        loc["physicalLocation"] = sarif_physical(f, paths)
    if f is not None and f.function:
        loc["logicalLocations"] = [{"name": f.function, "kind": "function"}]
    if message:
        loc["message"] = {"text": message}
    return loc


def sarif_stack(title, stack, thread, paths):
    frames = []
    for f in stack:
        frame = {"location": sarif_location(f, paths)}
        if f.module:
            frame["module"] = f.module
        if thread is not None:
            frame["threadId"] = thread
        frames.append(frame)
    return {"message": {"text": title}, "frames": frames}


def kind_level(kind):
    k = kind_entry(kind)
    return k["sarif_level"] if k else "error"


def rule_for(kind):
    k = kind_entry(kind)
    if k is None:
        return {"id": kind,
                "name": "".join(w.capitalize() for w in
                                re.split(r"[^A-Za-z0-9]+", kind)) or "Problem",
                "shortDescription": {"text": f"ownsan reported {kind}."},
                "fullDescription": {
                    "text": f"ownsan reported a {kind} problem."},
                "help": {"text": "See the report's text for the objects and "
                         "stacks involved."},
                "defaultConfiguration": {"level": "error"}}
    rule = {"id": kind, "name": k["id"],
            "shortDescription": {"text": k["meaning"]},
            "fullDescription": {"text": plain(k["details"]),
                                "markdown": k["details"]},
            "help": {"text": plain(k["hint"]), "markdown": k["hint"]},
            "defaultConfiguration": {"level": k["sarif_level"]},
            "properties": {"docs": f"{KINDS_DOC}#{k['doc_anchor']}",
                           "tags": rule_tags(k)}}
    help_uri = doc_uri(KINDS_DOC, k["doc_anchor"])
    if help_uri:
        rule["helpUri"] = help_uri
    if isinstance(k.get("security_severity"), str):
        # GitHub code scanning ranks security alerts by it.
        rule["properties"]["security-severity"] = k["security_severity"]
    return rule


def rule_tags(k):
    """A kind with a security severity is a memory-safety bug; its CWE as
    code scanning spells it."""
    tags = (["security", "memory-safety"] if k.get("security_severity")
            else ["correctness"])
    if isinstance(k.get("cwe"), int):
        tags.append(f"external/cwe/cwe-{k['cwe']}")
    return tags


def automation_id(col, category):
    """runs[].automationDetails.id: one category per LLVM major, so the
    SARIF of each job of a matrix (LLVM 14, 19, ...) is its own analysis in
    code scanning instead of replacing the others'."""
    if category is None:
        majors = sorted(col.llvm_majors)
        category = ("llvm-" + "+".join(str(m) for m in majors) if majors
                    else "")
    return f"{TOOL_NAME}/{category}/" if category else f"{TOOL_NAME}/"


def build_sarif(problems, col, paths, category=None):
    kinds = list(KINDS)
    for p in problems:
        if p.kind not in kinds:
            kinds.append(p.kind)
    rules = [rule_for(k) for k in kinds]
    results = []
    for p in problems:
        rep = p.report
        result = {
            "ruleId": p.kind,
            "ruleIndex": kinds.index(p.kind),
            "level": kind_level(p.kind),
            "message": {"text": (
                f"{summary_text(p, paths)} ({p.label})" if rep is not None
                else p.summary)},
            "partialFingerprints": {SARIF_FINGERPRINT: p.problem_id},
            "properties": {
                "count": p.count,
                "processes": len(p.processes),
                "tests": list(p.tests),
                "problemId": p.problem_id,
            },
        }
        if p.leak is not None:
            leak = p.leak
            lf = binding_frame(leak.stack)
            msg = f"created by {leak.function}"
            result["message"]["text"] = f"{p.summary}: {leak_seen(p)}"
            result["locations"] = ([sarif_location(lf, paths)]
                                   if lf is not None else [])
            result["stacks"] = [sarif_stack(msg, leak.stack, leak.thread,
                                            paths)]
            props = result["properties"]
            props["objectKind"] = leak.object_kind
            if leak.handle_type:
                props["handleType"] = leak.handle_type
            props["createdBy"] = leak.function
            results.append(result)
            continue
        if rep is None:
            result["locations"] = []
            results.append(result)
            continue
        if rep.note:
            result["message"]["text"] += f". {rep.note}"
        use_f = binding_frame(rep.use.stack)
        result["locations"] = ([sarif_location(use_f, paths)]
                               if use_f is not None else [])
        related = []
        flow = []  # (frame, what happened there), in time order
        stacks = []

        def event(ev, msg, loc_id):
            """`ev`'s stack, and its binding frame as related location
            `loc_id`; returns that frame (None if it has none)."""
            frame = binding_frame(ev.stack)
            if frame is not None:
                related.append(sarif_location(frame, paths, msg, loc_id))
            stacks.append(sarif_stack(msg, ev.stack, ev.thread, paths))
            return frame

        if rep.create is not None:
            msg = f"created by {rep.create.function or '?'}"
            flow.append((event(rep.create, msg, 2), msg))
        if rep.free is not None:
            msg = f"freed by {free_text(rep.free)}"
            flow.append((event(rep.free, msg, 1), msg))
        use_msg = f"used: {call_text(rep)}"
        flow.append((use_f, use_msg))
        stacks.append(sarif_stack(use_msg, rep.use.stack, rep.use.thread,
                                  paths))
        other_flow = None
        if rep.other is not None:
            msg = f"at the same time {other_text(rep.other)}"
            other_flow = (event(rep.other, msg, 3), msg)
        related.sort(key=lambda l: l["id"])
        if related:
            result["relatedLocations"] = related
        thread_flows = [{"locations": [
            {"location": sarif_location(f, paths, msg)} for f, msg in flow]}]
        if other_flow is not None:
            # context-race: the other thread's call is a flow of its own.
            thread_flows.append({"locations": [
                {"location": sarif_location(other_flow[0], paths,
                                            other_flow[1])}]})
        result["codeFlows"] = [{
            "message": {"text": " -> ".join(
                msg.split(" ", 1)[0].rstrip(":") for _, msg in flow)},
            "threadFlows": thread_flows,
        }]
        result["stacks"] = stacks
        props = result["properties"]
        if rep.object_label:
            props["object"] = rep.object_label
        if rep.object_kind:
            props["objectKind"] = rep.object_kind
        if rep.handle_type:
            props["handleType"] = rep.handle_type
        if rep.first_seen_in:
            props["firstSeenIn"] = rep.first_seen_in
        if rep.other is not None:
            props["otherThread"] = rep.other.thread
            if rep.other.function:
                props["otherFunction"] = rep.other.function
        if rep.expected:
            props["expected"] = rep.expected
        results.append(result)
    driver = {"name": TOOL_NAME}
    if TOOL_INFO.get("tool_version"):
        driver["version"] = TOOL_INFO["tool_version"]
    home = TOOL_INFO.get("homepage") or doc_uri("README.md")
    if home:
        driver["informationUri"] = home
    driver["rules"] = rules
    run = {
        "tool": {"driver": driver},
        "automationDetails": {"id": automation_id(col, category)},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    if col.blind_spots:
        # What the runs could not check: the tool's own notifications, so a
        # viewer shows that silence did not mean "checked".
        run["invocations"] = [{
            "executionSuccessful": True,
            "toolExecutionNotifications": [
                {"level": "warning", "descriptor": {"id": what},
                 "message": {"text": f"not checked: {what} ({where}) in "
                             f"{plural(len(pids), 'process')}"},
                 "properties": {"object": where}}
                for (what, where), pids in sorted(col.blind_spots.items())]}]
    if paths.roots:
        root = paths.roots[0].rstrip("/") + "/"
        run["originalUriBaseIds"] = {
            SRCROOT: {"uri": "file://" + urllib.parse.quote(root, safe="/")}}
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}
