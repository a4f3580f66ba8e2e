# Compares accel-doctor's bench figures with the PyTorch CUDA-events
# reference from the same device call (issue 3 targets: GEMM and copy
# >= 0.97x, pinned host->device >= 0.9x). Usage: fidelity.py bench.json ref.json
import json
import sys

bench = json.load(open(sys.argv[1]))
ref = json.load(open(sys.argv[2]))
by_key = {r["key"]: r for r in bench["results"]}


def metric(key, name):
    r = by_key.get(key)
    if not r or r.get("status") != "ok":
        return None
    return r["metrics"].get(name)


GEMM = "bench/cuda/gemm/square/bf16/8192x8192x8192"
# The H200 holds its boost clock for the first ~70 ms of bf16 GEMMs, then
# runs at its 700 W power cap (~1500 MHz): each figure is compared with a
# reference that measures the same phase. Burst: our fastest warm-up chunk
# vs 10 + 50 calls with one event pair each; sustained: our median vs the
# same GEMM after 70 warm-up calls, two per event pair (our protocol).
rows = [
    ("bf16 8192^3 GEMM burst (TFLOP/s)", metric(GEMM, "tflops_burst"), ref["gemm_bf16_8192"]["tflops"], 0.97),
    ("bf16 8192^3 GEMM sustained (TFLOP/s)", metric(GEMM, "tflops"),
     ref["gemm_bf16_8192_two_per_pair"]["tflops"], 0.97),
    ("1 GiB device copy (GB/s)", metric("bench/cuda/memory/copy/fp32/rotating", "gbps"),
     ref["copy_1GiB"]["gbps"], 0.97),
    ("pinned host->device 256 MiB (GB/s)", metric("bench/cuda/transfer/h2d_pinned/fp32/256MiB", "gbps"),
     ref["h2d_pinned_256MiB"]["gbps"], 0.90),
    ("pinned host->device 1 GiB (GB/s)", metric("bench/cuda/transfer/h2d_pinned/fp32/1GiB", "gbps"),
     ref["h2d_pinned_1GiB"]["gbps"], 0.90),
]
ok = True
print(f"{'figure':38} {'accel-doctor':>13} {'PyTorch events':>15} {'ratio':>7} {'target':>7}")
for name, ours, theirs, target in rows:
    if ours is None:
        print(f"{name:38} {'missing':>13} {theirs:15.1f}")
        continue
    ratio = ours / theirs
    ok = ok and ratio >= target
    print(f"{name:38} {ours:13.1f} {theirs:15.1f} {ratio:7.3f} {'>=' + str(target):>7} {'PASS' if ratio >= target else 'FAIL'}")
sys.exit(0 if ok else 1)
