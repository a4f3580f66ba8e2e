#!/usr/bin/env bash
# End-to-end: the commit a build names (cmake/GitCommit.cmake) comes from the
# tree's own checkout (with -dirty), else from what `git archive` wrote, else
# "unknown"; and the binary prints a commit in --version.
set -euo pipefail
BIN="$1"; OUT="$2"; rm -rf "$OUT"; mkdir -p "$OUT"
SCRIPT="$(cd "$(dirname "$0")/../.." && pwd)/cmake/GitCommit.cmake"
commit_of() { cmake -DSOURCE_DIR="$1" -DOUTPUT="$OUT/out.cpp" -P "$SCRIPT" && sed -n 's/.*return "\(.*\)".*/\1/p' "$OUT/out.cpp"; }
fail() { echo "FAIL: $*"; exit 1; }

# A checkout: its HEAD, then -dirty after an edit.
repo="$OUT/repo"; mkdir -p "$repo/cmake"
printf '%s\n' '$Format:%H$' > "$repo/cmake/git_commit.txt"
echo 'cmake/git_commit.txt export-subst' > "$repo/.gitattributes"
echo a > "$repo/file.txt"
git -C "$repo" init -q && git -C "$repo" add . &&
  git -C "$repo" -c user.name=t -c user.email=t@example.org commit -qm one
want=$(git -C "$repo" rev-parse --short=12 HEAD)
[ "$(commit_of "$repo")" = "$want" ] || fail "checkout: $(commit_of "$repo") != $want"
echo b > "$repo/file.txt"
[ "$(commit_of "$repo")" = "$want-dirty" ] || fail "dirty checkout: $(commit_of "$repo")"

# An archive of it, unpacked inside the checkout: the archived commit, not the checkout's state.
git -C "$repo" stash -q
mkdir -p "$repo/snap" && git -C "$repo" archive HEAD | tar -x -C "$repo/snap"
echo c > "$repo/file.txt"
[ "$(commit_of "$repo/snap")" = "$want" ] || fail "archive: $(commit_of "$repo/snap") != $want"

# A copy that is neither: unknown.
mkdir -p "$OUT/plain/cmake" && printf '%s\n' '$Format:%H$' > "$OUT/plain/cmake/git_commit.txt"
[ "$(commit_of "$OUT/plain")" = "unknown" ] || fail "plain copy: $(commit_of "$OUT/plain")"

# Built from a checkout: a commit, never "unknown"; from a plain copy: unknown.
if git -C "$(dirname "$SCRIPT")/.." rev-parse HEAD > /dev/null 2>&1; then
  "$BIN" --version | grep -Eq '\([0-9a-f]{12}(-dirty)?\)' || fail "no commit in --version: $("$BIN" --version)"
else
  "$BIN" --version | grep -q '(unknown)' || fail "a commit from nowhere: $("$BIN" --version)"
fi
echo "git commit lookup ok"
