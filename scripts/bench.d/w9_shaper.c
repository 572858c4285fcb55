/* W9's packet shaper: a one-way delay and a loss rate per server address, on an NFQUEUE.

   Where the kernel has no sch_netem, W9 (scripts/bench.d/benchlib/w9.py) runs one of these in each of
   its two network namespaces, fed by an iptables rule that queues every IPv4 packet arriving on the
   namespace's veth: the server's namespace delays what the client sends, the client's what the servers
   send. Each packet whose source or destination is a configured address is dropped with that
   address's probability (NF_DROP at once) or held for its delay and then accepted (NF_ACCEPT); any
   other packet is accepted at once. The packets of one address share one delay, so they leave in the
   order they came; a binary heap on the release time (then arrival) keeps that across addresses.

   Held at ingress, not on the sender's way out: the IP input path has orphaned each packet from its
   sending socket (ip_rcv_core), so a held packet does not count against that socket's TCP Small
   Queues budget (about a millisecond of its pacing rate), which would throttle a sender whose own
   packets sit in a queue for tens of milliseconds. The queue is asked for single segments (no
   NFQA_CFG_F_GSO), so a loss takes one packet, not a 64 KB offload burst.

   usage: w9_shaper QUEUE SEED ADDR=ONE_WAY_US/LOSS_PPM ...
   e.g.   w9_shaper 0 1 10.99.0.1=20000/10000   (20 ms each way through this namespace, 1% loss)
   On SIGTERM or SIGINT it prints per address the packets accepted and dropped, and exits 0.
   Build: cc -O2 -o w9_shaper w9_shaper.c -lnetfilter_queue */
#define _GNU_SOURCE /* ppoll */
#include <arpa/inet.h>
#include <errno.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <netinet/ip.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define MAX_HOSTS 64
#define QUEUE_MAXLEN 200000

struct host {
    uint32_t addr; /* network order */
    uint64_t delay_ns;
    uint32_t loss_ppm;
    uint64_t accepted, dropped;
};

struct held {
    uint64_t release_ns;
    uint64_t seq;
    uint32_t id;
};

static struct host hosts[MAX_HOSTS];
static int host_count;
static struct held *heap;
static size_t heap_len, heap_cap;
static uint64_t arrivals, passed_through, queue_overruns;
static uint64_t rng_state;
static volatile sig_atomic_t stopping;
static struct nfq_q_handle *queue;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* splitmix64: reproducible loss for a given seed, independent of libc. */
static uint64_t next_random(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static int earlier(const struct held *a, const struct held *b) {
    return a->release_ns < b->release_ns || (a->release_ns == b->release_ns && a->seq < b->seq);
}

static void heap_push(struct held item) {
    if (heap_len == heap_cap) {
        heap_cap = heap_cap ? heap_cap * 2 : 4096;
        heap = realloc(heap, heap_cap * sizeof *heap);
        if (heap == NULL) {
            perror("w9_shaper: realloc");
            exit(1);
        }
    }
    size_t i = heap_len++;
    heap[i] = item;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!earlier(&heap[i], &heap[parent])) break;
        struct held swap = heap[i];
        heap[i] = heap[parent];
        heap[parent] = swap;
        i = parent;
    }
}

static struct held heap_pop(void) {
    struct held top = heap[0];
    heap[0] = heap[--heap_len];
    size_t i = 0;
    for (;;) {
        size_t left = 2 * i + 1, right = left + 1, least = i;
        if (left < heap_len && earlier(&heap[left], &heap[least])) least = left;
        if (right < heap_len && earlier(&heap[right], &heap[least])) least = right;
        if (least == i) break;
        struct held swap = heap[i];
        heap[i] = heap[least];
        heap[least] = swap;
        i = least;
    }
    return top;
}

static struct host *host_of(uint32_t addr) {
    for (int i = 0; i < host_count; i++)
        if (hosts[i].addr == addr) return &hosts[i];
    return NULL;
}

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *message, struct nfq_data *data, void *context) {
    (void)message;
    (void)context;
    struct nfqnl_msg_packet_hdr *header = nfq_get_msg_packet_hdr(data);
    if (header == NULL) return 0;
    uint32_t id = ntohl(header->packet_id);
    unsigned char *payload;
    int length = nfq_get_payload(data, &payload);
    struct host *host = NULL;
    if (length >= (int)sizeof(struct iphdr) && (payload[0] >> 4) == 4) {
        const struct iphdr *ip = (const struct iphdr *)payload;
        host = host_of(ip->saddr);
        if (host == NULL) host = host_of(ip->daddr);
    }
    arrivals++;
    if (host == NULL) {
        passed_through++;
        return nfq_set_verdict(qh, id, NF_ACCEPT, 0, NULL);
    }
    if (host->loss_ppm > 0 && next_random() % 1000000u < host->loss_ppm) {
        host->dropped++;
        return nfq_set_verdict(qh, id, NF_DROP, 0, NULL);
    }
    host->accepted++;
    if (host->delay_ns == 0) return nfq_set_verdict(qh, id, NF_ACCEPT, 0, NULL);
    heap_push((struct held){now_ns() + host->delay_ns, arrivals, id});
    return 0;
}

static void release_due(void) {
    uint64_t now = now_ns();
    while (heap_len > 0 && heap[0].release_ns <= now) {
        struct held item = heap_pop();
        nfq_set_verdict(queue, item.id, NF_ACCEPT, 0, NULL);
    }
}

static void on_signal(int number) {
    (void)number;
    stopping = 1;
}

static int parse_host(const char *text, struct host *host) {
    char address[64];
    unsigned long long delay_us;
    unsigned long loss_ppm;
    if (sscanf(text, "%63[0-9.]=%llu/%lu", address, &delay_us, &loss_ppm) != 3) return -1;
    struct in_addr parsed;
    if (inet_pton(AF_INET, address, &parsed) != 1 || loss_ppm > 1000000u) return -1;
    host->addr = parsed.s_addr;
    host->delay_ns = delay_us * 1000u;
    host->loss_ppm = (uint32_t)loss_ppm;
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s QUEUE SEED ADDR=ONE_WAY_US/LOSS_PPM ...\n", argv[0]);
        return 2;
    }
    int queue_number = atoi(argv[1]);
    rng_state = strtoull(argv[2], NULL, 10);
    for (int i = 3; i < argc; i++) {
        if (host_count == MAX_HOSTS || parse_host(argv[i], &hosts[host_count]) != 0) {
            fprintf(stderr, "w9_shaper: bad host '%s' (ADDR=ONE_WAY_US/LOSS_PPM, at most %d)\n", argv[i], MAX_HOSTS);
            return 2;
        }
        host_count++;
    }
    struct nfq_handle *handle = nfq_open();
    if (handle == NULL) {
        perror("w9_shaper: nfq_open");
        return 1;
    }
    nfq_unbind_pf(handle, AF_INET); /* fails harmlessly on kernels that ignore it */
    if (nfq_bind_pf(handle, AF_INET) < 0) {
        perror("w9_shaper: nfq_bind_pf");
        return 1;
    }
    queue = nfq_create_queue(handle, (uint16_t)queue_number, on_packet, NULL);
    if (queue == NULL) {
        perror("w9_shaper: nfq_create_queue");
        return 1;
    }
    /* The IPv4 header is all it reads. */
    if (nfq_set_mode(queue, NFQNL_COPY_PACKET, 64) < 0 || nfq_set_queue_maxlen(queue, QUEUE_MAXLEN) < 0) {
        perror("w9_shaper: nfq_set_mode");
        return 1;
    }
    int fd = nfq_fd(handle);
    int buffer = 64 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buffer, sizeof buffer);
    struct sigaction action = {.sa_handler = on_signal};
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
    fprintf(stderr, "w9_shaper: queue %d, %d addresses\n", queue_number, host_count);
    char packet[65536];
    while (!stopping) {
        struct timespec timeout, *wait = NULL;
        if (heap_len > 0) {
            uint64_t now = now_ns(), due = heap[0].release_ns;
            uint64_t left = due > now ? due - now : 0;
            timeout.tv_sec = (time_t)(left / 1000000000u);
            timeout.tv_nsec = (long)(left % 1000000000u);
            wait = &timeout;
        }
        struct pollfd poll_fd = {.fd = fd, .events = POLLIN};
        int ready = ppoll(&poll_fd, 1, wait, NULL);
        if (ready < 0 && errno != EINTR) {
            perror("w9_shaper: ppoll");
            return 1;
        }
        if (ready > 0) {
            /* Everything that is waiting, then the releases that fell due meanwhile. */
            for (;;) {
                ssize_t got = recv(fd, packet, sizeof packet, MSG_DONTWAIT);
                if (got < 0) {
                    if (errno == ENOBUFS) {
                        queue_overruns++;
                        continue;
                    }
                    break;
                }
                nfq_handle_packet(handle, packet, (int)got);
            }
        }
        release_due();
    }
    /* Whatever is still held goes on: the namespaces are torn down next. */
    while (heap_len > 0) nfq_set_verdict(queue, heap_pop().id, NF_ACCEPT, 0, NULL);
    for (int i = 0; i < host_count; i++) {
        char address[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &hosts[i].addr, address, sizeof address);
        printf("%s accepted=%llu dropped=%llu\n", address, (unsigned long long)hosts[i].accepted,
               (unsigned long long)hosts[i].dropped);
    }
    printf("other accepted=%llu overruns=%llu\n", (unsigned long long)passed_through,
           (unsigned long long)queue_overruns);
    nfq_destroy_queue(queue);
    nfq_close(handle);
    return 0;
}
