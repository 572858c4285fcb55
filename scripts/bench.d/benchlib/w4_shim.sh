# shellcheck shell=bash
# W4 for the Python bench: scripts/bench.d/w4.sh is bash written against the bash bench's functions
# and settings (measure, wants, say, free_port, mean_bytes, check_printed_count, cleanup; WORK,
# ROUNDS, …). This gives it them, the settings from the environment (benchlib/w4.py) and measure
# handed back to the Python measure, so W4's runs are timed, checked and recorded as the others are.
#
#   bash w4_shim.sh run              runs W4 (run_w4)
#   bash w4_shim.sh check FUNC ARG…  runs one of w4.sh's checks (the Python measure calls it)
set -euo pipefail

say() { printf 'bench: %s\n' "$*" >&2; }
wants() { case ",$ONLY," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
mean_bytes() { # w1|w2|w5|w6
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]]["mean_bytes"])' "$WORK/meta.json" "$1"
}
# measure WORKLOAD TOOL ROUND REQUESTS MEAN_BYTES -- COMMAND…, with CHECK="function args…" as before.
measure() {
    PYTHONPATH=$HELPERS python3 -B -m benchlib measure "${CHECK:-}" "$@"
}
check_printed_count() { # COUNT LOG: the floor prints how many transfers were 2xx
    local printed
    printed=$(cat "$2.stdout")
    [ "$printed" = "$1" ] || { echo "$printed transfers ok, $1 expected"; return 1; }
}
# w4.sh's EXIT trap stops its nginx, then calls cleanup: the Python side cleans up the rest, and the
# shell exits with the status that ended it.
cleanup() { :; }

# Not exported: nginx reads NGINX from its environment (sockets inherited on a binary upgrade).
NGINX=$BENCH_NGINX
# w4.sh takes the default --only list when it is sourced (W4_DEFAULT_ONLY), then the run's.
ONLY=$BENCH_DEFAULT_ONLY
# shellcheck source=scripts/bench.d/w4.sh
source "$HELPERS/w4.sh"
ONLY=$BENCH_ONLY

case "${1:-}" in
    run)
        trap 'exit 130' INT
        trap 'exit 143' TERM
        run_w4
        ;;
    check)
        shift
        "$@"
        ;;
    *) echo "usage: w4_shim.sh run | check FUNCTION ARG…" >&2; exit 2 ;;
esac
