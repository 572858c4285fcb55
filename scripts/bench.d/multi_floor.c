/*
 * multi_floor: the libcurl floor for scripts/bench (issue 7).
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
 * Prints the number of transfers that ended with a 2xx status; exits 1 if any did not (the first
 * few failures are named on stderr), 2 on a usage or setup error.
 *
 * Build: cc -O2 -o multi_floor multi_floor.c $(pkg-config --cflags --libs libcurl)
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One easy handle and the body buffer it reuses across transfers. */
struct floor_slot {
    CURL *easy;
    char *body;
    size_t length;
    size_t capacity;
    size_t url_index;
};

static size_t floor_write(char *data, size_t size, size_t count, void *context) {
    struct floor_slot *slot = context;
    size_t bytes = size * count;
    if (slot->length + bytes > slot->capacity) {
        size_t capacity = slot->capacity ? slot->capacity : 16384;
        while (capacity < slot->length + bytes) {
            capacity *= 2;
        }
        char *grown = realloc(slot->body, capacity);
        if (grown == NULL) {
            return 0; /* libcurl fails the transfer with CURLE_WRITE_ERROR */
        }
        slot->body = grown;
        slot->capacity = capacity;
    }
    memcpy(slot->body + slot->length, data, bytes);
    slot->length += bytes;
    return bytes;
}

/* The URL file, one URL per line, read whole; lines are cut in place. */
static char **floor_read_urls(const char *path, size_t *count) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        perror(path);
        return NULL;
    }
    size_t size = 0, capacity = 1 << 20;
    char *text = malloc(capacity + 1);
    size_t got;
    while (text != NULL && (got = fread(text + size, 1, capacity - size, file)) > 0) {
        size += got;
        if (size == capacity) {
            capacity *= 2;
            text = realloc(text, capacity + 1);
        }
    }
    fclose(file);
    if (text == NULL) {
        fprintf(stderr, "multi_floor: out of memory reading %s\n", path);
        return NULL;
    }
    text[size] = '\0';
    size_t lines = 0;
    for (size_t i = 0; i < size; i++) {
        lines += text[i] == '\n';
    }
    char **urls = malloc((lines + 1) * sizeof *urls);
    if (urls == NULL) {
        fprintf(stderr, "multi_floor: out of memory\n");
        return NULL;
    }
    *count = 0;
    for (char *line = text; line < text + size;) {
        char *end = memchr(line, '\n', (size_t)(text + size - line));
        end = end ? end : text + size;
        *end = '\0';
        if (end > line && end[-1] == '\r') {
            end[-1] = '\0';
        }
        if (*line != '\0') {
            urls[(*count)++] = line;
        }
        line = end + 1;
    }
    return urls;
}

static void floor_start(CURLM *multi, struct floor_slot *slot, char **urls, size_t index) {
    slot->url_index = index;
    slot->length = 0;
    curl_easy_setopt(slot->easy, CURLOPT_URL, urls[index]);
    curl_multi_add_handle(multi, slot->easy);
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: multi_floor URL_FILE [CONCURRENCY]\n");
        return 2;
    }
    long concurrency = argc == 3 ? strtol(argv[2], NULL, 10) : 64;
    if (concurrency < 1 || concurrency > 10000) {
        fprintf(stderr, "multi_floor: concurrency must be between 1 and 10000\n");
        return 2;
    }
    size_t count = 0;
    char **urls = floor_read_urls(argv[1], &count);
    if (urls == NULL) {
        return 2;
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        fprintf(stderr, "multi_floor: curl_global_init failed\n");
        return 2;
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
    CURLM *multi = curl_multi_init();
    // Keep as many connections as transfers in flight, as batchfetch does (CurlMulti.swift): libcurl
    // 8.x's default cache is smaller, and the floor then closed and reopened connections.
    if (multi != NULL) {
        curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, (long)(concurrency > 16 ? concurrency : 16));
    }
    if (multi != NULL && version != CURL_HTTP_VERSION_1_1) {
        curl_multi_setopt(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, concurrency);
    }
    size_t slots = (size_t)concurrency < count ? (size_t)concurrency : count;
    struct floor_slot *slot = calloc(slots ? slots : 1, sizeof *slot);
    if (multi == NULL || slot == NULL) {
        fprintf(stderr, "multi_floor: out of memory\n");
        return 2;
    }
    for (size_t i = 0; i < slots; i++) {
        CURL *easy = curl_easy_init();
        if (easy == NULL) {
            fprintf(stderr, "multi_floor: curl_easy_init failed\n");
            return 2;
        }
        slot[i].easy = easy;
        curl_easy_setopt(easy, CURLOPT_PRIVATE, &slot[i]);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, floor_write);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, &slot[i]);
        /* No signals from a multi-handle program; a bound on any one transfer. */
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(easy, CURLOPT_TIMEOUT, 30L);
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, version);
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

    size_t next = 0, active = 0, ok = 0, failed = 0;
    for (; next < slots; next++, active++) {
        floor_start(multi, &slot[next], urls, next);
    }
    while (active > 0) {
        int running = 0;
        CURLMcode code = curl_multi_perform(multi, &running);
        if (code != CURLM_OK) {
            fprintf(stderr, "multi_floor: curl_multi_perform: %s\n", curl_multi_strerror(code));
            return 2;
        }
        CURLMsg *message;
        int queued;
        while ((message = curl_multi_info_read(multi, &queued)) != NULL) {
            if (message->msg != CURLMSG_DONE) {
                continue;
            }
            CURL *easy = message->easy_handle;
            CURLcode result = message->data.result;
            struct floor_slot *done = NULL;
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&done);
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            if (result == CURLE_OK && status >= 200 && status < 300) {
                ok++;
            } else {
                if (failed < 5) {
                    fprintf(stderr, "multi_floor: %s: %s, HTTP %ld\n", urls[done->url_index],
                            curl_easy_strerror(result), status);
                }
                failed++;
            }
            curl_multi_remove_handle(multi, easy);
            active--;
            if (next < count) {
                floor_start(multi, done, urls, next++);
                active++;
            }
        }
        if (active > 0) {
            code = curl_multi_poll(multi, NULL, 0, 1000, NULL);
            if (code != CURLM_OK) {
                fprintf(stderr, "multi_floor: curl_multi_poll: %s\n", curl_multi_strerror(code));
                return 2;
            }
        }
    }
    for (size_t i = 0; i < slots; i++) {
        curl_easy_cleanup(slot[i].easy);
        free(slot[i].body);
    }
    curl_multi_cleanup(multi);
    curl_global_cleanup();
    printf("%zu\n", ok);
    if (failed > 0) {
        fprintf(stderr, "multi_floor: %zu of %zu transfers failed\n", failed, count);
        return 1;
    }
    return 0;
}
