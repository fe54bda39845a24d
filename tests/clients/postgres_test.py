#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""PostgreSQL's JIT gives the same answers under ownsan, and ownsan checked
every process that compiled.

Debian 12's PostgreSQL 15 compiles expressions and tuple deforming with
libLLVM-14's C API (llvmjit.so, loaded by each backend that JIT-compiles).
The test starts a throw-away server twice, plain and under `ownsan run`
(verbosity=1), with JIT forced on for every query (its cost thresholds at
0) and parallel query forced too: the postmaster forks the parallel
workers inside its SIGUSR1 handler, so they live their whole life in a
signal handler. It runs the same queries on both and requires: the same
results, no OwnSan line but the statistics in the server's log, and that
every process which loaded libLLVM had its calls checked (a work line
with checked calls), parallel workers included.

The server refuses to run as root: as root, everything runs as the
`postgres` user (Debian's package creates it), in a directory it owns.

Usage: postgres_test.py --ownsan BUILD/bin/ownsan [--bindir /usr/lib/postgresql/15/bin]
"""
import argparse
import os
import pathlib
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
import time

from ownsan_testing import (Checker, checked_calls, clean_env,
                            ownsan_problems, run)

QUERIES = """
set jit = on;
set jit_above_cost = 0;
set jit_inline_above_cost = 0;
set jit_optimize_above_cost = 0;
set parallel_setup_cost = 0;
set parallel_tuple_cost = 0;
set min_parallel_table_scan_size = 0;
set max_parallel_workers_per_gather = 2;
create table t as select g as id, g % 7 as k, md5(g::text) as s,
  (g * 1.5)::numeric as n, now() - (g || ' minutes')::interval as ts
  from generate_series(1, 60000) g;
analyze t;
select k, count(*), sum(id), avg(n)::numeric(20,4), max(s) from t group by k
  order by k;
select case when id % 3 = 0 then 'a' when id % 3 = 1 then 'b' else 'c' end,
  count(*), sum(length(s)) from t where id between 100 and 50000 group by 1
  order by 1;
select count(*), sum(a.id) from t a join t b on a.id = b.id + 1
  where b.k = 3;
with recursive r(n) as (select 1 union all select n + 1 from r where n < 2000)
  select sum(n), count(*) from r;
select count(*) from t where exists (select 1 from t u where u.id = t.id * 2
  and u.k = 1);
select date_trunc('hour', ts) < now(), count(*) from t group by 1;
select lower(upper(s)) like '%ab%', count(*) from t group by 1 order by 1;
"""


def as_server_user():
    """(uid, gid) to run the server as, or None to stay who we are."""
    if os.getuid() != 0:
        return None
    pw = pwd.getpwnam("postgres")
    return pw.pw_uid, pw.pw_gid


def demote(ids):
    if ids is None:
        return None

    def f():
        os.setgid(ids[1])
        os.setuid(ids[0])
    return f


def one_server(args, root, ids, under_ownsan, c, label):
    """Runs the queries on a fresh server; returns (psql Run, server log)."""
    data = root / "data"
    pre = demote(ids)
    env = clean_env(OWNSAN_OPTIONS="verbosity=1", LC_ALL="C.UTF-8")
    r = run([args.bindir / "initdb", "-D", data, "-A", "trust", "-U",
             "postgres", "--no-sync"], env=env, cwd=root, preexec_fn=pre,
            timeout=300)
    if not c.equal(r.returncode, 0, f"{label}: initdb", r):
        return None, ""
    server = [args.bindir / "postgres", "-D", data, "-k", root, "-p",
              "54329", "-c", "listen_addresses=", "-c", "fsync=off",
              "-c", "max_parallel_workers=4"]
    if under_ownsan:
        server = [args.ownsan, "run", "--"] + server
    log = root / "server.log"
    # The server runs in the background: its stderr (with ownsan's lines)
    # goes to the log; run() below waits for psql only.
    with open(log, "wb") as out:
        srv = subprocess.Popen([str(x) for x in server], env=env, cwd=root,
                               stdout=out, stderr=subprocess.STDOUT,
                               preexec_fn=pre, start_new_session=True)
    try:
        psql = [args.bindir / "psql", "-X", "-q", "-A", "-h", root, "-p",
                "54329", "-U", "postgres", "-d", "postgres",
                "-v", "ON_ERROR_STOP=1"]
        for _ in range(300):
            if run(psql + ["-c", "select 1"], env=env, preexec_fn=pre,
                   timeout=60).returncode == 0:
                break
            time.sleep(0.1)
        q = run(psql + ["-f", "-"], env=env, preexec_fn=pre,
                input=QUERIES.encode(), timeout=900)
    finally:
        run([args.bindir / "pg_ctl", "-D", data, "stop", "-m", "fast",
             "-w"], env=env, preexec_fn=pre, timeout=300)
        try:
            srv.wait(timeout=120)
        except subprocess.TimeoutExpired:
            srv.kill()
    return q, log.read_text(errors="replace")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ownsan", required=True)
    ap.add_argument("--bindir", default="/usr/lib/postgresql/15/bin",
                    type=pathlib.Path)
    args = ap.parse_args()
    c = Checker("clients.postgres")
    ids = as_server_user()
    results = {}
    with tempfile.TemporaryDirectory(prefix="ownsan-pg-") as tmp:
        for mode in ("plain", "ownsan"):
            root = pathlib.Path(tmp) / mode
            root.mkdir()
            if ids is not None:
                os.chown(tmp, ids[0], ids[1])
                os.chown(root, ids[0], ids[1])
            results[mode] = one_server(args, root, ids, mode == "ownsan", c,
                                       mode)
            shutil.rmtree(root / "data", ignore_errors=True)
    (plain, _), (under, log) = results["plain"], results["ownsan"]
    if plain is None or under is None:
        return c.finish()
    if not c.equal(plain.returncode, 0, "the queries run without ownsan",
                   plain):
        return c.finish()
    c.equal(under.returncode, 0, "and under ownsan", under)
    c.check(plain.out.count("\n") > 10 and under.out == plain.out,
            f"the same {plain.out.count(chr(10))} lines of results under "
            "ownsan", under)
    checked = checked_calls(log)
    # A parallel worker that starts once the leader has done the work loads
    # libLLVM and makes no call: ownsan's blind-spot warning says so (it
    # cannot tell no call from calls made past it). Only there is it
    # expected.
    idle = {pid for pid, n in checked.items() if n == 0}
    no_call = re.compile(r"^==(\d+)==WARNING: OwnSan: \S+ was loaded but the "
                         r"program made no LLVM-C call")
    problems = [line for line in ownsan_problems(log)
                if not ((m := no_call.match(line)) and int(m[1]) in idle)]
    c.equal(problems, [], "no report or note in the server's log", log)
    loaded = {int(pid) for pid in re.findall(r"==(\d+)==OwnSan: using ", log)}
    c.check(len(loaded) >= 3, f"libLLVM was loaded by the backend and the "
            f"parallel workers ({len(loaded)} processes)", log)
    unchecked = sorted(pid for pid in loaded if checked.get(pid, 0) == 0)
    c.equal(unchecked, [], "every process that loaded libLLVM had its calls "
            "checked", log)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
