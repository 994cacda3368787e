#!/usr/bin/env bash
# The two Quick start commands of the README:
#   ./dev.sh run [WORLD.json] [options]   install what is missing, build, open the window
#   ./dev.sh test                         install what is missing, build, run every check (sanitizers, clang, fuzz, analysers, plain)
# Other verbs: build (plain build only).
set -euo pipefail
cd "$(dirname "$0")"

verb=${1:-run}
[ $# -gt 0 ] && shift

packages=(build-essential cmake pkg-config libsdl2-dev libsdl2-gfx-dev libsdl2-image-dev libgif-dev libsdl2-ttf-dev libfontconfig-dev
    fonts-dejavu-core libcjson-dev libyaml-dev libpng-dev libnetpbm-dev)
if [ "$verb" = test ]; then
    packages+=(xvfb xauth xfonts-base x11-utils clang xdotool cppcheck clang-tidy)
    # The Python package's tests (python/tests): numpy, pytest, a venv install, the DQN and Dask examples.
    packages+=(python3-numpy python3-pytest python3-setuptools python3-venv python3-matplotlib python3-torch
        python3-distributed)
fi

install_missing() {
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "dev.sh: installing ${missing[*]}" >&2
    local sudo=()
    [ "$(id -u)" -ne 0 ] && sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

jobs=$(nproc 2>/dev/null || echo 2)

build() { # build DIR [cmake options...]
    local dir=$1
    shift
    # Configured again when options are given or an earlier configure failed (no Makefile), so a stage's options (-DLS_WERROR=ON) reach an older build folder.
    if [ ! -f "$dir/Makefile" ] || [ $# -gt 0 ]; then
        cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
    fi
    cmake --build "$dir" -j "$jobs" -- --no-print-directory | { grep -v '^\[' || true; }
}

install_missing
case "$verb" in
    run)
        build build
        exec ./build/lidarsim "$@"
        ;;
    build)
        build build
        ;;
    test)
        # The sanitizer build runs first so the last line printed is the plain suite's ctest summary.
        build build-asan -DLS_SANITIZE=ON -DLS_WERROR=ON
        echo "== tests under AddressSanitizer and UndefinedBehaviorSanitizer"
        if ! ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            ctest --test-dir build-asan --output-on-failure -j "$jobs" >build-asan/ctest.log 2>&1; then
            cat build-asan/ctest.log
            exit 1
        fi
        tail -n 3 build-asan/ctest.log
        # Suites that run work on the thread pool, under ThreadSanitizer (add a suite here when it uses the pool).
        build build-tsan -DLS_SANITIZE_THREAD=ON -DLS_WERROR=ON
        echo "== threaded tests under ThreadSanitizer"
        TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build-tsan --output-on-failure -R '^(PoolTest|SceneThreadsTest)$'
        # The suite built by clang too, warnings as errors (clang's -Wdouble-promotion also catches float and
        # long double promotions gcc lets pass): results, the default world's state hash included, must not depend
        # on the compiler.
        CC=clang build build-clang -DLS_WERROR=ON
        echo "== tests built with clang"
        if ! ctest --test-dir build-clang --output-on-failure -j "$jobs" -E '^WindowTest$' >build-clang/ctest.log 2>&1; then
            cat build-clang/ctest.log
            exit 1
        fi
        tail -n 3 build-clang/ctest.log
        # The library and the headless commands without SDL (a host that only wants the core builds it so).
        build build-noapp -DLS_BUILD_APP=OFF -DLS_WERROR=ON
        echo "== tests without the SDL front end (-DLS_BUILD_APP=OFF)"
        if ! ctest --test-dir build-noapp --output-on-failure -j "$jobs" >build-noapp/ctest.log 2>&1; then
            cat build-noapp/ctest.log
            exit 1
        fi
        tail -n 3 build-noapp/ctest.log
        echo "== short fuzz run (libFuzzer, clang)"
        ./scripts/fuzz.sh 15
        echo "== static analysis (cppcheck, clang-tidy; about 2 minutes)"
        ./scripts/analyse.sh
        build build -DLS_WERROR=ON
        echo "== tests"
        ctest --test-dir build --output-on-failure -j "$jobs"
        ;;
    *)
        echo "usage: ./dev.sh run [WORLD.json] [options] | ./dev.sh test | ./dev.sh build" >&2
        exit 2
        ;;
esac
