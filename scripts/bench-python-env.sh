# The bench venv (.cache/bench/venv) with pypaimon 2.1.0, pypaimon-rust 0.4.0 and Ray, and this
# checkout's paimon_rs wheel built in release (symbols stripped, as a published wheel would be)
# installed into it without dependencies; sourced once by scripts/bench-python.sh and
# scripts/bench-write.sh (sets BENCH_VENV, BPY, WHEEL, PRS_WHEEL).
if [[ -z "${BENCH_PY_READY:-}" ]]; then
  BENCH_VENV="$BENCH/venv"
  BPY="$BENCH_VENV/bin/python"
  if [[ ! -x $BPY ]]; then
    python3 -m venv "$BENCH_VENV"
  fi
  "$BENCH_VENV/bin/pip" install -q "pypaimon==2.1.0" "pypaimon-rust==0.4.0" "ray[data]==2.60.0" \
    pandas "maturin==1.16.*" >&2
  echo "bench: building the paimon_rs wheel in release" >&2
  rm -rf "$BENCH/wheel"
  (cd "$ROOT/bindings/python" && "$BENCH_VENV/bin/maturin" build --release --strip --locked -q \
    -o "$BENCH/wheel" >&2)
  WHEEL=$(ls "$BENCH/wheel"/paimon_rs-*.whl | head -1)
  "$BENCH_VENV/bin/pip" install -q --force-reinstall --no-deps "$WHEEL" >&2
  rm -rf "$BENCH/prs-wheel"
  "$BENCH_VENV/bin/pip" download -q --no-deps "pypaimon-rust==0.4.0" -d "$BENCH/prs-wheel" >&2
  PRS_WHEEL=$(ls "$BENCH/prs-wheel"/*.whl | head -1)
  BENCH_PY_READY=1
fi
