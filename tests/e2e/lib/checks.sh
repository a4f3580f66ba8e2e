# Counted checks for the end-to-end scripts (sourced, not a test itself).
# The script sets BIN (the accel-doctor binary) and SCRATCH (a folder), and
# ends with `exit $((failures > 0))` or its own summary of `failures`.
#   pass MSG / fail MSG        one check passed / failed (failures counted)
#   run NAME "RCS" ARGS...     runs "$BIN" ARGS (behind the launcher in the
#                              array RUN_PREFIX when set, e.g. Wine); keeps
#                              stdout/stderr in $SCRATCH/NAME.{out,err}, $OUT,
#                              $ERR (carriage returns removed), $RC; passes
#                              when RC is one of the space-separated RCS
#   has NAME TEXT HAYSTACK     HAYSTACK contains TEXT (fixed string)
#   lacks NAME TEXT HAYSTACK   HAYSTACK does not contain TEXT

failures=0
pass() { echo "ok   - $1"; }
fail() { echo "FAIL - $1"; failures=$((failures + 1)); }
run() {
  local name=$1 want=$2
  shift 2
  ${RUN_PREFIX[@]+"${RUN_PREFIX[@]}"} "$BIN" "$@" >"$SCRATCH/$name.out" 2>"$SCRATCH/$name.err"
  RC=$?
  OUT=$(tr -d '\r' <"$SCRATCH/$name.out")
  ERR=$(tr -d '\r' <"$SCRATCH/$name.err")
  if [[ " $want " == *" $RC "* ]]; then pass "$name exits $RC"; else fail "$name exits $RC, expected $want: $ERR"; fi
}
has() { if grep -qF -- "$2" <<<"$3"; then pass "$1 mentions '$2'"; else fail "$1 does not mention '$2'"; fi; }
lacks() { if grep -qF -- "$2" <<<"$3"; then fail "$1 mentions '$2'"; else pass "$1 does not mention '$2'"; fi; }
