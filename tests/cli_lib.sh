# Shared by the test scripts that run the real program (sourced, after setting `name`): a scratch folder removed on
# exit, fail MESSAGE, expect_status STATUS COMMAND... (stdout to $work/out.txt, stderr to $work/err.txt), waits
# bounded in time, and a private X server for the window (start_xvfb), stopped on exit.
# Waits are bounded in time, not in tries: ctest runs these beside other tests on a busy machine, where each poll
# (an xdotool call, a grep) is slow too and a fixed pause is sometimes too short.
work=$(mktemp -d)
xvfb=""
trap '[ -z "$xvfb" ] || kill "$xvfb" 2>/dev/null; rm -rf "$work"' EXIT

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

# start_xvfb WxHxDEPTH: starts an X server for this script alone and exports its DISPLAY. With -displayfd, Xvfb binds
# the first free display and writes its number once it accepts connections. (xvfb-run -a picks a number from the lock
# files in /tmp, then starts its server: a race with the suite's other Xvfb users running in parallel; under load a
# window found no server on its display, WindowTest 2 runs in 30.)
start_xvfb() {
    Xvfb -displayfd 3 -screen 0 "$1" -nolisten tcp -noreset 3>"$work/display" >"$work/xvfb-log.txt" 2>&1 &
    xvfb=$!
    local deadline=$((SECONDS + 60))
    until [ -s "$work/display" ]; do
        kill -0 "$xvfb" 2>/dev/null || fail "Xvfb did not start: $(cat "$work/xvfb-log.txt")"
        [ $SECONDS -lt $deadline ] || fail "Xvfb did not start within 60 s: $(cat "$work/xvfb-log.txt")"
        sleep 0.1
    done
    DISPLAY=":$(cat "$work/display")"
    export DISPLAY
}
# server_said: what the X server said, if it went away (for a failure's message).
server_said() {
    kill -0 "$xvfb" 2>/dev/null || echo "(the X server $DISPLAY exited: $(cat "$work/xvfb-log.txt"))"
}

# The waits below are also what window_test.sh's drive scripts source (declare -f).
# wait_until CMD...: polls CMD until it succeeds (true) or 60 s have passed (false).
wait_until() {
    local deadline=$((SECONDS + 60))
    until "$@"; do
        [ $SECONDS -lt $deadline ] || return 1
        sleep 0.1
    done
}
# exited PID: the process is gone.
exited() { ! kill -0 "$1" 2>/dev/null; }
# find_window PID: prints the X id of the window once it is on screen (mapped), or nothing when PID exits first or
# none shows in time.
find_window() {
    local deadline=$((SECONDS + 60)) wid
    while [ $SECONDS -lt $deadline ] && kill -0 "$1" 2>/dev/null; do
        wid=$(xdotool search --onlyvisible --name '^lidarsim' 2>/dev/null | head -n 1)
        [ -n "$wid" ] && echo "$wid" && return 0
        sleep 0.1
    done
    return 1
}
# said FILE TEXT: waits until the window has printed TEXT to FILE (its stdout: every key's answer in the status line
# is printed there too, as it happens).
said() { wait_until grep -qF -- "$2" "$1"; }
