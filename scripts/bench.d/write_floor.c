/*
 * write_floor: the libcurl floor for saving bodies to files, scripts/bench's W6.
 *
 * The libcurl floor's loop (floor_common.h: one multi handle, N easy handles reused for the next
 * URL as each transfer finishes, one curl_multi_poll loop), with bodies written to files instead
 * of dropped: each transfer's file is DIR/<i>.jpg for the URL on line i (0-based), written with
 * plain write(2) and closed when the transfer is done. No temporary name, no rename, no fsync, no
 * digest: the least a libcurl program can do to leave every body in its own file.
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
 * Build: cc -O2 -o write_floor write_floor.c $(pkg-config --cflags --libs libcurl)   (with floor_common.h beside it)
 */
#include "floor_common.h"
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* One easy handle, the file of its current transfer (-1 until opened) and, when whole bodies are
 * written, the body buffer it reuses across transfers. */
struct floor_slot {
    struct floor_transfer transfer;
    int fd;
    int write_failed; /* an errno */
    char *body;
    size_t length;
    size_t capacity;
};

static int floor_directory = -1;
static int floor_chunks = 0; /* FLOOR_WRITE=chunks */

static int floor_open(struct floor_slot *slot) {
    char name[32];
    snprintf(name, sizeof name, "%zu.jpg", slot->transfer.url_index);
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
    if (!floor_append(&slot->body, &slot->length, &slot->capacity, data, bytes, 65536)) {
        slot->write_failed = ENOMEM;
        return 0;
    }
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

static void floor_reset(struct floor_transfer *transfer) {
    struct floor_slot *slot = (struct floor_slot *)transfer;
    slot->fd = -1;
    slot->write_failed = 0;
    slot->length = 0;
}

static int floor_done(struct floor_transfer *transfer, int transferred, const char **detail) {
    struct floor_slot *slot = (struct floor_slot *)transfer;
    if (floor_finish(slot, transferred) == 0 && transferred) {
        return 1;
    }
    *detail = slot->write_failed ? strerror(slot->write_failed) : NULL;
    return 0;
}

int main(int argc, char **argv) {
    floor_name = "write_floor";
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: write_floor URL_FILE DIR [CONCURRENCY]\n");
        return 2;
    }
    long concurrency = floor_concurrency(argc == 4 ? argv[3] : NULL);
    if (concurrency == 0) {
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
    CURLM *multi = floor_multi(concurrency);
    if (multi == NULL) {
        return 2;
    }
    size_t slots = (size_t)concurrency < count ? (size_t)concurrency : count;
    struct floor_slot *slot = calloc(slots ? slots : 1, sizeof *slot);
    if (slot == NULL) {
        fprintf(stderr, "write_floor: out of memory\n");
        return 2;
    }
    for (size_t i = 0; i < slots; i++) {
        slot[i].fd = -1;
        if (!floor_easy(&slot[i].transfer, floor_write, CURL_HTTP_VERSION_1_1)) {
            return 2;
        }
    }

    const struct floor_hooks hooks = {floor_reset, floor_done};
    size_t ok = 0, failed = 0;
    if (floor_run(multi, (char *)slot, sizeof *slot, slots, urls, count, &hooks, &ok, &failed) != 0) {
        return 2;
    }
    for (size_t i = 0; i < slots; i++) {
        free(slot[i].body);
    }
    close(floor_directory);
    return floor_report(multi, (char *)slot, sizeof *slot, slots, ok, failed, count);
}
