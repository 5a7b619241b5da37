#!/usr/bin/env bash
# The README's main job: the small default sweep (jobs/quick.json) on all local cores with MPI,
# then its results table. Rerunning resumes (finished tuples are kept, not recomputed).
#   scripts/quick_sweep.sh [JOBFILE] [OUT]
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kapla=${KAPLA:-$repo/build/src/kapla}
job=${1:-$repo/jobs/quick.json}
out=${2:-$repo/results/quick.h5}
ranks=${RANKS:-$(nproc 2>/dev/null || echo 1)}
mkdir -p "$(dirname "$out")"

mpi_flags=(--oversubscribe)
if [[ $(id -u) -eq 0 ]]; then
  # Open MPI refuses root unless told; the machines this runs on are often containers as root.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}

if command -v mpirun >/dev/null 2>&1 && ((ranks > 1)); then
  mpirun "${mpi_flags[@]}" -np "$ranks" "$kapla" sweep "$job" --out "$out"
else
  "$kapla" sweep "$job" --out "$out"
fi
"$kapla" results "$out"
