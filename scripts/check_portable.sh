#!/usr/bin/env bash
# Portability check (issue 10): no source under src/ outside
# src/platform/posix/ and src/platform/linux/ may include a POSIX-only header
# or call a POSIX-only function, and only src/platform/windows/ may include
# windows.h. The OS-specific halves live behind the interfaces of
# src/platform/*.hpp. Comments and string literals are ignored (as far as a
# line-based script can: //, /* ... */ across lines, "..." on one line).
#   scripts/check_portable.sh [SRC_DIR]    exit 0: clean, 1: violations listed
set -euo pipefail
src="${1:-$(cd "$(dirname "$0")/.." && pwd)/src}"

headers='unistd\.h|sys/[a-z_/]+\.h|dlfcn\.h|pthread\.h|fcntl\.h|poll\.h|dirent\.h|termios\.h|link\.h|elf\.h|execinfo\.h|spawn\.h|pwd\.h|grp\.h|ucontext\.h|libgen\.h|glob\.h|fnmatch\.h|syslog\.h|netdb\.h|arpa/[a-z_]+\.h|netinet/[a-z_]+\.h|semaphore\.h|strings\.h|crt_externs\.h'
functions='fork|vfork|execv|execve|execvp|execvpe|execl|execlp|execle|pipe|pipe2|dup|dup2|dup3|isatty|ioctl|dlopen|dlsym|dlclose|dlerror|dladdr|dl_iterate_phdr|getpid|getppid|getuid|geteuid|getgid|getegid|getgroups|mmap|munmap|mprotect|popen|pclose|setenv|unsetenv|realpath|readlink|symlink|waitpid|wait3|wait4|kill|killpg|sysconf|gethostname|uname|sigaction|sigemptyset|sigprocmask|pthread_[a-z_]+|posix_spawn|posix_spawnp|fcntl|poll|select|openat|fstat|lstat|access|chmod|chown|rmdir|unlink|mkdtemp|mkstemp|usleep|nanosleep|opendir|readdir|closedir|getpwuid|getgrgid|getgrnam|strsignal|backtrace|backtrace_symbols_fd|sched_setaffinity|sched_getaffinity|environ'

windows_crt='fcntl\.h|sys/stat\.h|sys/types\.h|sys/timeb\.h|sys/utime\.h'

# POSIX functions called without arguments; any other name followed by "()" is not the POSIX one.
nullary='fork|vfork|getpid|getppid|getuid|geteuid|getgid|getegid|dlerror'

# Prints "file:line: text" for code lines (comments and string literals blanked).
strip_comments() {
  awk '
    BEGIN { in_block = 0 }
    {
      line = $0; out = ""
      while (length(line) > 0) {
        if (in_block) {
          e = index(line, "*/")
          if (e == 0) { line = ""; break }
          line = substr(line, e + 2); in_block = 0; continue
        }
        s = index(line, "/*"); c = index(line, "//")
        if (s > 0 && (c == 0 || s < c)) { out = out substr(line, 1, s - 1) " "; line = substr(line, s + 2); in_block = 1; continue }
        if (c > 0) { out = out substr(line, 1, c - 1); line = ""; break }
        out = out line; line = ""
      }
      if (out !~ /^[ \t]*#[ \t]*include/) gsub(/"([^"\\]|\\.)*"/, "\"\"", out)
      print FILENAME ":" FNR ": " out
    }' "$1"
}

violations=()
while IFS= read -r -d '' f; do
  rel="${f#"$src"/}"
  case "$rel" in platform/posix/* | platform/linux/*) continue ;; esac
  code="$(strip_comments "$f")"
  while IFS= read -r hit; do
    # The Windows C runtime has its own fcntl.h and sys/stat.h, sys/types.h (_O_BINARY, _stat).
    case "$rel" in platform/windows/*) grep -qE "<($windows_crt)>" <<<"$hit" && continue ;; esac
    [ -n "$hit" ] && violations+=("src/${hit#"$src"/}   [POSIX-only header]")
  done < <(grep -E "^[^:]+:[0-9]+: *# *include *<($headers)>" <<<"$code" || true)
  case "$rel" in platform/windows/*) ;; *)
    while IFS= read -r hit; do
      [ -n "$hit" ] && violations+=("src/${hit#"$src"/}   [windows.h outside src/platform/windows]")
    done < <(grep -iE "^[^:]+:[0-9]+: *# *include *[<\"](windows|winsock2?|psapi|intrin)\.h[>\"]" <<<"$code" || true)
    ;;
  esac
  # A call: the name as a word, not a member (.x, ->x), not qualified by a
  # namespace other than the global one (std::kill is not a thing; ::kill is),
  # followed by "(". `environ` is a variable: matched as a word.
  while IFS= read -r hit; do
    [ -n "$hit" ] || continue
    text="${hit#*: }"
    while IFS= read -r name; do
      [ -n "$name" ] || continue
      word="$(grep -oE "($functions)" <<<"$name" | tail -1)"
      after="${name##*"$word"}"
      # "name(": a call, unless "name()" of a function that takes arguments
      # (then it is another function of that name, such as Subprocess::kill()).
      if [ "$word" != environ ]; then
        grep -qE '^ *\(' <<<"$after" || continue
        if grep -qE '^ *\( *\)$' <<<"$after" && ! grep -qxE "$nullary" <<<"$word"; then continue; fi
      fi
      violations+=("src/${hit#"$src"/}   [POSIX-only call: $word]")
    done < <(grep -oE "(^|[^A-Za-z0-9_.>:]|[^A-Za-z0-9_:]::)($functions)\b *(\( *\)?)?" <<<"$text" || true)
  done < <(grep -E "(^|[^A-Za-z0-9_.>])($functions)\b" <<<"$code" || true)
done < <(find "$src" \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cc' \) -print0 | sort -z)

if [ ${#violations[@]} -eq 0 ]; then
  echo "check_portable: no POSIX-only header or call outside src/platform/{posix,linux}, no windows.h outside src/platform/windows"
  exit 0
fi
echo "check_portable: ${#violations[@]} portability violation(s): move the OS-specific code into src/platform/{posix,linux,windows} behind a function of src/platform/*.hpp" >&2
printf '  %s\n' "${violations[@]}" >&2
exit 1
