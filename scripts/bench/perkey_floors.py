#!/usr/bin/env python3
"""Could a floor learned per result key on the user's own machine catch a
1.3x slowdown with no false alarm (issue 16)? A simulation on recorded runs.

For each recorded set (a TSV of noise_floors.py --tsv: key, kind, device,
then the figure of every run, in run order), the runs are split into
calibration runs and test runs. Per key, the floor is exp(margin x the
largest |ln(a/b)| between calibration runs) - 1 (at least 5 %), as
src/core/noise_floors.cpp sets a class floor, but for that key alone (what a
`compare --calibrate` learning from N runs of this machine would store).
With --repeat 3 the figures are medians of 3 runs (the floor from 200 draws
of 3 vs 3 calibration runs). Then 20 compares of test runs (2 x repeat
distinct test runs each, seeded draws): a compare is a false alarm when any
key moves beyond its floor; and for every key and compare, B made 1.3x
slower: caught when the slower change exceeds the floor.
  /usr/bin/python3 scripts/bench/perkey_floors.py FILE.tsv [...]
Splits: "time" (the first 12 runs calibrate, the next 20 test: learned
before, used later) and "interleaved" (even runs calibrate, odd runs test:
learned under the same conditions). Prints one line per split, repeat and
margin, then per key for the interleaved --repeat 3 split.
"""
import csv, math, random, statistics, sys


def load(path):
    rows, n = {}, None
    for r in csv.DictReader(open(path), delimiter="\t"):
        runs = [c for c in r if c.startswith("run")]
        vals = [float(r[c]) if r[c] not in ("", "nan", None) else 0.0 for c in runs]
        if all(v > 0 for v in vals):
            rows[r["key"]] = vals
            n = len(vals)
    return rows, n


def median_of(vals, idx):
    return statistics.median(vals[i] for i in idx)


def floors_of(rows, cal, margin, repeat):
    out = {}
    for k, v in rows.items():
        if repeat == 1:
            pts = [v[i] for i in cal]
            d = max(abs(math.log(a / b)) for i, a in enumerate(pts) for b in pts[i + 1:])
        else:
            rnd, d = random.Random(1), 0.0
            for _ in range(200):
                s = rnd.sample(cal, 2 * repeat)
                d = max(d, abs(math.log(median_of(v, s[:repeat]) / median_of(v, s[repeat:]))))
        out[k] = max(0.05, math.exp(margin * d) - 1)
    return out


def simulate(rows, cal, test, margin, repeat, slow=1.3, compares=20):
    floors = floors_of(rows, cal, margin, repeat)
    rnd = random.Random(2)
    alarms, caught, total = 0, {k: 0 for k in rows}, 0
    for _ in range(compares):
        s = rnd.sample(test, 2 * repeat)
        alarm = False
        for k, v in rows.items():
            a, b = median_of(v, s[:repeat]), median_of(v, s[repeat:])
            if abs(math.log(b / a)) > math.log(1 + floors[k]):
                alarm = True
            if math.log(b * slow / a) > math.log(1 + floors[k]):
                caught[k] += 1
        alarms += alarm
    return alarms, caught, floors


def main(paths):
    for path in paths:
        rows, n = load(path)
        print(f"{path}: {len(rows)} keys, {n} runs")
        if not n or n < 24:
            print("  skipped: the splits need at least 24 runs (12 to calibrate, 6 to test)")
            continue
        splits = {"time": (list(range(0, 12)), list(range(12, n))),
                  "interleaved": (list(range(0, n, 2)), list(range(1, n, 2)))}
        for name, (cal, test) in splits.items():
            for repeat in (1, 3):
                for margin in (1.25, 2.0):
                    alarms, caught, floors = simulate(rows, cal, test, margin, repeat)
                    share = sum(caught.values()) / (20 * len(rows))
                    always = sum(1 for c in caught.values() if c == 20)
                    print(f"  {name:11} repeat {repeat} margin {margin}: false alarms {alarms}/20; "
                          f"1.3x caught in {100 * share:.0f}% of key-compares, in all 20 for {always} of "
                          f"{len(rows)} keys")
        cal, test = splits["interleaved"]
        alarms, caught, floors = simulate(rows, cal, test, 1.25, 3)
        if len(rows) <= 40:
            for k in rows:
                print(f"    {k}: floor {100 * floors[k]:.0f}%, 1.3x caught in {caught[k]}/20")


if __name__ == "__main__":
    main(sys.argv[1:] or sys.exit(__doc__))
