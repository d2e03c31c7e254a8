#!/usr/bin/env python3
"""Checks the layering of blksim's sources from their #include "..." lines (docs/layers.md).

Rules, over sim/, models/ and tools/ (test/, fuzz/ and bench/ may include anything):
  sim-leaf       sim/ includes nothing of ours outside sim/.
  blkmq-policy   models/blkmq includes no concrete scheduler (models/sched/*, except the
                 elevator interface headers models/sched/elevator*.h) and no device model
                 (models/device/*, except the driver interface models/device/device.h).
  no-formatter   no model (models/<x>, x != report) includes a formatter (models/report/*).
  folder-cycle   the folders (sim, models/<x>, tools/<x>) form no cycle: an include of a
                 folder by a folder it reaches again is printed with every include that
                 closes the loop.

Each violation is printed as "file:line: rule: what". An include listed in ALLOWED is
printed as allowed (with its reason) and does not fail the check; an ALLOWED entry that no
longer matches an include fails it, so the list only shrinks.

Usage: check-includes.py [SOURCE_DIR]   (default: the repository holding this script)
Exit status: 0 clean, 1 violations, 2 bad usage.
"""

import os
import re
import sys

ROOTS = ("sim", "models", "tools")
EXTENSIONS = (".h", ".cc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')

# (including file, included file): why the include is still there and who removes it.
ALLOWED = {
    ("models/blkmq/request_queue.cc", "models/sched/bfq.h"):
        "the scheduler factory by name; h-kinds replaces it with the scheduler descriptor list",
    ("models/blkmq/request_queue.cc", "models/sched/kyber.h"):
        "the scheduler factory by name; h-kinds replaces it with the scheduler descriptor list",
    ("models/blkmq/request_queue.cc", "models/sched/mq_deadline.h"):
        "the scheduler factory by name; h-kinds replaces it with the scheduler descriptor list",
    ("models/blkmq/queue_config.h", "models/sched/bfq_config.h"):
        "every scheduler's tunables in QueueConfig; h-kinds moves them into the scheduler descriptors",
}


def folder_of(path):
    """sim, models/<x> or tools/<x>; a file directly under models/ or tools/ is its own folder."""
    parts = path.split("/")
    if parts[0] == "sim" or len(parts) < 3:
        return parts[0] if parts[0] == "sim" else "/".join(parts[:2]).rsplit(".", 1)[0]
    return "/".join(parts[:2])


def scan(src):
    """[(file, line number, included path)] for every quoted include of ours."""
    edges = []
    for root in ROOTS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(src, root)):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(EXTENSIONS):
                    continue
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, src).replace(os.sep, "/")
                with open(full, encoding="utf-8", errors="replace") as f:
                    for no, text in enumerate(f, 1):
                        m = INCLUDE.match(text)
                        if m and m.group(1).split("/")[0] in ROOTS:
                            edges.append((rel, no, m.group(1)))
    return edges


def rule_of(f, inc):
    """The rule the include (f -> inc) breaks, or None."""
    ff, fi = folder_of(f), folder_of(inc)
    if ff == "sim" and fi != "sim":
        return "sim-leaf", "sim/ includes " + inc
    if ff == "models/blkmq":
        name = inc.split("/")[-1]
        if fi == "models/sched" and not name.startswith("elevator"):
            return "blkmq-policy", "blk-mq includes the scheduler header " + inc
        if fi == "models/device" and inc != "models/device/device.h":
            return "blkmq-policy", "blk-mq includes the device header " + inc
    if ff.startswith("models/") and ff != "models/report" and fi == "models/report":
        return "no-formatter", "a model includes the formatter " + inc
    return None


def cycles(edges):
    """Strongly connected components (of more than one folder) of the folder graph."""
    graph = {}
    for f, _, inc in edges:
        a, b = folder_of(f), folder_of(inc)
        if a != b:
            graph.setdefault(a, set()).add(b)
            graph.setdefault(b, set())
    index, low, stack, on_stack, comps = {}, {}, [], set(), []

    def visit(v):  # Tarjan; the graph has a few dozen nodes, recursion is fine
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


def main(argv):
    if len(argv) > 2:
        print("usage: check-includes.py [SOURCE_DIR]", file=sys.stderr)
        return 2
    src = argv[1] if len(argv) == 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not all(os.path.isdir(os.path.join(src, r)) for r in ROOTS):
        print(f"check-includes.py: {src} has no sim/, models/ and tools/", file=sys.stderr)
        return 2
    edges = scan(src)
    used = set()
    bad, allowed = [], []

    def report(f, no, inc, rule, what):
        if (f, inc) in ALLOWED:
            used.add((f, inc))
            allowed.append(f"{f}:{no}: {rule}: {what} (allowed: {ALLOWED[(f, inc)]})")
        else:
            bad.append(f"{f}:{no}: {rule}: {what}")

    for f, no, inc in edges:
        r = rule_of(f, inc)
        if r:
            report(f, no, inc, *r)
    # Allowed includes are left out of the folder graph: a cycle they alone close is theirs.
    live = [(f, no, inc) for f, no, inc in edges if (f, inc) not in ALLOWED]
    for comp in cycles(live):
        names = " <-> ".join(sorted(comp))
        for f, no, inc in live:
            if folder_of(f) in comp and folder_of(inc) in comp and folder_of(f) != folder_of(inc):
                report(f, no, inc, "folder-cycle",
                       f"{folder_of(f)} -> {folder_of(inc)} closes the cycle {names}")
    for f, no, inc in edges:  # allowed includes on a cycle of their own
        if (f, inc) in ALLOWED and (f, inc) not in used:
            a, b = folder_of(f), folder_of(inc)
            if a != b and any(a in c and b in c for c in cycles(live + [(f, no, inc)])):
                used.add((f, inc))
                allowed.append(f"{f}:{no}: folder-cycle: {a} -> {b} "
                               f"(allowed: {ALLOWED[(f, inc)]})")
    for f, inc in sorted(set(ALLOWED) - used):
        bad.append(f"{f}: stale allowance: no longer includes {inc} against a rule; "
                   "remove it from ALLOWED")
    for line in allowed:
        print(line)
    for line in bad:
        print(line)
    print(f"check-includes: {len(edges)} includes, {len(bad)} violation(s), {len(allowed)} allowed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
