#!/usr/bin/env bash
# End-to-end: `accel-doctor multi` on the CPU with torch.distributed's gloo
# backend (issue 20, docs/multi.md). No GPU is needed: the collectives, their
# correctness checks and nccl-tests' bandwidths run between processes.
#   1. local ranks: the engine starts rank 1 itself; every collective is
#      checked element by element (gloo in torch 1.13 has no reduce_scatter:
#      that row is `unavailable` with gloo's own message);
#   2. two front ends playing two ranks through torchrun's variables (RANK,
#      WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/PORT): one report per rank, merged
#      by `report --from` with both nodes' rows and the slowest link;
#   3. the same through Slurm's srun variables (SLURM_PROCID, ...);
#   4. set-up errors exit 2 with one line: contradictory launcher variables,
#      --ranks under a launcher, --device cuda without a GPU, a bad size, no
#      engine beside the front end.
set -euo pipefail
BIN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; OUT="$2"; mkdir -p "$OUT"
source "$(dirname "$0")/lib/common.sh"
on_error_explain
# The ranks meet on the loopback interface (a container's host name may not resolve).
export GLOO_SOCKET_IFNAME=lo
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
T0=$(date +%s)

# 1. Local ranks.
run_doctor 0 "$OUT/local" "$BIN" --json "$OUT/local.json" multi --device cpu --quick
grep -q "Collectives" "$OUT/local.txt"
grep -q "Links" "$OUT/local.txt"
python3 - "$OUT/local.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rows = {x["key"]: x for x in r["results"] if x["kind"] == "multi"}
g = rows["multi/gloo/group/n2"]
assert g["status"] == "ok", g
assert len(g["evidence"]["identities"]) == 2 and g["metrics"]["ranks"] == 2, g
for rank in (0, 1):
    assert rows[f"multi/gloo/rank/r{rank}"]["evidence"]["identity"]["rank"] == rank
coll = [x for x in rows.values() if x["category"] == "collective"]
assert len(coll) == 8, sorted(rows)
for c in coll:
    if c["name"] == "reduce_scatter" and c["status"] == "unavailable":
        assert "does not support" in c["reason"], c  # gloo of torch 1.13
        continue
    assert c["status"] == "ok", (c["key"], c["status"], c.get("reason"))
    assert c["accuracy"]["method"] == "exact" and c["accuracy"]["rel_error"] == 0, c["accuracy"]
    m = c["metrics"]
    assert m["algbw_gbps"] > 0 and m["busbw_gbps"] > 0, m
    f = {"all_reduce": 1.0, "all_gather": 0.5, "reduce_scatter": 0.5, "broadcast": 1.0}[c["name"]]
    assert abs(m["busbw_gbps"] - f * m["algbw_gbps"]) < 1e-9 * m["algbw_gbps"] + 1e-12, (c["key"], m)
    assert len(c["timing"]["samples_us"]) >= 5, c["timing"]
links = [x for x in rows.values() if x["category"] == "link"]
assert {x["key"].rsplit("/", 1)[1] for x in links} == {"r0-r1", "r1-r0"}, [x["key"] for x in links]
assert all(x["status"] == "ok" and x["metrics"]["busbw_gbps"] > 0 for x in links), links
assert r["verdict"].startswith("2 ranks on 1 host (gloo)"), r["verdict"]
PY
echo "local ranks: $(( $(date +%s) - T0 )) s"

# 2. Two ranks through torchrun's variables, one report each, then merged.
T1=$(date +%s)
port=$(free_port)
# In the engine's own process (--no-isolate): one torch start less per rank; step 1 covers the workers.
args=(multi --device cpu --quick --no-isolate --collectives all_reduce,all_gather,send_recv --sizes 64K,1M)
for rank in 0 1; do
  RANK=$rank WORLD_SIZE=2 LOCAL_RANK=$rank LOCAL_WORLD_SIZE=2 GROUP_RANK=0 TORCHELASTIC_RUN_ID=e2e \
    MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
    "$BIN" --json "$OUT/tr.json" "${args[@]}" > "$OUT/tr$rank.txt" 2> "$OUT/tr$rank.err" &
  eval "pid$rank=\$!"
done
rc0=0; rc1=0
wait "$pid0" || rc0=$?
wait "$pid1" || rc1=$?
for rank in 0 1; do
  rc_var="rc$rank"
  if [ "${!rc_var}" -gt 1 ]; then
    echo "FAIL: torchrun rank $rank exited ${!rc_var}"; tail -30 "$OUT/tr$rank.txt" "$OUT/tr$rank.err"; exit 1
  fi
done
[ -s "$OUT/tr.rank0.json" ] && [ -s "$OUT/tr.rank1.json" ]
grep -q "torchrun: rank 1 of 2" "$OUT/tr1.txt"
run_doctor 0 "$OUT/merged" "$BIN" --json "$OUT/merged.json" report --from "$OUT/tr.rank0.json" --from "$OUT/tr.rank1.json"
grep -q "<- slowest link" "$OUT/merged.txt"
grep -q "^Ranks" "$OUT/merged.txt"
python3 - "$OUT/tr.rank0.json" "$OUT/tr.rank1.json" "$OUT/merged.json" <<'PY'
import json, sys
r0, r1, m = (json.load(open(p)) for p in sys.argv[1:])
def keys(r): return {x["key"] for x in r["results"] if x["kind"] == "multi"}
assert "multi/gloo/rank/r0" in keys(r0) and "multi/gloo/rank/r0" not in keys(r1), sorted(keys(r1))
assert "multi/gloo/rank/r1" in keys(r1)
for r, rank in ((r0, 0), (r1, 1)):
    row = next(x for x in r["results"] if x["key"] == f"multi/gloo/rank/r{rank}")
    assert row["evidence"]["identity"]["launcher"] == "torchrun", row
    assert all(x["status"] == "ok" for x in r["results"] if x["kind"] == "multi"), \
        [(x["key"], x["status"], x.get("reason")) for x in r["results"] if x["status"] != "ok"]
# The merge: both ranks' rows, the group's once.
assert {"multi/gloo/rank/r0", "multi/gloo/rank/r1", "multi/gloo/group/n2"} <= keys(m), sorted(keys(m))
PY
echo "torchrun ranks and merge: $(( $(date +%s) - T1 )) s"

# 3. Two ranks through srun's variables (the store host: the first of SLURM_STEP_NODELIST).
T2=$(date +%s)
port=$(free_port)
for rank in 0 1; do
  SLURM_PROCID=$rank SLURM_NTASKS=2 SLURM_STEP_NUM_TASKS=2 SLURM_LOCALID=$rank SLURM_NODEID=0 SLURM_STEP_ID=0 \
    SLURM_STEP_NODELIST=localhost SLURM_NTASKS_PER_NODE=2 SLURM_JOB_ID=77 MASTER_PORT=$port \
    "$BIN" --json "$OUT/sl-{rank}.json" multi --device cpu --quick --no-isolate --collectives all_reduce --no-links --sizes 64K \
    > "$OUT/sl$rank.txt" 2>&1 &
  eval "pid$rank=\$!"
done
rc0=0; rc1=0
wait "$pid0" || rc0=$?
wait "$pid1" || rc1=$?
[ "$rc0" -le 1 ] && [ "$rc1" -le 1 ] || { echo "FAIL: srun ranks exited $rc0/$rc1"; tail -30 "$OUT"/sl*.txt; exit 1; }
grep -q "slurm: rank 0 of 2" "$OUT/sl0.txt"
python3 - "$OUT/sl-0.json" "$OUT/sl-1.json" <<'PY'
import json, sys
for rank, p in enumerate(sys.argv[1:]):
    r = json.load(open(p))
    ok = {x["key"]: x["status"] for x in r["results"] if x["kind"] == "multi"}
    assert ok.get("multi/gloo/all_reduce/fp32/64KiB/n2") == "ok", ok
    row = next(x for x in r["results"] if x["key"] == f"multi/gloo/rank/r{rank}")
    assert row["evidence"]["identity"]["launcher"] == "slurm", row
PY
echo "srun ranks: $(( $(date +%s) - T2 )) s"

# 4. Set-up errors: exit 2, one line, nothing measured.
expect_usage() {
  local name=$1; shift
  local rc=0
  "$@" > "$OUT/$name.txt" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] || { echo "FAIL: $name exited $rc (2 expected)"; cat "$OUT/$name.txt"; exit 1; }
  grep -q "accel-doctor: " "$OUT/$name.txt"
}
expect_usage bad_rank env RANK=3 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=1234 "$BIN" multi --device cpu
grep -q "RANK=3 is not below WORLD_SIZE=2" "$OUT/bad_rank.txt"
expect_usage ranks_under_launcher env RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=1234 \
  "$BIN" multi --device cpu --ranks 3
expect_usage bad_size "$BIN" multi --device cpu --sizes 12Q
grep -q "12Q" "$OUT/bad_size.txt"
if ! "$BIN" env 2>/dev/null | grep -q "cuda:"; then
  expect_usage no_gpu "$BIN" multi --device cuda
fi
# No engine beside a copy of the front end: exit 2 before anything is printed.
mkdir -p "$OUT/alone" && cp "$BIN" "$OUT/alone/accel-doctor" && cp -r "$(dirname "$BIN")/kb" "$OUT/alone/"
expect_usage no_engine "$OUT/alone/accel-doctor" multi --device cpu
grep -q "no torch engine" "$OUT/no_engine.txt"
if grep -q "Topology" "$OUT/no_engine.txt"; then echo "FAIL: printed before the engine error"; exit 1; fi
# --list names the items without measuring.
run_doctor 0 "$OUT/list" "$BIN" multi --device cpu --quick --list
grep -q "^multi/gloo/all_reduce/fp32/64KiB/n2$" "$OUT/list.txt"
echo "PASS multi.sh in $(( $(date +%s) - T0 )) s"
