#!/usr/bin/env bash
# check_exit.sh CODE TEXT COMMAND...: runs COMMAND and passes only when it
# exits with CODE and its output (stdout and stderr) contains TEXT. Used
# by the bad-input tests: a clear message and the documented exit code.
set -u
want="$1" text="$2"
shift 2
out="$("$@" 2>&1)"
got=$?
if [ "$got" -ne "$want" ]; then
  printf '%s\n' "$out"
  echo "check_exit: exit code $got, expected $want: $*" >&2
  exit 1
fi
if ! printf '%s\n' "$out" | grep -qF -- "$text"; then
  printf '%s\n' "$out"
  echo "check_exit: output lacks \"$text\": $*" >&2
  exit 1
fi
echo "check_exit: exit $got with \"$text\" as expected"
