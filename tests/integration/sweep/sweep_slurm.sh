# A real one-node Slurm (shared/spec/slurm-local.md): munged, slurmctld and slurmd on
# localhost with a generated slurm.conf; the project's own sbatch scripts run a tiny sweep
# (fake tuple runner), a job array, and a run stopped by the time-limit signal (SIGUSR1) that
# requeues itself and resumes. Daemons are stopped by pid. Exit 77 (skipped) when this
# machine cannot run Slurm, with the reason.
set -uo pipefail
: "${DRIVER:?}" "${SRC:?}"
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; dump_logs; exit 1; }
for tool in slurmctld slurmd sbatch squeue sinfo scontrol scancel munged; do
  command -v "$tool" >/dev/null || skip "$tool not installed (apt-get install -y slurm-wlm munge)"
done
[[ $(id -u) == 0 ]] || skip "needs root to run slurmd with SlurmdUser=root"

D=$(mktemp -d /tmp/kapla_slurm.XXXXXX)
chmod 755 "$D"
mkdir -p "$D/state" "$D/spool" "$D/run" "$D/log" "$D/work"
started_munge=""
dump_logs() { for f in "$D"/log/*.log; do [[ -f $f ]] && { echo "--- $f"; tail -20 "$f"; }; done; }
stop_pid_file() {  # pid file: TERM, wait, KILL if needed
  local f=$1 pid
  [[ -f $f ]] || return 0
  pid=$(cat "$f")
  [[ -n $pid ]] || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}
cleanup() {
  stop_pid_file "$D/run/slurmd.pid"
  stop_pid_file "$D/run/slurmctld.pid"
  [[ -n $started_munge ]] && stop_pid_file "$started_munge"
  rm -rf "$D"
}
trap cleanup EXIT

# munge: reuse a running munged, else start one (and stop it at the end).
if [[ ! -S /run/munge/munge.socket.2 ]] || ! munge -n </dev/null >/dev/null 2>&1; then
  if [[ ! -f /etc/munge/munge.key ]]; then
    mkdir -p /etc/munge
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
  fi
  mkdir -p /run/munge /var/log/munge /var/lib/munge && chown munge:munge /run/munge /var/log/munge /var/lib/munge
  su -s /bin/sh munge -c /usr/sbin/munged || skip "munged does not start here"
  started_munge=/run/munge/munged.pid
  for _ in $(seq 50); do munge -n </dev/null >/dev/null 2>&1 && break; sleep 0.1; done
fi
munge -n </dev/null >/dev/null 2>&1 || skip "munge does not work here"

host=$(hostname -s)
cpus=$(nproc)
mem=$(( $(free -m | awk '/^Mem:/ {print $2}') * 9 / 10 ))
cat > "$D/slurm.conf" <<CONF
ClusterName=kaplatest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmctldPort=16817
SlurmdPort=16818
JobRequeue=1
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
export SLURM_CONF=$D/slurm.conf
slurmctld -f "$SLURM_CONF" || skip "slurmctld does not start: $(tail -3 "$D/log/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" || skip "slurmd does not start: $(tail -3 "$D/log/slurmd.log" 2>/dev/null)"
idle=""
for _ in $(seq 60); do
  state=$(sinfo -h -N -o %t 2>/dev/null | head -1)
  [[ $state == idle ]] && { idle=1; break; }
  sleep 0.5
done
[[ -n $idle ]] || { dump_logs; skip "the node never became idle (state '$state'): slurmd cannot run here"; }
echo "slurm up: $(sinfo -h -o '%P %a %D %t %C')"

wait_job() {  # jobid timeout_s: waits until the job (all array tasks) left the queue
  local id=$1 t=$2
  for _ in $(seq $((t * 2))); do
    [[ -z $(squeue -h -j "$id" 2>/dev/null) ]] && return 0
    sleep 0.5
  done
  squeue; fail "job $id still queued after ${t}s"
}
export KAPLA_BIN=$DRIVER OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export KAPLA_LAUNCHER="mpirun --oversubscribe"
export KAPLA_FAKE_SECONDS_PER_COST=0.002
cd "$D/work"
write_job() {  # FILE NAME OUTPUT
  cat > "$1" <<JOB
{"name": "$2", "networks": ["alpha", "beta_c30", "gamma", "delta_c5"],
 "hardware": [{"name": "edge", "batch": 1}, {"name": "cloud", "batch": 64}],
 "strategies": ["exhaustive", "random", "kapla"], "output": "$3"}
JOB
}
write_job job.json tiny "$D/work/ref.h5"
"$DRIVER" sweep job.json -q || fail "local reference run"

# 1. One MPI job with the project's sbatch script.
jid=$(sbatch --parsable --ntasks=2 --output="$D/work/single-%j.out" "$SRC/slurm/sweep.sbatch" \
      "$D/work/job.json" --out "$D/work/slurm.h5") || fail "sbatch"
wait_job "$jid" 120
cat "$D/work/single-$jid.out"
grep -q "exit code 0" "$D/work/single-$jid.out" || fail "sweep job did not finish with 0"
"$DRIVER" compare "$D/work/ref.h5" "$D/work/slurm.h5" || fail "Slurm results differ"
"$DRIVER" provenance "$D/work/slurm.h5" > prov.txt
grep -q ",$jid,"  prov.txt || fail "Slurm job id not recorded"
[[ $(cut -d, -f2 prov.txt | sort -u | wc -l) == 2 ]] || fail "expected tuples from ranks 0 and 1"
# CPU binding: each rank prints the CPUs it may run on (sched_getaffinity); the script's
# launcher binds each rank to its own --cpus-per-task cores.
bound=$(grep -Eo "rank [01] of 2 on [^:]+: cpus [0-9,-]+, 1 OpenMP thread$" "$D/work/single-$jid.out" |
        sed -E 's/.*cpus ([0-9,-]+), .*/\1/' | sort)
[[ $(wc -l <<<"$bound") == 2 && $(sort -u <<<"$bound" | wc -l) == 2 ]] ||
  fail "expected two ranks on one distinct cpu each, got: $(grep 'rank ' "$D/work/single-$jid.out")"
grep -Eqv '^[0-9]+$' <<<"$bound" && fail "a rank may run on more than one cpu: $bound"
if ((cpus >= 2)); then
  jid=$(sbatch --parsable --ntasks=1 --cpus-per-task=2 --output="$D/work/cpt2-%j.out" \
        "$SRC/slurm/sweep.sbatch" "$D/work/job.json" --out "$D/work/cpt2.h5") || fail "sbatch (cpus-per-task)"
  wait_job "$jid" 120
  cat "$D/work/cpt2-$jid.out"
  grep -Eq "rank 0 of 1 on [^:]+: cpus [0-9]+-[0-9]+, 2 OpenMP threads$" "$D/work/cpt2-$jid.out" ||
    fail "--cpus-per-task=2: the rank does not have 2 cpus and 2 threads"
fi

# 2. A job array of two sweeps through submit.sh (logs %A_%a).
write_job a.json arr_a "$D/work/arr_a.h5"
write_job b.json arr_b "$D/work/arr_b.h5"
out=$(cd "$D/work" && "$SRC/slurm/submit.sh" --ntasks=2 --output="$D/work/arr-%A_%a.out" a.json b.json -- -q) \
  || fail "submit.sh (array)"
aid=${out##* }
echo "array job $aid"
# The job list is on the shared file system beside the results, not in a node-local /tmp.
ls "$D"/work/results/kapla-jobs.* >/dev/null 2>&1 || fail "submit.sh: no job list in results/"
wait_job "$aid" 180
ls "$D/work"/arr-"$aid"_0.out "$D/work"/arr-"$aid"_1.out >/dev/null || fail "no %A_%a logs"
"$DRIVER" compare "$D/work/ref.h5" "$D/work/arr_a.h5" || fail "array task 0 results"
"$DRIVER" compare "$D/work/ref.h5" "$D/work/arr_b.h5" || fail "array task 1 results"
grep -q ",$aid,1," <("$DRIVER" provenance "$D/work/arr_b.h5") || fail "array ids not recorded"

# 3. The time-limit signal: SIGUSR1 to the batch shell (as --signal=B:USR1@120 sends it) stops
#    the sweep cleanly, the script requeues the job, and the requeued run resumes to the end.
export KAPLA_FAKE_SECONDS_PER_COST=0.02
jid=$(sbatch --parsable --ntasks=2 --output="$D/work/requeue-%j.out" "$SRC/slurm/sweep.sbatch" \
      "$D/work/job.json" --out "$D/work/requeue.h5") || fail "sbatch (requeue)"
for _ in $(seq 100); do
  [[ -d $D/work/requeue.h5.parts ]] && break
  sleep 0.2
done
sleep 1
scancel --batch --signal=USR1 "$jid" || fail "scancel --signal=USR1"
wait_job "$jid" 300
cat "$D/work/requeue-$jid.out"
grep -q "requeueing" "$D/work/requeue-$jid.out" || fail "no requeue after SIGUSR1"
grep -q "restart 1" "$D/work/requeue-$jid.out" || fail "the job did not run again"
"$DRIVER" compare "$D/work/ref.h5" "$D/work/requeue.h5" || fail "requeued results differ"
echo "PASS"
