#!/bin/bash
# Runs the cheating-kernel corpus (tests/cheats/manifest.json) on a GPU machine, in one
# command: every kernel through `cusched check` (and with --no-audit where the manifest
# names the verdicts of the runtime checks behind the audit), then the same corpus as
# search candidates through gpu_cheat_tests (with racecheck on the racy kernel). Prints a
# table and writes bench/results/cheats-<date>.json (date, commit, GPU, driver, command,
# per-kernel verdicts and the counts). SANITIZE_BESTS=1 also runs compute-sanitizer on
# every problem's best schedule (gpu_cheat_tests' EveryProblem/* tests; several minutes).
#
#   source bench/gpu_env.sh && bash bench/check_cheats.sh
#
# A build without the Clang audit (the carried GPU build) cannot give audit_rejected:
# there, kernels that only the audit is meant to reject are reported as "audit (CPU)",
# the cheat_tests suite's job, and kernels with runtime verdicts are judged by those.
set -u
cd "$(dirname "$0")/.."
CUSCHED=${CUSCHED:-cusched}
GPU_TESTS=${GPU_TESTS:-$(command -v gpu_cheat_tests || echo build/tests/gpu_cheats/gpu_cheat_tests)}
OUT=${OUT:-/tmp/cusched-out}
mkdir -p "$OUT" bench/results
have_audit=1
"$CUSCHED" audit --help > /dev/null 2>&1 || have_audit=0
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
    if [ $mode = no_audit ]; then
      [ -z "$expect_no_audit" ] && continue
      flags="--no-audit"
      allowed=$expect_no_audit
    elif [ $have_audit = 0 ]; then
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
filter='Corpus/*'
[ "${SANITIZE_BESTS:-0}" = 1 ] && filter='*'
"$GPU_TESTS" --gtest_filter="$filter" --gtest_output="xml:$OUT/gpu_cheat_tests.xml" > "$OUT/gpu_cheat_tests.log" 2>&1
gpu_status=$?
total_s=$(( $(date +%s) - start ))
printf '%-34s %-28s %-9s %-22s %s\n' kernel class mode verdict result
awk -F'\t' '{printf "%-34s %-28s %-9s %-22s %s\n", $1, $2, $3, $4, $5}' "$lines"
grep -E '^\| ' "$OUT/gpu_cheat_tests.log" | sort | uniq
tail -n 3 "$OUT/gpu_cheat_tests.log"
stamp=$(date -u +%Y-%m-%dT%H-%M-%SZ)
python3 - "$lines" "$OUT/gpu_cheat_tests.log" "$gpu_status" "$check_s" "$total_s" "$have_audit" "${SANITIZE_BESTS:-0}" > "bench/results/cheats-$stamp.json" <<'PY'
import json, subprocess, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
def sh(cmd):
    try: return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception: return ""
record = {
  "date": sh("date -u +%Y-%m-%dT%H:%M:%SZ"),
  "commit": sh("git rev-parse HEAD"),
  "gpu": sh("nvidia-smi --query-gpu=name --format=csv,noheader | head -1"),
  "driver": sh("nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1"),
  "command": "bash bench/check_cheats.sh" + (" (SANITIZE_BESTS=1)" if sys.argv[7] == "1" else ""),
  "audit_in_build": sys.argv[6] == "1",
  "check": [dict(zip(["kernel", "class", "mode", "verdict", "result"], r)) for r in rows],
  "numbers": {
    "check_runs": len(rows),
    "check_pass": sum(r[4] == "pass" for r in rows),
    "check_fail": sum(r[4] == "fail" for r in rows),
    "check_skipped": sum(r[4] == "skipped" for r in rows),
    "check_seconds": int(sys.argv[4]),
    "total_seconds": int(sys.argv[5]),
    "gpu_tests_exit_code": int(sys.argv[3]),
  },
  "gpu_tests": [l.strip() for l in open(sys.argv[2]) if l.startswith("| ") or l.startswith("[  PASSED") or l.startswith("[  FAILED")],
}
print(json.dumps(record, indent=2))
PY
echo "record: bench/results/cheats-$stamp.json ($total_s s)"
fails=$(awk -F'\t' '$5 == "fail"' "$lines" | wc -l)
[ "$fails" = 0 ] && [ $gpu_status = 0 ]
