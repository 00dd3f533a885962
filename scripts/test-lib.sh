# Helpers of the test scripts (storage: scripts/test-s3.sh, scripts/test-hdfs.sh; peers:
# scripts/test-peers.sh, scripts/test-peers-2x.sh), sourced by them: PASS/FAIL lines with a
# tally, checks of one command, a peer checker's own PASS/FAIL lines, the tally's last line and
# exit status, and cargo test results added to the tally.

passed=0
failed=0
failed_names=()
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); failed_names+=("$*"); echo "FAIL $*"; }

# check NAME CMD...: runs CMD; PASS NAME, or FAIL NAME and the last 20 lines of its output,
# indented. The output goes to a temporary file.
check() {
  local name=$1 log
  shift
  log=$(mktemp)
  if "$@" >"$log" 2>&1; then
    pass "$name"
  else
    fail "$name"
    sed 's/^/    /' "$log" | tail -n 20
  fi
  rm -f "$log"
}

# tally_lines FILE: a checker's report, its PASS and FAIL lines counted into the tally, its
# other lines printed indented.
tally_lines() {
  local line
  while IFS= read -r line; do
    case "$line" in
      PASS\ *) pass "${line#PASS }" ;;
      FAIL\ *) fail "${line#FAIL }" ;;
      *) echo "    $line" ;;
    esac
  done <"$1"
}

# finish [LABEL]: prints `[LABEL: ]N passed, M failed` (and the seconds since START when the
# caller set it, and the names that failed) and exits non-zero when anything failed.
finish() {
  local f
  echo "${1:+$1: }$passed passed, $failed failed${START:+ in $(($(date +%s) - START))s}"
  for f in "${failed_names[@]}"; do echo "  failed: $f"; done
  [ "$failed" -eq 0 ]
  exit $?
}

# add_cargo_results LOG LABEL [MIN]: adds the passed and failed counts of every `test result:`
# line of cargo test's LOG to the tally; a failure when LOG has none (cargo test did not run)
# or fewer than MIN tests passed. Sets `p` and `f` to the counts.
add_cargo_results() {
  local log=$1 label=$2 min=${3:-0}
  p=0 f=0
  if ! grep -q '^test result:' "$log"; then
    fail "$label (did not run)"
    tail -30 "$log"
    return
  fi
  read -r p f < <(awk '/^test result:/ { for (i = 2; i < NF; i++) { if ($(i + 1) ~ /^passed/) p += $i; if ($(i + 1) ~ /^failed/) f += $i } } END { print p + 0, f + 0 }' "$log")
  [ "$p" -lt "$min" ] && fail "$label: only $p ran"
  passed=$((passed + p))
  failed=$((failed + f))
  echo "$label: $p passed, $f failed"
}
