#!/usr/bin/env bash
# One lent GPU session in one command (guide/gpu.md, "A lent GPU session (one command)"):
#
#   bash scripts/gpu_session.sh OUTDIR [--device cuda|cpu] [--jobs N] [--timeout S] [--budget S] [--force] [PATTERN...]
#
# Prints the machine (nvidia-smi, python, torch, triton, CUDA, nvcc), runs the preflight, captures
# every snippet that is not fresh (those that time nothing --jobs at a time, those that time
# themselves alone, after them; --timeout seconds each, a progress line each), prints
# `kernelbook status`, and packs this GPU's fresh captures into OUTDIR/captures-<gpu key>.tar.gz,
# beside OUTDIR/session.log (all of the above) and OUTDIR/failures.tar.gz (the tracebacks of
# the snippets that failed, when any did). The captures stop at --budget seconds after the start,
# less what status and pack need, so the archive is always written: every capture already made is
# kept and packed, whatever failed or timed out. The last line says what was captured.
#
# Needs bash, coreutils' timeout and a python3 with torch (triton, numpy); only the standard
# library besides: no mkdocs, no yaml, no pip, no network. --device cpu is the rehearsal on a
# machine without a GPU: the same steps, the CPU captures archived instead of packed.
set -u -o pipefail

usage() { sed -n '4p' "$0" | sed 's/^# *//' >&2; exit 2; }

OUT=""
DEVICE=cuda
JOBS=6
PER_SNIPPET=240
BUDGET=420  # 7 minutes: the plan in guide/gpu.md; what does not fit is the warm rerun's
FORCE=()
PATTERNS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --device) DEVICE=${2:-}; shift 2 || usage ;;
        --jobs) JOBS=${2:-}; shift 2 || usage ;;
        --timeout) PER_SNIPPET=${2:-}; shift 2 || usage ;;
        --budget) BUDGET=${2:-}; shift 2 || usage ;;
        --force) FORCE=(--force); shift ;;
        -h|--help) usage ;;
        -*) echo "gpu_session: unknown option $1" >&2; usage ;;
        *) if [ -z "$OUT" ]; then OUT=$1; else PATTERNS+=("$1"); fi; shift ;;
    esac
done
[ -n "$OUT" ] || usage
case "$DEVICE" in cuda|cpu) ;; *) echo "gpu_session: --device is cuda or cpu, not '$DEVICE'" >&2; exit 2 ;; esac
for n in "$JOBS" "$PER_SNIPPET" "$BUDGET"; do
    case "$n" in ''|*[!0-9]*|0) echo "gpu_session: --jobs, --timeout and --budget are whole numbers above 0, not '$n'" >&2; exit 2 ;; esac
done

mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/.." || exit 2  # the book's root: scripts/ is on PYTHONPATH from here
export PYTHONPATH="$PWD/scripts${PYTHONPATH:+:$PYTHONPATH}"
PY=${PYTHON:-python3}
RESERVE=45  # seconds kept for status, pack and the summary after the captures stop

kb() { "$PY" -m kernelbook "$@"; }
say() { printf '== %s [%ss]\n' "$*" "$SECONDS"; }

machine() {
    say "machine: $(uname -srm), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
    if [ "$DEVICE" = cuda ]; then
        nvidia-smi || echo "nvidia-smi failed (exit $?)"
    fi
    "$PY" - <<'EOF' || echo "the versions could not be read (exit $?)"
import sys
print("python", sys.version.split()[0], sys.executable)
try:
    import torch
    print("torch", torch.__version__, "CUDA", torch.version.cuda, "available", torch.cuda.is_available(),
          *(["device", torch.cuda.get_device_name(0), "capability", torch.cuda.get_device_capability(0)] if torch.cuda.is_available() else []))
except Exception as exc:  # a broken torch is reported here, and again by every capture
    print("torch: cannot import:", exc)
for name in ("triton", "numpy"):
    try:
        print(name, __import__(name).__version__)
    except Exception as exc:
        print(name, "cannot import:", exc)
EOF
    if command -v nvcc >/dev/null; then nvcc --version | tail -n 2; else echo "nvcc: not found"; fi
    if [ "$DEVICE" = cuda ]; then
        say "preflight"
        link_cudart  # first, so that the preflight checks the link as the captures will make it
        "$PY" -m kernelbook.capture.preflight || echo "preflight: exit $? (the captures run anyway: each failure is its own line)"
    fi
}

# load_inline (chapter 5) links -lcudart from torch's idea of the toolkit ($CUDA_HOME/lib64, else lib); a
# toolkit laid out otherwise keeps libcudart.so only in nvcc's own library folder: put that on LIBRARY_PATH.
link_cudart() {
    local folder
    folder=$("$PY" -m kernelbook.capture.preflight --library-path 2>/dev/null | tail -n 1) || return 0
    if [ -n "$folder" ] && [ -d "$folder" ]; then
        export LIBRARY_PATH="$folder${LIBRARY_PATH:+:$LIBRARY_PATH}"
        echo "gpu_session: LIBRARY_PATH=$LIBRARY_PATH (libcudart.so for load_inline's -lcudart, from nvcc's own library folder)"
    fi
}

captures() {
    local left=$((BUDGET - RESERVE - SECONDS))
    if [ "$left" -le 0 ]; then
        echo "no time left for captures (--budget $BUDGET)"
        return 124
    fi
    say "capture on $DEVICE: ${#PATTERNS[@]} pattern(s), $JOBS at a time where nothing is timed, ${PER_SNIPPET}s per snippet, stopping after ${left}s"
    # SIGTERM: kernelbook stops its children and keeps every capture already installed
    timeout -k 20 -s TERM "$left" "$PY" -m kernelbook capture --device "$DEVICE" --jobs "$JOBS" --timeout "$PER_SNIPPET" \
        ${FORCE[@]+"${FORCE[@]}"} ${PATTERNS[@]+"${PATTERNS[@]}"}
    local code=$?
    if [ "$code" -eq 124 ] || [ "$code" -eq 137 ]; then
        echo "the budget ran out after ${left}s: captures stopped; every one already made is kept"
    fi
    return "$code"
}

# The slot this run's captures are in: cuda-<this GPU's key>, or cpu.
slot() {
    "$PY" -c 'import sys
from kernelbook.common import gpus
from kernelbook.common.freshness import this_gpu_key
print(gpus.slot(this_gpu_key()) if sys.argv[1] == "cuda" else "cpu")' "$DEVICE"
}

archive() {
    local slot=$1
    if [ "$DEVICE" = cuda ]; then
        kb pack -o "$OUT/captures-${slot#cuda-}.tar.gz" ${PATTERNS[@]+"${PATTERNS[@]}"}
    else  # pack holds CUDA captures only: the rehearsal archives its CPU captures as they are
        "$PY" - "$OUT/captures-cpu.tar.gz" <<'EOF'
import sys
import tarfile
from pathlib import Path
files = sorted(Path("snippets").glob("*/captures/*.cpu.*"))
with tarfile.open(sys.argv[1], "w:gz") as tar:
    for path in files:
        tar.add(path)
print(f"archived {len(files)} CPU capture file(s) into {sys.argv[1]}")
EOF
    fi
}

failures() {
    [ -d .kernelbook/failures ] && [ -n "$(ls -A .kernelbook/failures)" ] || return 0
    tar -czf "$OUT/failures.tar.gz" -C .kernelbook failures && echo "tracebacks of the failed snippets: $OUT/failures.tar.gz"
}

# What the run leaves, from `status --json`: fresh captures in this run's slot, and the others named.
summary() {
    "$PY" - "$1" "$SECONDS" "$2" <<'EOF' || echo "gpu_session: the summary could not be read from kernelbook status --json; see the log above"
import json
import subprocess
import sys

slot, seconds, code = sys.argv[1:4]
done = subprocess.run([sys.executable, "-m", "kernelbook", "status", "--json"], capture_output=True, text=True, timeout=120)
rows = [r for r in json.loads(done.stdout) if r["device"] == slot]
for r in rows:
    if r["state"] != "fresh":
        print(f"  not captured: {r['snippet']} ({r['state']}: {r['reason']})")
fresh = sum(r["state"] == "fresh" for r in rows)
print(f"gpu_session: {fresh} of {len(rows)} snippet(s) fresh on {slot} after {seconds}s; capture exit {code}")
EOF
}

main() {
    say "gpu_session: $DEVICE, into $OUT, budget ${BUDGET}s"
    machine
    local slot
    slot=$(slot) || slot=$DEVICE
    captures
    local code=$?
    say "status"
    kb status || true
    say "archive"
    archive "$slot" || echo "archive: exit $? (the captures are still in snippets/*/captures/ of this tree)"
    failures
    ls -l "$OUT"
    summary "$slot" "$code"
    return "$code"
}

main 2>&1 | tee "$OUT/session.log"
exit "${PIPESTATUS[0]}"
