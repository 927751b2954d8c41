#!/bin/bash
# One summary line (check_summary.py) for a kernel checked or a schedule run on the GPU:
#   check_line.sh check PROBLEM PRECISION NAME FILE.cu    `cusched check` of a hand-written kernel
#   check_line.sh run PROBLEM NAME SCHEDULE              `cusched run` of a schedule at the bench size
# Run from the repository root after `source bench/gpu_env.sh`; outcomes go to /tmp/NAME.json.
case "$1" in
  check) name=$4; timeout 90 cusched check -p "$2" --size bench --no-audit --precision "$3" "$5" > /tmp/$name.json 2> /tmp/$name.err ;;
  run) name=$3; timeout 120 cusched run -p "$2" -s "$4" --size bench --no-audit --json > /tmp/$name.json 2> /tmp/$name.err ;;
  *) echo "usage: check_line.sh check PROBLEM PRECISION NAME FILE | run PROBLEM NAME SCHEDULE" >&2; exit 2 ;;
esac
python3 bench/experiments/check_summary.py "$name" /tmp/$name.json /tmp/$name.err
