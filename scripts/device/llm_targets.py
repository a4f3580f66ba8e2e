# Issue 4 targets from one device call: eager decode tokens/s >= transformers'
# eager generate (same config), and graph-replay decode >= 60% of the
# measured-bandwidth roofline. Usage: llm_targets.py llm.json hf.json
import json
import sys

llm = json.load(open(sys.argv[1]))
hf = json.load(open(sys.argv[2]))
rows = {r["key"]: r for r in llm["results"]}
p, g = hf["prompt"], hf["new_tokens"]
eager = rows.get(f"llm/cuda/llama-3.2-1b/bf16/b1/tg{g}@d{p}")
graph = rows.get(f"llm/cuda/llama-3.2-1b/bf16/b1/tg{g}@d{p}/graph")
ok = True
print(f"transformers {hf['transformers']} eager generate ({hf['attn_implementation']}): {hf['decode_tokens_per_s']:.1f} tokens/s")
if eager and eager["status"] == "ok":
    tps = eager["metrics"]["tokens_per_s"]
    ratio = tps / hf["decode_tokens_per_s"]
    ok = ok and ratio >= 1.0
    print(f"accel-doctor eager decode tg{g}@d{p}: {tps:.1f} tokens/s = {ratio:.2f}x transformers  {'PASS' if ratio >= 1 else 'FAIL'}")
else:
    ok = False
    print("eager decode row missing or failed")
if graph and graph["status"] == "ok":
    pct = graph["metrics"].get("decode_roofline_pct", 0)
    ok = ok and pct >= 60
    print(f"accel-doctor graph-replay decode: {graph['metrics']['tokens_per_s']:.1f} tokens/s, "
          f"{pct:.1f}% of the measured-bandwidth roofline ({graph['metrics'].get('roofline_tokens_per_s', 0):.0f} tokens/s)"
          f"  {'PASS' if pct >= 60 else 'FAIL'}")
else:
    ok = False
    print("graph decode row missing or failed")
sys.exit(0 if ok else 1)
