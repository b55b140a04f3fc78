#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for the end-to-end test of configs/slurm_sweep.sh
# (scripts/ci_slurm.sh) and for trying the sweep recipes of docs/sweeps.md without a cluster.
# munged, slurmctld and slurmd are started directly as root (no systemd needed), with a fresh
# munge key and a minimal slurm.conf for this machine (its real CPUs and memory, from
# `slurmd -C`; no cgroups, no accounting, quick scheduling). Every key, config, state, log and
# pid file lives under one directory; nothing in /etc is changed.
#
# Usage (as root): scripts/slurm_local.sh start|stop|status
#   start   installs slurm-wlm and munge if missing (scripts/deps.sh), starts the daemons and
#           returns once `sinfo` shows the node idle (or fails after $TILESCHED_SLURM_TIMEOUT
#           seconds, default 60, printing the daemons' logs); then run the Slurm commands with
#             export SLURM_CONF=$TILESCHED_SLURM_DIR/slurm.conf
#   stop    cancels every job, stops the daemons it started (slurmd, slurmctld, munged) and
#           waits until none of them nor any job step is left; safe to run twice
#   status  the daemons' pids and `sinfo`; exit 0 when all three run
# Environment: TILESCHED_SLURM_DIR (default /tmp/tilesched-slurm).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${TILESCHED_SLURM_DIR:-/tmp/tilesched-slurm}
timeout=${TILESCHED_SLURM_TIMEOUT:-60}
conf=$dir/slurm.conf
socket=$dir/munge/munge.socket.2
daemons=(munged slurmctld slurmd)  # start order; stop goes backwards
export SLURM_CONF=$conf

die() { echo "slurm_local: $*" >&2; exit 1; }

# Whether process $1 runs (a zombie does not).
alive() {
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d ' ' -f 1) && [ -n "$state" ] && [ "$state" != Z ]
}

# The pid of a daemon this script started, if it still runs (the pid file's process must be
# that program, so a stale file never names someone else's process).
daemon_pid() {
  local pid
  pid=$(cat "$dir/$1.pid" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$1" ] && alive "$pid" && echo "$pid"
}

# Job step daemons of this cluster: slurmstepd processes that inherited our SLURM_CONF from slurmd.
stepd_pids() {
  local pid
  for pid in $(pgrep -x slurmstepd || true); do
    alive "$pid" && tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "SLURM_CONF=$conf" &&
      echo "$pid"
  done
}

show_logs() {
  local log
  for log in "$dir"/*.log; do
    [ -f "$log" ] && { echo "--- $log (last 20 lines)"; tail -n 20 "$log"; }
  done >&2
}

write_conf() {
  local node cpus memory
  node=$(hostname -s)
  # `slurmd -C` prints this machine's NodeName=... CPUs=... RealMemory=... line.
  local hardware
  hardware=$(slurmd -C | head -n 1)
  cpus=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$hardware")
  memory=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$hardware")
  [ -n "$cpus" ] && [ -n "$memory" ] || die "cannot read CPUs and memory from 'slurmd -C': $hardware"
  cat >"$conf" <<EOF
# Written by scripts/slurm_local.sh: a one-node test cluster; not for production.
ClusterName=tilesched
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire is also how long a requeued job waits before it may start again (default 120 s).
AuthInfo=socket=$socket,cred_expire=10
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
ReturnToService=2
SlurmdTimeout=10
SlurmctldTimeout=10
InactiveLimit=0
KillWait=5
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
}

start() {
  [ "$(id -u)" -eq 0 ] || die "start needs root (slurmd runs jobs as their user)"
  scripts/deps.sh slurm-wlm munge
  local name
  for name in "${daemons[@]}"; do
    daemon_pid "$name" >/dev/null && die "$name is already running ($dir/$name.pid); run '$0 stop' first"
  done
  rm -rf "$dir"
  mkdir -p "$dir/munge" "$dir/ctld" "$dir/spool"
  chmod 0755 "$dir" "$dir/munge"  # clients of any user reach the config and munge's socket

  mungekey --create --keyfile="$dir/munge/munge.key" 2>/dev/null ||
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 0600 "$dir/munge/munge.key"
  munged --force --key-file="$dir/munge/munge.key" --socket="$socket" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/munged.seed" ||
    { show_logs; die "munged did not start"; }
  munge -n -S "$socket" | unmunge -S "$socket" >/dev/null ||
    { show_logs; die "munge does not answer on $socket"; }

  write_conf
  slurmctld -f "$conf" || { show_logs; die "slurmctld did not start"; }
  slurmd -f "$conf" -N "$(hostname -s)" || { show_logs; die "slurmd did not start"; }

  local deadline=$((SECONDS + timeout)) state=""
  while [ "$SECONDS" -lt "$deadline" ]; do
    state=$(sinfo -h -N -o %T 2>/dev/null | head -n 1) || true
    [ "$state" = idle ] && break
    for name in "${daemons[@]}"; do  # a daemon writes its pid file once it runs
      [ -s "$dir/$name.pid" ] && ! daemon_pid "$name" >/dev/null &&
        { show_logs; stop >/dev/null 2>&1; die "$name exited while starting"; }
    done
    sleep 0.5
  done
  if [ "$state" != idle ]; then
    show_logs
    stop >/dev/null 2>&1
    die "the node is not idle after ${timeout} s (sinfo says '${state:-nothing}')"
  fi
  sinfo
  echo "slurm_local: started; run Slurm commands with: export SLURM_CONF=$conf"
}

# Ends process $1: TERM, then KILL after 10 s.
end_process() {
  local i
  kill -TERM "$1" 2>/dev/null || return 0
  for ((i = 0; i < 100; i++)); do
    alive "$1" || return 0
    sleep 0.1
  done
  kill -KILL "$1" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    alive "$1" || return 0
    sleep 0.1
  done
}

stop() {
  local name pid i jobs
  # Jobs first: each running job lives in its own slurmstepd, which outlives slurmd.
  if daemon_pid slurmctld >/dev/null; then
    jobs=$(squeue -h -o %A 2>/dev/null) || true
    [ -n "$jobs" ] && { scancel $jobs 2>/dev/null || true; }
    for ((i = 0; i < 300; i++)); do
      [ -z "$(stepd_pids)" ] && break
      sleep 0.1
    done
  fi
  for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do
    name=${daemons[i]}
    pid=$(daemon_pid "$name") && end_process "$pid"
  done
  for pid in $(stepd_pids); do end_process "$pid"; done
  for name in "${daemons[@]}"; do
    pid=$(daemon_pid "$name") && die "$name ($pid) is still running"
  done
  pid=$(stepd_pids)
  [ -z "$pid" ] || die "job steps still running: slurmstepd $pid"
  echo "slurm_local: stopped (state, logs: $dir)"
}

status() {
  local name pid running=0
  for name in "${daemons[@]}"; do
    if pid=$(daemon_pid "$name"); then
      echo "$name: running (pid $pid)"
      running=$((running + 1))
    else
      echo "$name: not running"
    fi
  done
  [ "$running" -gt 1 ] && sinfo 2>&1 || true
  [ "$running" -eq ${#daemons[@]} ]
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
