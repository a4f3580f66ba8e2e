#!/usr/bin/env python3
"""Between-process noise of accel-doctor results (issue 16).

Reads DIR/run*.json (independent runs of the same command on one machine),
pairs every run with every later one, and prints, per device class, kind of
result and size class (the per-call median: tiny < 100 us <= small < 10 ms
<= large), how far two processes' figures differ: the quantiles of
|ln(B / A)| as a percentage change, and the largest. These set the floors in
src/core/noise_floors.cpp (docs/noise-floors.md).
  scripts/bench/noise_floors.py DIR|FILE.tsv [...] [--first N] [--skip N] [--tsv OUT.tsv] [--repeated 3]
--repeated N: instead of pairs of runs, medians of N runs against medians of
N other runs (300 random draws of 2N distinct runs, seed 1): the floors for
`--repeat N` reports.
A FILE.tsv holds the figures of recorded runs (key, kind, device, then one
column per run: the timing median in us, or the metric), as --tsv writes
them for the first DIR: docs/validation/2026-12-01-compare-floors/ keeps
those that set the floors.
"""
import glob, json, math, re, sys, itertools, collections, random, statistics

def device_class(dev):
    return "cpu" if dev.startswith("cpu") or not dev else "gpu"

def size_class(us):
    return "tiny" if us < 100 else "small" if us < 10000 else "large"

def figure(r):
    t = r.get("timing")
    if t and t.get("median_us", 0) > 0:
        return t["median_us"], False
    m = r.get("metrics", {})
    for k in ("tokens_per_s", "samples_per_s", "tflops", "gbps"):
        if m.get(k, 0) > 0:
            return m[k], True
    return None, None

def load(path):
    d = json.load(open(path))
    out = {}
    for r in d["results"]:
        if r["status"] != "ok":
            continue
        v, hib = figure(r)
        if v is None:
            continue
        t = r.get("timing")
        size = size_class(t["median_us"]) if t and t.get("median_us", 0) > 0 else "metric"
        out[r["key"]] = (v, (device_class(r.get("device", "")), r["kind"], size))
    return out

def load_tsv(path):
    rows = [l.rstrip("\n").split("\t") for l in open(path)]
    n = len(rows[0]) - 3
    runs = [{} for _ in range(n)]
    for key, kind, dev, *vals in rows[1:]:
        for i, v in enumerate(vals):
            if v:
                x = float(v)
                size = size_class(x) if kind != "metric" else "metric"
                runs[i][key] = (x, (device_class(dev), kind, size))
    return runs

def write_tsv(path, runs, meta):
    keys = list(dict.fromkeys(k for r in runs for k in r))
    with open(path, "w") as f:
        f.write("key\tkind\tdevice\t" + "\t".join(f"run{i}" for i in range(len(runs))) + "\n")
        for k in keys:
            kind, dev = meta[k]
            f.write(f"{k}\t{kind}\t{dev}\t" + "\t".join(f"{r[k][0]:.6g}" if k in r else "" for r in runs) + "\n")

def main():
    args = sys.argv[1:]
    first = skip = None
    if "--first" in args:
        i = args.index("--first"); first = int(args[i + 1]); del args[i:i + 2]
    tsv = None; rep = 0
    if "--repeated" in args:
        i = args.index("--repeated"); rep = int(args[i + 1]); del args[i:i + 2]
    if "--tsv" in args:
        i = args.index("--tsv"); tsv = args[i + 1]; del args[i:i + 2]
    if "--skip" in args:
        i = args.index("--skip"); skip = int(args[i + 1]); del args[i:i + 2]
    pooled, pooled_worst = collections.defaultdict(list), {}
    for d in args:
        if d.endswith(".tsv"):
            runs = load_tsv(d)
        else:
            files = sorted(glob.glob(d + "/run*.json"), key=lambda p: int(re.findall(r"run(\d+)", p)[-1]))
            if skip: files = files[skip:]
            if first: files = files[:first]
            runs = [load(f) for f in files]
            if tsv:
                meta = {}
                for f in files:
                    for r in json.load(open(f))["results"]:
                        meta[r["key"]] = (r["kind"] if r.get("timing") else "metric", r.get("device", ""))
                write_tsv(tsv, runs, meta); tsv = None
        changes = collections.defaultdict(list)
        worst = {}
        if rep:
            random.seed(1)
            draws = [random.sample(range(len(runs)), 2 * rep) for _ in range(300)]
            pairs = [([runs[i] for i in d[:rep]], [runs[i] for i in d[rep:]]) for d in draws]
        else:
            pairs = [([runs[a]], [runs[b]]) for a, b in itertools.combinations(range(len(runs)), 2)]
        for A, B in pairs:
            for k, (_, cls) in A[0].items():
                va = [r[k][0] for r in A if k in r]; vb = [r[k][0] for r in B if k in r]
                if len(va) < len(A) or len(vb) < len(B): continue
                c = abs(math.log(statistics.median(vb) / statistics.median(va)))
                changes[cls].append(c)
                if c > worst.get(cls, (0, ""))[0]:
                    worst[cls] = (c, k)
        print(f"{d}: {len(runs)} runs, {len(pairs)} {'draws' if rep else 'pairs'}")
        for cls, v in changes.items():
            pooled[cls].extend(v)
            if worst[cls][0] > pooled_worst.get(cls, (0, ""))[0]:
                pooled_worst[cls] = worst[cls]
    changes, worst = pooled, pooled_worst
    print("pooled over the directories; floor = exp(1.25 * max |ln(B/A)|) - 1, rounded up to 5%")
    print(f"{'class':<28} {'n':>6} {'p50':>6} {'p90':>6} {'p99':>6} {'p99.9':>6} {'max':>6} {'floor':>6}  worst")
    if True:
        for cls in sorted(changes):
            v = sorted(changes[cls])
            q = lambda p: 100 * (math.exp(v[min(len(v) - 1, int(p * len(v)))]) - 1)
            print(f"{'/'.join(cls):<28} {len(v):>6} {q(.5):>5.1f}% {q(.9):>5.1f}% {q(.99):>5.1f}% {q(.999):>5.1f}% "
                  f"{100 * (math.exp(v[-1]) - 1):>5.1f}% {5 * math.ceil(20 * (math.exp(1.25 * v[-1]) - 1)):>5}%  {worst[cls][1]}")

main()
