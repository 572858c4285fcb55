/*
 * What the libcurl floors (multi_floor.c, write_floor.c) share: reading the URL list, setting up
 * an easy handle, growing a body buffer, and the transfer loop itself (one multi handle, N easy
 * handles reused for the next URL as each transfer finishes, one curl_multi_poll loop). Each floor
 * says what it does at a transfer's start and end through struct floor_hooks.
 *
 * The request: what `batchfetch fetch` sends by default, when the environment says so (scripts/bench
 * does, so that a floor does the same HTTP exchange as the client it measures):
 *   FLOOR_USER_AGENT=VALUE    a `User-Agent: VALUE` field
 *   FLOOR_ACCEPT_ENCODING=all an `Accept-Encoding` field naming every coding this libcurl decodes,
 *                             and CURLOPT_ACCEPT_ENCODING "" so that it decodes them (fetch's
 *                             --compressed default, fields set the way fetch sets them)
 *   FLOOR_CONTENT_TYPE=VALUE  a `Content-Type: VALUE` field
 *   FLOOR_BODIES=FILE         POST line i of FILE (one body per line, without its newline) to URL i
 *                             (W7), from memory, as CURLOPT_POSTFIELDS does without copying
 * Unset, the floor sends libcurl's bare request (no User-Agent, no Accept-Encoding).
 */
#ifndef FLOOR_COMMON_H
#define FLOOR_COMMON_H

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The program's name, for messages. */
static const char *floor_name = "floor";

/* FLOOR_BODIES' lines, one per URL; NULL when the floor sends GETs. */
static char **floor_bodies;

/* The part of every floor's slot the loop uses: a floor's slot struct starts with it. */
struct floor_transfer {
    CURL *easy;
    size_t url_index;
};

struct floor_hooks {
    /* Before each transfer starts on the slot. */
    void (*reset)(struct floor_transfer *slot);
    /* When the slot's transfer is done (`transferred`: no curl error and a 2xx status): 1 when it
     * counts as ok; else 0, with `*detail` (or NULL) added to the failure's message. */
    int (*finish)(struct floor_transfer *slot, int transferred, const char **detail);
};

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
        fprintf(stderr, "%s: out of memory reading %s\n", floor_name, path);
        return NULL;
    }
    text[size] = '\0';
    size_t lines = 0;
    for (size_t i = 0; i < size; i++) {
        lines += text[i] == '\n';
    }
    char **urls = malloc((lines + 1) * sizeof *urls);
    if (urls == NULL) {
        fprintf(stderr, "%s: out of memory\n", floor_name);
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

/* Appends `bytes` at `data` to a growing buffer that starts at `initial` bytes. 0 when memory is short. */
static int floor_append(char **body, size_t *length, size_t *capacity, const char *data, size_t bytes,
                        size_t initial) {
    if (*length + bytes > *capacity) {
        size_t grown_capacity = *capacity ? *capacity : initial;
        while (grown_capacity < *length + bytes) {
            grown_capacity *= 2;
        }
        char *grown = realloc(*body, grown_capacity);
        if (grown == NULL) {
            return 0;
        }
        *body = grown;
        *capacity = grown_capacity;
    }
    memcpy(*body + *length, data, bytes);
    *length += bytes;
    return 1;
}

/* The request fields of FLOOR_USER_AGENT and FLOOR_ACCEPT_ENCODING (see the top), made once; NULL
 * when neither is set. `*decodes` is 1 when libcurl is to decode what comes back. */
static struct curl_slist *floor_request_fields(int *decodes) {
    static int made, decoding;
    static struct curl_slist *fields;
    if (!made) {
        made = 1;
        char line[512];
        const char *agent = getenv("FLOOR_USER_AGENT");
        if (agent != NULL && *agent != 0) {
            snprintf(line, sizeof line, "User-Agent: %s", agent);
            fields = curl_slist_append(fields, line);
        }
        const char *type = getenv("FLOOR_CONTENT_TYPE");
        if (type != NULL && *type != 0) {
            snprintf(line, sizeof line, "Content-Type: %s", type);
            fields = curl_slist_append(fields, line);
        }
        const char *encoding = getenv("FLOOR_ACCEPT_ENCODING");
        if (encoding != NULL && strcmp(encoding, "all") == 0) {
            /* The codings in libcurl's own order, as batchfetch's CurlGlobal.allContentEncodings. */
            long features = curl_version_info(CURLVERSION_NOW)->features;
            const struct { long feature; const char *names; } codings[] = {
                {CURL_VERSION_LIBZ, "deflate, gzip"}, {CURL_VERSION_BROTLI, "br"}, {CURL_VERSION_ZSTD, "zstd"}};
            strcpy(line, "Accept-Encoding: ");
            const char *separator = "";
            for (size_t i = 0; i < sizeof codings / sizeof codings[0]; i++) {
                if (features & codings[i].feature) {
                    strcat(strcat(line, separator), codings[i].names);
                    separator = ", ";
                }
            }
            if (*separator != 0) {
                fields = curl_slist_append(fields, line);
            }
            decoding = 1;
        }
    }
    *decodes = decoding;
    return fields;
}

/* A new easy handle for `slot`, with the options every floor sets. 0 when libcurl cannot make one. */
static int floor_easy(struct floor_transfer *slot, curl_write_callback write, long version) {
    CURL *easy = curl_easy_init();
    if (easy == NULL) {
        fprintf(stderr, "%s: curl_easy_init failed\n", floor_name);
        return 0;
    }
    slot->easy = easy;
    curl_easy_setopt(easy, CURLOPT_PRIVATE, slot);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, write);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, slot);
    /* No signals from a multi-handle program; a bound on any one transfer. */
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT, 30L);
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, version);
    int decodes = 0;
    struct curl_slist *fields = floor_request_fields(&decodes);
    if (fields != NULL) {
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, fields);
    }
    if (decodes) {
        curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
    }
    return 1;
}

static void floor_start(CURLM *multi, struct floor_transfer *slot, char **urls, size_t index,
                        const struct floor_hooks *hooks) {
    slot->url_index = index;
    hooks->reset(slot);
    curl_easy_setopt(slot->easy, CURLOPT_URL, urls[index]);
    if (floor_bodies != NULL) {
        curl_easy_setopt(slot->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(floor_bodies[index]));
        curl_easy_setopt(slot->easy, CURLOPT_POSTFIELDS, floor_bodies[index]);
    }
    curl_multi_add_handle(multi, slot->easy);
}

/* Runs every URL through `slots` slots of `stride` bytes each from `first`. Sets `*ok` and
 * `*failed` (the first few failures are named on stderr); returns 0, or 2 when libcurl fails. */
static int floor_run(CURLM *multi, char *first, size_t stride, size_t slots, char **urls, size_t count,
                     const struct floor_hooks *hooks, size_t *ok, size_t *failed) {
    size_t next = 0, active = 0;
    *ok = 0;
    *failed = 0;
    for (; next < slots; next++, active++) {
        floor_start(multi, (struct floor_transfer *)(first + next * stride), urls, next, hooks);
    }
    while (active > 0) {
        int running = 0;
        CURLMcode code = curl_multi_perform(multi, &running);
        if (code != CURLM_OK) {
            fprintf(stderr, "%s: curl_multi_perform: %s\n", floor_name, curl_multi_strerror(code));
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
            struct floor_transfer *done = NULL;
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&done);
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            const char *detail = NULL;
            if (hooks->finish(done, result == CURLE_OK && status >= 200 && status < 300, &detail)) {
                (*ok)++;
            } else {
                if (*failed < 5) {
                    fprintf(stderr, "%s: %s: %s, HTTP %ld%s%s\n", floor_name, urls[done->url_index],
                            curl_easy_strerror(result), status, detail ? ", " : "", detail ? detail : "");
                }
                (*failed)++;
            }
            curl_multi_remove_handle(multi, easy);
            active--;
            if (next < count) {
                floor_start(multi, done, urls, next++, hooks);
                active++;
            }
        }
        if (active > 0) {
            code = curl_multi_poll(multi, NULL, 0, 1000, NULL);
            if (code != CURLM_OK) {
                fprintf(stderr, "%s: curl_multi_poll: %s\n", floor_name, curl_multi_strerror(code));
                return 2;
            }
        }
    }
    return 0;
}

/* The in-flight cap from `arg` (64 when NULL): 1 to 10,000, else 0 after saying why. */
static long floor_concurrency(const char *arg) {
    long concurrency = arg != NULL ? strtol(arg, NULL, 10) : 64;
    if (concurrency < 1 || concurrency > 10000) {
        fprintf(stderr, "%s: concurrency must be between 1 and 10000\n", floor_name);
        return 0;
    }
    return concurrency;
}

/* libcurl set up and a multi handle keeping as many connections as transfers in flight, as
 * batchfetch does (CurlMulti.swift): libcurl 8.x's default cache is smaller, and the floor then
 * closed and reopened connections. NULL after saying why. */
static CURLM *floor_multi(long concurrency) {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        fprintf(stderr, "%s: curl_global_init failed\n", floor_name);
        return NULL;
    }
    CURLM *multi = curl_multi_init();
    if (multi == NULL) {
        fprintf(stderr, "%s: out of memory\n", floor_name);
        return NULL;
    }
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, (long)(concurrency > 16 ? concurrency : 16));
    return multi;
}

/* Cleans up the slots' easy handles and libcurl, prints the count of transfers that ended with a
 * 2xx status and returns the exit status: 0, or 1 when any did not. */
static int floor_report(CURLM *multi, char *first, size_t stride, size_t slots, size_t ok, size_t failed,
                        size_t count) {
    for (size_t i = 0; i < slots; i++) {
        curl_easy_cleanup(((struct floor_transfer *)(first + i * stride))->easy);
    }
    curl_multi_cleanup(multi);
    curl_global_cleanup();
    printf("%zu\n", ok);
    if (failed > 0) {
        fprintf(stderr, "%s: %zu of %zu transfers failed\n", floor_name, failed, count);
        return 1;
    }
    return 0;
}

#endif
