#!/usr/bin/env bash
# Issue 20's validation on a GPU machine (docs/multi.md): builds accel-doctor
# against the machine's Python torch (CUDA, NCCL from pip's nvidia-nccl),
# then, by the number of GPUs:
#   every machine   nvidia-smi topo -m (the reference), `env --json` (the
#                   topology, present only with 2+ GPUs), `multi` (on one GPU:
#                   the one-GPU line, nothing measured, exit 0), `multi
#                   --device cpu` (gloo: unavailable on a PyPI torch, which
#                   ships no gloo headers: the message is the check);
#   2+ GPUs         `multi` (peer access and copies, the NCCL sweep, links),
#                   RUNS times, wall time each; NCCL_P2P_DISABLE=1 (the
#                   transports must change and the rule fire); torchrun
#                   with one process per GPU (one report per rank) and
#                   `report --from` over them; the default run's multi phase
#                   (wall time of the whole default run).
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0, as the machine's notes ask).
#   OUT=... [RUNS=2] scripts/device/multi_validate.sh
# Needs the staged build deps in .devdeps/ (scripts/device/stage_deps.sh).
# Packs everything into $OUT/multi.tar.gz and copies summary.txt beside it.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-/tmp/multi-out}"; R=/tmp/multi-r; rm -rf "$R"; mkdir -p "$R" "$OUT"
pack() { tar -C /tmp -czf "$OUT/multi.tar.gz" multi-r 2>/dev/null; cp "$R/summary.txt" "$OUT/" 2>/dev/null; }
trap pack EXIT
trap 'pack; exit 143' TERM
RUNS="${RUNS:-2}"
export PATH="$PATH:/usr/local/cuda/bin" NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
say() { echo "$*" | tee -a "$R/summary.txt"; }
timed() {  # timed NAME CMD...: stdout/stderr to NAME.txt/.err, the exit code and seconds in the summary
  local name=$1; shift
  local s e rc=0
  s=$(date +%s.%N)
  "$@" > "$R/$name.txt" 2> "$R/$name.err" || rc=$?
  e=$(date +%s.%N)
  say "$name: rc=$rc in $(python3 -c "print(f'{$e - $s:.1f}')") s"
  return 0
}

say "date: $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,pcie.link.gen.max,pcie.link.width.max --format=csv \
  > "$R/gpus.csv" 2>&1
nvidia-smi topo -m > "$R/nvidia_topo.txt" 2>&1
nvidia-smi nvlink --status > "$R/nvlink_status.txt" 2>&1
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
say "host: $(nproc) cores, $NGPU GPU(s): $(sed -n 2p "$R/gpus.csv")"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "gpus", torch.cuda.device_count())' \
  2>&1 | tee -a "$R/summary.txt"

BUILD=/tmp/build-multi; rm -rf "$BUILD"
t0=$(date +%s)
cmake -S . -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DACCEL_BUILD_TESTS=OFF \
  -DCMAKE_PREFIX_PATH="$PWD/.devdeps/root/usr" > "$R/configure.txt" 2>&1 || tail -30 "$R/configure.txt"
grep "multi suite" "$R/configure.txt" | tee -a "$R/summary.txt"
ninja -C $BUILD -j "$(nproc)" accel-doctor accel-doctor-torch > "$R/build.txt" 2>&1
say "build rc=$? in $(( $(date +%s) - t0 )) s"
grep -E "error|FAILED" "$R/build.txt" | head -30 | tee -a "$R/summary.txt"
BIN=$BUILD/accel-doctor
[ -x "$BIN" ] && [ -x "$BUILD/accel-doctor-torch" ] || { say "no binaries"; exit 1; }

timed env "$BIN" env --json "$R/env.json"
python3 - "$R/env.json" <<'PY' | tee -a "$R/summary.txt"
import json, sys
e = json.load(open(sys.argv[1]))["context"]["environment"]
t = e.get("topology")
print("topology:", "none (fewer than 2 GPUs)" if t is None else
      f"{len(t['gpus'])} GPUs, pairs {[(p['a'], p['b'], p['link'], p.get('nvlinks'), p.get('p2p_status'), p.get('bound_gbps')) for p in t['pairs']]}, iommu {t['iommu']}, shm {t.get('shm_bytes')}")
PY
timed multi_cpu "$BIN" --json "$R/multi_cpu.json" multi --device cpu --quick
grep -m3 -E "unavailable|gloo" "$R/multi_cpu.txt" | tee -a "$R/summary.txt"

if [ "$NGPU" -lt 2 ]; then
  timed multi_one_gpu "$BIN" --json "$R/multi_one_gpu.json" multi
  grep -m1 "one GPU" "$R/multi_one_gpu.txt" | tee -a "$R/summary.txt"
  say "one GPU: the 2-GPU steps (peer copies, NCCL collectives, torchrun ranks) were not run"
  exit 0
fi

summarise() {  # summarise REPORT: the rows by status, the collectives' busbw at the largest size, the links
  python3 - "$1" <<'PY'
import json, sys, collections
r = json.load(open(sys.argv[1]))
rows = [x for x in r["results"] if x["kind"] == "multi"]
print("  statuses:", dict(collections.Counter(x["status"] for x in rows)))
for x in rows:
    if x["status"] != "ok":
        print("  ", x["key"], x["status"], (x.get("reason") or "")[:160])
big = {}
for x in rows:
    if x["category"] == "collective" and x["status"] == "ok":
        k = (x["name"], x["dtype"])
        if k not in big or x["metrics"]["size_bytes"] > big[k]["metrics"]["size_bytes"]:
            big[k] = x
for (n, d), x in sorted(big.items()):
    print(f"  {n} {d} {x['metrics']['size_bytes']/2**20:.0f} MiB: busbw {x['metrics']['busbw_gbps']:.1f} GB/s, "
          f"median {x['timing']['median_us']:.0f} us, IQR {x['timing']['iqr_us']:.0f} us")
for x in rows:
    if x["category"] in ("peer", "link") and x["status"] == "ok":
        rf = x.get("roofline") or {}
        print(f"  {x['key']}: {x['metrics'].get('gbps', x['metrics'].get('busbw_gbps', 0)):.1f} GB/s"
              f"{' = %.0f%% of %.0f GB/s' % (rf['percent_of_bound'], rf['bandwidth_gbps']) if rf.get('percent_of_bound') else ''}"
              f" {x['evidence'].get('transport', '')}")
g = next((x for x in rows if x["category"] == "group"), None)
if g:
    for i in g["evidence"].get("identities", []):
        n = i.get("nccl", {})
        print(f"  rank {i.get('rank')}: {i.get('device')} {i.get('device_name')} NCCL {i.get('backend_version')} "
              f"log {n.get('version')} transports {sorted({t['detail'] for t in n.get('transports', [])})}")
print("  findings:", [f["id"] for f in r["findings"]])
print("  verdict:", r["verdict"])
PY
}

for i in $(seq 1 "$RUNS"); do
  timed "multi_$i" "$BIN" --json "$R/multi_$i.json" multi
  summarise "$R/multi_$i.json" | tee -a "$R/summary.txt"
done
timed multi_p2p_off env NCCL_P2P_DISABLE=1 "$BIN" --json "$R/multi_p2p_off.json" multi --quick --no-peer
summarise "$R/multi_p2p_off.json" | tee -a "$R/summary.txt"

# torchrun: one process per GPU, each its own report, then merged.
if command -v torchrun >/dev/null; then
  timed torchrun torchrun --standalone --nproc-per-node "$NGPU" --no-python \
    "$BIN" --json "$R/tr.json" multi --quick
  ls "$R"/tr.rank*.json 2>&1 | tee -a "$R/summary.txt"
  timed merged "$BIN" --json "$R/merged.json" report --from "$R/tr.rank0.json" --from "$R/tr.rank1.json"
  grep -A6 "^Ranks" "$R/merged.txt" | tee -a "$R/summary.txt"
else
  say "no torchrun on PATH: the launcher step was not run"
fi

# The default run with 2+ GPUs (its multi phase), timed.
timed doctor "$BIN" --json "$R/doctor.json"
grep -m1 "Several GPUs" "$R/doctor.txt" | tee -a "$R/summary.txt"
grep -m1 "^Verdict" "$R/doctor.txt" | tee -a "$R/summary.txt"
