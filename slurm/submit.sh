#!/bin/bash
# Submits sweeps: one job file -> one MPI job (sweep.sbatch); several -> a job array
# (sweep_array.sbatch, one task per job file). Extra sbatch options go before "--", extra
# kapla sweep options after it.
#   slurm/submit.sh jobs/paper_inference.json
#   slurm/submit.sh --nodes=4 --ntasks-per-node=8 --cpus-per-task=4 --time=24:00:00 jobs/paper_*.json -- --quiet
# KAPLA_BIN (default: build/src/kapla of this checkout) is exported to the job. The sbatch
# scripts set --time=1-00:00:00; a --time given here wins.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
sbatch_opts=() jobs=() kapla_opts=()
while (($#)); do
  case $1 in
    --) shift; kapla_opts=("$@"); break ;;
    -*) sbatch_opts+=("$1") ;;
    *) jobs+=("$(realpath "$1")") ;;
  esac
  shift
done
((${#jobs[@]})) || { echo "usage: $0 [sbatch options] JOBFILE... [-- kapla sweep options]" >&2; exit 1; }
for j in "${jobs[@]}"; do [[ -f $j ]] || { echo "submit: no job file $j" >&2; exit 1; }; done
export KAPLA_BIN=${KAPLA_BIN:-$repo/build/src/kapla}
[[ -x $KAPLA_BIN ]] || { echo "submit: $KAPLA_BIN is not built (scripts/setup.sh)" >&2; exit 1; }
if ((${#jobs[@]} == 1)); then
  exec sbatch --export=ALL "${sbatch_opts[@]}" "$here/sweep.sbatch" "${jobs[0]}" "${kapla_opts[@]}"
fi
# The list is read on a compute node: write it on the shared file system, beside the results
# (results/ of the submission directory, where the shipped jobs write), never to a node-local /tmp.
listdir=${KAPLA_JOBLIST_DIR:-$PWD/results}
mkdir -p "$listdir"
list=$(mktemp "$listdir/kapla-jobs.XXXXXX")
printf '%s\n' "${jobs[@]}" > "$list"
exec sbatch --export=ALL --array=0-$((${#jobs[@]} - 1)) "${sbatch_opts[@]}" "$here/sweep_array.sbatch" "$list" "${kapla_opts[@]}"
