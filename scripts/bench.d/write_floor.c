/*
 * write_floor: the libcurl floor for saving bodies to files, scripts/bench's W6 (issue 26).
 *
 * multi_floor.c's loop (one multi handle, N easy handles reused for the next URL as each transfer
 * finishes, one curl_multi_poll loop), with bodies written to files instead of dropped: each
 * transfer's file is DIR/<i>.jpg for the URL on line i (0-based), written with plain write(2) and
 * closed when the transfer is done. No temporary name, no rename, no fsync, no digest: the least a
 * libcurl program can do to leave every body in its own file.
 *
 * Two ways to write, by FLOOR_WRITE in the environment:
 *   chunks (default) the write callback opens the file (O_CREAT | O_TRUNC) at the first body byte
 *          and writes every chunk libcurl hands over (up to CURLOPT_BUFFERSIZE, 16 KB by default)
 *          at once: 2–3 write(2) calls for a 40 KB body, no copy of it in memory.
 *   whole  the write callback appends each chunk to the slot's buffer, as multi_floor.c does; when
 *          the transfer is done the file is opened, the body written with one write(2) and the
 *          file closed (as a client that keeps the body, e.g. to hash it, must do).
 * On this bench's machine (ext4, Linux 6.18, 20,000 files of ~40 KB) the two cost the same system
 * time within the noise (~0.6 s; whole makes one write(2) a file, after copying the body in
 * memory; chunks makes 2–3, and each that starts inside a page zeroes the rest of its folio first).
 *
 * usage: write_floor URL_FILE DIR [CONCURRENCY]   (default 64; DIR must exist)
 *
 * Prints the number of transfers that ended with a 2xx status and a complete file; exits 1 if any
 * did not (the first few failures are named on stderr), 2 on a usage or setup error.
 *
 * Build: cc -O2 -o write_floor write_floor.c $(pkg-config --cflags --libs libcurl)
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One easy handle, the file of its current transfer (-1 until opened) and, when whole bodies are
 * written, the body buffer it reuses across transfers. */
struct floor_slot {
    CURL *easy;
    int fd;
    int write_failed; /* an errno */
    size_t url_index;
    char *body;
    size_t length;
    size_t capacity;
};

static int floor_directory = -1;
static int floor_chunks = 0; /* FLOOR_WRITE=chunks */

static int floor_open(struct floor_slot *slot) {
    char name[32];
    snprintf(name, sizeof name, "%zu.jpg", slot->url_index);
    slot->fd = openat(floor_directory, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (slot->fd < 0) {
        slot->write_failed = errno;
        return -1;
    }
    return 0;
}

static int floor_write_all(struct floor_slot *slot, const char *data, size_t bytes) {
    for (size_t done = 0; done < bytes;) {
        ssize_t wrote = write(slot->fd, data + done, bytes - done);
        if (wrote < 0) {
            if (errno == EINTR) {
                continue;
            }
            slot->write_failed = errno;
            return -1;
        }
        done += (size_t)wrote;
    }
    return 0;
}

static size_t floor_write(char *data, size_t size, size_t count, void *context) {
    struct floor_slot *slot = context;
    size_t bytes = size * count;
    if (floor_chunks) {
        if ((slot->fd < 0 && floor_open(slot) != 0) || floor_write_all(slot, data, bytes) != 0) {
            return 0; /* libcurl fails the transfer with CURLE_WRITE_ERROR */
        }
        return bytes;
    }
    if (slot->length + bytes > slot->capacity) {
        size_t capacity = slot->capacity ? slot->capacity : 65536;
        while (capacity < slot->length + bytes) {
            capacity *= 2;
        }
        char *grown = realloc(slot->body, capacity);
        if (grown == NULL) {
            slot->write_failed = ENOMEM;
            return 0;
        }
        slot->body = grown;
        slot->capacity = capacity;
    }
    memcpy(slot->body + slot->length, data, bytes);
    slot->length += bytes;
    return bytes;
}

/* A transfer is done: writes its body (whole mode) and closes its file; 0 when all went well. */
static int floor_finish(struct floor_slot *slot, int ok) {
    int result = 0;
    if (!floor_chunks && ok && (floor_open(slot) != 0 || floor_write_all(slot, slot->body, slot->length) != 0)) {
        result = -1;
    }
    if (slot->fd >= 0) {
        if (close(slot->fd) != 0 && result == 0) {
            slot->write_failed = errno;
            result = -1;
        }
        slot->fd = -1;
    }
    return result;
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
        fprintf(stderr, "write_floor: out of memory reading %s\n", path);
        return NULL;
    }
    text[size] = '\0';
    size_t lines = 0;
    for (size_t i = 0; i < size; i++) {
        lines += text[i] == '\n';
    }
    char **urls = malloc((lines + 1) * sizeof *urls);
    if (urls == NULL) {
        fprintf(stderr, "write_floor: out of memory\n");
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
    slot->fd = -1;
    slot->write_failed = 0;
    slot->length = 0;
    curl_easy_setopt(slot->easy, CURLOPT_URL, urls[index]);
    curl_multi_add_handle(multi, slot->easy);
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: write_floor URL_FILE DIR [CONCURRENCY]\n");
        return 2;
    }
    long concurrency = argc == 4 ? strtol(argv[3], NULL, 10) : 64;
    if (concurrency < 1 || concurrency > 10000) {
        fprintf(stderr, "write_floor: concurrency must be between 1 and 10000\n");
        return 2;
    }
    const char *mode = getenv("FLOOR_WRITE");
    if (mode != NULL && strcmp(mode, "chunks") != 0 && strcmp(mode, "whole") != 0) {
        fprintf(stderr, "write_floor: FLOOR_WRITE must be whole or chunks\n");
        return 2;
    }
    floor_chunks = mode == NULL || strcmp(mode, "chunks") == 0;
    floor_directory = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (floor_directory < 0) {
        perror(argv[2]);
        return 2;
    }
    size_t count = 0;
    char **urls = floor_read_urls(argv[1], &count);
    if (urls == NULL) {
        return 2;
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        fprintf(stderr, "write_floor: curl_global_init failed\n");
        return 2;
    }
    CURLM *multi = curl_multi_init();
    // Keep as many connections as transfers in flight, as batchfetch does (CurlMulti.swift): libcurl
    // 8.x's default cache is smaller, and the floor then closed and reopened connections.
    if (multi != NULL) {
        curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, (long)(concurrency > 16 ? concurrency : 16));
    }
    size_t slots = (size_t)concurrency < count ? (size_t)concurrency : count;
    struct floor_slot *slot = calloc(slots ? slots : 1, sizeof *slot);
    if (multi == NULL || slot == NULL) {
        fprintf(stderr, "write_floor: out of memory\n");
        return 2;
    }
    for (size_t i = 0; i < slots; i++) {
        CURL *easy = curl_easy_init();
        if (easy == NULL) {
            fprintf(stderr, "write_floor: curl_easy_init failed\n");
            return 2;
        }
        slot[i].easy = easy;
        slot[i].fd = -1;
        curl_easy_setopt(easy, CURLOPT_PRIVATE, &slot[i]);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, floor_write);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, &slot[i]);
        /* No signals from a multi-handle program; a bound on any one transfer. */
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(easy, CURLOPT_TIMEOUT, 30L);
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
    }

    size_t next = 0, active = 0, ok = 0, failed = 0;
    for (; next < slots; next++, active++) {
        floor_start(multi, &slot[next], urls, next);
    }
    while (active > 0) {
        int running = 0;
        CURLMcode code = curl_multi_perform(multi, &running);
        if (code != CURLM_OK) {
            fprintf(stderr, "write_floor: curl_multi_perform: %s\n", curl_multi_strerror(code));
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
            int transferred = result == CURLE_OK && status >= 200 && status < 300;
            if (floor_finish(done, transferred) == 0 && transferred) {
                ok++;
            } else {
                if (failed < 5) {
                    fprintf(stderr, "write_floor: %s: %s, HTTP %ld%s%s\n", urls[done->url_index],
                            curl_easy_strerror(result), status, done->write_failed ? ", " : "",
                            done->write_failed ? strerror(done->write_failed) : "");
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
                fprintf(stderr, "write_floor: curl_multi_poll: %s\n", curl_multi_strerror(code));
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
    close(floor_directory);
    printf("%zu\n", ok);
    if (failed > 0) {
        fprintf(stderr, "write_floor: %zu of %zu transfers failed\n", failed, count);
        return 1;
    }
    return 0;
}
