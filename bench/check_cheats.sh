#!/bin/bash
# Runs the cheating-kernel corpus (tests/cheats/manifest.json) on a GPU machine, in one
# command: every kernel through `cusched check` (and with --no-audit where the manifest
# names the verdicts of the runtime checks behind the audit), then the same corpus as
# search candidates through gpu_cheat_tests (with racecheck on the racy kernel). Prints a
# table and writes the record bench/results/DATE-NAME.json (bench/cheat_record.py; NAME
# defaults to cheat-corpus). SANITIZE_BESTS=1 also runs compute-sanitizer on every
# problem's best schedule (gpu_cheat_tests' EveryProblem/* tests, in SANITIZE_SHARDS
# processes side by side).
#
#   source bench/gpu_env.sh && bash bench/check_cheats.sh
#
# A build without the Clang audit (the carried GPU build) cannot give audit_rejected:
# there, kernels that only the audit is meant to reject are reported as "audit (CPU)",
# and kernels with runtime verdicts are judged by those. AUDIT_ONLY=1, on a machine with
# the audit and without a GPU, gives those rows: every kernel through `check`'s audit and
# precision scan, where a cheat that only they reject must be rejected and a kernel that a
# runtime verdict may judge may also pass to verification (verdict "none"); its record is
# DATE-cheat-corpus-audit.json.
set -u
cd "$(dirname "$0")/.."
CUSCHED=${CUSCHED:-cusched}
GPU_TESTS=${GPU_TESTS:-$(command -v gpu_cheat_tests || echo build/tests/gpu_cheats/gpu_cheat_tests)}
OUT=${OUT:-/tmp/cusched-out}
audit_only=${AUDIT_ONLY:-0}
mkdir -p "$OUT" bench/results
have_audit=$("$CUSCHED" --version --json | python3 -c 'import json,sys; print(int(json.load(sys.stdin).get("audit", False)))')
lines="$OUT/cheats.tsv"
: > "$lines"
start=$(date +%s)
python3 - tests/cheats/manifest.json > "$OUT/cheats.list" <<'PY'
import json, sys
for k in json.load(open(sys.argv[1]))["kernels"]:
    print("\t".join([k["file"], k["problem"], k["size"], k.get("precision", "f32"), k["class"],
                     ",".join(k["expect"]), ",".join(k.get("expect_no_audit", []))]))
PY
while IFS=$'\t' read -r file problem size precision class expect expect_no_audit; do
  for mode in audit no_audit; do
    flags=""
    allowed=$expect
    if [ "$audit_only" = 1 ]; then
      [ $mode = no_audit ] && continue
      # A runtime verdict among the allowed ones: the audit may also let the kernel through.
      for v in ${expect//,/ }; do
        case $v in audit_rejected|undeclared_precision) ;; *) allowed="$expect,none"; break ;; esac
      done
    fi
    if [ $mode = no_audit ]; then
      [ -z "$expect_no_audit" ] && continue
      flags="--no-audit"
      allowed=$expect_no_audit
    elif [ $have_audit = 0 ] && [ "$audit_only" != 1 ]; then
      if [ -z "$expect_no_audit" ]; then
        printf '%s\t%s\t%s\t%s\t%s\n' "$file" "$class" audit "audit (CPU)" skipped >> "$lines"
        continue
      fi
      allowed="$expect,$expect_no_audit"
    fi
    json="$OUT/check_${file%.cu}_$mode.json"
    timeout 120 "$CUSCHED" check --problem "$problem" --size "$size" --precision "$precision" $flags \
      "tests/cheats/kernels/$file" > "$json" 2> "$json.err"
    verdict=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("verdict") or "none")' "$json" 2>/dev/null || echo crashed)
    ok=fail
    case ",$allowed," in *",$verdict,"*) ok=pass ;; esac
    printf '%s\t%s\t%s\t%s\t%s\n' "$file" "$class" "$mode" "$verdict" "$ok" >> "$lines"
  done
done < "$OUT/cheats.list"
check_s=$(( $(date +%s) - start ))
gpu_status=0
: > "$OUT/gpu_cheat_tests.log"
if [ "$audit_only" != 1 ]; then
  "$GPU_TESTS" --gtest_filter='Corpus/*' > "$OUT/gpu_cheat_tests.log" 2>&1
  gpu_status=$?
  if [ "${SANITIZE_BESTS:-0}" = 1 ]; then
    # The sanitizer runs are processes of their own: shards of the problems run side by side.
    shards=${SANITIZE_SHARDS:-6}
    for i in $(seq 0 $((shards - 1))); do
      GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "$GPU_TESTS" --gtest_filter='EveryProblem/*' \
          > "$OUT/sanitize_shard_$i.log" 2>&1 &
    done
    for job in $(jobs -p); do wait "$job" || gpu_status=1; done
    cat "$OUT"/sanitize_shard_*.log >> "$OUT/gpu_cheat_tests.log"
  fi
fi
total_s=$(( $(date +%s) - start ))
printf '%-34s %-28s %-9s %-22s %s\n' kernel class mode verdict result
awk -F'\t' '{printf "%-34s %-28s %-9s %-22s %s\n", $1, $2, $3, $4, $5}' "$lines"
grep -E '^\| ' "$OUT/gpu_cheat_tests.log" | sort | uniq
tail -n 3 "$OUT/gpu_cheat_tests.log"
name=${NAME:-cheat-corpus}
[ "$audit_only" = 1 ] && name=${NAME:-cheat-corpus-audit}
record=$(python3 bench/cheat_record.py --rows "$lines" --gpu-log "$OUT/gpu_cheat_tests.log" --gpu-status "$gpu_status" \
    --check-seconds "$check_s" --total-seconds "$total_s" --audit-in-build "$have_audit" \
    --sanitize-bests "${SANITIZE_BESTS:-0}" --audit-only "$audit_only" --name "$name" --out-dir bench/results)
echo "record: $record ($total_s s)"
fails=$(awk -F'\t' '$5 == "fail"' "$lines" | wc -l)
[ "$fails" = 0 ] && [ $gpu_status = 0 ]
