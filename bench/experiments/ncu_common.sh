# Sourced by the scripts that read hardware counters: NCU (Nsight Compute on the
# device machine) and `stalls NAME REGEX SKIP COMMAND...`, which profiles one launch of the
# kernels matching REGEX (after SKIP) with the warp-state and source-counter sections,
# clocks left alone, and writes $OUT/NAME_details.txt and $OUT/NAME_sass.csv (stall
# samples per SASS instruction), printing the stall reasons.
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
stalls() {
  local name=$1 re=$2 skip=$3; shift 3
  timeout 150 $NCU --clock-control none --target-processes all --section WarpStateStats --section SourceCounters \
    --import-source no -k "regex:$re" --launch-skip "$skip" --launch-count 1 -o "$OUT/$name" "$@" > "$OUT/$name.log" 2>&1
  $NCU -i "$OUT/$name.ncu-rep" --page details --print-details all > "$OUT/${name}_details.txt" 2>&1
  $NCU -i "$OUT/$name.ncu-rep" --page source --csv --print-source sass > "$OUT/${name}_sass.csv" 2>&1
  grep "^    Stall" "$OUT/${name}_details.txt" | head -8
}
