# Shared by the end-to-end scripts (sourced, not a test itself): a failing
# command never ends a test silently.
#   on_error_explain      under `set -e`, print the failing line and command
#   run_doctor RC_MAX OUT CMD...   run accel-doctor with stdout and stderr in
#                         OUT.txt/OUT.err; fail with both shown when it
#                         exits above RC_MAX (1 = findings are fine)

on_error_explain() {
  trap 'rc=$?; echo "FAIL: ${BASH_SOURCE[0]##*/}:$LINENO: \`$BASH_COMMAND\` exited $rc" >&2' ERR
}

run_doctor() {
  local rc_max=$1 out=$2; shift 2
  local rc=0
  "$@" > "$out.txt" 2> "$out.err" || rc=$?
  if [ "$rc" -gt "$rc_max" ]; then
    echo "FAIL: \`$*\` exited $rc (at most $rc_max expected)" >&2
    echo "--- standard output (last 40 lines):" >&2; tail -n 40 "$out.txt" >&2
    echo "--- standard error (last 40 lines):" >&2; tail -n 40 "$out.err" >&2
    exit 1
  fi
  return 0
}
