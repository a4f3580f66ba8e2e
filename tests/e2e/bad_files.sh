#!/usr/bin/env bash
# End-to-end: every input file a command is given that cannot be read or
# parsed is a set-up error (exit 2) with one clear line on standard error
# naming the path and what is wrong (issue 16), and it is refused before
# anything is measured: --weights (config.json, the index, safetensors
# headers and lengths), --data (IDX files), explain FILE and --from,
# ACCEL_DOCTOR_KB (errors, arch.json, gpus.json, rules.json), reports
# (report, diagnose, compare, bench --vulkan --from).
set -uo pipefail
BIN="$1"; OUT="$2"; rm -rf "$OUT"; mkdir -p "$OUT"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export ACCEL_DOCTOR_KB=${ACCEL_DOCTOR_KB:-$HERE/../../kb}
fails=0

# expect_setup_error NAME PATTERN CMD...: exit 2, exactly one line on
# standard error matching PATTERN (besides CLI11's "Run with --help" hint
# after an option it validates itself), nothing measured on standard output.
expect_setup_error() {
  local name=$1 pattern=$2; shift 2
  local rc=0
  "$@" > "$OUT/$name.out" 2> "$OUT/$name.err" || rc=$?
  local why=""
  [ "$rc" -eq 2 ] || why="exited $rc, 2 expected"
  [ -z "$why" ] && [ "$(grep -vc '^Run with --help' "$OUT/$name.err")" -ne 1 ] && why="$(wc -l < "$OUT/$name.err") lines on stderr, 1 expected"
  [ -z "$why" ] && ! grep -Eq -- "$pattern" "$OUT/$name.err" && why="stderr lacks /$pattern/"
  [ -z "$why" ] && [ -s "$OUT/$name.out" ] && why="something was printed (measured?) before the refusal"
  if [ -n "$why" ]; then
    echo "FAIL: $name: \`$*\` $why" >&2
    echo "--- stdout:" >&2; head -n 20 "$OUT/$name.out" >&2
    echo "--- stderr:" >&2; head -n 20 "$OUT/$name.err" >&2
    fails=$((fails + 1))
  else
    echo "ok: $name: $(head -n 1 "$OUT/$name.err")"
  fi
}

# ---- llm --weights: a checkpoint whose second shard is truncated.
python3 - "$OUT/ck" <<'PY'
import json, os, struct, sys
d = sys.argv[1]; os.makedirs(d, exist_ok=True)
json.dump({"model_type": "llama", "hidden_size": 64}, open(f"{d}/config.json", "w"))
def st(name, n):
    h = json.dumps({name: {"dtype": "F32", "shape": [n], "data_offsets": [0, 4 * n]}}).encode()
    h += b" " * (-(8 + len(h)) % 8)
    return struct.pack("<Q", len(h)) + h + b"\x01" * (4 * n)
open(f"{d}/model-00001-of-00002.safetensors", "wb").write(st("a", 64))
open(f"{d}/model-00002-of-00002.safetensors", "wb").write(st("b", 64)[:-100])
PY
expect_setup_error llm_truncated "model-00002-of-00002.safetensors: truncated: tensor 'b' ends at byte [0-9]+ but the file has [0-9]+ bytes" \
  "$BIN" llm --quick --no-cpu --weights "$OUT/ck" --json "$OUT/llm_truncated.json"
[ -e "$OUT/llm_truncated.json" ] && { echo "FAIL: a report was written for a refused --weights" >&2; fails=$((fails + 1)); }
printf '{"model_type": ' > "$OUT/ck/config.json"
expect_setup_error llm_bad_config "config.json: not valid JSON at byte [0-9]+" "$BIN" llm --quick --no-cpu --weights "$OUT/ck"
rm "$OUT/ck/config.json"
expect_setup_error llm_no_config "config.json: cannot read" "$BIN" llm --quick --no-cpu --weights "$OUT/ck"
expect_setup_error llm_no_dir "(not a directory|Directory does not exist)" "$BIN" llm --quick --no-cpu --weights "$OUT/nowhere"

# ---- train --data: a truncated images file and a missing folder.
python3 - "$OUT/mnist" <<'PY'
import os, struct, sys
d = sys.argv[1]; os.makedirs(d, exist_ok=True)
open(f"{d}/train-images-idx3-ubyte", "wb").write(struct.pack(">IIII", 0x803, 10, 28, 28) + b"\0" * 700)
open(f"{d}/train-labels-idx1-ubyte", "wb").write(struct.pack(">II", 0x801, 10) + bytes(range(10)))
PY
expect_setup_error train_truncated "train-images-idx3-ubyte.*truncated" "$BIN" train --quick --no-cpu --data "$OUT/mnist"
expect_setup_error train_no_dir "--data: " "$BIN" train --quick --no-cpu --data "$OUT/nowhere"

# ---- explain FILE that cannot be opened.
expect_setup_error explain_missing "cannot read $OUT/no-such.log: No such file or directory" "$BIN" explain "$OUT/no-such.log"
expect_setup_error explain_dir "is a directory" "$BIN" explain "$OUT"
if [ "$(id -u)" -ne 0 ]; then
  echo "RuntimeError: CUDA out of memory" > "$OUT/unreadable.log"; chmod 000 "$OUT/unreadable.log"
  expect_setup_error explain_unreadable "cannot read $OUT/unreadable.log: Permission denied" "$BIN" explain "$OUT/unreadable.log"
fi

# ---- a broken knowledge base: missing, without error files, not JSON.
echo "RuntimeError: CUDA out of memory" > "$OUT/oom.log"
ACCEL_DOCTOR_KB="$OUT/nowhere" expect_setup_error kb_missing "ACCEL_DOCTOR_KB=$OUT/nowhere: not a directory" "$BIN" explain "$OUT/oom.log"
mkdir -p "$OUT/kb_empty"
ACCEL_DOCTOR_KB="$OUT/kb_empty" expect_setup_error kb_empty "json or errors.json there" "$BIN" explain "$OUT/oom.log"
rm -rf "$OUT/kb_broken"; cp -r "$ACCEL_DOCTOR_KB" "$OUT/kb_broken"; printf '{"errors": [' > "$OUT/kb_broken/errors/cuda.json"
ACCEL_DOCTOR_KB="$OUT/kb_broken" expect_setup_error kb_broken "kb_broken/errors/cuda.json is not valid JSON at byte [0-9]+" "$BIN" explain "$OUT/oom.log"

# ---- reports (compare, diagnose, report): missing and malformed.
printf '{"results": [' > "$OUT/bad.json"
expect_setup_error report_bad "bad.json" "$BIN" report --from "$OUT/bad.json"
expect_setup_error diagnose_missing "no-such.json" "$BIN" diagnose --from "$OUT/no-such.json"
# A number too large for a double: nlohmann's out_of_range, once exit 4.
printf '{"schema_version": 1e999}' > "$OUT/huge.json"
expect_setup_error report_huge_number "huge.json' is not valid JSON.*number overflow" "$BIN" report --from "$OUT/huge.json"
expect_setup_error compare_bad "bad.json" "$BIN" compare "$OUT/bad.json" "$OUT/bad.json"

# ---- the audit of every command's input files (issue 16): the cases above
# did not cover these. Reports: an empty file, a directory, JSON that is not
# a report, a field of the wrong type, a newer schema; in compare (either
# side), report --from (one of several), explain --from and bench --vulkan --from.
GOOD=${ACCEL_TEST_FIXTURES:-$HERE/../fixtures}/reports/h200-healthy.json
: > "$OUT/empty.json"
expect_setup_error report_empty "empty.json" "$BIN" report --from "$OUT/empty.json"
expect_setup_error report_dir "$OUT" "$BIN" report --from "$OUT"
echo '[1, 2]' > "$OUT/array.json"
expect_setup_error report_not_object "array.json" "$BIN" diagnose --from "$OUT/array.json"
printf '{"schema_version": 1, "context": {}, "results": [{"key": 5}]}' > "$OUT/wrong_type.json"
expect_setup_error report_wrong_type "wrong_type.json.*key" "$BIN" report --from "$OUT/wrong_type.json"
expect_setup_error report_newer_schema "newer-schema.json" "$BIN" diagnose --from "$(dirname "$GOOD")/newer-schema.json"
expect_setup_error report_second_bad "bad.json" "$BIN" report --from "$GOOD" --from "$OUT/bad.json"
expect_setup_error compare_second_missing "no-such.json" "$BIN" compare "$GOOD" "$OUT/no-such.json"
expect_setup_error explain_from_bad "--from $OUT/bad.json" "$BIN" explain --from "$OUT/bad.json" "$OUT/oom.log"
expect_setup_error vulkan_from_bad "bad.json" "$BIN" bench --vulkan --from "$OUT/bad.json"
# explain: an empty log (nothing to read is not "nothing recognised").
: > "$OUT/empty.log"
expect_setup_error explain_empty "empty" "$BIN" explain "$OUT/empty.log"

# --weights: an index whose weight_map is not an object, a shard the index
# names that is missing, a header whose length runs past the file, a header
# that is not JSON.
python3 - "$OUT/ck2" <<'PY'
import json, os, struct, sys
d = sys.argv[1]; os.makedirs(d, exist_ok=True)
json.dump({"model_type": "llama"}, open(f"{d}/config.json", "w"))
json.dump({"weight_map": ["model.safetensors"]}, open(f"{d}/model.safetensors.index.json", "w"))
PY
expect_setup_error llm_index_not_map "model.safetensors.index.json: field 'weight_map' is missing or not an object" \
  "$BIN" llm --quick --no-cpu --weights "$OUT/ck2"
python3 - "$OUT/ck2" <<'PY'
import json, sys
d = sys.argv[1]
json.dump({"weight_map": {"a": "model-00001-of-00001.safetensors"}}, open(f"{d}/model.safetensors.index.json", "w"))
PY
expect_setup_error llm_shard_missing "model-00001-of-00001.safetensors" "$BIN" llm --quick --no-cpu --weights "$OUT/ck2"
python3 - "$OUT/ck2" <<'PY'
import struct, sys
d = sys.argv[1]
open(f"{d}/model-00001-of-00001.safetensors", "wb").write(struct.pack("<Q", 4096) + b"{}")
PY
expect_setup_error llm_header_past_end "model-00001-of-00001.safetensors: truncated: the header says 4104 bytes" "$BIN" llm --quick --no-cpu --weights "$OUT/ck2"
python3 - "$OUT/ck2" <<'PY'
import struct, sys
d = sys.argv[1]; h = b'{"a": [1, 2'
open(f"{d}/model-00001-of-00001.safetensors", "wb").write(struct.pack("<Q", len(h)) + h)
PY
expect_setup_error llm_header_not_json "model-00001-of-00001.safetensors: the header is not valid JSON at byte [0-9]+" \
  "$BIN" llm --quick --no-cpu --weights "$OUT/ck2"

# --data: IDX files with the wrong magic (labels given as images), and a
# folder with images but no labels.
python3 - "$OUT/mnist2" <<'PY'
import os, struct, sys
d = sys.argv[1]; os.makedirs(d, exist_ok=True)
open(f"{d}/train-images-idx3-ubyte", "wb").write(struct.pack(">II", 0x801, 10) + bytes(10))
open(f"{d}/train-labels-idx1-ubyte", "wb").write(struct.pack(">II", 0x801, 10) + bytes(10))
PY
expect_setup_error train_wrong_magic "train-images-idx3-ubyte.*magic" "$BIN" train --quick --no-cpu --data "$OUT/mnist2"
rm "$OUT/mnist2/train-labels-idx1-ubyte"
python3 - "$OUT/mnist2" <<'PY'
import struct, sys
d = sys.argv[1]
open(f"{d}/train-images-idx3-ubyte", "wb").write(struct.pack(">IIII", 0x803, 1, 28, 28) + bytes(784))
PY
expect_setup_error train_no_labels "train-labels-idx1-ubyte" "$BIN" train --quick --no-cpu --data "$OUT/mnist2"

# The kb's other files under ACCEL_DOCTOR_KB: a broken arch.json (explain),
# gpus.json (bench --vulkan: refused before lavapipe is measured) and
# rules.json (diagnose and report --from: before any output), each named
# with what is wrong.
for f in arch.json gpus.json rules.json; do
  rm -rf "$OUT/kb_$f"; cp -r "$ACCEL_DOCTOR_KB" "$OUT/kb_$f"; printf '{"x": [' > "$OUT/kb_$f/$f"
done
ACCEL_DOCTOR_KB="$OUT/kb_arch.json" expect_setup_error kb_arch_broken "kb_arch.json/arch.json is not valid JSON at byte [0-9]+" \
  "$BIN" explain "$OUT/oom.log"
ACCEL_DOCTOR_KB="$OUT/kb_gpus.json" expect_setup_error kb_gpus_broken "kb_gpus.json/gpus.json is not valid JSON" \
  "$BIN" bench --vulkan
ACCEL_DOCTOR_KB="$OUT/kb_rules.json" expect_setup_error kb_rules_broken "kb_rules.json/rules.json" \
  "$BIN" diagnose --from "$GOOD"
ACCEL_DOCTOR_KB="$OUT/kb_rules.json" expect_setup_error kb_rules_broken_report "kb_rules.json/rules.json" \
  "$BIN" report --from "$GOOD"

[ "$fails" -eq 0 ] || { echo "FAIL: $fails bad-file case(s)" >&2; exit 1; }
echo "bad files: every case exits 2 with one line"
