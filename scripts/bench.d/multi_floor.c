/*
 * multi_floor: the libcurl floor for scripts/bench.
 *
 * The least a libcurl client can do per request: one multi handle, N easy handles reused for the
 * next URL as each transfer finishes (so connections stay alive), bodies appended to a per-handle
 * buffer and dropped, one curl_multi_poll loop, nothing else. Whatever batchfetch spends per
 * request beyond this program is its own overhead, not libcurl's.
 *
 * usage: multi_floor URL_FILE [CONCURRENCY]   (default 64)
 *
 * For HTTPS and HTTP/2 (W4), the same options batchfetch is given, from the environment:
 * FLOOR_HTTP=1.1 (default), 2 (over TLS by ALPN, multiplexed: PIPEWAIT, streams up to the
 * concurrency) or 2-prior-knowledge (h2c); FLOOR_CAINFO=FILE trusts that CA (CURLOPT_CAINFO).
 * With 2-prior-knowledge on libcurl before 8.0.0, which breaks reused h2c connections (curl
 * issue 10634), each transfer gets a fresh connection, as batchfetch does there.
 *
 * With FLOOR_BODIES (floor_common.h), URL i is POSTed line i of that file (W7).
 *
 * Prints the number of transfers that ended with a 2xx status; exits 1 if any did not (the first
 * few failures are named on stderr), 2 on a usage or setup error.
 *
 * Build: cc -O2 -o multi_floor multi_floor.c $(pkg-config --cflags --libs libcurl)   (with floor_common.h beside it)
 */
#include "floor_common.h"

/* One easy handle and the body buffer it reuses across transfers. */
struct floor_slot {
    struct floor_transfer transfer;
    char *body;
    size_t length;
    size_t capacity;
};

static size_t floor_write(char *data, size_t size, size_t count, void *context) {
    struct floor_slot *slot = context;
    size_t bytes = size * count;
    /* 0 fails the transfer with CURLE_WRITE_ERROR */
    return floor_append(&slot->body, &slot->length, &slot->capacity, data, bytes, 16384) ? bytes : 0;
}

static void floor_reset(struct floor_transfer *transfer) {
    ((struct floor_slot *)transfer)->length = 0;
}

static int floor_finish(struct floor_transfer *transfer, int transferred, const char **detail) {
    (void)transfer;
    (void)detail;
    return transferred;
}

int main(int argc, char **argv) {
    floor_name = "multi_floor";
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: multi_floor URL_FILE [CONCURRENCY]\n");
        return 2;
    }
    long concurrency = floor_concurrency(argc == 3 ? argv[2] : NULL);
    if (concurrency == 0) {
        return 2;
    }
    size_t count = 0;
    char **urls = floor_read_urls(argv[1], &count);
    if (urls == NULL) {
        return 2;
    }
    const char *bodies = getenv("FLOOR_BODIES");
    if (bodies != NULL && *bodies != 0) {
        size_t body_count = 0;
        floor_bodies = floor_read_urls(bodies, &body_count);
        if (floor_bodies == NULL || body_count != count) {
            fprintf(stderr, "multi_floor: FLOOR_BODIES must hold one body per URL (%zu URLs)\n", count);
            return 2;
        }
    }
    const char *http = getenv("FLOOR_HTTP");
    const char *cainfo = getenv("FLOOR_CAINFO");
    long version = CURL_HTTP_VERSION_1_1;
    if (http != NULL && strcmp(http, "2") == 0) {
        version = CURL_HTTP_VERSION_2TLS;
    } else if (http != NULL && strcmp(http, "2-prior-knowledge") == 0) {
        version = CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE;
    } else if (http != NULL && strcmp(http, "1.1") != 0) {
        fprintf(stderr, "multi_floor: FLOOR_HTTP must be 1.1, 2 or 2-prior-knowledge\n");
        return 2;
    }
    int one_shot = version == CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE &&
                   curl_version_info(CURLVERSION_NOW)->version_num < 0x080000;
    CURLM *multi = floor_multi(concurrency);
    if (multi == NULL) {
        return 2;
    }
    if (version != CURL_HTTP_VERSION_1_1) {
        curl_multi_setopt(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, concurrency);
    }
    size_t slots = (size_t)concurrency < count ? (size_t)concurrency : count;
    struct floor_slot *slot = calloc(slots ? slots : 1, sizeof *slot);
    if (slot == NULL) {
        fprintf(stderr, "multi_floor: out of memory\n");
        return 2;
    }
    for (size_t i = 0; i < slots; i++) {
        if (!floor_easy(&slot[i].transfer, floor_write, version)) {
            return 2;
        }
        CURL *easy = slot[i].transfer.easy;
        if (version != CURL_HTTP_VERSION_1_1) {
            curl_easy_setopt(easy, CURLOPT_PIPEWAIT, one_shot ? 0L : 1L);
        }
        if (one_shot) {
            curl_easy_setopt(easy, CURLOPT_FRESH_CONNECT, 1L);
            curl_easy_setopt(easy, CURLOPT_FORBID_REUSE, 1L);
        }
        if (cainfo != NULL) {
            curl_easy_setopt(easy, CURLOPT_CAINFO, cainfo);
        }
    }

    const struct floor_hooks hooks = {floor_reset, floor_finish};
    size_t ok = 0, failed = 0;
    if (floor_run(multi, (char *)slot, sizeof *slot, slots, urls, count, &hooks, &ok, &failed) != 0) {
        return 2;
    }
    for (size_t i = 0; i < slots; i++) {
        free(slot[i].body);
    }
    return floor_report(multi, (char *)slot, sizeof *slot, slots, ok, failed, count);
}
