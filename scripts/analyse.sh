#!/usr/bin/env bash
# scripts/analyse.sh: the static analysers, with the checked-in configuration. Fails on any finding.
#   cppcheck   --enable=warning,performance,portability over include, src and tests (inline suppressions must say why)
#   clang-tidy .clang-tidy over every file of compile_commands.json (configured in build-analyse, app included)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
status=0

echo "== cppcheck"
if ! cppcheck --enable=warning,performance,portability --error-exitcode=1 --inline-suppr -q -j "$jobs" \
    -I include -I src include src tests tools fuzz; then
    status=1
fi

echo "== clang-tidy"
cmake -S . -B build-analyse -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# run-clang-tidy prints each file's command and a count of warnings in system headers; keep the findings only.
# Its exit status and its output both count: a finding in the log fails even if the status says otherwise.
tidy=0
run-clang-tidy -p build-analyse -j "$jobs" -quiet "$PWD/(src|tests|tools|fuzz|bench)/" \
    >build-analyse/clang-tidy.log 2>&1 || tidy=1
if [ $tidy -ne 0 ] || grep -qE "(warning|error):" build-analyse/clang-tidy.log; then
    grep -E "(warning|error):" build-analyse/clang-tidy.log | sort -u || true
    status=1
fi
if [ $status -eq 0 ]; then
    echo "analyse: clean"
else
    echo "analyse: findings above" >&2
fi
exit $status
