#!/usr/bin/env bash
# Installs (if needed) and starts a single-node Slurm cluster on this machine, for the tests
# of command oracles that submit through Slurm (tests/slurm.rs) and for trying the recipes of
# docs/ask-tell.md. Needs root and Debian's packages slurm-wlm and munge. Idempotent: a
# cluster already answering is left as it is. Prints "slurm: ready" when a job can run,
# or why not, and exits non-zero.
set -uo pipefail

fail() { echo "slurm: not started: $*" >&2; exit 1; }

if srun --immediate=5 --quiet true 2>/dev/null; then
  echo "slurm: ready (already running)"
  exit 0
fi
[ "$(id -u)" = 0 ] || fail "needs root to install and start the daemons"
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -qq && apt-get install -y -qq slurm-wlm munge >/dev/null; } \
    || fail "apt-get could not install slurm-wlm and munge"
fi

# munge: the authentication every Slurm message carries.
mkdir -p /run/munge /var/log/munge /var/lib/munge /etc/munge
[ -s /etc/munge/munge.key ] || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
chown -R munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge
chmod 0700 /etc/munge /var/log/munge /var/lib/munge
chmod 0400 /etc/munge/munge.key
chmod 0755 /run/munge
if ! munge -n </dev/null >/dev/null 2>&1; then
  runuser -u munge -- /usr/sbin/munged || fail "munged did not start"
fi

host=$(hostname -s)
cpus=$(nproc)
memory=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.8 }' /proc/meminfo)
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
cat > /etc/slurm/slurm.conf <<CONF
# Written by pinnbo's tests/slurm/start.sh: one node that is also the controller.
ClusterName=pinnbo-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
rm -f /etc/slurm/cgroup.conf  # no cgroups: proctrack/linuxproc, task/none

pgrep -x slurmctld >/dev/null || slurmctld || fail "slurmctld did not start (see /var/log/slurm/slurmctld.log)"
pgrep -x slurmd >/dev/null || slurmd || fail "slurmd did not start (see /var/log/slurm/slurmd.log)"
for _ in $(seq 1 30); do
  scontrol update nodename="$host" state=resume >/dev/null 2>&1
  if srun --immediate=5 --quiet true 2>/dev/null; then
    echo "slurm: ready ($host, $cpus CPUs)"
    exit 0
  fi
  sleep 1
done
fail "no job ran within 30 s; sinfo says: $(sinfo -h 2>&1 | head -3)"
