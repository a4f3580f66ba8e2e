# Per-call device time of the small decode operations of Llama-3.2-1B (bf16,
# batch 1) in a CUDA graph, with the alternatives the C++ decode could use:
# which ATen formulation of each step is cheapest on this GPU. A reference for
# the issue-4 ceiling analysis, not a benchmark of accel-doctor.
#   python3 decode_kernels.py > decode_kernels.json
import json
import sys

import torch
import torch.nn.functional as F

dev, dt = "cuda", torch.bfloat16
H, I, V, Hq, Hkv, D, S = 2048, 8192, 128256, 32, 8, 64, 176
torch.manual_seed(0)


def graph_us(fn, reps=50):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(reps):
            fn()
    for _ in range(3):
        g.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(10):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1000 / reps)
    times.sort()
    return round(times[len(times) // 2], 2)


out = {}
x = torch.randn(1, 1, H, device=dev, dtype=dt)
for name, n_out, k in (("qkv", (Hq + 2 * Hkv) * D, H), ("o_proj", H, Hq * D), ("gate_up", 2 * I, H),
                       ("down", H, I), ("lm_head", V, H)):
    w = torch.randn(n_out, k, device=dev, dtype=dt) * 0.02
    xi = torch.randn(1, 1, k, device=dev, dtype=dt)
    r = {"MB": round(w.numel() * 2 / 1e6, 1)}
    r["linear"] = graph_us(lambda: F.linear(xi, w))
    r["w_at_xT"] = graph_us(lambda: (w @ xi.view(k, 1)))
    r["mv"] = graph_us(lambda: torch.mv(w, xi.view(k)))
    if name in ("o_proj", "down"):
        res = torch.randn(1, H, device=dev, dtype=dt)
        r["addmm_"] = graph_us(lambda: res.addmm_(xi.view(1, k), w.t()))
        r["addmv_"] = graph_us(lambda: res.view(H).addmv_(w, xi.view(k)))
    r["ideal_us_at_4.2TBps"] = round(w.numel() * 2 / 4.2e12 * 1e6, 2)
    out[name] = r
    del w

h = torch.randn(1, 1, H, device=dev, dtype=dt)
g = torch.ones(H, device=dev, dtype=dt)
out["rms_norm"] = {"fused": graph_us(lambda: F.rms_norm(h, (H,), g, 1e-5))}
q = torch.randn(1, Hkv, Hq // Hkv, D, device=dev, dtype=dt)
k = torch.randn(1, Hkv, S, D, device=dev, dtype=dt)
v = torch.randn(1, Hkv, S, D, device=dev, dtype=dt)
mask = torch.zeros(1, 1, 1, S, device=dev, dtype=dt)
att = {}
for backend in ("CUDNN_ATTENTION", "EFFICIENT_ATTENTION", "MATH"):
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel

        with sdpa_kernel(getattr(SDPBackend, backend)):
            att[backend] = graph_us(lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask))
    except Exception as e:  # a backend that cannot run this call
        att[backend] = str(e)[:120]
try:
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        att["FLASH_no_mask"] = graph_us(lambda: F.scaled_dot_product_attention(q, k, v))
except Exception as e:
    att["FLASH_no_mask"] = str(e)[:120]
out["sdpa_decode"] = att
cache = torch.zeros(1, Hkv, S, D, device=dev, dtype=dt)
pos = torch.tensor([100], device=dev)
kn = torch.randn(1, Hkv, 1, D, device=dev, dtype=dt)
out["kv_write"] = {"index_copy_": graph_us(lambda: cache.index_copy_(2, pos, kn))}
gu = torch.randn(1, 1, 2 * I, device=dev, dtype=dt)
out["swiglu"] = {"silu_mul": graph_us(lambda: F.silu(gu[..., :I]) * gu[..., I:])}
json.dump(out, sys.stdout, indent=1)
print()
