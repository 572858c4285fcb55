# shellcheck shell=bash
# W4 of scripts/bench: HTTPS and HTTP/2, the workload users meet on real APIs.
# Sourced by benchlib/w4_shim.sh, which gives it the bench's functions and settings (measure, wants,
# say, WORK, ROUNDS, CONCURRENCY, …) from benchlib/w4.py; runs when `w4` is in --only (`--only w4` runs all of W4's tools,
# `--only w4,fetch,h2load` some) or when --only is not given.
#
# nginx (1 worker, keep-alive that never runs out) with a self-signed certificate made at run
# time serves W1's documents on two loopback ports: TLS (ALPN offers h2 and http/1.1) and
# cleartext HTTP/2 (h2c, prior knowledge). Three workloads over W1's URL list, 64 in flight:
#
#   W4 h1 TLS   HTTP/1.1 over TLS: a connection per transfer in flight
#   W4 h2 TLS   HTTP/2 over TLS: the transfers as streams of one connection
#   W4 h2c      HTTP/2 with prior knowledge on cleartext
#
# Tools: batchfetch fetch (records with validated bodies) and bench, curl --parallel, the libcurl
# floor (FLOOR_HTTP, FLOOR_CAINFO; with fetch's request fields, as every floor: floor_common.h),
# h2load (nghttp2's load generator, bodies dropped: the h2 transport reference, as wrk is for h1;
# --h1 for W4 h1 TLS), aiohttp (HTTP/1.1 only; when installed). Every client but h2load, which
# verifies nothing, trusts the certificate instead of skipping verification (--ca-cert, --cacert,
# CURLOPT_CAINFO, SSL_CERT_FILE). Every run is checked (count and protocol), and nginx's access
# log ($connection, $ssl_session_reused) gives its connections and TLS handshakes, full and
# resumed: written to the runs as kind "w4-tls".
#
# Targets, from the same run: `fetch` ≥ 0.95× the libcurl floor given the same options,
# and ≥ 1.5× curl, on each of h1 TLS, h2 TLS and h2c. They hold per libcurl version: run the bench
# once as it is (Debian 12: 7.88.1) and once on libcurl 8 (scripts/libcurl8, docs/LIBCURL.md):
#   eval "$(scripts/libcurl8)"; LD_LIBRARY_PATH=$LIBCURL8_LIB PATH=$LIBCURL8_BIN:$PATH scripts/bench --only w4 …
# which batchfetch, the floor and curl then all load; the summary names the libcurl each one loaded.

W4_DEFAULT_ONLY=$ONLY

# Whether W4 runs: asked for, or nothing was narrowed with --only.
w4_wanted() { wants w4 || [ "$ONLY" = "$W4_DEFAULT_ONLY" ]; }

# Whether W4 runs TOOL: every tool when --only names no tool besides w4 (or is not given).
w4_tool() { # TOOL
    case ",$ONLY," in
        ",w4,") return 0 ;;
    esac
    [ "$ONLY" = "$W4_DEFAULT_ONLY" ] || wants "$1"
}

w4_start_nginx() {
    local dir=$WORK/w4 tries=0
    rm -rf "$dir"
    mkdir -p "$dir/tmp"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=127.0.0.1 \
        -addext subjectAltName=IP:127.0.0.1 -days 2 -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
    chmod go+r "$dir/key.pem"
    W4_TLS_PORT=$(free_port)
    W4_H2C_PORT=$(free_port)
    local locations="
        root $WORK/www;
        location = /api/json/v1/1/lookup.php { try_files /lookup/\$arg_i.json =404; }
        location / { return 404; }"
    cat >"$dir/nginx.conf" <<EOF
worker_processes 1;
daemon off;
master_process on;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
    log_format w4 '\$connection \$ssl_session_reused \$server_protocol \$status';
    access_log $dir/access.log w4;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 300s;
    keepalive_requests 100000000;
    ssl_session_cache shared:W4:1m;
    types { application/json json; }
    default_type application/octet-stream;
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    server {
        listen 127.0.0.1:$W4_TLS_PORT ssl http2 backlog=4096;
        ssl_certificate $dir/cert.pem;
        ssl_certificate_key $dir/key.pem;$locations
    }
    server {
        listen 127.0.0.1:$W4_H2C_PORT http2 backlog=4096;$locations
    }
}
EOF
    "$NGINX" -e "$dir/error.log" -p "$dir" -c "$dir/nginx.conf" &
    W4_NGINX_PID=$!
    until curl -sf --cacert "$dir/cert.pem" -o /dev/null "https://127.0.0.1:$W4_TLS_PORT/api/json/v1/1/lookup.php?i=11000"; do
        tries=$((tries + 1))
        if [ $tries -gt 50 ] || ! kill -0 "$W4_NGINX_PID" 2>/dev/null; then
            cat "$dir/error.log" >&2 || true
            say "W4: nginx did not start"
            return 1
        fi
        sleep 0.1
    done
    # The first W4_COUNT of W1's URLs: W1's full list (200,000) would make each TLS run, and
    # libcurl 7.88's connection per h2c request, last minutes.
    head -n "$W4_COUNT" "$WORK/w1.urls" | sed "s#^$BASE#https://127.0.0.1:$W4_TLS_PORT#" >"$dir/tls.urls"
    head -n "$W4_COUNT" "$WORK/w1.urls" | sed "s#^$BASE#http://127.0.0.1:$W4_H2C_PORT#" >"$dir/h2c.urls"
    local list
    for list in tls h2c; do
        awk '{ printf "url = \"%s\"\noutput = \"/dev/null\"\n", $0 }' "$dir/$list.urls" >"$dir/$list.curl"
    done
    say "W4: nginx serving W1's documents over TLS on 127.0.0.1:$W4_TLS_PORT and h2c on 127.0.0.1:$W4_H2C_PORT"
}

w4_stop_nginx() {
    if [ -n "${W4_NGINX_PID:-}" ] && kill -0 "$W4_NGINX_PID" 2>/dev/null; then
        kill -TERM "$W4_NGINX_PID" 2>/dev/null || true
        wait "$W4_NGINX_PID" 2>/dev/null || true
    fi
    W4_NGINX_PID=""
}

# measure, plus what nginx saw of the run: requests, connections, TLS handshakes (full, resumed).
w4_measure() { # WORKLOAD TOOL ROUND REQUESTS MEAN -- COMMAND…
    local log=$WORK/w4/access.log before
    before=$(wc -l <"$log")
    measure "$@"
    tail -n +"$((before + 1))" "$log" | awk -v w="$1" -v t="$2" -v r="$3" -v runs="$RUNS" '
        { requests++; if (!($1 in seen)) { seen[$1] = 1; connections++; if ($2 == "r") resumed++ } }
        END {
            handshakes = w ~ /TLS/ ? connections : 0
            printf "{\"kind\":\"w4-tls\",\"workload\":\"%s\",\"tool\":\"%s\",\"round\":%d,\"served\":%d,\"connections\":%d,\"handshakes\":%d,\"resumed\":%d}\n",
                w, t, r, requests, connections, handshakes, resumed >> runs
            printf "bench: %s round %d  %s: nginx served %d requests over %d connections; %d TLS handshakes (%d resumed)\n",
                w, r, t, requests, connections, handshakes, resumed
        }' >&2
}

# Checks for measure's CHECK (the last argument is the run's log prefix).
w4_check_stats() { # COUNT PROTOCOL LOG: fetch --stats: every record ok, every response over PROTOCOL
    python3 - "$WORK/w4/fetch.stats.json" "$1" "$2" <<'EOF'
import json, sys
stats, n, protocol = json.load(open(sys.argv[1])), int(sys.argv[2]), sys.argv[3]
if stats["records"] != n or stats["ok"] != n or stats.get("protocols") != {protocol: n}:
    sys.exit(f"{stats['ok']} of {stats['records']} records ok ({n} expected), protocols {stats.get('protocols')}")
EOF
}
w4_check_bench() { # COUNT PROTOCOL LOG: bench --json
    python3 - "$3.stdout" "$1" "$2" <<'EOF'
import json, sys
report, n, protocol = json.load(open(sys.argv[1])), int(sys.argv[2]), sys.argv[3]
if report["ok"] != n or report.get("protocols") != {protocol: n}:
    sys.exit(f"{report['ok']} ok of {n}, protocols {report.get('protocols')}")
EOF
}
w4_check_curl() { # COUNT VERSION LOG: curl -w '%{http_code} %{http_version}'
    local ok
    ok=$(grep -c "^2[0-9][0-9] $2\$" "$3.stdout" || true)
    [ "$ok" = "$1" ] || { echo "$ok transfers with a 2xx status over HTTP/$2, $1 expected"; return 1; }
}
w4_check_h2load() { # COUNT PROTOCOL LOG
    grep -q "^requests: $1 total, $1 started, $1 done, $1 succeeded, 0 failed" "$3.stdout" \
        || { grep '^requests:' "$3.stdout"; return 1; }
    grep -q "^Application protocol: $2\$" "$3.stdout" || { grep '^Application protocol' "$3.stdout"; return 1; }
}

# One round of one W4 workload. MODE: h1 (HTTP/1.1 over TLS), h2 (over TLS), h2c.
w4_round() { # WORKLOAD MODE ROUND
    local w=$1 mode=$2 round=$3 n=$W4_COUNT c=$CONCURRENCY mean dir=$WORK/w4 list
    mean=$(mean_bytes w1)
    local flags=() curl_flags=() floor_http protocol curl_version h2load_flags=() alpn
    case $mode in
        h1) list=tls flags=(--ca-cert "$dir/cert.pem") curl_flags=(--http1.1 --cacert "$dir/cert.pem")
            floor_http=1.1 protocol=HTTP/1.1 curl_version=1.1 h2load_flags=(--h1 -c "$c" -m 1) alpn=http/1.1 ;;
        h2) list=tls flags=(--http2 --ca-cert "$dir/cert.pem") curl_flags=(--http2 --cacert "$dir/cert.pem")
            floor_http=2 protocol=HTTP/2 curl_version=2 h2load_flags=(-c 1 -m "$c") alpn=h2 ;;
        h2c) list=h2c flags=(--http2-prior-knowledge) curl_flags=(--http2-prior-knowledge)
            floor_http=2-prior-knowledge protocol=HTTP/2 curl_version=2 h2load_flags=(-c 1 -m "$c") alpn=h2c ;;
    esac
    if w4_tool fetch; then
        rm -f "$dir/fetch.stats.json"
        CHECK="w4_check_stats $n $protocol" w4_measure "$w" "batchfetch fetch" "$round" "$n" "$mean" -- \
            "$BATCHFETCH" fetch -i "$dir/$list.urls" -c "$c" "${flags[@]}" -o /dev/null -q \
            --stats "$dir/fetch.stats.json"
    fi
    if w4_tool bench; then
        CHECK="w4_check_bench $n $protocol" w4_measure "$w" "batchfetch bench" "$round" "$n" "$mean" -- \
            "$BATCHFETCH" bench -i "$dir/$list.urls" -n "$n" -c "$c" "${flags[@]}" --json
    fi
    if w4_tool curl; then
        local libcurl
        libcurl=$(curl --version | sed -n '1s/.*libcurl\/\([0-9.]*\).*/\1/p')
        if [ "$mode" = h2c ] && [ "${libcurl%%.*}" -lt 8 ]; then
            [ "$round" != 1 ] || say "$w: skipped curl: libcurl $libcurl fails every request on a reused h2c connection (curl issue 10634)"
        else
            CHECK="w4_check_curl $n $curl_version" w4_measure "$w" curl "$round" "$n" "$mean" -- \
                curl -sS --no-progress-meter --fail --parallel --parallel-max "$c" "${curl_flags[@]}" \
                -w '%{http_code} %{http_version}\n' -K "$dir/$list.curl"
        fi
    fi
    if w4_tool floor && [ -n "${W4_FLOOR:-}" ]; then
        FLOOR_HTTP=$floor_http FLOOR_CAINFO=$dir/cert.pem CHECK="check_printed_count $n" \
            w4_measure "$w" "libcurl floor (bare multi loop)" "$round" "$n" "$mean" -- \
            "$W4_FLOOR" "$dir/$list.urls" "$c"
    fi
    if w4_tool h2load && command -v h2load >/dev/null 2>&1; then
        CHECK="w4_check_h2load $n $alpn" w4_measure "$w" h2load "$round" "$n" "$mean" -- \
            h2load -n "$n" "${h2load_flags[@]}" -i "$dir/$list.urls"
    fi
    if [ "$mode" = h1 ] && w4_tool aiohttp && python3 -c 'import aiohttp' 2>/dev/null; then
        SSL_CERT_FILE=$dir/cert.pem w4_measure "$w" aiohttp "$round" "$n" "$mean" -- \
            python3 "$HELPERS/aiohttp_fetch.py" "$dir/$list.urls" "$c"
    fi
}

# The libcurl that PROGRAM loads in this environment (LD_LIBRARY_PATH included): its version and file.
w4_libcurl_of() { # PROGRAM
    local file
    file=$(ldd "$1" 2>/dev/null | awk '$1 ~ /^libcurl\.so/ { print $3; exit }')
    [ -n "$file" ] || { echo "no libcurl (ldd $1)"; return 0; }
    python3 - "$file" <<'EOF'
import ctypes, os, sys
library = ctypes.CDLL(sys.argv[1])
library.curl_version.restype = ctypes.c_char_p
print(library.curl_version().decode().split(" ")[0], "from", os.path.realpath(sys.argv[1]))
EOF
}

# Handshakes per run and the issue's targets, as ratios within this run (medians over rounds).
w4_summary() {
    W4_LIBCURLS=$(
        printf 'batchfetch: %s\n' "$(w4_libcurl_of "$BATCHFETCH")"
        [ -z "${W4_FLOOR:-}" ] || printf 'libcurl floor: %s\n' "$(w4_libcurl_of "$W4_FLOOR")"
        printf 'curl: %s\n' "$(curl --version | head -n 1)"
    ) python3 - "$RUNS" <<'EOF' | tee "$OUT/w4-results.md" >&2
import json, os, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
load = {}
for r in runs:
    if r.get("kind", "load") == "load" and r["workload"].startswith("W4") and r["exit"] == 0 and r["wall_s"] > 0:
        load.setdefault((r["workload"], r["tool"]), []).append(
            (r["requests"] / r["wall_s"], (r["user_s"] + r["sys_s"]) * 1e6 / r["requests"]))
tls = {}
for r in runs:
    if r.get("kind") == "w4-tls":
        tls.setdefault((r["workload"], r["tool"]), []).append(r)
med = lambda values: statistics.median(values) if values else None
print("### W4: connections and TLS handshakes per run (nginx's log; medians)\n")
print("libcurl loaded: " + "; ".join(os.environ.get("W4_LIBCURLS", "").splitlines()) + "\n")
print("| workload | tool | req/s | CPU µs/req | connections | TLS handshakes | resumed |")
print("|---|---|---:|---:|---:|---:|---:|")
for key in sorted(set(load) | set(tls)):
    rates = [v[0] for v in load.get(key, [])]
    cpus = [v[1] for v in load.get(key, [])]
    t = tls.get(key, [])
    cell = lambda v, d=0: "–" if v is None else f"{v:,.{d}f}"
    print(f"| {key[0]} | {key[1]} | {cell(med(rates))} | {cell(med(cpus), 1)} "
          f"| {cell(med([x['connections'] for x in t]))} | {cell(med([x['handshakes'] for x in t]))} "
          f"| {cell(med([x['resumed'] for x in t]))} |")
rate = lambda w, t: med([v[0] for v in load.get((w, t), [])])
def ratio(a, b):
    return "–" if a is None or not b else f"{a / b:.2f}×"
print()
print("Targets: fetch ≥ 0.95× the libcurl floor with the same options and ≥ 1.5× curl, as the median of")
print("the rounds' ratios (each round runs the tools back to back, so a ratio compares like with like); h2load for")
print("reference.\n")
print("| workload | fetch req/s | fetch ÷ floor (≥ 0.95×) | fetch ÷ curl (≥ 1.5×) | fetch ÷ h2load | CPU/req ÷ floor |")
print("|---|---:|---:|---:|---:|---:|")
by_round = {}
for r in runs:
    if r.get("kind", "load") == "load" and r["workload"].startswith("W4") and r["exit"] == 0 and r["wall_s"] > 0:
        by_round[(r["workload"], r["tool"], r["round"])] = (
            r["requests"] / r["wall_s"], (r["user_s"] + r["sys_s"]) / r["requests"])
def round_ratios(w, other, index=0):
    rounds = sorted(k[2] for k in by_round if k[0] == w and k[1] == "batchfetch fetch")
    return [by_round[(w, "batchfetch fetch", n)][index] / by_round[(w, other, n)][index]
            for n in rounds if (w, other, n) in by_round]
def verdict(w, other, target):
    values = round_ratios(w, other)
    if not values:
        return "–"
    m = statistics.median(values)
    rounds = ", ".join(f"{v:.2f}" for v in values)
    return f"{m:.2f}× ({rounds}) {'met' if m >= target else 'missed'}"
for w in ("W4 h1 TLS", "W4 h2 TLS", "W4 h2c"):
    fetch = rate(w, "batchfetch fetch")
    if fetch is None:
        continue
    cpu = round_ratios(w, "libcurl floor (bare multi loop)", 1)
    print(f"| {w} | {fetch:,.0f} | {verdict(w, 'libcurl floor (bare multi loop)', 0.95)} "
          f"| {verdict(w, 'curl', 1.5)} | {verdict(w, 'h2load', 0).replace(' met', '')} "
          f"| {'–' if not cpu else f'{statistics.median(cpu):.2f}×'} |")
EOF
}

run_w4() {
    # BENCH_W4_COUNT=N takes the first N of W1's URLs instead of the default 100,000 (at most
    # W1's count): at 50k req/s, 100,000 make every run last the 2 s that keep start-up out.
    W4_COUNT=${BENCH_W4_COUNT:-$W4_COUNT}
    [ "$W4_COUNT" -le "$W1_COUNT" ] || W4_COUNT=$W1_COUNT
    command -v openssl >/dev/null 2>&1 || { say "W4: skipped: openssl is not installed"; return 0; }
    command -v h2load >/dev/null 2>&1 || say "W4: h2load is not installed (apt-get install nghttp2-client): no h2 reference"
    W4_FLOOR=""
    if w4_tool floor; then
        W4_FLOOR=$WORK/multi_floor_w4
        # shellcheck disable=SC2046 # pkg-config's flags are separate words
        cc -O2 -o "$W4_FLOOR" "$HELPERS/multi_floor.c" $(pkg-config --cflags --libs libcurl) \
            >"$WORK/build-floor-w4.log" 2>&1 || { say "W4: the libcurl floor did not build"; W4_FLOOR=""; }
    fi
    # nginx of W4 is stopped on exit too, also on failure or Ctrl-C.
    trap 'w4_stop_nginx; cleanup' EXIT
    w4_start_nginx || { trap cleanup EXIT; return 0; }
    say "W4: HTTPS and HTTP/2, the first $W4_COUNT of W1's URLs, $CONCURRENCY in flight, $ROUNDS round(s)"
    local round
    for round in $(seq 1 "$ROUNDS"); do
        w4_round "W4 h1 TLS" h1 "$round"
        w4_round "W4 h2 TLS" h2 "$round"
        w4_round "W4 h2c" h2c "$round"
    done
    w4_stop_nginx
    trap cleanup EXIT
    w4_summary
}
