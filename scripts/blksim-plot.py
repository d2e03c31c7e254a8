#!/usr/bin/python3
"""Plots of blksim's output (docs/plots.md). Each subcommand writes PNGs and prints one line
per PNG on stdout: PATH<TAB>WIDTHxHEIGHT<TAB>TITLE.

    blksim-plot.py cdf RUN.json            latency CDF per job, direction and priority class
                                           (fio json+ clat bins: --output-format json+, or fio's own)
    blksim-plot.py timeline FILE...        IOPS and completion latency over time, from fio logs
                                           (NAME_iops.N.log, NAME_clat.N.log, NAME_lat.N.log) or
                                           a blksim --timeseries CSV
    blksim-plot.py depth SERIES.csv        requests in flight, tags in use, scheduler and
                                           dispatch lists over time (blksim --timeseries)
    blksim-plot.py stages RUN.json         btt's stages Q2G G2I I2D D2C and Q2C per queue
                                           (blksim --output-format json or json+)
    blksim-plot.py sweep SWEEP.json|.csv   a metric against a swept parameter, one line per
                                           value of the others (blksim sweep --json / --csv)
    blksim-plot.py all [--json RUN.json] [--timeseries SERIES.csv] [--logs FILE...] -o DIR
                                           every plot those inputs allow (what blksim report uses)

-o names the PNG (a directory for `all` and `sweep`). Bad input exits 2 with one message
naming the file and what was expected. Needs python3-matplotlib (scripts/setup.sh installs it).
"""
import argparse
import csv
import json
import math
import os
import re
import sys

# Every figure is WIDTH inches wide at DPI: 1000 pixels. Heights depend on the panels.
WIDTH, DPI = 10.0, 100
PRIO_CLASSES = {0: "none", 1: "RT", 2: "BE", 3: "IDLE"}
STAGES = ["q2g", "g2i", "i2d", "d2c"]
LOG_NAME = re.compile(r"_(lat|clat|slat|bw|iops)\.(\d+)\.log$")


class BadInput(Exception):
    pass


def fail(msg):
    print(f"blksim-plot: {msg}", file=sys.stderr)
    sys.exit(2)


def pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("needs matplotlib for this Python (apt-get install python3-matplotlib; run it with /usr/bin/python3)")
    return plt


def save(fig, path, title):
    """Writes the figure at a fixed size (no tight bbox: the PNG is exactly the figure's size)."""
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    fig.tight_layout()
    w, h = fig.get_size_inches()
    try:
        fig.savefig(path, dpi=DPI)
    except OSError as e:
        fail(f"{path}: cannot write: {e.strerror}")
    pyplot().close(fig)
    print(f"{path}\t{round(w * DPI)}x{round(h * DPI)}\t{title}")


def open_input(path):
    try:
        return open(path, newline="")
    except OSError as e:
        raise BadInput(f"{path}: cannot open: {e.strerror}")


def read_json(path):
    with open_input(path) as f:
        try:
            return json.load(f)
        except ValueError as e:
            raise BadInput(f"{path}: not JSON ({e})")


def read_csv(path, first, expected):
    """(header, [(line number, row)]) of a CSV file whose header starts with `first`; every row
    has the header's number of fields."""
    with open_input(path) as f:
        r = csv.reader(f)
        header = next(r, None)
        if not header or header[0] != first or len(header) < 2:
            raise BadInput(f"{path}:1: expected the header of {expected}")
        rows = []
        for n, row in enumerate(r, start=2):
            if len(row) != len(header):
                raise BadInput(f"{path}:{n}: {len(row)} fields, the header has {len(header)}")
            rows.append((n, row))
    return header, rows


def pick_unit(max_ns):
    """The time unit that keeps the axis numbers readable."""
    for name, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if max_ns >= 10 * scale:
            return name, scale
    return "ns", 1.0


# --- cdf: latency CDF per priority class from json+ bins ------------------------------------

def cdf_of_bins(bins, where):
    if not isinstance(bins, dict):
        raise BadInput(f"{where}: \"bins\" is not an object")
    pts = []
    for k, n in bins.items():
        try:
            pts.append((int(k), int(n)))
        except (TypeError, ValueError):
            raise BadInput(f"{where}: bin {k!r}: {n!r} is not 'latency_ns' : count")
    pts.sort()
    total = sum(n for _, n in pts)
    if total <= 0:
        return None
    xs, ys, acc = [], [], 0
    for v, n in pts:
        acc += n
        xs.append(v)
        ys.append(acc / total)
    return xs, ys, total


def clat_curves(doc, path):
    """(label, xs, ys, N, is_prio) for every job (or group), direction and priority with bins."""
    if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), list):
        raise BadInput(f"{path}: no \"jobs\" array: expected fio's or blksim's JSON report")
    curves = []
    for ji, job in enumerate(doc["jobs"]):
        name = job.get("jobname", f"job {ji}")
        for ddir in ("read", "write"):
            d = job.get(ddir)
            if not isinstance(d, dict):
                continue
            where = f"{path}: /jobs/{ji}/{ddir}"
            clat = d.get("clat_ns", {})
            if "bins" in clat:
                c = cdf_of_bins(clat["bins"], where + "/clat_ns")
                if c:
                    curves.append((f"{name} {ddir}", *c, False))
            for pi, p in enumerate(d.get("prios", []) or []):
                pc = p.get("clat_ns", {})
                if "bins" not in pc:
                    continue
                c = cdf_of_bins(pc["bins"], f"{where}/prios/{pi}/clat_ns")
                if c:
                    cls = p.get("prioclass", 0)
                    label = f"{name} {ddir} prio {cls}/{p.get('prio', 0)} ({PRIO_CLASSES.get(cls, '?')})"
                    curves.append((label, *c, True))
    if not curves:
        raise BadInput(f"{path}: no completion-latency bins: run blksim (or fio) with --output-format json+")
    return curves


def plot_cdf(doc, path, out):
    curves = clat_curves(doc, path)
    plt = pyplot()
    fig, (ax, tail) = plt.subplots(1, 2, figsize=(WIDTH, 4.8))
    unit, scale = pick_unit(max(max(c[1]) for c in curves))
    for label, xs, ys, n, is_prio in curves:
        style = dict(linestyle="--" if is_prio else "-", linewidth=1.2 if is_prio else 1.8)
        # A curve starts at 0 just below its first bin, so that one bin (every I/O alike)
        # is a vertical step and not a lone point.
        x = [xs[0] / scale] + [v / scale for v in xs]
        y = [0.0] + ys
        ax.step(x, y, where="post", label=f"{label} (N={n})", **style)
        # The tail: the fraction of I/Os slower than x, on a log scale (p99 at 1e-2, p99.9 at 1e-3);
        # the last bin (nothing slower) has no place on it.
        t = [1.0 - v for v in y]
        tx, ty = [a for a, b in zip(x, t) if b > 0], [b for b in t if b > 0]
        tail.step(tx, ty, where="post", marker="o" if len(tx) == 1 else None, **style)
    ax.set_xscale("log")
    ax.set_ylim(0, 1.01)
    ax.set_xlabel(f"completion latency ({unit})")
    ax.set_ylabel("fraction of I/Os")
    ax.set_title("clat CDF (fio json+ bins)")
    tail.set_xscale("log")
    tail.set_yscale("log")
    tail.set_ylim(top=1.5)
    tail.set_xlabel(f"completion latency ({unit})")
    tail.set_ylabel("fraction slower (1 - CDF)")
    tail.set_title("tail")
    for a in (ax, tail):
        a.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    save(fig, out, "Completion latency CDF per job, direction and priority class")


# --- timeline: IOPS and latency over time ---------------------------------------------------

def read_fio_log(path):
    m = LOG_NAME.search(os.path.basename(path))
    if not m:
        raise BadInput(f"{path}: not a fio log name (NAME_iops.N.log, NAME_clat.N.log, NAME_lat.N.log, NAME_bw.N.log)")
    rows = []
    with open_input(path) as f:
        for n, line in enumerate(f, start=1):
            if not line.strip():
                continue
            fields = [x.strip() for x in line.split(",")]
            try:
                if len(fields) < 4:
                    raise ValueError
                rows.append((int(fields[0]), int(fields[1]), int(fields[2]), int(fields[3])))
            except ValueError:
                raise BadInput(f"{path}:{n}: expected fio's 'time, value, ddir, bs[, offset], prio', found {line.strip()!r}")
    return m.group(1), int(m.group(2)), rows


def bin_width_ms(rows_lists):
    end = max((r[0] for rows in rows_lists for r in rows), default=0)
    return max(1, int(math.ceil(end / 200)))


def iops_series(logs):
    """Per direction: (times s, IOPS) summed over the jobs' iops logs."""
    per_io = any(r[3] != 0 for _, rows in logs for r in rows)  # log_avg_msec logs have bs 0
    out = {}
    if per_io:  # one line per I/O: count them in windows
        w = bin_width_ms([rows for _, rows in logs])
        for _, rows in logs:
            for t, _, ddir, _ in rows:
                k = (ddir, t // w)
                out[k] = out.get(k, 0) + 1
        res = {}
        for (ddir, b), n in out.items():
            res.setdefault(ddir, {})[(b + 1) * w] = n * 1000.0 / w
    else:  # window samples stamped at the window's end: add the jobs up
        res = {}
        for _, rows in logs:
            for t, v, ddir, _ in rows:
                d = res.setdefault(ddir, {})
                d[t] = d.get(t, 0) + v
    return {ddir: ([t / 1000.0 for t in sorted(d)], [d[t] for t in sorted(d)]) for ddir, d in res.items()}


def lat_series(logs):
    """Per direction: (times s, mean latency ns) over all jobs' samples in each window."""
    w = bin_width_ms([rows for _, rows in logs])
    acc = {}
    for _, rows in logs:
        for t, v, ddir, _ in rows:
            s = acc.setdefault(ddir, {}).setdefault(t // w, [0.0, 0])
            s[0] += v
            s[1] += 1
    return {ddir: ([(b + 0.5) * w / 1000.0 for b in sorted(d)], [d[b][0] / d[b][1] for b in sorted(d)])
            for ddir, d in acc.items()}


def read_series(path):
    """blksim --timeseries: (header, rows as lists of floats or None for empty cells)."""
    header, lines = read_csv(path, "time_ns", "blksim --timeseries (time_ns,<disk>:in_flight,...)")
    rows = []
    for n, row in lines:
        try:
            rows.append([float(x) if x != "" else None for x in row])
        except ValueError:
            raise BadInput(f"{path}:{n}: expected numbers, found {row!r}")
    if not rows:
        raise BadInput(f"{path}: no samples (the run was shorter than one --timeseries-interval?)")
    return header, rows


def series_queues(header):
    """Queue name -> {column name: index}, in header order."""
    q = {}
    for i, h in enumerate(header[1:], start=1):
        disk, sep, col = h.rpartition(":")
        if not sep:
            raise BadInput(f"column {h!r} is not <disk>:<name>")
        q.setdefault(disk, {})[col] = i
    return q


def is_series(path):
    with open_input(path) as f:
        return f.readline().startswith("time_ns,")


def plot_timeline(files, out):
    fio = {"iops": [], "lat": [], "clat": []}
    series = []
    for p in files:
        if is_series(p):
            series.append((p, *read_series(p)))
            continue
        kind, num, rows = read_fio_log(p)
        if kind in fio:
            fio[kind].append((num, rows))
    lat_logs = fio["clat"] or fio["lat"]
    lat_name = "clat" if fio["clat"] else "lat"
    if not fio["iops"] and not lat_logs and not series:
        raise BadInput("no iops, clat or lat log and no --timeseries CSV among " + ", ".join(files))
    plt = pyplot()
    fig, (ax_iops, ax_lat) = plt.subplots(2, 1, figsize=(WIDTH, 6.4), sharex=True)
    names = {0: "read", 1: "write"}
    if fio["iops"]:
        for ddir, (t, v) in sorted(iops_series(fio["iops"]).items()):
            ax_iops.plot(t, v, label=f"{names.get(ddir, ddir)} (fio iops logs, {len(fio['iops'])} job(s))")
    lat_lines = []
    if lat_logs:
        for ddir, (t, v) in sorted(lat_series(lat_logs).items()):
            lat_lines.append((t, v, f"{names.get(ddir, ddir)} mean {lat_name} (fio logs, {len(lat_logs)} job(s))"))
    for path, header, rows in series:
        t = [r[0] / 1e9 for r in rows]
        for disk, cols in series_queues(header).items():
            if "reads" not in cols:
                continue
            iops = []
            for i, r in enumerate(rows):
                dt = (r[0] - (rows[i - 1][0] if i else 0)) / 1e9
                iops.append(((r[cols["reads"]] or 0) + (r[cols["writes"]] or 0)) / dt if dt > 0 else float("nan"))
            ax_iops.plot(t, iops, linestyle="--", label=f"{disk}: requests completed (timeseries)")
            q2c = [r[cols["q2c_mean_ns"]] if r[cols["q2c_mean_ns"]] is not None else float("nan") for r in rows]
            lat_lines.append((t, q2c, f"{disk}: mean Q2C (timeseries)"))
    if lat_lines:
        finite = [v for _, vs, _ in lat_lines for v in vs if v == v]
        unit, scale = pick_unit(max(finite, default=1.0))
        for t, v, label in lat_lines:
            ax_lat.plot(t, [x / scale for x in v], label=label)
        ax_lat.set_ylabel(f"latency ({unit})")
        ax_lat.legend(fontsize=8)
    ax_iops.set_ylabel("I/Os per second")
    ax_iops.set_title("IOPS and latency over time")
    if ax_iops.lines:
        ax_iops.legend(fontsize=8)
    for a in (ax_iops, ax_lat):  # from 0, with room above a flat line
        top = max((max((y for y in ln.get_ydata() if y == y), default=0) for ln in a.lines), default=0)
        a.set_ylim(0, top * 1.15 if top > 0 else 1)
    ax_lat.set_xlabel("time (s)")
    for a in (ax_iops, ax_lat):
        a.grid(True, alpha=0.3)
    save(fig, out, "IOPS and latency over time")


# --- depth: queue depth and tag occupancy over time -----------------------------------------

QUEUE_LINES = [
    ("in_flight", "in flight at the driver"),
    ("driver_tags", "driver tags held"),
    ("sched_tags", "scheduler tags in use"),
    ("sched_queued", "held by the scheduler"),
    ("dispatch", "hctx->dispatch"),
    ("sw_queue", "software queues"),
    ("tag_waiters", "submitters asleep for a tag"),
]


def plot_depth(path, out):
    header, rows = read_series(path)
    queues = series_queues(header)
    for disk, cols in queues.items():
        if "in_flight" not in cols:
            raise BadInput(f"{path}:1: no {disk}:in_flight column (not a blksim --timeseries file?)")
    # Per queue: its own lines, then the device's commands (".queued" columns) and the
    # device's other figures (cache fill, in their own units) when any of them moves.
    panels = []
    for disk, cols in queues.items():
        panels.append((disk, "request queue", "requests", [(c, label) for c, label in QUEUE_LINES if c in cols]))
        dev = [c for c in cols if c.startswith("dev.")]
        queued = [(c, c[4:]) for c in dev if c.endswith("queued")]
        other = [(c, c[4:]) for c in dev if not c.endswith("queued")]
        moving = [x for x in other if any(r[cols[x[0]]] for r in rows)]
        if queued:
            panels.append((disk, "commands in the device", "commands", queued + [x for x in other if x not in moving]))
        if moving:
            panels.append((disk, "device cache", "as named", moving))
    plt = pyplot()
    fig, axes = plt.subplots(len(panels), 1, figsize=(WIDTH, 1.2 + 2.8 * len(panels)), sharex=True, squeeze=False)
    t = [r[0] / 1e9 for r in rows]
    for ax, (disk, title, ylabel, lines) in zip(axes[:, 0], panels):
        cols = queues[disk]
        ax.set_title(f"{disk}: {title}", fontsize=10)
        zero, top = [], 0.0
        for k, (c, label) in enumerate(lines):
            v = [r[cols[c]] for r in rows]
            if all(x == 0 for x in v):
                zero.append(label)
                continue
            top = max(top, max(v))
            # Lines often coincide (every request in flight holds its driver tag): vary the dash.
            ax.plot(t, v, marker="." if len(rows) <= 60 else None, linestyle=["-", "--", ":", "-."][k % 4], label=label)
        ax.set_ylim(0, top * 1.3 + 1)
        if zero:
            ax.text(0.01, 0.97, "always 0: " + ", ".join(zero), transform=ax.transAxes, fontsize=7,
                    va="top", color="0.35")
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        if ax.lines:
            ax.legend(fontsize=8, loc="upper right")
    axes[-1, 0].set_xlabel("time (s)")
    interval = rows[0][0] / 1e6
    fig.suptitle(f"Queue depth and tag occupancy, sampled every {interval:g} ms", fontsize=11)
    save(fig, out, "Queue depth and tag occupancy over time")


# --- stages: btt's per-stage latency --------------------------------------------------------

def stage_queues(doc, path):
    qs = doc.get("blksim", {}).get("queues") if isinstance(doc, dict) else None
    if not isinstance(qs, list) or not qs:
        raise BadInput(f"{path}: no \"blksim\".\"queues\": expected blksim's JSON report (--output-format json or json+)")
    out = []
    for i, q in enumerate(qs):
        st = q.get("stages_ns")
        if not isinstance(st, dict) or any(s not in st for s in STAGES + ["q2c"]):
            raise BadInput(f"{path}: /blksim/queues/{i}: no stages_ns with q2g, g2i, i2d, d2c, q2c")
        out.append((q.get("name", f"queue {i}"), q.get("scheduler", "?"), st))
    return out


def plot_stages(doc, path, out):
    queues = stage_queues(doc, path)
    plt = pyplot()
    fig, axes = plt.subplots(len(queues), 2, figsize=(WIDTH, 0.8 + 3.4 * len(queues)), squeeze=False,
                             gridspec_kw={"width_ratios": [3, 2]})
    names = STAGES + ["q2c"]
    for (name, sched, st), (bars, share) in zip(queues, axes):
        means = [float(st[s].get("mean", 0.0)) for s in names]
        pct = [st[s].get("percentile", {}) for s in names]
        p50 = [float(p.get("50.000000", 0)) for p in pct]
        p99 = [float(p.get("99.000000", 0)) for p in pct]
        # Stages span nanoseconds (a tag) to milliseconds (a seek): a log axis in us, the
        # zeros (no wait at all) written on the axis instead of drawn.
        x = range(len(names))
        wd = 0.27
        for off, vals, label in ((-wd, means, "mean"), (0, p50, "p50"), (wd, p99, "p99")):
            bars.bar([i + off for i in x], [v / 1e3 if v > 0 else float("nan") for v in vals], wd, label=label)
        bars.set_yscale("log")
        positive = [v / 1e3 for v in means + p50 + p99 if v > 0] or [1.0]
        floor = min(positive) / 3
        bars.set_ylim(floor, max(positive) * 3)
        for i, v in enumerate(means):
            unit, scale = pick_unit(v)
            bars.annotate(f"{v / scale:.3g} {unit}" if v > 0 else "0", (i - wd, max(v / 1e3, floor)),
                          ha="center", va="bottom", fontsize=7)
        bars.set_xticks(list(x))
        bars.set_xticklabels([s.upper() for s in names])
        bars.set_ylabel("latency (us, log)")
        bars.set_title(f"{name} ({sched}): btt stages, N={st['q2c'].get('N', 0)}", fontsize=10)
        bars.grid(True, axis="y", which="both", alpha=0.3)
        bars.legend(fontsize=8, loc="upper left")
        # Where the mean Q2C went: the four stages one after the other, as shares.
        total = sum(means[:4]) or 1.0
        left = 0.0
        for s, v in zip(STAGES, means):
            w = 100.0 * v / total
            share.barh([0], [w], left=left, height=0.5, label=s.upper())
            if w >= 8:
                share.text(left + w / 2, 0, f"{w:.0f}%", ha="center", va="center", fontsize=8, color="white")
            left += w
        share.set_xlim(0, 100)
        share.set_ylim(-0.6, 1.2)
        share.set_yticks([])
        share.set_xlabel("share of the mean Q2C (%)")
        share.set_title("where the mean Q2C went", fontsize=10)
        share.legend(fontsize=8, ncol=4, loc="upper center")
    save(fig, out, "Per-stage latency (btt's Q2G, G2I, I2D, D2C, Q2C)")


# --- sweep: a metric against a swept parameter ----------------------------------------------

def read_sweep(path):
    """(params [(path, [values])], points [(values, {metric: value})])."""
    if path.endswith(".csv"):
        header, lines = read_csv(path, "point", "blksim sweep --csv (point,<param>...,<metric>...)")
        # Parameters are scenario paths, metrics "<group>/<dir>.<name>": only metrics have a '/'.
        np = 1
        while np < len(header) and "/" not in header[np]:
            np += 1
        names = header[1:np]
        points, seen = [], [[] for _ in names]
        for n, row in lines:
            vals = row[1:np]
            for i, v in enumerate(vals):
                if v not in seen[i]:
                    seen[i].append(v)
            try:
                m = {header[i]: float(row[i]) for i in range(np, len(row)) if row[i] != ""}
            except ValueError:
                raise BadInput(f"{path}:{n}: a metric is not a number: {row!r}")
            points.append((vals, m))
        return list(zip(names, seen)), points
    doc = read_json(path)
    if not isinstance(doc, dict) or "blksim_sweep" not in doc:
        raise BadInput(f"{path}: not a blksim sweep --json file (no \"blksim_sweep\" key)")
    try:
        params = [(p["path"], [str(v) for v in p["values"]]) for p in doc["params"]]
        points = [([str(v) for v in r["values"]], {k: float(v) for k, v in r["metrics"].items() if v is not None})
                  for r in doc["results"]]
    except (KeyError, TypeError, ValueError) as e:
        raise BadInput(f"{path}: malformed sweep file ({e!r})")
    for i, (vals, _) in enumerate(points):
        if len(vals) != len(params):
            raise BadInput(f"{path}: /results/{i}: {len(vals)} values for {len(params)} parameters")
    return params, points


def as_number(v):
    try:
        return float(v)
    except ValueError:
        return None


def sweep_figures(params, points, x_param, series_params, fixed, metric_filters, path):
    """Checks the choice of axes; returns it with the points that --fix keeps."""
    names = [p for p, _ in params]
    if not params:
        raise BadInput(f"{path}: the sweep has no parameters")
    if x_param is None:
        # The first parameter whose values are all numbers, else the first.
        x_param = next((p for p, vs in params if all(as_number(v) is not None for v in vs)), names[0])
    if x_param not in names:
        raise BadInput(f"{path}: --x {x_param}: not a swept parameter (the sweep has: {', '.join(names)})")
    xi = names.index(x_param)
    if series_params is None:
        fixed_names = [f.partition("=")[0] for f in fixed]
        series_params = [p for p in names if p != x_param and p not in fixed_names]
    for s in series_params:
        if s not in names or s == x_param:
            raise BadInput(f"{path}: --series {s}: not one of the other swept parameters ({', '.join(p for p in names if p != x_param)})")
    si = [names.index(s) for s in series_params]
    # The other parameters: each fixed at one value (--fix P=V), or swept over one value only.
    keep = {}
    for f in fixed:
        p, eq, v = f.partition("=")
        if not eq or p not in names or p == x_param or p in series_params:
            raise BadInput(f"{path}: --fix {f}: expected P=V with P a swept parameter not on the x axis or a series")
        if v not in dict(params)[p]:
            raise BadInput(f"{path}: --fix {f}: {p} was swept over {', '.join(dict(params)[p])}")
        keep[names.index(p)] = v
    loose = [p for i, (p, vs) in enumerate(params)
             if i != xi and i not in si and i not in keep and len(vs) > 1]
    if loose:
        raise BadInput(f"{path}: {', '.join(loose)} also varies: add it to --series or give --fix {loose[0]}=VALUE")
    points = [(vals, m) for vals, m in points if all(vals[i] == v for i, v in keep.items())]
    keys = []
    for _, m in points:
        for k in m:
            if k not in keys:
                keys.append(k)
    chosen = [k for k in keys if any(k.endswith(f) for f in metric_filters)]
    if not chosen:
        raise BadInput(f"{path}: no metric matches {', '.join(metric_filters)} (the sweep has: {', '.join(keys)})")
    return x_param, xi, series_params, si, chosen, points


def plot_sweep(path, out_dir, x_param, series_params, fixed, metric_filters):
    params, points = read_sweep(path)
    x_param, xi, series_params, si, chosen, points = sweep_figures(params, points, x_param, series_params, fixed,
                                                                   metric_filters, path)
    xvals = dict(params)[x_param]
    numeric = all(as_number(v) is not None for v in xvals)
    plt = pyplot()
    for key in chosen:
        fig, ax = plt.subplots(figsize=(WIDTH, 5.0))
        lines = {}
        for vals, m in points:
            label = ", ".join(f"{series_params[j]}={vals[i]}" for j, i in enumerate(si)) or key
            lines.setdefault(label, []).append((vals[xi], m.get(key, float("nan"))))
        for label, pts in lines.items():
            pts.sort(key=lambda p: float(p[0]) if numeric else xvals.index(p[0]))
            xs = [float(p[0]) if numeric else xvals.index(p[0]) for p in pts]
            ax.plot(xs, [p[1] for p in pts], marker="o", label=label)
        if numeric:
            nums = [float(v) for v in xvals]
            if min(nums) > 0 and max(nums) / min(nums) >= 16:
                ax.set_xscale("log", base=2)
            if len(nums) <= 16:
                ax.set_xticks(nums)
                ax.set_xticklabels(xvals)
                ax.minorticks_off()
        else:
            ax.set_xticks(range(len(xvals)))
            ax.set_xticklabels(xvals)
        ax.set_xlabel(x_param)
        ax.set_ylabel(key)
        ax.set_ylim(bottom=0)
        title = f"{key} against {x_param}" + (f" ({', '.join(fixed)})" if fixed else "")
        ax.set_title(title, fontsize=11)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", key)
        save(fig, os.path.join(out_dir, f"sweep-{safe}.png"), title)


# --- command line ---------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("cdf", help="latency CDF per priority class (json+ bins)")
    p.add_argument("json")
    p.add_argument("-o", "--out", default="cdf.png")
    p = sub.add_parser("timeline", help="IOPS and latency over time (fio logs or --timeseries)")
    p.add_argument("files", nargs="+")
    p.add_argument("-o", "--out", default="timeline.png")
    p = sub.add_parser("depth", help="queue depth and tag occupancy over time (--timeseries)")
    p.add_argument("series")
    p.add_argument("-o", "--out", default="depth.png")
    p = sub.add_parser("stages", help="per-stage latency bars (blksim JSON)")
    p.add_argument("json")
    p.add_argument("-o", "--out", default="stages.png")
    p = sub.add_parser("sweep", help="sweep charts (blksim sweep --json or --csv)")
    p.add_argument("sweep")
    p.add_argument("--x", help="the swept parameter on the x axis (default: the first numeric one)")
    p.add_argument("--series", action="append", help="a parameter that makes one line per value (default: all others)")
    p.add_argument("--fix", action="append", default=[], metavar="P=V",
                   help="keep only the points where parameter P is V (for a parameter neither on x nor a series)")
    p.add_argument("--metric", action="append",
                   help="metric or suffix to chart, e.g. read.iops or clat_p99_ns (default: iops, clat_mean_ns, clat_p99_ns)")
    p.add_argument("-o", "--out", default=".", help="directory for sweep-<metric>.png")
    p = sub.add_parser("all", help="every plot the inputs allow (blksim report)")
    p.add_argument("--json", help="blksim --output-format json+ report")
    p.add_argument("--timeseries", help="blksim --timeseries CSV")
    p.add_argument("--logs", nargs="*", default=[], help="fio log files")
    p.add_argument("-o", "--out", required=True, help="directory for the PNGs")
    a = ap.parse_args()
    try:
        if a.cmd == "cdf":
            plot_cdf(read_json(a.json), a.json, a.out)
        elif a.cmd == "timeline":
            plot_timeline(a.files, a.out)
        elif a.cmd == "depth":
            plot_depth(a.series, a.out)
        elif a.cmd == "stages":
            plot_stages(read_json(a.json), a.json, a.out)
        elif a.cmd == "sweep":
            plot_sweep(a.sweep, a.out, a.x, a.series, a.fix, a.metric or ["iops", "clat_mean_ns", "clat_p99_ns"])
        else:
            if not (a.json or a.timeseries or a.logs):
                raise BadInput("all: give at least one of --json, --timeseries, --logs")
            if a.json:
                doc = read_json(a.json)
                plot_cdf(doc, a.json, os.path.join(a.out, "cdf.png"))
                plot_stages(doc, a.json, os.path.join(a.out, "stages.png"))
            if a.logs or a.timeseries:
                plot_timeline(a.logs or [a.timeseries], os.path.join(a.out, "timeline.png"))
            if a.timeseries:
                plot_depth(a.timeseries, os.path.join(a.out, "depth.png"))
    except BadInput as e:
        fail(str(e))


if __name__ == "__main__":
    main()
