/*
 * The bare C relay of bench/udp-paths (issue 30): the floor a UDP forwarder of two NIOs can reach.
 * Two sockets as netemu has them (bound to lport0 / lport1, connected to gen / sink), one thread, one
 * epoll: each wake-up drains the readable socket with recvmmsg (MSG_DONTWAIT) and sends what it read
 * out of the other with one sendmmsg. No switching, no copies beyond the kernel's.
 *
 *   udp-relay LPORT0 GEN_PORT LPORT1 SINK_PORT [BUFFER_BYTES]    (everything on 127.0.0.1)
 *
 * Prints "ready" once both sockets are bound; runs until SIGTERM.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define BATCH 64
#define SLOT 2048

static volatile sig_atomic_t stop;
static void on_term(int sig) {
  (void)sig;
  stop = 1;
}

static int nio(int lport, int rport, int buffer) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (buffer > 0) {
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, sizeof buffer);
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer, sizeof buffer);
  }
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons((unsigned short)lport);
  if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) return -1;
  a.sin_port = htons((unsigned short)rport);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) return -1;
  return fd;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: udp-relay LPORT0 GEN_PORT LPORT1 SINK_PORT [BUFFER_BYTES]\n");
    return 2;
  }
  int buffer = argc > 5 ? atoi(argv[5]) : 0;
  int fds[2] = {nio(atoi(argv[1]), atoi(argv[2]), buffer), nio(atoi(argv[3]), atoi(argv[4]), buffer)};
  if (fds[0] < 0 || fds[1] < 0) {
    perror("udp-relay: socket");
    return 1;
  }
  signal(SIGTERM, on_term);
  signal(SIGINT, on_term);
  int ep = epoll_create1(EPOLL_CLOEXEC);
  for (int i = 0; i < 2; i++) {
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (unsigned)i};
    epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev);
  }
  static unsigned char arena[BATCH][SLOT];
  struct mmsghdr msgs[BATCH];
  struct iovec iovs[BATCH];
  printf("ready\n");
  fflush(stdout);
  while (!stop) {
    struct epoll_event evs[2];
    int n = epoll_wait(ep, evs, 2, 200);
    for (int e = 0; e < n; e++) {
      int from = (int)evs[e].data.u32;
      for (;;) {
        for (int i = 0; i < BATCH; i++) {
          iovs[i].iov_base = arena[i];
          iovs[i].iov_len = SLOT;
          memset(&msgs[i].msg_hdr, 0, sizeof msgs[i].msg_hdr);
          msgs[i].msg_hdr.msg_iov = &iovs[i];
          msgs[i].msg_hdr.msg_iovlen = 1;
        }
        int r = recvmmsg(fds[from], msgs, BATCH, MSG_DONTWAIT, NULL);
        if (r <= 0) break;
        for (int i = 0; i < r; i++) iovs[i].iov_len = msgs[i].msg_len;
        /* What the other side does not take now is lost, as a full link queue loses it. */
        int done = 0;
        while (done < r) {
          int s = sendmmsg(fds[1 - from], msgs + done, (unsigned)(r - done), MSG_DONTWAIT);
          if (s < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == ENOBUFS) break;
            done++;
            continue;
          }
          done += s;
        }
        if (r < BATCH) break;
      }
    }
  }
  return 0;
}
