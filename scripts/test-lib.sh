# Helpers of the storage test scripts (scripts/test-s3.sh, scripts/test-hdfs.sh), sourced by
# them: PASS/FAIL lines with a tally, the tally's last line and exit status, and cargo test
# results added to the tally.

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }

# Prints `N passed, M failed` and exits non-zero when anything failed.
finish() {
  echo "$passed passed, $failed failed"
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
