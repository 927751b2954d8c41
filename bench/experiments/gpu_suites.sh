#!/bin/bash
# The two GPU test suites, their summaries only. Usage: gpu_suites.sh [PROPERTY_COUNT] [TIMEOUT_S]
# (default 4 interpreter-accepted random schedules per problem, 150 s per suite). Run from the
# repository root after `source bench/gpu_env.sh`.
echo "== gpu_runtime_tests"; timeout "${2:-150}" gpu_runtime_tests --gtest_brief=1 2>&1 | tail -3
echo "== gpu_property_tests"; CUSCHED_GPU_PROPERTY_COUNT="${1:-4}" timeout "${2:-150}" gpu_property_tests --gtest_brief=1 2>&1 | tail -6
