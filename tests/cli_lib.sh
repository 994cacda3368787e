# Shared by the command-line test scripts (sourced, after setting `name`): a scratch folder removed on exit,
# fail MESSAGE, and expect_status STATUS COMMAND... (stdout to $work/out.txt, stderr to $work/err.txt).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
    echo "$name: FAIL: $*" >&2
    exit 1
}
expect_status() { # expect_status STATUS COMMAND...
    local want=$1
    shift
    "$@" >"$work/out.txt" 2>"$work/err.txt"
    local got=$?
    [ "$got" -eq "$want" ] || fail "$*: exit status $got, expected $want: $(cat "$work/err.txt")"
}
