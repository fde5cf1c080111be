# Sourced by the scripts under deploy/, jobbench/ and samples/crawler/ (stack.sh sources it, so the
# scripts that source stack.sh have it too): the helpers they share.

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
