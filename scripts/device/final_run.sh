#!/usr/bin/env bash
# One short device call (for a session with little device time left): build
# accel-doctor against the machine's Python torch, then run the measurements
# in priority order, each under a timeout cut to what is left of DEADLINE_S,
# writing every result straight to $OUT/r (what was measured before a
# timeout still comes back). The device tool returns at most 8 files a call,
# so the results are packed into $OUT/results.tar.gz (plus log.txt beside it)
# when the script ends, also on a timeout's SIGTERM.
#   OUT=... DEADLINE_S=230 [STEPS="doctor llm1b hf bench ncu train trace ops llmquick kernels"] scripts/device/final_run.sh
# STEPS picks and orders the measurements (default: all but kernels).
# Run from a `git archive HEAD` copy with .devdeps beside it (see stage_deps.sh).
set -uo pipefail
OUT="${OUT:-/tmp/accel-out}"; R=/tmp/accel-r; rm -rf "$R"; mkdir -p "$R" "$OUT"
pack() { tar -C /tmp -czf "$OUT/results.tar.gz" accel-r 2>/dev/null; cp "$R/log.txt" "$OUT/log.txt" 2>/dev/null; }
trap pack EXIT
trap 'pack; exit 143' TERM
exec > >(tee -a "$R/log.txt") 2>&1
DEADLINE_S="${DEADLINE_S:-230}"
t0=$(date +%s)
left() { echo $(( DEADLINE_S - ($(date +%s) - t0) )); }
stamp() { echo "=== +$(( $(date +%s) - t0 ))s $*"; }
# step NAME MAX_S CMD...: runs CMD under min(MAX_S, time left - 3); skipped when under 8 s are left.
step() {
  local name="$1" max="$2"; shift 2
  local l; l=$(left); local t=$(( l - 3 < max ? l - 3 : max ))
  if [ "$t" -lt 8 ]; then echo "=== skipped $name: ${l}s left"; return 0; fi
  stamp "$name (timeout ${t}s)"
  local s; s=$(date +%s)
  timeout "$t" "$@"; local rc=$?
  echo "=== $name: rc=$rc in $(( $(date +%s) - s ))s"
  return 0
}
PY=python3; BUILD=/tmp/build-dev; BIN=$BUILD/accel-doctor
export ACCEL_DOCTOR_KB="$PWD/kb" PATH="$PATH:/usr/local/cuda/bin"

stamp machine
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$R/gpu.csv"
$PY -c 'import torch;print("torch", torch.__version__, "cuda", torch.version.cuda)' | tee "$R/torch.txt"
date -u | tee "$R/date.txt"

stamp build
cmake -S . -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PWD/.devdeps/root/usr" \
  > "$R/configure.txt" 2>&1 || tail -30 "$R/configure.txt"
ninja -C $BUILD -j "$(nproc)" accel-doctor accel-doctor-torch > "$R/build.txt" 2>&1; echo "build rc=$?"
grep -E "error|FAILED" "$R/build.txt" | head -40
[ -x $BIN ] || exit 1

STEPS="${STEPS:-doctor llm1b hf bench ncu train trace ops llmquick}"

# Peak RSS per accel-doctor process (parent and workers), sampled every 0.2 s
# from /proc: VmHWM (peak), RssAnon (heap) and RssFile (mapped libraries).
rss_watch() {
  while :; do
    for p in $(pgrep -x accel-doctor); do
      echo "$p $(tr '\0' ' ' < /proc/$p/cmdline | cut -c1-60) $(grep -E '^(VmHWM|RssAnon|RssFile)' /proc/$p/status | tr -s ' \t\n' ' ')"
    done
    sleep 0.2
  done
}
rss_summary() {  # the last sample per pid carries its peak (VmHWM)
  awk '{ last[$1] = $0 } END { for (p in last) print last[p] }' "$1"
}
# GPU clocks, power and clock-event reasons every 100 ms.
smi_watch() {
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
    --format=csv,noheader -lms 100 > "$1" 2>&1
}

# The default run: the whole diagnosis (issue 5 target: <= 60 s here).
run_doctor() {
  /usr/bin/time -f "doctor wall %e s, max RSS %M KiB" $BIN --json "$R/doctor.json" --html "$R/doctor.html" \
    > "$R/doctor.txt" 2> "$R/doctor.err"; echo "doctor exit $?"; tail -2 "$R/doctor.err"
}
# Full ops (issue 2 targets: <= 20 s, host memory <= 2 GiB).
run_ops() {
  rss_watch > "$R/ops_rss_samples.txt" & local w=$!
  /usr/bin/time -f "ops wall %e s, max RSS %M KiB (largest process)" $BIN --quiet ops --json "$R/ops.json" \
    > "$R/ops.txt" 2> "$R/ops.err"; echo "ops exit $?"
  kill $w; wait $w 2>/dev/null; tail -2 "$R/ops.err"; rss_summary "$R/ops_rss_samples.txt"; grep -E "^Summary" "$R/ops.txt"
}
run_llmquick() {
  /usr/bin/time -f "llm --quick wall %e s" $BIN llm --quick --json "$R/llm_quick.json" > "$R/llm_quick.txt" 2>&1
  tail -3 "$R/llm_quick.txt"
}

for s in $STEPS; do
  case $s in
    doctor) step doctor 110 bash -c "$(declare -f run_doctor); R=$R BIN=$BIN; run_doctor"
            sed -n '/^Checking/,$p' "$R/doctor.txt" ;;
    ops) step ops 120 bash -c "$(declare -f rss_watch rss_summary run_ops); R=$R BIN=$BIN; run_ops" ;;
    llmquick) step llm-quick 60 bash -c "$(declare -f run_llmquick); R=$R BIN=$BIN; run_llmquick" ;;
    llm1b)
      # Llama-3.2-1B decode vs transformers' eager generate in this call (issue 4).
      # LLM_SDPA="auto efficient math" also runs it with each SDPA backend.
      for b in ${LLM_SDPA:-auto}; do
        name=llm; [ "$b" = auto ] || name=llm_$b
        step llm-1b-$b 60 $BIN llm --preset llama-3.2-1b --prompt 128 --gen 32 --no-cpu --sdpa-backend $b \
          --json "$R/$name.json" > "$R/$name.txt" 2>&1
        cat "$R/$name.txt"
      done ;;
    hf)
      step hf 60 bash -c "$PY scripts/device/hf_reference.py 128 32 > $R/hf_reference.json 2> $R/hf_reference.err"
      [ -s "$R/hf_reference.json" ] && [ -s "$R/llm.json" ] &&
        $PY scripts/device/llm_targets.py "$R/llm.json" "$R/hf_reference.json" | tee "$R/llm_targets.txt" ;;
    bench)
      # Bench fidelity vs PyTorch CUDA events in this call (issue 3), clocks sampled.
      smi_watch "$R/smi_bench.csv" & sw=$!
      step bench-fidelity 30 $BIN bench --no-cpu --filter bench/cuda/gemm/square/bf16/8192x8192x8192,bench/cuda/memory/copy,bench/cuda/transfer/h2d_pinned --json "$R/bench.json" > "$R/bench.txt" 2>&1
      echo "--- reference" >> "$R/smi_bench.csv"
      step reference 40 bash -c "$PY scripts/device/reference_bench.py > $R/reference_bench.json 2> $R/reference_bench.err"
      kill $sw 2>/dev/null
      [ -s "$R/reference_bench.json" ] && $PY scripts/device/fidelity.py "$R/bench.json" "$R/reference_bench.json" | tee "$R/fidelity.txt"
      grep -A12 "gemm_bf16_8192_two\|sustained\|kernels" "$R/reference_bench.json" | head -30 ;;
    ncu)
      # Which kernel our bf16 8192^3 GEMM runs: ncu names the first kernels.
      command -v ncu >/dev/null &&
        step gemm-kernel 50 bash -c "ncu --launch-count 6 --print-summary per-kernel $BIN --quiet bench --no-cpu --no-isolate --filter bench/cuda/gemm/square/bf16/8192x8192x8192 > $R/gemm_ncu.txt 2>&1" &&
        grep -iE "gemm|kernel|sm90|cutlass|nvjet" "$R/gemm_ncu.txt" | head -12 ;;
    train) step train 40 $BIN train --quick --json "$R/train.json" > "$R/train.txt" 2>&1; tail -25 "$R/train.txt" ;;
    trace)
      step ops-trace 30 $BIN ops --quick --filter linalg --trace /tmp/ops_trace.json --json "$R/ops_linalg.json" > "$R/ops_linalg.txt" 2>&1
      tail -40 "$R/ops_linalg.txt" | grep -vE "^\s+(ok|OK)" | tail -30; ls -la /tmp/ops_trace.json 2>&1 | tee "$R/trace_size.txt"
      # A crash report names offsets in our binary: resolve them to functions.
      for off in $(grep -oE "accel-doctor(\(|)\+0x[0-9a-f]+" "$R/ops_linalg.txt" | grep -oE "0x[0-9a-f]+"); do
        echo "$off: $(addr2line -f -C -i -e $BIN "$off" | tr '\n' ' ')"
      done | tee "$R/crash_symbols.txt"
      # Which libtorch.so function sits before a return address in it, and the
      # stacks of every thread at the crash (gdb, where the machine has it).
      TL=$($PY -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
      for off in $(grep -oE "libtorch\.so\+0x[0-9a-f]+" "$R/ops_linalg.txt" | grep -oE "0x[0-9a-f]+"); do
        echo "libtorch.so $off:"; nm -DC --defined-only "$TL/libtorch.so" | sort |
          awk -v o="$(printf '%016x' "$off")" '$1 <= o' | tail -2
        objdump -d -C --start-address=$((off - 48)) --stop-address=$((off + 8)) "$TL/libtorch.so" | tail -14
      done 2>&1 | tee "$R/libtorch_at_crash.txt"
      if command -v gdb >/dev/null; then
        timeout 60 gdb -q -batch -ex run -ex "info threads" -ex "thread apply all bt 15" \
          --args $BIN ops --quick --filter linalg --trace /tmp/ops_trace2.json > "$R/gdb.txt" 2>&1
        grep -A40 "SIGSEGV" "$R/gdb.txt" | head -80
      else
        echo "no gdb on this machine"
      fi ;;
    kernels)
      # The small decode operations and their alternatives, in CUDA graphs (issue 4 ceiling).
      step decode-kernels 60 bash -c "$PY scripts/device/decode_kernels.py > $R/decode_kernels.json 2> $R/decode_kernels.err"
      cat "$R/decode_kernels.json"; tail -3 "$R/decode_kernels.err" ;;
    *) echo "unknown step $s" ;;
  esac
done
stamp done
