#!/usr/bin/env bash
# The GPU check of issue 10, in one run on a machine with an NVIDIA GPU (docs/gpu.md).
#
#   bash tools/gpu_check.sh                # results in $OUT (default: ./gpu_check_out)
#
# On a lent device machine (H200, CUDA 12/13 driver, python3 3.12, no network): carry the wheels the
# image lacks in .whl/ (lark at least; CuPy is in the image) and run, with the device tool:
#   run(command="bash tools/gpu_check.sh", carry=[".whl"], timeout_s=570)
# Steps, each with its own time limit so that the whole run stays under ten minutes:
#   1. packages: wheels from .whl/ (pip --no-index), else `pip install` if a network exists, both
#      into a directory of their own (never the machine's Python)
#   2. the machine: nvidia-smi, CuPy/NumPy/torch versions            -> $OUT/info.json
#   3. pytest tests/test_devices.py -k cuda (the op suite, every case) -> $OUT/pytest_cuda.log
#   4. every sample with --device cuda against its .out              -> $OUT/samples.txt, samples.json
#   5. the large MLP step on the GPU, gradcli vs PyTorch CUDA         -> $OUT/bench.txt, bench.json
# $OUT/summary.txt says what passed (8 files at most come back from $OUT). Exit status: the number of
# failed steps (97: no GPU here, 98: gradcli sees no GPU, 99: packages missing).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu_check_out}"
mkdir -p "$OUT"
PY="${PYTHON:-python3}"
export PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
SUMMARY="$OUT/summary.txt"
: > "$SUMMARY"
failed=0

log() { printf '[gpu_check %s] %s\n' "$(date +%H:%M:%S)" "$*" | tee -a "$SUMMARY"; }
step() {  # step NAME SECONDS LOGFILE COMMAND...: run it with a time limit, log pass/fail
    local name=$1 limit=$2 logfile=$3
    shift 3
    local t0=$SECONDS
    timeout --kill-after=10 "$limit" "$@" >> "$logfile" 2>&1
    local rc=$?
    if [ $rc -eq 0 ]; then
        log "PASS $name ($((SECONDS - t0)) s)"
    else
        [ $rc -eq 124 ] && log "FAIL $name: timed out after $limit s" || log "FAIL $name (exit $rc, $((SECONDS - t0)) s)"
        failed=$((failed + 1))
    fi
    tail -n 3 "$logfile" | sed 's/^/    /' | tee -a "$SUMMARY"
}

log "gradcli GPU check: $(git rev-parse --short HEAD 2>/dev/null || echo 'no git') on $(hostname)"

# 1. packages ---------------------------------------------------------------------------------
# Everything goes to a directory of its own ($SITE, first on PYTHONPATH): never into the machine's Python.
SITE="${GPU_CHECK_SITE:-/tmp/gpu_check_site}"
mkdir -p "$SITE"
export PYTHONPATH="$SITE:$PYTHONPATH"
if compgen -G ".whl/*.whl" > /dev/null; then
    if "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" \
            .whl/*.whl >> "$OUT/pip.log" 2>&1; then
        log "installed the carried wheels: $(ls .whl | tr '\n' ' ')"
    else
        log "pip could not install .whl/*.whl (see pip.log)"
    fi
fi
if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
    log "FAIL no NVIDIA GPU here (nvidia-smi finds none): run this on a GPU machine"
    exit 97
fi
for mod in numpy lark typer rich pytest; do
    if ! "$PY" -c "import $mod" 2>/dev/null; then
        log "$mod is missing: trying pip install --target $SITE (needs a network)"
        "$PY" -m pip install -q --target "$SITE" "$mod" >> "$OUT/pip.log" 2>&1 || true
    fi
done
if ! "$PY" -c "import cupy" 2>/dev/null; then
    log "CuPy is missing: trying pip install --target $SITE 'cupy-cuda12x>=13' (needs a network)"
    "$PY" -m pip install -q --target "$SITE" 'cupy-cuda12x>=13' >> "$OUT/pip.log" 2>&1 || true
fi
missing=""
for mod in numpy lark typer rich pytest cupy; do
    "$PY" -c "import $mod" 2>/dev/null || missing="$missing $mod"
done
if [ -n "$missing" ]; then
    log "FAIL packages: missing$missing (carry their wheels in .whl/: docs/gpu.md says how)"
    exit 99
fi

# 2. the machine --------------------------------------------------------------------------------
step "machine info" 60 "$OUT/info.json" "$PY" tools/gpu_check.py info
if ! "$PY" -c "import sys, gradcli.engine.api as t; sys.exit(0 if t.cuda.is_available() else 1)"; then
    log "FAIL gradcli sees no GPU: $("$PY" -c "from gradcli.engine import device as d
try:
    d.cupy()
except d.CudaUnavailable as e:
    print(e)" 2>&1)"
    exit 98
fi

# 3. the op suite on cuda, then every engine/ops/nn case with cuda as the default device -------------
step "pytest tests/test_devices.py -k cuda (op suite)" 150 "$OUT/pytest_cuda.log" \
    "$PY" -m pytest -q -p no:cacheprovider tests/test_devices.py -k "cuda and not every_case" -rs
step "pytest tests/test_devices.py -k cuda (every case)" 150 "$OUT/pytest_cuda.log" \
    "$PY" -m pytest -q -p no:cacheprovider tests/test_devices.py -k "cuda and every_case" -rs

# 4. every sample with --device cuda ---------------------------------------------------------------
step "samples --device cuda" 100 "$OUT/samples.txt" "$PY" tools/gpu_check.py samples --json "$OUT/samples.json"

# 5. the large step on the GPU, gradcli vs PyTorch CUDA ---------------------------------------------
step "bench: large MLP step on the GPU" 110 "$OUT/bench.txt" "$PY" tools/gpu_check.py bench --json "$OUT/bench.json"

log "done: $failed step(s) failed; files in $OUT"
exit $failed
