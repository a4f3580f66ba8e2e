# Records a Chrome trace of a few representative ops on the GPU with
# torch.profiler (CPU + CUDA activities), as a reference for the C++
# profiler's event classification (issue 3): kernel names of cuBLAS/cuDNN/
# SDPA backends, memcpy and sync events as this torch build reports them.
import sys
import torch
import torch.nn.functional as F
from torch.profiler import profile, ProfilerActivity

dev = "cuda"
a = torch.randn(1024, 1024, device=dev, dtype=torch.bfloat16)
x = torch.randn(8, 64, 56, 56, device=dev)
w = torch.randn(64, 64, 3, 3, device=dev)
q = torch.randn(1, 16, 512, 64, device=dev, dtype=torch.bfloat16)
h = torch.randn(1 << 20)
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
    (a @ a).sum()
    F.conv2d(x, w, padding=1)
    F.scaled_dot_product_attention(q, q, q, is_causal=True)
    h.to(dev)
    a.cpu()
    a.view(-1)
    torch.cuda.synchronize()
p.export_chrome_trace(sys.argv[1])
print(p.key_averages().table(sort_by="cuda_time_total", row_limit=30))
