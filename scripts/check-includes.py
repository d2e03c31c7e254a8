#!/usr/bin/env python3
"""Checks the layering of blksim's sources from their #include "..." lines (docs/architecture.md, "The include graph").

Rules, over sim/, models/ and tools/ (test/, fuzz/ and bench/ may include anything):
  sim-leaf       sim/ includes nothing of ours outside sim/.
  blkmq-policy   models/blkmq includes no concrete scheduler (models/sched/*) and no device
                 model (models/device/*), only their interfaces (INTERFACES).
  no-formatter   no model (models/<x>, x != report) includes a formatter (models/report/*).
  folder-cycle   the folders (sim, models/<x>, tools/<x>) form no cycle: an include of a
                 folder by a folder it reaches again is printed with every include that
                 closes the loop. An interface header counts in the folder of the layer that
                 calls it (INTERFACES): blk-mq defines the elevator's and the driver's
                 contracts, as the kernel's block/elevator.h and include/linux/blk-mq.h do,
                 and the policies implementing them live beside them.

Each violation is printed as "file:line: rule: what". An include listed in ALLOWED is
printed as allowed (with its reason) and does not fail the check; an ALLOWED entry that no
longer matches an include fails it, so the list only shrinks.

Usage: check-includes.py [SOURCE_DIR]   (default: the repository holding this script)
       check-includes.py --self-test   (each rule fires on a small tree that breaks it)
Exit status: 0 clean, 1 violations, 2 bad usage.
"""

import fnmatch
import os
import re
import sys

ROOTS = ("sim", "models", "tools")
EXTENSIONS = (".h", ".cc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')

# Interface headers (patterns) kept beside their implementations, and the folder of the
# layer that calls them, whose folder they count in.
INTERFACES = {
    "models/sched/elevator*.h": "models/blkmq",   # the elevator's operations (elevator_mq_ops)
    "models/sched/scheduler_kind.h": "models/blkmq",  # how a queue builds its elevator (elevator_type)
    "models/device/device.h": "models/blkmq",     # the driver's operations (blk_mq_ops)
}

# (including file, included file): why the include is still there and who removes it.
ALLOWED = {}


def interface_of(path):
    """The calling layer's folder when `path` is an interface header, else None."""
    for pattern, folder in INTERFACES.items():
        if fnmatch.fnmatchcase(path, pattern):
            return folder
    return None


def folder_of(path):
    """sim, models/<x> or tools/<x>; a file directly under models/ or tools/ is its own folder."""
    owner = interface_of(path)
    if owner:
        return owner
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
    if f.startswith("models/blkmq/"):
        if fi == "models/sched":
            return "blkmq-policy", "blk-mq includes the scheduler header " + inc
        if fi == "models/device":
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


def check(src, allowances):
    """(violations, allowed lines, number of includes) of the tree at `src`."""
    edges = scan(src)
    used = set()
    bad, allowed = [], []

    def report(f, no, inc, rule, what):
        if (f, inc) in allowances:
            used.add((f, inc))
            allowed.append(f"{f}:{no}: {rule}: {what} (allowed: {allowances[(f, inc)]})")
        else:
            bad.append(f"{f}:{no}: {rule}: {what}")

    for f, no, inc in edges:
        r = rule_of(f, inc)
        if r:
            report(f, no, inc, *r)
    # Allowed includes are left out of the folder graph: a cycle they alone close is theirs.
    live = [(f, no, inc) for f, no, inc in edges if (f, inc) not in allowances]
    for comp in cycles(live):
        names = " <-> ".join(sorted(comp))
        for f, no, inc in live:
            if folder_of(f) in comp and folder_of(inc) in comp and folder_of(f) != folder_of(inc):
                report(f, no, inc, "folder-cycle",
                       f"{folder_of(f)} -> {folder_of(inc)} closes the cycle {names}")
    for f, no, inc in edges:  # allowed includes on a cycle of their own
        if (f, inc) in allowances and (f, inc) not in used:
            a, b = folder_of(f), folder_of(inc)
            if a != b and any(a in c and b in c for c in cycles(live + [(f, no, inc)])):
                used.add((f, inc))
                allowed.append(f"{f}:{no}: folder-cycle: {a} -> {b} "
                               f"(allowed: {allowances[(f, inc)]})")
    for f, inc in sorted(set(allowances) - used):
        bad.append(f"{f}: stale allowance: no longer includes {inc} against a rule; "
                   "remove it from ALLOWED")
    return bad, allowed, len(edges)


def self_test():
    """Each rule fires on a small tree that breaks it, with its file:line; a clean tree passes."""
    import tempfile
    tree = {
        "sim/a.h": '#include "sim/b.h"\n',
        "sim/b.h": '#include "models/x/x.h"\n',                            # sim-leaf
        "models/x/x.h": "\n",
        "models/blkmq/q.cc": '#include "models/sched/elevator.h"\n'
                             '#include "models/sched/kyber.h"\n'            # blkmq-policy
                             '#include "models/device/device.h"\n'
                             '#include "models/device/nvme.h"\n',           # blkmq-policy
        "models/sched/elevator.h": '#include "models/blkmq/request.h"\n',
        "models/sched/kyber.h": '#include "models/sched/elevator.h"\n',
        "models/device/device.h": '#include "models/blkmq/request.h"\n',
        "models/device/nvme.h": '#include "models/blkmq/request.h"\n',
        "models/blkmq/request.h": "\n",
        "models/workload/j.h": '#include "models/report/fmt.h"\n',          # no-formatter
        "models/report/fmt.h": '#include "models/workload/k.h"\n',          # cycle
        "models/workload/k.h": "\n",
        "tools/t/t.cc": '#include "models/report/fmt.h"\n',
    }
    want = [
        "sim/b.h:1: sim-leaf",
        "models/blkmq/q.cc:2: blkmq-policy",
        "models/blkmq/q.cc:4: blkmq-policy",
        # blk-mq's interfaces count in blk-mq: a concrete policy it includes closes a cycle
        "models/blkmq/q.cc:2: folder-cycle",
        "models/blkmq/q.cc:4: folder-cycle",
        "models/sched/kyber.h:1: folder-cycle",
        "models/device/nvme.h:1: folder-cycle",
        "models/workload/j.h:1: no-formatter",
        "models/workload/j.h:1: folder-cycle",
        "models/report/fmt.h:1: folder-cycle",
    ]
    with tempfile.TemporaryDirectory() as d:
        for path, text in tree.items():
            os.makedirs(os.path.join(d, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(d, path), "w", encoding="utf-8") as f:
                f.write(text)
        bad, _, _ = check(d, {})
        missing = [w for w in want if not any(b.startswith(w) for b in bad)]
        extra = [b for b in bad if not any(b.startswith(w) for w in want)]
        # Allowing the two includes of the cycle clears it and the formatter rule; an
        # allowance matching nothing is stale.
        allow = {("models/workload/j.h", "models/report/fmt.h"): "test",
                 ("models/x/x.h", "sim/a.h"): "test"}
        bad2, allowed2, _ = check(d, allow)
        ok2 = (not any(b.startswith("models/workload/j.h") or b.startswith("models/report/fmt.h")
                       for b in bad2)
               and any("stale allowance" in b and b.startswith("models/x/x.h") for b in bad2)
               and len(allowed2) == 1)
    if missing or extra or not ok2:
        print("check-includes self-test failed: missing", missing, "unexpected", extra,
              "allowances", "ok" if ok2 else "wrong", file=sys.stderr)
        return 1
    print("check-includes self-test: every rule fires")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) > 2:
        print("usage: check-includes.py [SOURCE_DIR | --self-test]", file=sys.stderr)
        return 2
    src = argv[1] if len(argv) == 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not all(os.path.isdir(os.path.join(src, r)) for r in ROOTS):
        print(f"check-includes.py: {src} has no sim/, models/ and tools/", file=sys.stderr)
        return 2
    bad, allowed, n = check(src, ALLOWED)
    for line in allowed + bad:
        print(line)
    print(f"check-includes: {n} includes, {len(bad)} violation(s), {len(allowed)} allowed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
