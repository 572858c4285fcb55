# scripts/bench.d/cache.sh: the on-disk cache's workload (issue 17). Sourced by scripts/bench, which
# runs it with `--only …,cache`; W3's files must exist, so crawl must be among --only too:
#
#   flock /tmp/bench.lock scripts/bench --only crawl,cache --no-memory
#
# 1. W3 through the cache, against the same nginx, --rounds times from an empty cache: a cold
#    crawl (fetches and stores every response), a warm one (--max-age: every entry fresh, nothing
#    sent), whose rate must reach CACHE_MIN_SPEEDUP × the cold crawl's (median over the rounds),
#    and a refresh crawl (--cache-mode refresh: every request conditional, and nginx must answer
#    every one with 304, which only a conditional request can get). Every crawl's output must
#    equal the cold one's byte for byte. The JSON gives each mode's median wall and CPU.
# 2. CACHE_URLS distinct URLs (default 1,000,000; 20,000 with --quick) over W1's documents
#    stored by `fetch --cache`, then answered offline (--cache-mode only): time per URL (lookup,
#    record and all) and the database's size on disk.
#
# Results: $OUT/cache-results.json and lines on stderr. Every run is bounded by count and by
# timeout; all traffic goes to nginx on 127.0.0.1.

CACHE_MIN_SPEEDUP=5

# Runs COMMAND… under time and timeout, its output to LOGS/cache-NAME.*, its input the caller's;
# prints "wall user sys rss".
cache_timed() { # NAME LIMIT -- COMMAND…
    local name=$1 limit=$2 timefile=$WORK/cache-time.out rc=0
    shift 3
    /usr/bin/time -f '%e %U %S %M' -o "$timefile" timeout --foreground -k 5 "$limit" "$@" \
        >"$LOGS/cache-$name.stdout" 2>"$LOGS/cache-$name.stderr" || rc=$?
    if [ "$rc" != 0 ]; then
        say "cache: $name failed (exit $rc)"
        tail -n 3 "$LOGS/cache-$name.stderr" | sed 's/^/bench:   | /' >&2
        return 1
    fi
    tail -n 1 "$timefile"
}

cache_median() { # numbers separated by spaces on stdin: their median
    tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

cache_stat() { # STATS_FILE FIELD: a count from a --stats file's "cache" object
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cache"][sys.argv[2]])' "$1" "$2"
}

run_cache() {
    if [ "${W3_READY:-0}" != 1 ]; then
        say "cache: skipped: W3's files are not ready (put crawl among --only)"
        return 0
    fi
    local dir=$WORK/cache n=$W3_REQUESTS c=$CONCURRENCY mode wall user sys rss round
    local crawl=("$BATCHFETCH" crawl --details --base-url "$W3_BASE/api/json/v1/" -c "$c" --format ndjson
        --progress never --cache "$dir/w3")
    rm -rf "$dir"
    mkdir -p "$dir"
    # ROUNDS rounds, each from an empty cache: cold, warm, refresh. The verdict is on the median
    # of the rounds' warm/cold ratios: on a shared 2-core machine one pair moves by ±30%.
    declare -A walls cpus
    local speedups=() revalidated=$n
    for round in $(seq 1 "$ROUNDS"); do
        rm -rf "$dir/w3"
        for mode in cold warm refresh; do
            local extra=()
            case $mode in
                warm) extra=(--max-age 86400) ;;
                refresh) extra=(--cache-mode refresh) ;;
            esac
            # Each timed crawl writes a new file, as W3's runs do: overwriting the last round's
            # 109 MB output would add ~20 ms of freeing its pages (O_TRUNC) to rounds 2 and on.
            rm -f "$dir/w3-$mode.ndjson" "$dir/w3-$mode.stats.json"
            read -r wall user sys rss < <(cache_timed "w3-$mode" "$RUN_LIMIT" -- "${crawl[@]}" "${extra[@]}" \
                -o "$dir/w3-$mode.ndjson" --stats "$dir/w3-$mode.stats.json" </dev/null) || return 1
            walls[$mode]="${walls[$mode]:-} $wall"
            local cpu
            cpu=$(awk -v u="$user" -v s="$sys" -v n="$n" 'BEGIN { printf "%.1f", (u + s) * 1e6 / n }')
            cpus[$mode]="${cpus[$mode]:-} $cpu"
            say "cache: W3 round $round $mode crawl: $n results in $wall s ($(awk -v n="$n" -v w="$wall" 'BEGIN { printf "%.0f", n / w }') results/s," \
                "$cpu µs CPU each, $((rss / 1024)) MB);" \
                "hits $(cache_stat "$dir/w3-$mode.stats.json" hits), revalidated $(cache_stat "$dir/w3-$mode.stats.json" revalidated)," \
                "misses $(cache_stat "$dir/w3-$mode.stats.json" misses)"
            cmp -s "$dir/w3-cold.ndjson" "$dir/w3-$mode.ndjson" || { say "cache: FAILED: the $mode crawl's output differs from the cold one's"; return 1; }
        done
        python3 "$HELPERS/w3.py" check-crawl "$dir/w3-cold.ndjson" "$dir/w3-cold.stats.json" "$WORK/w3/expect.json" \
            >"$LOGS/cache-w3-cold.check" 2>&1 || { say "cache: FAILED: the cold crawl is incomplete (see $LOGS/cache-w3-cold.check)"; return 1; }
        local cold warm
        cold=$(echo "${walls[cold]}" | awk '{ print $NF }')
        warm=$(echo "${walls[warm]}" | awk '{ print $NF }')
        speedups+=("$(awk -v a="$cold" -v b="$warm" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')")
        local this_revalidated
        this_revalidated=$(cache_stat "$dir/w3-refresh.stats.json" revalidated)
        [ "$this_revalidated" = "$n" ] || revalidated=$this_revalidated
    done
    local speedup
    speedup=$(echo "${speedups[*]}" | cache_median)
    say "cache: warm crawl ${speedup}× the cold crawl's rate, median of rounds (${speedups[*]}; at least ${CACHE_MIN_SPEEDUP}× wanted);" \
        "refresh crawls: $revalidated of $n requests answered 304"
    local verdict=ok
    awk -v s="$speedup" -v m="$CACHE_MIN_SPEEDUP" 'BEGIN { exit !(s >= m) }' || verdict="FAILED: speed-up below ${CACHE_MIN_SPEEDUP}×"
    [ "$revalidated" = "$n" ] || verdict="FAILED: $revalidated of $n revalidated"
    say "cache: W3 verdict: $verdict"
    local mode_wall
    for mode in cold warm refresh; do
        mode_wall=$(echo "${walls[$mode]}" | cache_median)
        walls[$mode]=$mode_wall
        cpus[$mode]=$(echo "${cpus[$mode]}" | cache_median)
    done

    local urls=${CACHE_URLS:-$([ "$QUICK" = 1 ] && echo 20000 || echo 1000000)} store_wall offline_wall size
    say "cache: storing $urls distinct URLs (fetch --cache), then answering them offline"
    # A list file, as W1 reads its URLs: the offline run then measures the cache, not the pipe.
    memory_urls "$urls" >"$dir/urls.txt"
    read -r store_wall user sys rss < <(cache_timed store "$MEMORY_LIMIT" -- "$BATCHFETCH" fetch -i "$dir/urls.txt" \
        -c "$c" -o /dev/null --cache "$dir/urls" --stats "$dir/store.stats.json" </dev/null)
    read -r offline_wall user sys rss < <(cache_timed offline "$MEMORY_LIMIT" -- "$BATCHFETCH" fetch -i "$dir/urls.txt" \
        -o /dev/null --cache "$dir/urls" --cache-mode only --stats "$dir/offline.stats.json" </dev/null)
    [ -n "${offline_wall:-}" ] || return 1
    size=$(du -sb "$dir/urls" | cut -f1)
    local hits per_url cpu_per_url
    hits=$(cache_stat "$dir/offline.stats.json" hits)
    per_url=$(awk -v w="$offline_wall" -v n="$urls" 'BEGIN { printf "%.1f", w * 1e6 / n }')
    cpu_per_url=$(awk -v u="$user" -v s="$sys" -v n="$urls" 'BEGIN { printf "%.1f", (u + s) * 1e6 / n }')
    say "cache: $urls URLs stored in $store_wall s; offline: $hits hits in $offline_wall s, $per_url µs wall and" \
        "$cpu_per_url µs CPU per URL, $((rss / 1024)) MB peak; database $((size / 1048576)) MB ($((size / urls)) B per URL)"
    python3 - "$OUT/cache-results.json" <<EOF
import json, sys
json.dump({
    "w3_requests": $n, "w3_wall_s": {"cold": ${walls[cold]}, "warm": ${walls[warm]}, "refresh": ${walls[refresh]}},
    "w3_cpu_us_per_result": {"cold": ${cpus[cold]}, "warm": ${cpus[warm]}, "refresh": ${cpus[refresh]}},
    "w3_warm_speedup": $speedup, "w3_warm_speedup_rounds": [$(IFS=,; echo "${speedups[*]}")],
    "w3_refresh_revalidated": $revalidated, "w3_verdict": "$verdict",
    "urls": $urls, "store_wall_s": $store_wall, "offline_wall_s": $offline_wall, "offline_hits": $hits,
    "offline_us_per_url": $per_url, "offline_cpu_us_per_url": $cpu_per_url, "offline_max_rss_kb": $rss,
    "database_bytes": $size,
}, open(sys.argv[1], "w"), indent=1)
EOF
    rm -rf "$dir/urls" "$dir/urls.txt"
}
