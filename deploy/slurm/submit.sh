#!/bin/bash
# Queue a sharded live probe: a job array of N shards, then the merge step, which starts
# only when every shard succeeded (afterok on the array job).
#   usage: KB_REPORTS=/fsx/kb-reports deploy/slurm/submit.sh [SHARDS] [extra sbatch options...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
shards="${1:-8}"
shift || true
: "${KB_REPORTS:?set KB_REPORTS to a folder on shared storage}"

array_job="$(sbatch --parsable --array="0-$((shards - 1))" "$@" "$here/probe-array.sbatch")"
array_job="${array_job%%;*}"  # "id;cluster" on federated clusters
run_id="${KB_RUN_ID:-fleet-$array_job}"
merge_job="$(sbatch --parsable --dependency="afterok:$array_job" --kill-on-invalid-dep=yes \
    --export="ALL,KB_RUN_ID=$run_id" "$here/merge.sbatch")"
echo "run $run_id: probe array job $array_job ($shards shards), merge job ${merge_job%%;*}"
