#!/usr/bin/env bash
# scripts/consumer_test.sh BUILD_DIR SOURCE_DIR: installs the library built in BUILD_DIR into a temporary prefix and
# builds examples/consumer/ against the installed files only, three ways: CMake find_package (lidarsim::lidarsim),
# pkg-config with the shared library, and pkg-config --static with liblidarsim.a. Each runs a scan and a second of
# simulation on a world made in code and on worlds/default.json; all three must print the same.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=${CC:-cc}

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
pcdir=$(dirname "$(find "$tmp/prefix" -name lidarsim.pc)")
libdir=$(dirname "$(find "$tmp/prefix" -name liblidarsim.a)")
export PKG_CONFIG_PATH="$pcdir"

echo "== find_package"
cmake -S "$src/examples/consumer" -B "$tmp/by-cmake" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >/dev/null
cmake --build "$tmp/by-cmake" >/dev/null
echo "== pkg-config (shared)"
# shellcheck disable=SC2046 # pkg-config prints several words on purpose
"$cc" -std=c17 -Wall -Wextra -Werror "$src/examples/consumer/main.c" $(pkg-config --cflags --libs lidarsim) \
    -o "$tmp/by-pkg-config"
echo "== pkg-config --static"
# shellcheck disable=SC2046
"$cc" -std=c17 -Wall -Wextra -Werror "$src/examples/consumer/main.c" $(pkg-config --cflags lidarsim) \
    "$libdir/liblidarsim.a" $(pkg-config --static --libs lidarsim | sed 's/-llidarsim//') -o "$tmp/by-static"

for world in "" "$src/worlds/default.json"; do
    expected=$(LD_LIBRARY_PATH="$libdir" "$tmp/by-cmake/consumer" $world)
    for program in "$tmp/by-pkg-config" "$tmp/by-static"; do
        got=$(LD_LIBRARY_PATH="$libdir" "$program" $world)
        if [ "$got" != "$expected" ]; then
            echo "consumer_test: $(basename "$program") printed a different result:" >&2
            diff <(echo "$expected") <(echo "$got") >&2 || true
            exit 1
        fi
    done
    echo "$expected"
done
if ldd "$tmp/by-static" | grep -q liblidarsim; then
    echo "consumer_test: the static build links liblidarsim.so" >&2
    exit 1
fi
echo "consumer_test: find_package, pkg-config and pkg-config --static agree"
