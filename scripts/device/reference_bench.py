# Reference timings with PyTorch (Python) and CUDA events, for the fidelity
# comparison of issue 3: the same operations accel-doctor's bench times, in
# the same device call. Prints JSON: {name: {"median_us", "tflops"|"gbps"}}.
import json
import statistics
import sys

import torch


def time_events(fn, warmup=10, reps=50, inner=1):
    """Median µs per call over `reps` event pairs of `inner` back-to-back calls."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(inner):
            fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1000.0 / inner)  # ms -> us
    return statistics.median(times)


out = {}
dev = "cuda"
n = 8192
a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
c = torch.empty(n, n, device=dev, dtype=torch.bfloat16)
us = time_events(lambda: torch.mm(a, b, out=c))
out["gemm_bf16_8192"] = {"median_us": us, "tflops": 2 * n**3 / (us * 1e-6) / 1e12}


# The same GEMM timed the way accel-doctor samples it (two calls back to back
# per event pair, after a longer warm-up): fidelity.py's sustained reference,
# past the ~70 ms the H200 holds its boost clock. And the kernel cuBLAS picks.
us2 = time_events(lambda: torch.mm(a, b, out=c), warmup=70, reps=20, inner=2)
out["gemm_bf16_8192_two_per_pair"] = {"median_us": us2, "tflops": 2 * n**3 / (us2 * 1e-6) / 1e12}
try:
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        torch.mm(a, b, out=c)
        torch.cuda.synchronize()
    out["gemm_bf16_8192_kernels"] = sorted({e.name for e in prof.events() if e.device_type.name == "CUDA"})
except Exception as exc:  # the profiler is a diagnostic only
    out["gemm_bf16_8192_kernels"] = [f"profiler failed: {exc}"]


# Sustained: back-to-back GEMMs for 1.5 s (accel-doctor's bench budget), one
# event pair each; the medians of the first and last 50 show whether the
# clock falls under sustained load (power or thermal limit).
def sustained(fn, seconds=1.5):
    import time
    pairs = []
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        pairs.append((s, e))
        if len(pairs) % 64 == 0:
            e.synchronize()
    torch.cuda.synchronize()
    t = [s.elapsed_time(e) * 1000.0 for s, e in pairs]
    return {"calls": len(t), "first50_median_us": statistics.median(t[:50]),
            "last50_median_us": statistics.median(t[-50:])}


torch.cuda.synchronize()
out["gemm_bf16_8192_sustained"] = sustained(lambda: torch.mm(a, b, out=c))
del a, b, c

elems = (1 << 30) // 4  # 1 GiB of fp32
src = [torch.randn(elems, device=dev) for _ in range(2)]
dst = [torch.empty(elems, device=dev) for _ in range(2)]
turn = [0]


def copy():
    dst[turn[0]].copy_(src[turn[0]])
    turn[0] ^= 1


us = time_events(copy, reps=40)
out["copy_1GiB"] = {"median_us": us, "gbps": 2 * (1 << 30) / (us * 1e-6) / 1e9}
del src, dst

for size_name, size in (("256MiB", 256 << 20), ("1GiB", 1 << 30)):
    host = torch.empty(size // 4, pin_memory=True).uniform_()
    d = torch.empty(size // 4, device=dev)
    us = time_events(lambda: d.copy_(host, non_blocking=True), reps=20)
    out[f"h2d_pinned_{size_name}"] = {"median_us": us, "gbps": size / (us * 1e-6) / 1e9}
    del host, d

json.dump(out, sys.stdout, indent=1)
print()
