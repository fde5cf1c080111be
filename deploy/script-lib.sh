# Sourced by the scripts under deploy/, jobbench/ and samples/crawler/ (stack.sh sources it, so the
# scripts that source stack.sh have it too): the helpers they share. Sourcing it again is harmless:
# it defines functions only (the exit handlers of on_exit live in the shell that registered them).
# shellcheck shell=bash

# header_usage FILE: FILE's usage, its header comment (from line 2 to the first line that is not a
# comment) without the leading "# ". Scripts keep their --help text there, next to the code.
header_usage() {
  awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$1"
}

# step_clock NAME: starts the clock of step and names its lines.
# step MESSAGE...: one progress line on stderr, "NAME: [SECONDS since step_clock] MESSAGE".
step_clock() {
  STEP_NAME=$1
  STEP_T0=$(date +%s)
}
# A script with a step of its own keeps it when this file is sourced again (stack.sh sources it):
# faults-lib.sh's step also records the step that a failure report names.
if ! declare -F step > /dev/null; then
  step() {
    echo "${STEP_NAME:-$(basename "$0" .sh)}: [$(( $(date +%s) - ${STEP_T0:-$(date +%s)} ))s] $*" >&2
  }
fi

# on_exit 'COMMAND': COMMAND joins the script's exit handlers, evaluated when the script ends, for
# whatever reason: its last line, `exit N`, a failure under set -e, or SIGINT/SIGTERM (which exit
# 130, as Ctrl-C does). The handlers run last registered first (register each one right after
# starting what it stops: the stack before the job, the job before a producer), each with its
# failure ignored; then the script exits with the status it was ending with. A handler reads that
# status in EXIT_RC and may set EXIT_RC to change it; it must not call exit. Quote COMMAND so
# that its variables are read at exit: on_exit 'kill_started --wait "$SERVER_PID"'.
# The first on_exit installs the one trap (EXIT, INT, TERM); `on_exit` without a COMMAND only does
# that. A script with signal traps of its own sets them after its first on_exit (faults-lib.sh).
# The registry belongs to the shell that called on_exit (a subshell starts an empty one).
on_exit() {
  if [ "${ON_EXIT_SHELL:-}" != "$BASHPID" ]; then
    ON_EXIT_SHELL=$BASHPID
    ON_EXIT_CMDS=()
    trap on_exit_run EXIT
    trap 'exit 130' INT TERM
  fi
  [ $# -eq 0 ] || ON_EXIT_CMDS+=("$*")
}
on_exit_run() {
  EXIT_RC=$?
  # a second Ctrl-C during the handlers ends the script at once; an ERR trap stays quiet
  trap - EXIT INT TERM ERR
  local i
  for (( i = ${#ON_EXIT_CMDS[@]} - 1; i >= 0; i-- )); do
    eval "${ON_EXIT_CMDS[$i]}" || true
  done
  exit "$EXIT_RC"
}

# kill_started [--wait] PID...: ends processes this script started, by PID only (never by name or
# process group): SIGTERM to each; empty arguments are skipped, so a handler can name a variable
# the script clears once it has reaped that process itself. --wait: then waits for them (children
# of this shell). Never fails.
kill_started() {
  local wait=0 p
  if [ "${1:-}" = --wait ]; then wait=1; shift; fi
  for p in "$@"; do
    if [ -n "$p" ]; then kill "$p" 2>/dev/null || true; fi
  done
  if [ "$wait" = 1 ]; then
    for p in "$@"; do
      if [ -n "$p" ]; then wait "$p" 2>/dev/null || true; fi
    done
  fi
  return 0
}
