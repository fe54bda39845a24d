# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Helpers shared by the tests/report drivers (`ownsan report`).

Each driver takes `--ownsan PATH` (the built CLI), runs `ownsan report` on
the hand-written JSON Lines files in fixtures/, records one named check per
assertion in a Checker (tests/lib/ownsan_testing.py), and ends with
`sys.exit(checker.finish())`, which prints the final "N passed, M failed"
line and returns non-zero on failure.

Fixtures (tests/report/fixtures/), what each is for:
  run/ownsan.1001       use-after-free A (Python frames), exit summary count 3
  run/ownsan.1002       A again (summary count 2, another test), invalid-free
                        C (free: null), malformed lines 2, 3, 4 and 8, an
                        unknown record type (line 5) and unknown fields
  run/ownsan.1003       A again, no summary (halt_on_error): counted once
  run/native/ownsan.2001  double-free B, native frames only, HTML-special
                        characters in the module name
  run/README.txt        not named ownsan.* and holds no ownsan record:
                        skipped without a warning
  summary_only/ownsan.4001  dangling-insertion-point D with a related
                        object; a problem E known only from the summary; a
                        second process segment after the summary (same pid);
                        suppressions; a partly malformed summary
  clean/ownsan.3001     the exit summary of a process that reported
                        nothing (what a clean run with log_path leaves)
  race/ownsan.6001      context-race R (the other thread's call in `other`)
                        and cross-context X on an object created outside the
                        LLVM-C API (`create` null, `first_seen_in`), counted
                        twice
"""

import argparse
import importlib.util
import json
import os
import struct
import sys
import zlib

from ownsan_testing import run

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
RUN = os.path.join(FIXTURES, "run")
SUMMARY_ONLY = os.path.join(FIXTURES, "summary_only")
CLEAN = os.path.join(FIXTURES, "clean")
RACE = os.path.join(FIXTURES, "race")
SOURCE_ROOT = "/home/ci/proj"  # where the native fixture's sources were

# The problems of fixtures/run and fixtures/summary_only.
A = "3f9c2a7d5e1b4c80"  # use-after-free, python
B = "9e01d2c3b4a59687"  # double-free, native
C = "c0de5eed0badf00d"  # invalid-free, no free section
D = "00d1ce0000000042"  # dangling-insertion-point
E = "e0e0e0e0e0e0e0e0"  # only in an exit summary
R = "7ace00007ace0001"  # context-race (fixtures/race)
X = "c1c1c1c1c1c1c1c1"  # cross-context, created outside the API

LABEL_A = 'instruction %sum in block %entry of function @foo in module "m"'
LABEL_B = "module \"<script>alert('m&1')</script>\""
LABEL_C = 'instruction %tmp in block %entry of function @bar in module "m2"'
SUMMARY_A = "use-after-free in LLVMGetValueName2 mybind/core.py:88 in name"
SUMMARY_B = ("double-free in LLVMDisposeModule "
             "/home/ci/proj/tests/seeded.c:120:3 in teardown")
SUMMARY_C = ("invalid-free in LLVMDeleteInstruction mybind/core.py:120 in "
             "delete")


def parse_args(doc):
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    p.add_argument("--ownsan", required=True, help="the built ownsan CLI")
    return p.parse_args()


def report(ownsan, *args, timeout=120):
    """Runs `ownsan report ARGS...`."""
    return run([ownsan, "report"] + [str(a) for a in args], timeout=timeout)


def script_path(ownsan):
    """share/ownsan/ownsan_report.py next to the CLI's bin/."""
    return os.path.normpath(os.path.join(
        os.path.dirname(os.path.realpath(ownsan)), "..", "share", "ownsan",
        "ownsan_report.py"))


def kinds_path(ownsan):
    """share/ownsan/error_kinds.json: the kind list the script reads."""
    return os.path.join(os.path.dirname(script_path(ownsan)),
                        "error_kinds.json")


def load_kinds(ownsan):
    """The kinds of that list, in order (each a dict: name, id, meaning,
    details, hint, sarif_level, doc_anchor, call_harm)."""
    with open(kinds_path(ownsan), encoding="utf-8") as f:
        return json.load(f)["kinds"]


def load_module(ownsan, name):
    """A module of the installed report tool (share/ownsan/NAME.py, e.g.
    ownsan_html for its colour table), with its directory on sys.path as
    ownsan_report.py puts it, for the modules it imports."""
    share = os.path.dirname(script_path(ownsan))
    if share not in sys.path:
        sys.path.append(share)
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(share, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# --- PNG decoding with zlib (standard library only) --------------------------

class PNG:
    def __init__(self, width, height, channels, rows):
        self.width = width
        self.height = height
        self.channels = channels
        self.rows = rows  # list of bytes, one per row, unfiltered

    def pixel(self, x, y):
        row = self.rows[y]
        i = x * self.channels
        return row[i], row[i + 1], row[i + 2]


class PNGError(Exception):
    pass


def read_png(path):
    """Decodes an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium
    writes); checks the signature and every chunk's CRC."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise PNGError("not a PNG (bad signature)")
    pos = 8
    ihdr = None
    idat = []
    while pos < len(data):
        if pos + 8 > len(data):
            raise PNGError("truncated chunk header")
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        if zlib.crc32(ctype + body) & 0xffffffff != crc:
            raise PNGError(f"bad CRC in chunk {ctype!r}")
        if ctype == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif ctype == b"IDAT":
            idat.append(body)
        elif ctype == b"IEND":
            break
        pos += 12 + length
    if ihdr is None:
        raise PNGError("no IHDR chunk")
    width, height, depth, color, _, _, interlace = ihdr
    if depth != 8 or color not in (2, 6) or interlace != 0:
        raise PNGError(f"unsupported PNG: depth {depth}, colour type {color},"
                       f" interlace {interlace}")
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    if len(raw) != height * (stride + 1):
        raise PNGError("image data has the wrong size")
    rows = []
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        ftype = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        if ftype == 1:  # Sub
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xff
        elif ftype == 2:  # Up
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xff
        elif ftype == 3:  # Average
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xff
        elif ftype == 4:  # Paeth
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b = prev[i]
                c = prev[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                if pa <= pb and pa <= pc:
                    pred = a
                elif pb <= pc:
                    pred = b
                else:
                    pred = c
                line[i] = (line[i] + pred) & 0xff
        elif ftype != 0:
            raise PNGError(f"bad filter type {ftype} in row {y}")
        rows.append(bytes(line))
        prev = line
    return PNG(width, height, channels, rows)


def hex_rgb(color):
    color = color.lstrip("#")
    return tuple(int(color[i:i + 2], 16) for i in (0, 2, 4))


def find_color(png, rgb, tolerance=3):
    """(count, min_x, max_x, min_y, max_y, mean_x, mean_y) of the pixels
    within `tolerance` of rgb in every channel; count 0 when none."""
    r0, g0, b0 = rgb
    n = sx = sy = 0
    min_x = min_y = 1 << 30
    max_x = max_y = -1
    ch = png.channels
    for y, row in enumerate(png.rows):
        rs, gs, bs = row[0::ch], row[1::ch], row[2::ch]
        for x in range(png.width):
            if (abs(rs[x] - r0) <= tolerance and abs(gs[x] - g0) <= tolerance
                    and abs(bs[x] - b0) <= tolerance):
                n += 1
                sx += x
                sy += y
                min_x = min(min_x, x)
                max_x = max(max_x, x)
                min_y = min(min_y, y)
                max_y = max(max_y, y)
    if not n:
        return (0, None, None, None, None, None, None)
    return (n, min_x, max_x, min_y, max_y, sx / n, sy / n)


def count_in_box(png, rgb, box, tolerance=3):
    """Pixels near rgb inside box = (x0, x1, y0, y1), inclusive."""
    x0, x1, y0, y1 = box
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(png.width - 1, x1), min(png.height - 1, y1)
    n = 0
    for y in range(y0, y1 + 1):
        for x in range(x0, x1 + 1):
            p = png.pixel(x, y)
            if all(abs(p[i] - rgb[i]) <= tolerance for i in range(3)):
                n += 1
    return n
