#!/usr/bin/env bash
# Records Java 1.4.2's view of the commit messages paimon-rs writes, for paimon-split's
# commit_oracle test:
#   fixtures/commit-messages/<case>.bin          our bytes (written by the test itself with
#                                                PAIMON_RECORD_COMMIT_BYTES=1)
#   fixtures/commit-messages/<case>.java.jsonl   `java-oracle.sh decode-commit-messages` of them
# Rerun after changing the messages in crates/paimon-split/tests/integration/commit_oracle.rs or
# the commit-message encoder. Usage: scripts/gen-commit-oracle.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ORACLE="$ROOT/scripts/java-oracle.sh"
OUT="$ROOT/fixtures/commit-messages"
mkdir -p "$OUT"

(cd "$ROOT" && PAIMON_RECORD_COMMIT_BYTES=1 cargo test -q -p paimon-split --test integration \
  commit_oracle:: >/dev/null)
"$ORACLE" decode-commit-messages list "$OUT/list-v11.bin" 11 >"$OUT/list-v11.java.jsonl"
"$ORACLE" decode-commit-messages versioned "$OUT/versioned-v11.bin" >"$OUT/versioned-v11.java.jsonl"
"$ORACLE" decode-commit-messages committable "$OUT/committable-v5.bin" 5 >"$OUT/committable-v5.java.jsonl"
echo "recorded $(ls "$OUT" | wc -l) files in $OUT" >&2
