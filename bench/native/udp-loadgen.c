/*
 * udp-loadgen: the generator and the sink of bench/udp-paths.bench.ts in one single-threaded process,
 * so that the send and arrival times are read from one clock and the load side costs as little CPU
 * per frame as the kernel allows (sendmmsg / recvmmsg in batches of 64). One run per invocation:
 *
 *   udp-loadgen GEN_PORT TARGET_PORT SINK_PORT SINK_PEER RATE DURATION_MS SIZE RUN_ID LATENCY(0|1) HELLO(0|1)
 *
 * The generator socket (127.0.0.1:GEN_PORT) sends SIZE-byte Ethernet frames to TARGET_PORT, paced to
 * RATE frames/s: whatever is due when the loop comes round leaves in one sendmmsg, so frames are
 * spread evenly rather than in timer-tick bursts. The sink socket (127.0.0.1:SINK_PORT, connected to
 * SINK_PEER) counts the frames of this run and, with LATENCY=1, keeps their one-way latency. With
 * HELLO=1 the sink first sends one frame from its MAC so a learning switch knows where it is.
 * Prints one JSON line: sent, received, wall and CPU time, the sink's latency percentiles.
 * Built by the benchmark with cc; nothing downloaded.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64
#define MAGIC 0x6e65746du
#define HDR 14
#define MAX_SAMPLES 4000000

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int udp_socket(int port, int peer) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  int buf = 8 * 1024 * 1024;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons((uint16_t)port);
  if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) return -1;
  a.sin_port = htons((uint16_t)peer);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) return -1;
  return fd;
}

static void frame(unsigned char *b, int size, int to_sink, uint32_t run) {
  static const unsigned char gen_mac[6] = {2, 0, 0, 0, 0, 1}, sink_mac[6] = {2, 0, 0, 0, 0, 2};
  memset(b, 0x5a, (size_t)size);
  memcpy(b, to_sink ? sink_mac : gen_mac, 6);
  memcpy(b + 6, to_sink ? gen_mac : sink_mac, 6);
  b[12] = 0x88;
  b[13] = 0xb5;
  uint32_t m = htonl(MAGIC), r = htonl(run);
  memcpy(b + HDR, &m, 4);
  memcpy(b + HDR + 4, &r, 4);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static double pct_ms(uint64_t *s, size_t n, double p) {
  if (n == 0) return -1;
  size_t rank = (size_t)(p / 100.0 * (double)n + 0.999999);
  if (rank > 0) rank--;
  if (rank >= n) rank = n - 1;
  return (double)s[rank] / 1e6;
}

int main(int argc, char **argv) {
  if (argc != 11) {
    fprintf(stderr, "usage: udp-loadgen GEN_PORT TARGET_PORT SINK_PORT SINK_PEER RATE DURATION_MS SIZE RUN_ID LATENCY HELLO\n");
    return 2;
  }
  int gen_port = atoi(argv[1]), target = atoi(argv[2]), sink_port = atoi(argv[3]), sink_peer = atoi(argv[4]);
  double rate = atof(argv[5]);
  double duration_ms = atof(argv[6]);
  int size = atoi(argv[7]);
  uint32_t run = (uint32_t)strtoul(argv[8], NULL, 10);
  int want_latency = atoi(argv[9]), hello = atoi(argv[10]);
  if (size < 34 || size > 9000 || rate <= 0) {
    fprintf(stderr, "udp-loadgen: size 34..9000 and a positive rate\n");
    return 2;
  }
  int gen = udp_socket(gen_port, target);
  int sink = udp_socket(sink_port, sink_peer);
  if (gen < 0 || sink < 0) {
    fprintf(stderr, "udp-loadgen: socket: %s\n", strerror(errno));
    return 1;
  }
  /* Frames back to back: one UDP GSO send (UDP_SEGMENT) carries a batch, the kernel cuts it into
   * SIZE-byte datagrams, so the generator pays the route and the loopback once per batch. The
   * receiving socket gets ordinary datagrams (it has no UDP_GRO). sendmmsg where GSO is refused. */
  static unsigned char out[BATCH * 9000], in[BATCH][9000];
  struct mmsghdr smsg[BATCH], rmsg[BATCH];
  struct iovec siov[BATCH], riov[BATCH];
  int gso_max = 65000 / size < BATCH ? 65000 / size : BATCH;
  int use_gso = getenv("LOADGEN_NO_GSO") == NULL && gso_max > 1;
  for (int i = 0; i < BATCH; i++) {
    frame(out + (size_t)i * size, size, 1, run);
    siov[i].iov_base = out + (size_t)i * size;
    siov[i].iov_len = (size_t)size;
    memset(&smsg[i], 0, sizeof smsg[i]);
    smsg[i].msg_hdr.msg_iov = &siov[i];
    smsg[i].msg_hdr.msg_iovlen = 1;
    riov[i].iov_base = in[i];
    riov[i].iov_len = sizeof in[i];
  }
  uint64_t *samples = want_latency ? malloc(sizeof(uint64_t) * MAX_SAMPLES) : NULL;
  size_t nsamples = 0;
  if (hello) {
    unsigned char h[64];
    frame(h, 64, 0, 0);
    if (send(sink, h, sizeof h, 0) < 0) { /* a forwarder not up yet: the run shows it */ }
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  uint64_t total = (uint64_t)(rate * duration_ms / 1000.0 + 0.5);
  uint64_t sent = 0, received = 0, stray = 0, send_blocked = 0, syscalls_out = 0;
  uint64_t start = now_ns(), send_end = 0, last_arrival = 0;
  double ns_per_frame = 1e9 / rate;
  for (;;) {
    uint64_t t = now_ns();
    int busy = 0;
    if (sent < total) {
      uint64_t due = (uint64_t)((double)(t - start) / ns_per_frame) + 1;
      if (due > total) due = total;
      /* One batch per round at most, then the sink is drained: a generator that sent everything
       * due before reading would starve its own sink past the forwarder's capacity. */
      if (sent < due) {
        unsigned max = use_gso ? (unsigned)gso_max : BATCH;
        unsigned n = (unsigned)(due - sent < max ? due - sent : max);
        uint64_t stamp = now_ns();
        for (unsigned i = 0; i < n; i++) {
          uint32_t seq = htonl((uint32_t)(sent + i));
          memcpy(out + (size_t)i * size + HDR + 8, &stamp, 8);
          memcpy(out + (size_t)i * size + HDR + 16, &seq, 4);
        }
        int r;
        if (use_gso && n > 1) {
          char control[CMSG_SPACE(sizeof(uint16_t))] = {0};
          struct iovec v = {out, (size_t)n * size};
          struct msghdr m = {0};
          m.msg_iov = &v;
          m.msg_iovlen = 1;
          m.msg_control = control;
          m.msg_controllen = sizeof control;
          struct cmsghdr *c = CMSG_FIRSTHDR(&m);
          c->cmsg_level = SOL_UDP;
          c->cmsg_type = UDP_SEGMENT;
          c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
          uint16_t seg = (uint16_t)size;
          memcpy(CMSG_DATA(c), &seg, sizeof seg);
          ssize_t w = sendmsg(gen, &m, 0);
          if (w < 0 && (errno == EINVAL || errno == EIO || errno == ENOPROTOOPT)) {
            use_gso = 0; /* not on this kernel: per-datagram sends from now on */
            continue;
          }
          r = w < 0 ? -1 : (int)n;
        } else {
          r = sendmmsg(gen, smsg, n, 0);
        }
        syscalls_out++;
        if (r <= 0) {
          /* A full send queue: the frames stay due and leave on the next round. */
          send_blocked++;
        } else {
          sent += (uint64_t)r;
          busy = 1;
        }
      }
      if (sent == total) send_end = now_ns();
    }
    for (;;) {
      for (int i = 0; i < BATCH; i++) {
        memset(&rmsg[i].msg_hdr, 0, sizeof rmsg[i].msg_hdr);
        rmsg[i].msg_hdr.msg_iov = &riov[i];
        rmsg[i].msg_hdr.msg_iovlen = 1;
      }
      int n = recvmmsg(sink, rmsg, BATCH, MSG_DONTWAIT, NULL);
      if (n <= 0) break;
      uint64_t arrival = now_ns();
      busy = 1;
      for (int i = 0; i < n; i++) {
        unsigned char *b = in[i];
        uint32_t m, r;
        memcpy(&m, b + HDR, 4);
        memcpy(&r, b + HDR + 4, 4);
        if (rmsg[i].msg_len < 34 || ntohl(m) != MAGIC || ntohl(r) != run) {
          stray++;
          continue;
        }
        received++;
        last_arrival = arrival;
        if (samples != NULL && nsamples < MAX_SAMPLES) {
          uint64_t stamp;
          memcpy(&stamp, b + HDR + 8, 8);
          samples[nsamples++] = arrival - stamp;
        }
      }
      if (n < BATCH) break;
    }
    /* The generator socket only gets the sink's hello back (flooded): drop it. */
    while (recv(gen, in[0], sizeof in[0], MSG_DONTWAIT) > 0) {}
    if (sent == total) {
      uint64_t t2 = now_ns();
      if (received >= sent) break;
      /* In-flight frames: stop once nothing came for 200 ms, or 3 s after the last send. */
      if (t2 - (last_arrival > send_end ? last_arrival : send_end) > 200000000u) break;
      if (t2 - send_end > 3000000000u) break;
    }
    if (!busy) {
      /* Sleep until the next frame is due or one arrives; busy rates never get here. */
      uint64_t next = sent < total ? start + (uint64_t)((double)sent * ns_per_frame) : now_ns() + 10000000u;
      uint64_t t2 = now_ns();
      if (next > t2) {
        uint64_t wait = next - t2;
        if (wait > 10000000u) wait = 10000000u;
        struct timespec ts = {(time_t)(wait / 1000000000u), (long)(wait % 1000000000u)};
        struct pollfd p = {sink, POLLIN, 0};
        ppoll(&p, 1, &ts, NULL);
      }
    }
  }
  uint64_t end = now_ns();
  double send_ms = (double)((send_end ? send_end : end) - start) / 1e6;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double cpu_us = (double)ru.ru_utime.tv_sec * 1e6 + (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec * 1e6 + (double)ru.ru_stime.tv_usec;
  double p50 = -1, p99 = -1, pmax = -1, pmin = -1;
  if (samples != NULL && nsamples > 0) {
    qsort(samples, nsamples, sizeof samples[0], cmp_u64);
    p50 = pct_ms(samples, nsamples, 50);
    p99 = pct_ms(samples, nsamples, 99);
    pmax = pct_ms(samples, nsamples, 100);
    pmin = (double)samples[0] / 1e6;
  }
  printf("{\"sent\":%llu,\"received\":%llu,\"stray\":%llu,\"sendMs\":%.3f,\"wallMs\":%.3f,\"achievedRate\":%.1f,"
         "\"sendBlocked\":%llu,\"sendCalls\":%llu,\"gso\":%d,\"cpuUs\":%.0f,\"latency\":{\"p50\":%.4f,\"p99\":%.4f,\"max\":%.4f,\"min\":%.4f}}\n",
         (unsigned long long)sent, (unsigned long long)received, (unsigned long long)stray, send_ms, (double)(end - start) / 1e6,
         send_ms > 0 ? (double)sent / send_ms * 1000.0 : 0.0, (unsigned long long)send_blocked, (unsigned long long)syscalls_out, use_gso,
         cpu_us, p50, p99, pmax, pmin);
  free(samples);
  close(gen);
  close(sink);
  return 0;
}
