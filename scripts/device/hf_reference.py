# Reference for issue 4: Hugging Face transformers' eager `generate` on the
# Llama-3.2-1B configuration with random weights, bf16, batch 1, on the GPU,
# timed in the same device call as accel-doctor's `llm`. Decode tokens/s is
# measured as (N-1) new tokens over the time generate(N) takes beyond
# generate(1) (which is the prefill plus one step), median of 5.
import json
import statistics
import sys
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM

prompt_len = int(sys.argv[1]) if len(sys.argv) > 1 else 128
new_tokens = int(sys.argv[2]) if len(sys.argv) > 2 else 128
cfg = LlamaConfig(
    vocab_size=128256, hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
    num_attention_heads=32, num_key_value_heads=8, head_dim=64, rope_theta=500000.0,
    rms_norm_eps=1e-5, tie_word_embeddings=True, max_position_embeddings=131072,
    rope_scaling={"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                  "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
)
torch.manual_seed(0)
model = LlamaForCausalLM(cfg).to(device="cuda", dtype=torch.bfloat16).eval()
ids = torch.randint(0, cfg.vocab_size, (1, prompt_len), device="cuda")
mask = torch.ones_like(ids)


def gen(n):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    out = model.generate(ids, attention_mask=mask, max_new_tokens=n, min_new_tokens=n, do_sample=False,
                         use_cache=True, pad_token_id=0)
    torch.cuda.synchronize()
    assert out.shape[1] == prompt_len + n, out.shape
    return time.perf_counter() - t0


with torch.inference_mode():
    for _ in range(2):
        gen(8)  # warm-up
    t1 = statistics.median(gen(1) for _ in range(5))
    tn = statistics.median(gen(new_tokens) for _ in range(5))
decode_tps = (new_tokens - 1) / (tn - t1)
json.dump({"model": "Llama-3.2-1B config, random weights, bf16, batch 1",
           "transformers": __import__("transformers").__version__, "torch": torch.__version__,
           "attn_implementation": model.config._attn_implementation,
           "prompt": prompt_len, "new_tokens": new_tokens,
           "generate_1_s": t1, "generate_n_s": tn, "decode_tokens_per_s": decode_tps}, sys.stdout, indent=1)
print()
