#!/usr/bin/env bash
# Device step: llm --quick timing, the Llama-3.2-1B grid, the transformers reference and the targets.
BIN="$1"; R="$2"; ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PY=${PYTHON:-python3}
/usr/bin/time -f "llm --quick: %e s, max RSS %M KiB" $BIN llm --quick --json "$R/llm_quick.json" > "$R/llm_quick.txt" 2>&1; echo "llm quick rc=$?"
cat "$R/llm_quick.txt"
/usr/bin/time -f "llm (llama-3.2-1b grid): %e s, max RSS %M KiB" $BIN llm --preset llama-3.2-1b --batch 1,8 --prompt 128,512 --gen 128 \
  --json "$R/llm.json" > "$R/llm.txt" 2>&1; echo "llm rc=$?"
cat "$R/llm.txt"
$PY "$ROOT/scripts/device/hf_reference.py" 128 128 > "$R/hf_reference.json" 2> "$R/hf_reference.err"; echo "hf rc=$?"
cat "$R/hf_reference.json"; tail -3 "$R/hf_reference.err"
$PY "$ROOT/scripts/device/llm_targets.py" "$R/llm.json" "$R/hf_reference.json" | tee "$R/llm_targets.txt"
