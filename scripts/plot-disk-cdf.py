#!/usr/bin/env python3
"""Plot the measured and simulated service-time CDFs that `blksim validate-disk --cdf`
writes (CSV: fraction,measured_ms,simulated_ms), one figure per CSV file.

    build/blksim validate-disk $DISKSIM_VALIDATION/atlas10k.trace --cdf cdf.csv   # docs/disksim.md
    python3 scripts/plot-disk-cdf.py cdf.csv            # writes cdf.png
    python3 scripts/plot-disk-cdf.py a.csv b.csv -o out/  # one PNG each, in out/

Needs python3-matplotlib (scripts/setup.sh installs it).
"""
import argparse
import csv
import math
import os
import sys


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(2)


def read_cdf(path):
    frac, meas, sim = [], [], []
    try:
        f = open(path, newline="")
    except OSError as e:
        fail(f"{path}: cannot open: {e.strerror}")
    with f:
        r = csv.reader(f)
        header = next(r, None)
        if header != ["fraction", "measured_ms", "simulated_ms"]:
            fail(f"{path}:1: expected the header fraction,measured_ms,simulated_ms (from blksim validate-disk --cdf)")
        for n, row in enumerate(r, start=2):
            try:
                a, b, c = (float(x) for x in row)
            except ValueError:
                fail(f"{path}:{n}: expected three numbers, found {row!r}")
            frac.append(a)
            meas.append(b)
            sim.append(c)
    if not frac:
        fail(f"{path}: no data rows")
    return frac, meas, sim


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+", help="CDF files written by blksim validate-disk --cdf")
    ap.add_argument("-o", "--outdir", help="where the PNGs go (default: beside each CSV)")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("plot-disk-cdf: needs matplotlib (apt-get install python3-matplotlib)")
    for path in args.csv:
        frac, meas, sim = read_cdf(path)
        rms = math.sqrt(sum((a - b) ** 2 for a, b in zip(meas, sim)) / len(meas))
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        ax.step(meas, frac, where="post", label="measured (real drive)")
        ax.step(sim, frac, where="post", label="blksim", linestyle="--")
        name = os.path.splitext(os.path.basename(path))[0]
        ax.set_title(f"{name}: service time CDF (RMS distance over these {len(meas)} quantiles: {rms:.3f} ms;\nvalidate-disk's demerit uses every request)", fontsize=10)
        ax.set_xlabel("service time (ms)")
        ax.set_ylabel("fraction of requests")
        ax.set_ylim(0, 1)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="lower right")
        outdir = args.outdir or os.path.dirname(path) or "."
        os.makedirs(outdir, exist_ok=True)
        out = os.path.join(outdir, name + ".png")
        fig.tight_layout()
        fig.savefig(out, dpi=120)
        plt.close(fig)
        print(out)


if __name__ == "__main__":
    main()
