/*
 * udp-batch: a connected UDP socket read with recvmmsg and written with sendmmsg (docs/adr/0068).
 *
 * Node's dgram makes one recvmsg, one 64 KiB read buffer and one JavaScript call per datagram. Here the
 * socket's readiness comes from libuv (uv_poll on the fd, so it lives on Node's own event loop, main
 * thread or worker), each wake-up drains the socket with recvmmsg into one receive arena per thread,
 * and JavaScript gets one call per batch: where the batch's datagrams lie back to back in the
 * thread's receive pool, and their lengths (docs/adr/0107). A batch is whatever the kernel holds at
 * that moment (MSG_DONTWAIT): nothing waits for frames that have not come, so one lone frame is
 * delivered as soon as it is readable.
 *
 * UDP sockets use segmentation offload both ways unless asked not to (docs/adr/0106): runs of equal-size
 * frames leave as one UDP GSO message (UDP_SEGMENT), and the socket takes UDP GRO (UDP_GRO), so a GSO
 * run from another netemu comes in as one message that is cut here into its datagrams: JavaScript
 * still gets one frame per datagram, byte for byte, in order.
 *
 * JS API (loaded by src/adapters/transport/batched-udp-transport.ts):
 *   open(family 4|6, bindAddr, lport, peerAddr, rport, rcvbuf, sndbuf, onBatch(pool, offset, lengths, count), onError(code, msg)[, offload])
 *     onBatch: the batch's `count` datagrams lie back to back from `offset` in the ArrayBuffer `pool`,
 *     their lengths in lengths[0..count) (a Uint32Array of the thread's, overwritten by the next batch:
 *     read it before returning). A pool is only ever appended to, never written over: frames are views
 *     of it that stay valid as long as they are held.
 *     -> handle; throws an Error whose .code is the errno name (EADDRINUSE ...); offload (default true):
 *     false sends every datagram on its own (no GSO) and turns UDP GRO off on the socket
 *   send(handle, frames: Uint8Array[]) -> number of datagrams the kernel took
 *   close(handle)   (twice, or from inside a callback, is fine)
 *   detach(handle) -> fd: stops polling and forgets the socket without closing it (docs/adr/0069)
 *   adopt(fd, family 4|6, lport, peerAddr, rport, onBatch, onError[, offload]) -> handle: polls a socket another
 *     thread detached (fds are process-wide), once it is checked to be that NIO's: UDP, bound to lport,
 *     connected to peerAddr:rport; throws (code EINVAL) otherwise; offload as for open
 *   openTap(name, onBatch, onError) -> handle: a TAP device (docs/adr/0083): /dev/net/tun with TUNSETIFF
 *     IFF_TAP|IFF_NO_PI, which attaches to the device of that name or creates it (as uBridge does);
 *     one read() per frame, batched per wake-up; throws with .code (EPERM: no CAP_NET_ADMIN, EBUSY ...)
 *   openEthernet(name, onBatch, onError) -> handle: a host interface through an AF_PACKET raw socket
 *     bound to it, promiscuous (PACKET_MR_PROMISC), read with recvmmsg; frames the host itself sends
 *     out of it are not read, a VLAN tag the kernel took off (offload) is put back; throws with .code
 *     (ENODEV: no such interface, EPERM: no CAP_NET_RAW)
 *   adoptDevice(fd, kind "tap"|"ethernet", name, onBatch, onError) -> handle: as adopt, for a device
 *     fd detached by another thread, checked to be that kind's (TUNGETIFF: a TAP; a packet socket bound to the ifindex)
 *   send, close and detach take every kind of handle.
 *   setCoalescing(microseconds 0..1000): receive coalescing for this thread's UDP sockets (docs/adr/0110);
 *     0 (the default) turns it off; anything else throws a RangeError
 *   coalescing() -> { microseconds, parked, ticks }: the setting, the sockets coalescing now, and the
 *     coalescing timer's ticks so far in this thread
 *   doorbell(onRing()) -> id (a whole number > 0): this thread's doorbell (docs/adr/0112), made once per
 *     thread (a second call throws, code EEXIST): an eventfd polled on this thread's loop, unreferenced
 *     (it keeps no loop alive); onRing runs on this thread's loop after one or more rings
 *   ring(id) -> bool: rings the doorbell of that id from any thread of the process; false (nothing
 *     done) when no doorbell has it (its thread went away)
 * Arguments of the wrong type throw a TypeError (a RangeError for a family or port out of range).
 */
#define _GNU_SOURCE
/* Version 8: async cleanup hooks and type tags (Node 20 has 9). */
#define NAPI_VERSION 8
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <node_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/timerfd.h>
#include <stdint.h>
#include <fcntl.h>
#include <net/if.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <linux/if_tun.h>
#include <linux/if_packet.h>
#include <linux/if_ether.h>
#include <unistd.h>
#include <uv.h>

/* What an endpoint reads and writes: a connected UDP socket, a TAP device, or a packet socket. */
#define KIND_UDP 0
#define KIND_TAP 1
#define KIND_PACKET 2

#define BATCH 64
/* The largest UDP payload over IPv4 is 65507 bytes; a slot this size never truncates a datagram. */
#define SLOT 65536
/* Each slot is read into two pieces: its first HEAD bytes (a whole 1500-byte frame with tags) in a
 * compact arena, the rest in a per-slot overflow only jumbo datagrams touch. Slots 64 KiB apart fall
 * into the same cache sets and each on its own page: the kernel's copy and ours then missed the
 * cache on every frame (perf: _copy_to_iter 3.7 % of the forwarder against uBridge's 1.1 %). */
#define HEAD 2048
/* UDP GSO: whether the kernel has it (asked once per socket), and the bytes one message may carry. */
#define GSO_UNKNOWN 0
#define GSO_ON 1
#define GSO_OFF 2
#define GSO_MAX_BYTES 65000
/* The most datagrams a GRO message is expected to hold: a netemu sender's GSO groups are at most one
 * send batch, and the kernel's GRO stops at 64 (UDP_GRO_CNT_MAX); a sender's 128 (UDP_MAX_SEGMENTS)
 * would only make a wake-up's first call twice as big. */
#define GRO_SEGMENTS 64
/* The most datagrams one message may hold: the kernel's cap on a GSO send (UDP_MAX_SEGMENTS), which a
 * local sender's message keeps on its way into a GRO socket. A message claiming more is dropped whole,
 * so a batch's lengths always fit the thread's lengths array (BATCH messages of this many at most). */
#define MAX_SEGMENTS 128
#define LENGTHS_CAPACITY (BATCH * MAX_SEGMENTS)
#ifndef UDP_GRO
#define UDP_GRO 104 /* Linux 5.0; older headers lack the name */
#endif
/* Drains per wake-up before yielding to the loop, so one flooded socket cannot starve the others. */
#define MAX_BATCHES_PER_WAKEUP 8
/* The receive pool batches are copied into (docs/adr/0107): one ArrayBuffer allocation per this many
 * bytes instead of one Buffer per batch. About a full batch of 1500-byte frames, what one batch's
 * Buffer was before, so a frame held as a view keeps no more memory alive than it did. */
#define POOL_BYTES (64 * 1024)
/* How the shared slots were last prepared for recvmmsg: a UDP socket's need it only once. */
#define PREPARED_NONE (-1)
/* The longest coalescing interval setCoalescing takes: a frame waits at most this long (ADR 0110). */
#define COALESCE_MAX_US 1000

typedef struct endpoint endpoint;
typedef struct env_data env_data;

/* A thread's doorbell (docs/adr/0112): see js_doorbell. */
typedef struct doorbell {
  uv_poll_t poll;
  int efd;
  uint32_t id;
  napi_env env;
  napi_ref on_ring;
  napi_async_context async;
  napi_async_cleanup_hook_handle cleanup;
  env_data *owner;
} doorbell;

/*
 * Receive coalescing (docs/adr/0110), as NAPI does for a NIC: a UDP socket whose wake-ups come closer
 * together than the interval stops waking the loop; it is parked, its poll stopped, and the thread's
 * coalescing timer (a timerfd, for microseconds: libuv's timers count milliseconds) drains every parked
 * socket once per interval, so one wake-up carries what came meanwhile. A tick that finds a socket
 * empty, or more waiting than one wake-up may take, lets it go back to waking the loop itself: a lone
 * frame is then never held, and an overload is drained as fast as without coalescing.
 */
typedef struct coalescer {
  uv_poll_t poll;
  int tfd;
  /* The interval; 0: off. */
  uint64_t interval_ns;
  int armed;
  int closing;
  endpoint *parked;
  unsigned int parked_count;
  /* The parked sockets of one tick, each kept alive while its batch's JavaScript runs. */
  endpoint **scratch;
  unsigned int scratch_capacity;
  double ticks;
  /* Whose coalescer this is, until either goes away first (teardown order is not ours to choose). */
  env_data *owner;
  napi_async_cleanup_hook_handle cleanup;
} coalescer;

struct env_data {
  /* The receive arena, shared by every socket of this thread: a batch is copied out before the
   * JavaScript call returns, so one arena per event loop is enough (64 × 64 KiB, not per NIO). */
  unsigned char *arena;
  unsigned char *overflow;
  struct mmsghdr msgs[BATCH];
  struct iovec iovs[BATCH][2];
  /* Packet sockets: each frame's link-level address (its direction) and auxdata (a VLAN tag the
   * kernel took off); UDP sockets: the segment size of a GRO message. */
  struct sockaddr_ll from[BATCH];
  union {
    char buf[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
    char gro[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } aux[BATCH];
  /* The kind the slots are prepared for (KIND_UDP: prepared once, the kernel leaves them as they are). */
  int prepared;
  /* The receive pool being filled, and the bytes of it given out. */
  napi_ref pool;
  size_t pool_used;
  /* The lengths of the batch being delivered: one Uint32Array of LENGTHS_CAPACITY, reused for every batch. */
  napi_ref lengths;
  uint32_t *lengths_data;
  /* Receive coalescing, made by the first setCoalescing that turns it on. */
  coalescer *co;
  /* This thread's doorbell (docs/adr/0112), made by doorbell(). */
  struct doorbell *bell;
};

struct endpoint {
  uv_poll_t poll;
  int fd;
  int kind;
  int closing;
  /* Detached for another thread to adopt: the poll handle goes, the socket stays open. */
  int detached;
  napi_env env;
  env_data *data;
  napi_ref on_batch;
  napi_ref on_error;
  napi_async_context async;
  /* Keeps a worker's teardown waiting until this socket's libuv handle is closed: the close
   * callback is code of this addon, which Node unloads with the worker's environment. */
  napi_async_cleanup_hook_handle cleanup;
  /* Freed when both the libuv handle is closed and the JS handle is collected, whichever is last. */
  int refs;
  /* Send side: GSO_*, and the shortest frame length the kernel refused to segment (0: none yet). */
  int gso;
  size_t gso_refused_from;
  /* Receive side: whether the socket takes UDP GRO. */
  int gro;
  /* Receive coalescing: when the socket last woke the loop, the smoothed gap between its wake-ups
   * (0: not measured since it last woke the loop itself), and while parked, the coalescer holding it. */
  uint64_t last_wake_ns;
  uint64_t gap_ns;
  coalescer *co;
  endpoint *park_prev, *park_next;
};

/* Marks the handles open() gives, so send() and close() never take another external for theirs. */
static const napi_type_tag ENDPOINT_TAG = {0x6e6574656d755544ULL, 0x5062617463680001ULL};

static void finalize_endpoint(napi_env env, void *p, void *hint);
static void on_env_teardown(napi_async_cleanup_hook_handle handle, void *arg);

static void release(endpoint *ep) {
  if (--ep->refs == 0) free(ep);
}

static void finalize_env_data(napi_env env, void *p, void *hint) {
  (void)env;
  (void)hint;
  env_data *d = p;
  if (d->co != NULL) d->co->owner = NULL;
  if (d->bell != NULL) d->bell->owner = NULL;
  free(d->arena);
  free(d->overflow);
  free(d);
}

static env_data *get_env_data(napi_env env) {
  env_data *d = NULL;
  if (napi_get_instance_data(env, (void **)&d) == napi_ok && d != NULL) return d;
  d = calloc(1, sizeof *d);
  if (d == NULL) return NULL;
  d->arena = malloc((size_t)BATCH * HEAD);
  d->overflow = malloc((size_t)BATCH * (SLOT - HEAD));
  d->prepared = PREPARED_NONE;
  napi_value ab, lengths;
  void *lengths_data = NULL;
  if (d->arena == NULL || d->overflow == NULL || napi_create_arraybuffer(env, LENGTHS_CAPACITY * sizeof(uint32_t), &lengths_data, &ab) != napi_ok ||
      napi_create_typedarray(env, napi_uint32_array, LENGTHS_CAPACITY, ab, 0, &lengths) != napi_ok || napi_create_reference(env, lengths, 1, &d->lengths) != napi_ok) {
    free(d->arena);
    free(d->overflow);
    free(d);
    return NULL;
  }
  d->lengths_data = lengths_data;
  napi_set_instance_data(env, d, finalize_env_data, NULL);
  return d;
}

static const char *errno_name(int err) { return uv_err_name(uv_translate_sys_error(err)); }

static napi_value throw_errno(napi_env env, int err, const char *what) {
  napi_value msg, code, error;
  char text[160];
  snprintf(text, sizeof text, "%s %s: %s", what, errno_name(err), strerror(err));
  napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &msg);
  napi_create_string_utf8(env, errno_name(err), NAPI_AUTO_LENGTH, &code);
  napi_create_error(env, NULL, msg, &error);
  napi_set_named_property(env, error, "code", code);
  napi_throw(env, error);
  return NULL;
}

/* Calls a JS callback from a libuv callback: make_callback runs the microtasks afterwards (the
 * transport's send flush is one), and a throwing listener becomes an uncaught exception, as with dgram. */
static void call_js_in(napi_env env, napi_async_context async, napi_ref fn_ref, size_t argc, napi_value *argv) {
  napi_value fn, recv;
  napi_get_reference_value(env, fn_ref, &fn);
  napi_get_global(env, &recv); /* make_callback wants an object as receiver */
  napi_status s = napi_make_callback(env, async, recv, fn, argc, argv, NULL);
  if (s == napi_pending_exception) {
    napi_value exc;
    napi_get_and_clear_last_exception(env, &exc);
    napi_fatal_exception(env, exc);
  }
}

static void call_js(endpoint *ep, napi_ref fn_ref, size_t argc, napi_value *argv) { call_js_in(ep->env, ep->async, fn_ref, argc, argv); }

static void report_error(endpoint *ep, int err) {
  napi_handle_scope scope;
  napi_open_handle_scope(ep->env, &scope);
  napi_value argv[2];
  napi_create_string_utf8(ep->env, errno_name(err), NAPI_AUTO_LENGTH, &argv[0]);
  napi_create_string_utf8(ep->env, strerror(err), NAPI_AUTO_LENGTH, &argv[1]);
  call_js(ep, ep->on_error, 2, argv);
  napi_close_handle_scope(ep->env, scope);
}

/* Where each message of a batch lies in the arena slot (its start and the bytes there) and its whole
 * length, the rest being in the slot's overflow; skip: a message not to deliver (a packet socket's own,
 * a datagram cut short); segment: a GRO message's datagram size (0: the message is one frame). */
typedef struct {
  unsigned int off, head, len, skip, segment;
} frame_at;

/* How many frames a message holds: a GRO message is datagrams of `segment` bytes back to back, the
 * last one possibly shorter (the kernel merges only equal sizes and ends a run on a shorter one). */
static unsigned int frames_in(const frame_at *at) {
  if (at->segment == 0 || at->segment >= at->len) return 1;
  return (at->len + at->segment - 1) / at->segment;
}

static void prepare(env_data *d, int i, size_t off) {
  d->iovs[i][0].iov_base = d->arena + (size_t)i * HEAD + off;
  d->iovs[i][0].iov_len = HEAD - off;
  d->iovs[i][1].iov_base = d->overflow + (size_t)i * (SLOT - HEAD);
  d->iovs[i][1].iov_len = SLOT - HEAD;
  memset(&d->msgs[i].msg_hdr, 0, sizeof d->msgs[i].msg_hdr);
  d->msgs[i].msg_hdr.msg_iov = d->iovs[i];
  d->msgs[i].msg_hdr.msg_iovlen = 2;
}

/* Reads what the fd holds now, up to `limit` (at most BATCH) messages: the count, 0 when nothing, -1 with errno. */
static int read_batch(endpoint *ep, env_data *d, frame_at *at, int limit) {
  if (ep->kind == KIND_TAP) {
    /* A TAP device gives one frame per read(); there is no recvmmsg for a character device. */
    int n = 0;
    d->prepared = KIND_TAP;
    for (; n < limit; n++) {
      prepare(d, n, 0);
      ssize_t r = readv(ep->fd, d->iovs[n], 2);
      if (r < 0) {
        if (n > 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
        return n > 0 ? n : -1;
      }
      at[n].off = 0;
      at[n].len = (unsigned int)r;
      at[n].head = at[n].len < HEAD ? at[n].len : HEAD;
      at[n].skip = 0;
      at[n].segment = 0;
    }
    return n;
  }
  /* A packet socket's frame goes 4 bytes into its slot: room for a VLAN tag to be put back. */
  size_t off = ep->kind == KIND_PACKET ? 4 : 0;
  /* A UDP socket's slots stay as prepared: recvmmsg writes back only msg_len, msg_flags and
   * msg_controllen. Preparing the 64 slots for each lone frame cost more than its recvmmsg's own user time. */
  if (ep->kind != KIND_UDP || d->prepared != KIND_UDP) {
    for (int i = 0; i < BATCH; i++) {
      prepare(d, i, off);
      if (ep->kind == KIND_PACKET) {
        d->msgs[i].msg_hdr.msg_name = &d->from[i];
        d->msgs[i].msg_hdr.msg_namelen = sizeof d->from[i];
        d->msgs[i].msg_hdr.msg_control = d->aux[i].buf;
        d->msgs[i].msg_hdr.msg_controllen = sizeof d->aux[i].buf;
      } else {
        /* Always asked for, offload or not: a socket adopted from a thread that had GRO on may hold GRO messages. */
        d->msgs[i].msg_hdr.msg_control = d->aux[i].gro;
      }
    }
    d->prepared = ep->kind;
  }
  /* The kernel writes each used slot's msg_controllen back (0 when no GRO segment size came): without
   * the room given again, a later GRO message's segment size would be cut off and the message taken
   * for one frame. */
  if (ep->kind == KIND_UDP)
    for (int i = 0; i < limit; i++) d->msgs[i].msg_hdr.msg_controllen = sizeof d->aux[i].gro;
  int n = recvmmsg(ep->fd, d->msgs, (unsigned int)limit, MSG_DONTWAIT, NULL);
  if (n <= 0) return n;
  for (int i = 0; i < n; i++) {
    unsigned int len = d->msgs[i].msg_len;
    at[i].off = (unsigned int)off;
    at[i].len = len;
    at[i].head = len < HEAD - off ? len : (unsigned int)(HEAD - off);
    at[i].skip = 0;
    at[i].segment = 0;
    if (ep->kind == KIND_UDP) {
      for (struct cmsghdr *c = CMSG_FIRSTHDR(&d->msgs[i].msg_hdr); c != NULL; c = CMSG_NXTHDR(&d->msgs[i].msg_hdr, c)) {
        if (c->cmsg_level != SOL_UDP || c->cmsg_type != UDP_GRO || c->cmsg_len < CMSG_LEN(sizeof(int))) continue;
        int segment;
        memcpy(&segment, CMSG_DATA(c), sizeof segment);
        if (segment > 0) at[i].segment = (unsigned int)segment;
      }
      if (frames_in(&at[i]) > MAX_SEGMENTS) at[i].skip = 1;
      /* More than the slot holds (never for one datagram: a slot is the largest UDP payload; a GRO
       * message is kept under 64 KiB by the kernel, but not by contract): only whole datagrams go on,
       * a cut one would be a corrupt frame. */
      if (d->msgs[i].msg_hdr.msg_flags & MSG_TRUNC) {
        if (at[i].segment == 0 || at[i].segment > len) at[i].skip = 1;
        else at[i].len = len - len % at[i].segment;
        at[i].head = at[i].len < HEAD ? at[i].len : HEAD;
      }
      continue;
    }
    if (ep->kind != KIND_PACKET) continue;
    /* What the host itself sends out of the interface is not a frame coming in on this port. */
    if (d->from[i].sll_pkttype == PACKET_OUTGOING) {
      at[i].skip = 1;
      continue;
    }
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&d->msgs[i].msg_hdr); c != NULL; c = CMSG_NXTHDR(&d->msgs[i].msg_hdr, c)) {
      if (c->cmsg_level != SOL_PACKET || c->cmsg_type != PACKET_AUXDATA || c->cmsg_len < CMSG_LEN(sizeof(struct tpacket_auxdata))) continue;
      struct tpacket_auxdata aux;
      memcpy(&aux, CMSG_DATA(c), sizeof aux);
      if (!(aux.tp_status & TP_STATUS_VLAN_VALID) || at[i].head < 12) continue;
      /* The kernel (VLAN offload) took the 802.1Q tag off: it goes back after the MAC addresses, as
       * it was on the wire, so trunks through a host interface keep their VLANs. */
      unsigned char *slot = d->arena + (size_t)i * HEAD;
      uint16_t tpid = (aux.tp_status & TP_STATUS_VLAN_TPID_VALID) && aux.tp_vlan_tpid != 0 ? aux.tp_vlan_tpid : ETH_P_8021Q;
      memmove(slot, slot + 4, 12);
      slot[12] = (unsigned char)(tpid >> 8);
      slot[13] = (unsigned char)(tpid & 0xff);
      slot[14] = (unsigned char)(aux.tp_vlan_tci >> 8);
      slot[15] = (unsigned char)(aux.tp_vlan_tci & 0xff);
      at[i].off = 0;
      at[i].head += 4;
      at[i].len += 4;
    }
  }
  return n;
}

/* Room for `total` bytes in the thread's receive pool: the pool (an ArrayBuffer), where the bytes go
 * and their offset in it; a fresh pool when the one being filled has not the room (or was detached,
 * its length then 0). Pools are never written over, so the frames of earlier batches, views of a pool,
 * stay as they were; a pool goes once no frame of it is held and a newer one took its place.
 * 0, or -1 when no memory. */
static int pool_room(napi_env env, env_data *d, size_t total, napi_value *pool, unsigned char **at, size_t *offset) {
  void *data = NULL;
  size_t length = 0;
  if (d->pool != NULL && napi_get_reference_value(env, d->pool, pool) == napi_ok && *pool != NULL &&
      napi_get_arraybuffer_info(env, *pool, &data, &length) == napi_ok && data != NULL && length >= d->pool_used + total) {
    *at = (unsigned char *)data + d->pool_used;
    *offset = d->pool_used;
    d->pool_used += total;
    return 0;
  }
  size_t size = total > POOL_BYTES ? total : POOL_BYTES;
  if (napi_create_arraybuffer(env, size, &data, pool) != napi_ok || data == NULL) return -1;
  if (d->pool != NULL) napi_delete_reference(env, d->pool);
  d->pool = NULL;
  if (napi_create_reference(env, *pool, 1, &d->pool) != napi_ok) return -1;
  *at = data;
  *offset = 0;
  d->pool_used = total;
  return 0;
}

/* Reads what the socket holds now and hands it to JavaScript, batch by batch, within one wake-up's
 * budget: the messages read (errors counted too), and in *more whether the budget ran out first. */
static int drain(endpoint *ep, int *more) {
  env_data *d = ep->data;
  frame_at at[BATCH];
  /* GRO messages hold many frames each: the budget that keeps one socket from starving the others is
   * counted in frames, as many as MAX_BATCHES_PER_WAKEUP full batches of single datagrams, and each read
   * asks for as many messages as the budget left holds at the most datagrams per message the last read
   * saw, the first read of a wake-up counting GRO_SEGMENTS (what a netemu sender or a NIC puts in one
   * at most). So a wake-up hands JavaScript no more frames than before GRO (ADR 0106): one read of 64 GRO
   * messages could be 4,096 frames in one call, more than a port's backlog holds (ADR 0075). Where only
   * single datagrams come, that costs one more read in a wake-up that finds more than 8 waiting. */
  const unsigned int budget = BATCH * MAX_BATCHES_PER_WAKEUP;
  unsigned int delivered = 0;
  int messages = 0;
  *more = 0;
  /* The most datagrams one message of this wake-up's last read held. */
  unsigned int segments_seen = ep->gro ? GRO_SEGMENTS : 1;
  for (int round = 0; round < MAX_BATCHES_PER_WAKEUP && !ep->closing && delivered < budget; round++) {
    unsigned int fit = (budget - delivered) / segments_seen;
    int limit = fit < 1 ? 1 : fit > BATCH ? BATCH : (int)fit;
    int n = read_batch(ep, d, at, limit);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return messages;
      int err = errno;
      if (ep->kind == KIND_TAP) {
        /* A TAP whose device went away (EBADFD) would wake this loop for ever: it stops being read. */
        uv_poll_stop(&ep->poll);
        report_error(ep, err);
        return messages;
      }
      messages++;
      /* ECONNREFUSED and the like: the peer's ICMP, reported and never fatal (ENETDOWN for a packet socket). */
      report_error(ep, err);
      continue;
    }
    if (n == 0) return messages;
    messages += n;
    size_t total = 0;
    uint32_t kept = 0;
    unsigned int most = 1;
    for (int i = 0; i < n; i++) {
      if (at[i].skip) continue;
      total += at[i].len;
      unsigned int frames = frames_in(&at[i]);
      kept += frames;
      if (frames > most) most = frames;
    }
    segments_seen = most;
    if (kept == 0) {
      if (n < limit) return messages;
      continue;
    }
    napi_handle_scope scope;
    napi_open_handle_scope(ep->env, &scope);
    napi_value argv[4];
    unsigned char *out = NULL;
    size_t start = 0;
    if (pool_room(ep->env, d, total, &argv[0], &out, &start) != 0 || napi_get_reference_value(ep->env, d->lengths, &argv[2]) != napi_ok) {
      /* No memory for the batch: it is lost, as a full receive buffer would lose it; the loop goes on. */
      napi_value ignored;
      napi_get_and_clear_last_exception(ep->env, &ignored);
      napi_close_handle_scope(ep->env, scope);
      return messages;
    }
    size_t off = 0;
    uint32_t k = 0;
    for (int i = 0; i < n; i++) {
      if (at[i].skip) continue;
      unsigned int len = at[i].len, head = at[i].head;
      memcpy(out + off, d->arena + (size_t)i * HEAD + at[i].off, head);
      if (len > head) memcpy(out + off + head, d->overflow + (size_t)i * (SLOT - HEAD), len - head);
      off += len;
      /* A GRO message's datagrams lie back to back in it as they do in the pool: only its lengths
       * tell them apart. */
      unsigned int count = frames_in(&at[i]), segment = count > 1 ? at[i].segment : len;
      for (unsigned int j = 0; j < count; j++) d->lengths_data[k++] = j + 1 < count ? segment : len - j * segment;
    }
    delivered += kept;
    napi_create_double(ep->env, (double)start, &argv[1]);
    napi_create_uint32(ep->env, kept, &argv[3]);
    call_js(ep, ep->on_batch, 4, argv);
    napi_close_handle_scope(ep->env, scope);
    if (n < limit) return messages;
  }
  /* The budget ran out (or the socket was closed meanwhile) with more maybe waiting. */
  *more = !ep->closing;
  return messages;
}

/* Sets the coalescing timer to ring every interval_ns (0: stops it). While it runs it keeps the loop
 * alive, as the polls of the sockets it drains would. */
static void co_arm(coalescer *co, uint64_t interval_ns) {
  struct itimerspec t;
  memset(&t, 0, sizeof t);
  t.it_value.tv_sec = (time_t)(interval_ns / 1000000000u);
  t.it_value.tv_nsec = (long)(interval_ns % 1000000000u);
  t.it_interval = t.it_value;
  timerfd_settime(co->tfd, 0, &t, NULL);
  co->armed = interval_ns != 0;
  if (co->armed) uv_ref((uv_handle_t *)&co->poll);
  else uv_unref((uv_handle_t *)&co->poll);
}

static void on_readable(uv_poll_t *poll, int status, int events);

/* Stops the socket waking the loop: the coalescing timer drains it from now on. */
static void park(coalescer *co, endpoint *ep) {
  uv_poll_stop(&ep->poll);
  ep->co = co;
  ep->park_prev = NULL;
  ep->park_next = co->parked;
  if (co->parked != NULL) co->parked->park_prev = ep;
  co->parked = ep;
  co->parked_count++;
  if (!co->armed) co_arm(co, co->interval_ns);
}

/* Takes the socket off the coalescing timer; `watch`: it wakes the loop itself again (not when it closes). */
static void unpark(endpoint *ep, int watch) {
  coalescer *co = ep->co;
  if (ep->park_prev != NULL) ep->park_prev->park_next = ep->park_next;
  else co->parked = ep->park_next;
  if (ep->park_next != NULL) ep->park_next->park_prev = ep->park_prev;
  ep->park_prev = ep->park_next = NULL;
  ep->co = NULL;
  co->parked_count--;
  ep->last_wake_ns = 0;
  ep->gap_ns = 0;
  if (co->parked == NULL && co->armed) co_arm(co, 0);
  if (watch && !ep->closing) uv_poll_start(&ep->poll, UV_READABLE, on_readable);
}

/* After a wake-up of a UDP socket: its smoothed gap between wake-ups (an average over about the last
 * four), and parked when that is shorter than the coalescing interval. Costs nothing with coalescing off. */
static void consider_parking(endpoint *ep) {
  coalescer *co = ep->data->co;
  if (co == NULL || co->interval_ns == 0 || co->closing || ep->kind != KIND_UDP || ep->closing || ep->co != NULL) return;
  uint64_t now = uv_hrtime();
  if (ep->last_wake_ns != 0) {
    uint64_t gap = now - ep->last_wake_ns;
    ep->gap_ns = ep->gap_ns == 0 ? gap : ep->gap_ns - ep->gap_ns / 4 + gap / 4;
  }
  ep->last_wake_ns = now;
  if (ep->gap_ns != 0 && ep->gap_ns < co->interval_ns) park(co, ep);
}

/* The coalescing timer rang: every parked socket is drained once. Sockets closed, detached or parked
 * by the JavaScript a batch runs are taken as they are when their turn comes. */
static void on_tick(uv_poll_t *poll, int status, int events) {
  (void)status;
  (void)events;
  coalescer *co = poll->data;
  uint64_t expirations;
  if (read(co->tfd, &expirations, sizeof expirations) < 0 || co->closing) return;
  co->ticks++;
  unsigned int n = co->parked_count;
  if (n > co->scratch_capacity) {
    endpoint **grown = realloc(co->scratch, (size_t)n * sizeof *grown);
    if (grown == NULL) {
      /* No memory to go through them: they all wake the loop themselves again. */
      while (co->parked != NULL) unpark(co->parked, 1);
      return;
    }
    co->scratch = grown;
    co->scratch_capacity = n;
  }
  unsigned int k = 0;
  for (endpoint *ep = co->parked; ep != NULL && k < n; ep = ep->park_next) {
    ep->refs++;
    co->scratch[k++] = ep;
  }
  for (unsigned int i = 0; i < k; i++) {
    endpoint *ep = co->scratch[i];
    if (ep->co == co && !ep->closing && !co->closing) {
      int more = 0;
      int messages = drain(ep, &more);
      if (ep->co == co && (messages == 0 || more)) unpark(ep, 1);
    }
    release(ep);
  }
}

static void on_co_closed(uv_handle_t *h) {
  coalescer *co = h->data;
  close(co->tfd);
  napi_remove_async_cleanup_hook(co->cleanup);
  free(co->scratch);
  free(co);
}

/* The environment goes away: the parked sockets are closed by their own hooks, the timer here. */
static void on_co_teardown(napi_async_cleanup_hook_handle handle, void *arg) {
  (void)handle;
  coalescer *co = arg;
  co->closing = 1;
  for (endpoint *ep = co->parked; ep != NULL;) {
    endpoint *next = ep->park_next;
    ep->co = NULL;
    ep->park_prev = ep->park_next = NULL;
    ep = next;
  }
  co->parked = NULL;
  co->parked_count = 0;
  if (co->owner != NULL) co->owner->co = NULL;
  uv_close((uv_handle_t *)&co->poll, on_co_closed);
}

static void on_readable(uv_poll_t *poll, int status, int events) {
  endpoint *ep = poll->data;
  (void)events;
  if (ep->closing) return;
  if (status < 0) {
    /* libuv stops a poll handle whose fd reports POLLERR, which a connected UDP socket does when the
     * peer's ICMP (port unreachable ...) comes back. Take the pending error, report it and watch
     * again: a peer not listening yet must not end the NIO. A device's error (a TAP deleted under
     * it) does not pass: it is reported and the device is no longer read. */
    int err = 0;
    socklen_t len = sizeof err;
    if (ep->kind == KIND_TAP) err = EIO;
    else getsockopt(ep->fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (ep->kind != KIND_TAP && uv_poll_start(&ep->poll, UV_READABLE, on_readable) != 0) return;
    if (err != 0) report_error(ep, err);
    return;
  }
  int more = 0;
  drain(ep, &more);
  consider_parking(ep);
}

static int parse_addr(int family, const char *host, int port, struct sockaddr_storage *ss, socklen_t *len) {
  memset(ss, 0, sizeof *ss);
  if (family == 6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons((uint16_t)port);
    if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1) return EINVAL;
    *len = sizeof *a;
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)ss;
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &a->sin_addr) != 1) return EINVAL;
    *len = sizeof *a;
  }
  return 0;
}

/* Whether an optional argument asks for segmentation offload: anything but false does (the default). */
static int wants_offload(napi_env env, size_t argc, napi_value *argv, size_t at) {
  bool on = true;
  napi_valuetype t;
  if (argc > at && napi_typeof(env, argv[at], &t) == napi_ok && t == napi_boolean) napi_get_value_bool(env, argv[at], &on);
  return on;
}

/* UDP GRO (Linux 5.0) on or off: on, a GSO run from the peer is queued as one message and cut in
 * read_batch; a kernel without it refuses the option and delivers datagrams one by one, as before.
 * Off, GSO is not used to send either. Set on every open and adopt: the socket keeps the option across
 * threads, and the adopting thread's choice is the one that holds. */
static void set_offload(endpoint *ep, int on) {
  int value = on ? 1 : 0;
  ep->gro = setsockopt(ep->fd, SOL_UDP, UDP_GRO, &value, sizeof value) == 0 && on;
  if (!on) ep->gso = GSO_OFF;
}

/* Polls fd in this thread's loop and wraps it in a handle: what open and adopt share once they hold a
 * socket. NULL with a pending exception when the endpoint cannot be made; the fd is left open. */
static napi_value start_endpoint(napi_env env, env_data *d, int fd, int kind, napi_value on_batch, napi_value on_error, int offload, const char *what) {
  endpoint *ep = calloc(1, sizeof *ep);
  if (ep == NULL) return throw_errno(env, ENOMEM, what);
  ep->fd = fd;
  ep->kind = kind;
  if (kind != KIND_UDP) ep->gso = GSO_OFF;
  else set_offload(ep, offload);
  ep->env = env;
  ep->data = d;
  uv_loop_t *loop = NULL;
  napi_get_uv_event_loop(env, &loop);
  if (uv_poll_init(loop, &ep->poll, fd) != 0) {
    free(ep);
    return throw_errno(env, EINVAL, "uv_poll_init");
  }
  ep->poll.data = ep;
  ep->refs = 2;
  napi_create_reference(env, on_batch, 1, &ep->on_batch);
  napi_create_reference(env, on_error, 1, &ep->on_error);
  napi_value name;
  napi_create_string_utf8(env, "netemu.udpBatch", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, NULL, name, &ep->async);
  uv_poll_start(&ep->poll, UV_READABLE, on_readable);
  napi_add_async_cleanup_hook(env, on_env_teardown, ep, &ep->cleanup);
  napi_value handle;
  napi_create_external(env, ep, finalize_endpoint, NULL, &handle);
  napi_type_tag_object(env, handle, &ENDPOINT_TAG);
  return handle;
}

/* Whether argv[from..to) are functions; throws a TypeError naming `what` when one is not. */
static int are_functions(napi_env env, napi_value *argv, int from, int to, const char *what) {
  napi_valuetype fn_type;
  for (int i = from; i < to; i++) {
    if (napi_typeof(env, argv[i], &fn_type) != napi_ok || fn_type != napi_function) {
      napi_throw_type_error(env, NULL, what);
      return 0;
    }
  }
  return 1;
}

static napi_value js_open(napi_env env, napi_callback_info info) {
  size_t argc = 10;
  napi_value argv[10];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 9) {
    napi_throw_type_error(env, NULL, "open needs 9 arguments");
    return NULL;
  }
  int32_t family, lport, rport, rcvbuf, sndbuf;
  char bind_host[64], peer_host[64];
  size_t ignored;
  if (napi_get_value_int32(env, argv[0], &family) != napi_ok ||
      napi_get_value_string_utf8(env, argv[1], bind_host, sizeof bind_host, &ignored) != napi_ok ||
      napi_get_value_int32(env, argv[2], &lport) != napi_ok ||
      napi_get_value_string_utf8(env, argv[3], peer_host, sizeof peer_host, &ignored) != napi_ok ||
      napi_get_value_int32(env, argv[4], &rport) != napi_ok ||
      napi_get_value_int32(env, argv[5], &rcvbuf) != napi_ok ||
      napi_get_value_int32(env, argv[6], &sndbuf) != napi_ok) {
    napi_throw_type_error(env, NULL, "open: bad argument types");
    return NULL;
  }
  if (!are_functions(env, argv, 7, 9, "open: onBatch and onError must be functions")) return NULL;
  if (family != 4 && family != 6) {
    napi_throw_range_error(env, NULL, "open: family must be 4 or 6");
    return NULL;
  }
  /* htons would wrap an out-of-range port onto another one. */
  if (lport < 0 || lport > 65535 || rport < 0 || rport > 65535) {
    napi_throw_range_error(env, NULL, "open: ports must be 0..65535");
    return NULL;
  }
  env_data *d = get_env_data(env);
  if (d == NULL) return throw_errno(env, ENOMEM, "open");
  struct sockaddr_storage local, peer;
  socklen_t local_len, peer_len;
  if (parse_addr(family, bind_host, lport, &local, &local_len) != 0) return throw_errno(env, EINVAL, "bind address");
  if (parse_addr(family, peer_host, rport, &peer, &peer_len) != 0) return throw_errno(env, EINVAL, "peer address");
  int fd = socket(family == 6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_errno(env, errno, "socket");
  if (rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  if (sndbuf > 0) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
  if (family == 6) {
    int one = 1;
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  }
  if (bind(fd, (struct sockaddr *)&local, local_len) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, err, "bind");
  }
  if (connect(fd, (struct sockaddr *)&peer, peer_len) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, err, "connect");
  }
  napi_value handle = start_endpoint(env, d, fd, KIND_UDP, argv[7], argv[8], wants_offload(env, argc, argv, 9), "open");
  if (handle == NULL) close(fd); /* a new socket is ours to close; a fd handed to adopt stays its owner's */
  return handle;
}

/* The endpoint behind a handle of open(), or NULL (and a pending TypeError) for anything else. */
static endpoint *get_endpoint(napi_env env, napi_value v, const char *what) {
  void *p = NULL;
  napi_valuetype t;
  bool ours = false;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_external || napi_check_object_type_tag(env, v, &ENDPOINT_TAG, &ours) != napi_ok ||
      !ours || napi_get_value_external(env, v, &p) != napi_ok || p == NULL) {
    napi_throw_type_error(env, NULL, what);
    return NULL;
  }
  return p;
}

/* The bytes of frames[i], or NULL (and a pending TypeError) when it is not a Uint8Array. */
static void *frame_bytes(napi_env env, napi_value frames, uint32_t i, size_t *length) {
  napi_value el, ab;
  napi_typedarray_type type;
  size_t offset;
  void *data;
  napi_get_element(env, frames, i, &el);
  if (napi_get_typedarray_info(env, el, &type, length, &data, &ab, &offset) != napi_ok || type != napi_uint8_array) {
    napi_throw_type_error(env, NULL, "send: every frame must be a Uint8Array");
    return NULL;
  }
  return data;
}

/* Frames out of a TAP device (one write() each) or a packet socket (sendmmsg, no GSO: these are
 * Ethernet frames, not datagrams). A full queue (EAGAIN, ENOBUFS) drops the rest, as a full link
 * queue does; a frame the device refuses (EIO: the TAP is down, EMSGSIZE: over its MTU, ENETDOWN)
 * is lost alone, as uBridge ignores them. */
static napi_value send_to_device(napi_env env, endpoint *ep, napi_value frames, uint32_t count) {
  uint32_t taken = 0;
  napi_value result;
  if (ep->kind == KIND_TAP) {
    for (uint32_t i = 0; i < count; i++) {
      size_t length;
      void *data = frame_bytes(env, frames, i, &length);
      if (data == NULL) return NULL;
      ssize_t r;
      do r = write(ep->fd, data, length);
      while (r < 0 && errno == EINTR);
      if (r >= 0) taken++;
      else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) break;
    }
    napi_create_uint32(env, taken, &result);
    return result;
  }
  struct mmsghdr msgs[BATCH];
  struct iovec iovs[BATCH];
  uint32_t next = 0;
  while (next < count) {
    uint32_t n = 0;
    for (; n < BATCH && next + n < count; n++) {
      size_t length;
      void *data = frame_bytes(env, frames, next + n, &length);
      if (data == NULL) return NULL;
      iovs[n].iov_base = data;
      iovs[n].iov_len = length;
      memset(&msgs[n].msg_hdr, 0, sizeof msgs[n].msg_hdr);
      msgs[n].msg_hdr.msg_iov = &iovs[n];
      msgs[n].msg_hdr.msg_iovlen = 1;
    }
    uint32_t done = 0;
    while (done < n) {
      int r = sendmmsg(ep->fd, msgs + done, n - done, MSG_DONTWAIT);
      if (r < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) {
          napi_create_uint32(env, taken, &result);
          return result;
        }
        done++;
        continue;
      }
      taken += (uint32_t)r;
      done += (uint32_t)r;
    }
    next += n;
  }
  napi_create_uint32(env, taken, &result);
  return result;
}

static napi_value js_send(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 2) {
    napi_throw_type_error(env, NULL, "send needs a handle and an array of frames");
    return NULL;
  }
  endpoint *ep = get_endpoint(env, argv[0], "send: not a handle of udp-batch open()");
  if (ep == NULL) return NULL;
  napi_value result;
  if (ep->closing) {
    napi_create_uint32(env, 0, &result);
    return result;
  }
  uint32_t count = 0;
  if (napi_get_array_length(env, argv[1], &count) != napi_ok) {
    napi_throw_type_error(env, NULL, "send: frames must be an array");
    return NULL;
  }
  if (ep->kind != KIND_UDP) return send_to_device(env, ep, argv[1], count);
  struct mmsghdr msgs[BATCH];
  struct iovec iovs[BATCH];
  union {
    char buf[CMSG_SPACE(sizeof(uint16_t))];
    struct cmsghdr align;
  } control[BATCH];
  uint32_t frames_of[BATCH];
  uint32_t next = 0, taken = 0;
  int dropped_rest = 0;
  if (ep->gso == GSO_UNKNOWN) {
    /* UDP_SEGMENT came with Linux 4.18; an older kernel would send a group as one datagram. */
    int zero = 0;
    ep->gso = setsockopt(ep->fd, SOL_UDP, UDP_SEGMENT, &zero, sizeof zero) == 0 ? GSO_ON : GSO_OFF;
  }
  /* The iovecs point into the JS buffers themselves: sendmmsg copies into the kernel before it
   * returns, so nothing is copied here. */
  while (next < count && !dropped_rest) {
    uint32_t n = 0;
    for (; n < BATCH && next + n < count; n++) {
      napi_value el;
      napi_get_element(env, argv[1], next + n, &el);
      napi_typedarray_type type;
      size_t length, offset;
      void *data;
      napi_value ab;
      /* Only bytes: another typed array's length counts elements, not bytes. get_typedarray_info
       * refuses anything that is not a typed array (napi_invalid_arg): no napi_is_typedarray first. */
      if (napi_get_typedarray_info(env, el, &type, &length, &data, &ab, &offset) != napi_ok || type != napi_uint8_array) {
        napi_throw_type_error(env, NULL, "send: every frame must be a Uint8Array");
        return NULL;
      }
      iovs[n].iov_base = data;
      iovs[n].iov_len = length;
    }
    /* Consecutive frames of one length leave as one UDP GSO message (UDP_SEGMENT): the kernel builds,
     * routes and hands one buffer to the device and cuts it into datagrams of that length, one
     * frame each, in order, at the device or the receiving socket. On the wire nothing changes; the
     * sender saves the IP stack's per-datagram work (the bench's forwarder spent most of its time there).
     * A shorter frame right after a run ends it and goes in the same message: the kernel makes the
     * last segment of a message whatever is left (ADR 0106). */
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; m++) {
      size_t len = iovs[i].iov_len;
      uint32_t k = 1;
      if (ep->gso == GSO_ON && len > 0 && (ep->gso_refused_from == 0 || len < ep->gso_refused_from)) {
        while (i + k < n && iovs[i + k].iov_len == len && (k + 1) * len <= GSO_MAX_BYTES) k++;
        if (i + k < n && iovs[i + k].iov_len > 0 && iovs[i + k].iov_len < len && k * len + iovs[i + k].iov_len <= GSO_MAX_BYTES) k++;
      }
      memset(&msgs[m].msg_hdr, 0, sizeof msgs[m].msg_hdr);
      msgs[m].msg_hdr.msg_iov = &iovs[i];
      msgs[m].msg_hdr.msg_iovlen = k;
      if (k > 1) {
        memset(control[m].buf, 0, sizeof control[m].buf);
        msgs[m].msg_hdr.msg_control = control[m].buf;
        msgs[m].msg_hdr.msg_controllen = sizeof control[m].buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&msgs[m].msg_hdr);
        c->cmsg_level = SOL_UDP;
        c->cmsg_type = UDP_SEGMENT;
        c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
        uint16_t segment = (uint16_t)len;
        memcpy(CMSG_DATA(c), &segment, sizeof segment);
      }
      frames_of[m] = k;
      i += k;
    }
    uint32_t done = 0;
    int retried = 0;
    while (done < m) {
      int r = sendmmsg(ep->fd, msgs + done, m - done, MSG_DONTWAIT);
      if (r < 0) {
        if (errno == EINTR) continue;
        /* The send buffer is full: the rest of the batch is dropped, as a full link queue drops. */
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) {
          dropped_rest = 1;
          break;
        }
        if (frames_of[done] > 1 && (errno == EINVAL || errno == EIO || errno == EMSGSIZE)) {
          /* GSO refused for this length (a segment over the path's MTU, no checksum offload on the
           * device): frames this long or longer go one per datagram from now on, this group too. */
          size_t len = msgs[done].msg_hdr.msg_iov[0].iov_len;
          if (ep->gso_refused_from == 0 || len < ep->gso_refused_from) ep->gso_refused_from = len;
          struct iovec *group = msgs[done].msg_hdr.msg_iov;
          struct mmsghdr single[BATCH];
          for (uint32_t j = 0; j < frames_of[done]; j++) {
            memset(&single[j].msg_hdr, 0, sizeof single[j].msg_hdr);
            single[j].msg_hdr.msg_iov = &group[j];
            single[j].msg_hdr.msg_iovlen = 1;
          }
          int one_by_one = sendmmsg(ep->fd, single, frames_of[done], MSG_DONTWAIT);
          if (one_by_one > 0) taken += (uint32_t)one_by_one;
          done++;
          continue;
        }
        /* The peer's earlier ICMP, reported on this send (and so cleared): a group is tried once
         * more rather than lost whole. Otherwise this message alone is refused (EMSGSIZE: too large):
         * it is lost, as with dgram, and the others still go. */
        if (errno == ECONNREFUSED && frames_of[done] > 1 && !retried) {
          retried = 1;
          continue;
        }
        done++;
        continue;
      }
      for (int j = 0; j < r; j++) taken += frames_of[done + (uint32_t)j];
      done += (uint32_t)r;
    }
    next += n;
  }
  napi_create_uint32(env, taken, &result);
  return result;
}

static void on_closed(uv_handle_t *h) {
  endpoint *ep = h->data;
  napi_remove_async_cleanup_hook(ep->cleanup);
  release(ep);
}

static void begin_close(napi_env env, endpoint *ep) {
  ep->closing = 1;
  if (ep->co != NULL) unpark(ep, 0);
  uv_poll_stop(&ep->poll);
  /* The fd goes now, not in the close callback: the local port must be free when close() returns, as
   * with dgram (a NIO removed and added again on its port in one go). Safe: the stopped poll no longer
   * watches it. */
  if (!ep->detached) close(ep->fd);
  ep->fd = -1;
  napi_delete_reference(env, ep->on_batch);
  napi_delete_reference(env, ep->on_error);
  napi_async_destroy(env, ep->async);
  uv_close((uv_handle_t *)&ep->poll, on_closed);
}

/* The environment (a worker terminated or exiting with sockets open) goes away: close what is open,
 * and let Node wait for the close callback, which removes this hook. */
static void on_env_teardown(napi_async_cleanup_hook_handle handle, void *arg) {
  (void)handle;
  endpoint *ep = arg;
  if (!ep->closing) begin_close(ep->env, ep);
}

/* A handle dropped without close() still gets its socket closed (a leak otherwise). */
static void finalize_endpoint(napi_env env, void *p, void *hint) {
  (void)hint;
  endpoint *ep = p;
  if (!ep->closing) begin_close(env, ep);
  release(ep);
}

static napi_value js_close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1) {
    napi_throw_type_error(env, NULL, "close needs a handle");
    return NULL;
  }
  endpoint *ep = get_endpoint(env, argv[0], "close: not a handle of udp-batch open()");
  if (ep != NULL && !ep->closing) begin_close(env, ep);
  return NULL;
}

/* Stops watching the socket and gives its fd: nothing reads it until another thread adopts it, so the
 * datagrams that come meanwhile wait in its kernel receive buffer. uv_close takes the fd out of this
 * loop's epoll set at once (uv__platform_invalidate_fd); begin_close leaves a detached fd open, and the
 * finalizer and the environment's teardown then find the endpoint closing and leave it alone. */
static napi_value js_detach(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1) {
    napi_throw_type_error(env, NULL, "detach needs a handle");
    return NULL;
  }
  endpoint *ep = get_endpoint(env, argv[0], "detach: not a handle of udp-batch open() or adopt()");
  if (ep == NULL) return NULL;
  if (ep->closing) {
    napi_throw_error(env, "EINVAL", "detach: the endpoint is closed");
    return NULL;
  }
  int fd_value = ep->fd;
  ep->detached = 1;
  begin_close(env, ep);
  napi_value fd;
  napi_create_int32(env, fd_value, &fd);
  return fd;
}

/* Whether fd is a UDP socket of `family` bound to lport and connected to peer: what a detached NIO
 * socket is, so that a stale or stray number is never polled as one. */
static int is_nio_socket(int fd, int family, int lport, const struct sockaddr_storage *peer) {
  int type = 0;
  socklen_t len = sizeof type;
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_DGRAM) return 0;
  struct sockaddr_storage local, remote;
  socklen_t local_len = sizeof local, remote_len = sizeof remote;
  if (getsockname(fd, (struct sockaddr *)&local, &local_len) != 0) return 0;
  if (getpeername(fd, (struct sockaddr *)&remote, &remote_len) != 0) return 0;
  if (family == 6) {
    const struct sockaddr_in6 *l = (const struct sockaddr_in6 *)&local, *r = (const struct sockaddr_in6 *)&remote, *p = (const struct sockaddr_in6 *)peer;
    return l->sin6_family == AF_INET6 && r->sin6_family == AF_INET6 && ntohs(l->sin6_port) == lport && r->sin6_port == p->sin6_port &&
           memcmp(&r->sin6_addr, &p->sin6_addr, sizeof r->sin6_addr) == 0;
  }
  const struct sockaddr_in *l = (const struct sockaddr_in *)&local, *r = (const struct sockaddr_in *)&remote, *p = (const struct sockaddr_in *)peer;
  return l->sin_family == AF_INET && r->sin_family == AF_INET && ntohs(l->sin_port) == lport && r->sin_port == p->sin_port && r->sin_addr.s_addr == p->sin_addr.s_addr;
}

static napi_value js_adopt(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value argv[8];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 7) {
    napi_throw_type_error(env, NULL, "adopt needs 7 arguments");
    return NULL;
  }
  int32_t fd, family, lport, rport;
  char peer_host[64];
  size_t ignored;
  if (napi_get_value_int32(env, argv[0], &fd) != napi_ok || napi_get_value_int32(env, argv[1], &family) != napi_ok ||
      napi_get_value_int32(env, argv[2], &lport) != napi_ok ||
      napi_get_value_string_utf8(env, argv[3], peer_host, sizeof peer_host, &ignored) != napi_ok ||
      napi_get_value_int32(env, argv[4], &rport) != napi_ok) {
    napi_throw_type_error(env, NULL, "adopt: bad argument types");
    return NULL;
  }
  if (!are_functions(env, argv, 5, 7, "adopt: onBatch and onError must be functions")) return NULL;
  if (family != 4 && family != 6) {
    napi_throw_range_error(env, NULL, "adopt: family must be 4 or 6");
    return NULL;
  }
  struct sockaddr_storage peer;
  socklen_t peer_len;
  if (parse_addr(family, peer_host, rport, &peer, &peer_len) != 0) return throw_errno(env, EINVAL, "peer address");
  if (fd < 0 || !is_nio_socket(fd, family, lport, &peer)) return throw_errno(env, EINVAL, "adopt: not this NIO's socket");
  env_data *d = get_env_data(env);
  if (d == NULL) return throw_errno(env, ENOMEM, "adopt");
  return start_endpoint(env, d, fd, KIND_UDP, argv[5], argv[6], wants_offload(env, argc, argv, 7), "adopt");
}

/* A device name from JS: at most IFNAMSIZ-1 bytes, as the kernel takes it. 0 with a pending
 * exception otherwise. */
static int device_name(napi_env env, napi_value v, char *name, const char *what) {
  size_t len = 0;
  char buf[64];
  if (napi_get_value_string_utf8(env, v, buf, sizeof buf, &len) != napi_ok) {
    napi_throw_type_error(env, NULL, what);
    return 0;
  }
  if (len == 0 || len >= IFNAMSIZ) {
    throw_errno(env, len == 0 ? EINVAL : ENAMETOOLONG, "device name");
    return 0;
  }
  memcpy(name, buf, len + 1);
  return 1;
}

/* The TAP device of that name, attached to (it exists, unattached) or created; its fd, or -1 and errno. */
static int tap_fd(const char *name) {
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
  memcpy(ifr.ifr_name, name, strlen(name));
  if (ioctl(fd, TUNSETIFF, &ifr) != 0) {
    int err = errno;
    close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

/* A packet socket on the interface of that name, promiscuous; its fd, or -1 and errno. */
static int packet_fd(const char *name, int rcvbuf) {
  unsigned int ifindex = if_nametoindex(name);
  if (ifindex == 0) {
    errno = ENODEV;
    return -1;
  }
  int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
  if (fd < 0) return -1;
  int one = 1;
  if (rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof one);
#ifdef PACKET_IGNORE_OUTGOING
  /* Linux 4.20: the kernel skips our own and the host's outgoing frames; read_batch checks anyway. */
  setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
#endif
  struct sockaddr_ll ll;
  memset(&ll, 0, sizeof ll);
  ll.sll_family = AF_PACKET;
  ll.sll_protocol = htons(ETH_P_ALL);
  ll.sll_ifindex = (int)ifindex;
  struct packet_mreq mr;
  memset(&mr, 0, sizeof mr);
  mr.mr_ifindex = (int)ifindex;
  mr.mr_type = PACKET_MR_PROMISC;
  if (bind(fd, (struct sockaddr *)&ll, sizeof ll) != 0 || setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr) != 0) {
    int err = errno;
    close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

static napi_value js_open_device(napi_env env, napi_callback_info info, int kind) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  const char *what = kind == KIND_TAP ? "openTap" : "openEthernet";
  if (argc < 3) {
    napi_throw_type_error(env, NULL, "opening a device needs a name, onBatch and onError");
    return NULL;
  }
  char name[IFNAMSIZ];
  if (!device_name(env, argv[0], name, "the device name must be a string")) return NULL;
  if (!are_functions(env, argv, 1, 3, "onBatch and onError must be functions")) return NULL;
  env_data *d = get_env_data(env);
  if (d == NULL) return throw_errno(env, ENOMEM, what);
  int fd = kind == KIND_TAP ? tap_fd(name) : packet_fd(name, 4 * 1024 * 1024);
  if (fd < 0) return throw_errno(env, errno, what);
  napi_value handle = start_endpoint(env, d, fd, kind, argv[1], argv[2], 0, what);
  if (handle == NULL) close(fd);
  return handle;
}

static napi_value js_open_tap(napi_env env, napi_callback_info info) { return js_open_device(env, info, KIND_TAP); }
static napi_value js_open_ethernet(napi_env env, napi_callback_info info) { return js_open_device(env, info, KIND_PACKET); }

/* Whether fd is the device `name` of that kind: a TAP fd attached to a TAP, or a packet socket bound to
 * the interface. A TAP's name is not checked: once moved into a host's namespace it is renamed there
 * (eth0), and its fd is still the one its port opened. */
static int is_device_fd(int fd, int kind, const char *name) {
  if (kind == KIND_TAP) {
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    return ioctl(fd, TUNGETIFF, &ifr) == 0 && (ifr.ifr_flags & IFF_TAP);
  }
  struct sockaddr_ll ll;
  socklen_t len = sizeof ll;
  unsigned int ifindex = if_nametoindex(name);
  return ifindex != 0 && getsockname(fd, (struct sockaddr *)&ll, &len) == 0 && ll.sll_family == AF_PACKET && ll.sll_ifindex == (int)ifindex;
}

static napi_value js_adopt_device(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 5) {
    napi_throw_type_error(env, NULL, "adoptDevice needs 5 arguments");
    return NULL;
  }
  int32_t fd;
  char kind_name[16];
  size_t ignored;
  char name[IFNAMSIZ];
  if (napi_get_value_int32(env, argv[0], &fd) != napi_ok || napi_get_value_string_utf8(env, argv[1], kind_name, sizeof kind_name, &ignored) != napi_ok) {
    napi_throw_type_error(env, NULL, "adoptDevice: bad argument types");
    return NULL;
  }
  int kind = strcmp(kind_name, "tap") == 0 ? KIND_TAP : strcmp(kind_name, "ethernet") == 0 ? KIND_PACKET : -1;
  if (kind < 0) {
    napi_throw_range_error(env, NULL, "adoptDevice: kind must be tap or ethernet");
    return NULL;
  }
  if (!device_name(env, argv[2], name, "adoptDevice: the device name must be a string")) return NULL;
  if (!are_functions(env, argv, 3, 5, "adoptDevice: onBatch and onError must be functions")) return NULL;
  if (fd < 0 || !is_device_fd(fd, kind, name)) return throw_errno(env, EINVAL, "adoptDevice: not this device's fd");
  env_data *d = get_env_data(env);
  if (d == NULL) return throw_errno(env, ENOMEM, "adoptDevice");
  return start_endpoint(env, d, fd, kind, argv[3], argv[4], 0, "adoptDevice");
}

/* The thread's coalescer, made (its timerfd polled on this loop, unreferenced until armed) on first
 * need; NULL with a pending exception when it cannot be. */
static coalescer *make_coalescer(napi_env env, env_data *d) {
  coalescer *co = calloc(1, sizeof *co);
  if (co == NULL) return (throw_errno(env, ENOMEM, "setCoalescing"), NULL);
  co->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (co->tfd < 0) {
    int err = errno;
    free(co);
    return (throw_errno(env, err, "setCoalescing: timerfd_create"), NULL);
  }
  uv_loop_t *loop = NULL;
  napi_get_uv_event_loop(env, &loop);
  if (uv_poll_init(loop, &co->poll, co->tfd) != 0) {
    close(co->tfd);
    free(co);
    return (throw_errno(env, EINVAL, "setCoalescing: uv_poll_init"), NULL);
  }
  co->poll.data = co;
  uv_poll_start(&co->poll, UV_READABLE, on_tick);
  uv_unref((uv_handle_t *)&co->poll);
  co->owner = d;
  d->co = co;
  napi_add_async_cleanup_hook(env, on_co_teardown, co, &co->cleanup);
  return co;
}

static napi_value js_set_coalescing(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  double us = -1;
  napi_valuetype t;
  /* The range first (NaN fails it): only a number within it may be cast to test that it is whole. */
  if (argc < 1 || napi_typeof(env, argv[0], &t) != napi_ok || t != napi_number || napi_get_value_double(env, argv[0], &us) != napi_ok ||
      !(us >= 0 && us <= COALESCE_MAX_US) || us != (double)(int)us) {
    napi_throw_range_error(env, NULL, "setCoalescing: the interval must be a whole number of microseconds from 0 to 1000");
    return NULL;
  }
  env_data *d = get_env_data(env);
  if (d == NULL) return throw_errno(env, ENOMEM, "setCoalescing");
  coalescer *co = d->co;
  if (us == 0) {
    if (co != NULL) {
      co->interval_ns = 0;
      while (co->parked != NULL) unpark(co->parked, 1);
    }
    return NULL;
  }
  if (co == NULL && (co = make_coalescer(env, d)) == NULL) return NULL;
  co->interval_ns = (uint64_t)us * 1000u;
  if (co->armed) co_arm(co, co->interval_ns);
  return NULL;
}

static napi_value js_coalescing(napi_env env, napi_callback_info info) {
  (void)info;
  env_data *d = get_env_data(env);
  if (d == NULL) return throw_errno(env, ENOMEM, "coalescing");
  coalescer *co = d->co;
  napi_value result, us, parked, ticks;
  napi_create_object(env, &result);
  napi_create_double(env, co == NULL ? 0 : (double)(co->interval_ns / 1000u), &us);
  napi_create_uint32(env, co == NULL ? 0 : co->parked_count, &parked);
  napi_create_double(env, co == NULL ? 0 : co->ticks, &ticks);
  napi_set_named_property(env, result, "microseconds", us);
  napi_set_named_property(env, result, "parked", parked);
  napi_set_named_property(env, result, "ticks", ticks);
  return result;
}

/*
 * Doorbells (docs/adr/0112): how a thread writing a frame ring wakes the thread reading it. One per
 * thread: an eventfd its loop polls, like a socket. Ringing it from another thread is one write(2),
 * and the reader's loop calls JavaScript once for whatever rang meanwhile, where an Atomics.waitAsync
 * wake-up costs a V8 task, a promise and a timer. Rings go by id through a process-wide table under a
 * lock, never by fd: a doorbell whose thread went away is out of the table before its fd is closed,
 * so a late ring can never write into an fd the number was reused for.
 */
#define MAX_DOORBELLS 256

static pthread_mutex_t bells_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  uint32_t id;
  int efd;
} bells[MAX_DOORBELLS];
static unsigned int bells_count;
static uint32_t bells_next_id = 1;

static void on_bell(uv_poll_t *poll, int status, int events) {
  (void)status;
  (void)events;
  doorbell *b = poll->data;
  uint64_t rings;
  /* Reset before JavaScript runs: a ring made while it runs wakes the loop again. */
  if (read(b->efd, &rings, sizeof rings) < 0 && errno != EAGAIN) return;
  napi_handle_scope scope;
  napi_open_handle_scope(b->env, &scope);
  call_js_in(b->env, b->async, b->on_ring, 0, NULL);
  napi_close_handle_scope(b->env, scope);
}

static void free_bell_handle(uv_handle_t *h) { free(h->data); }

static void on_bell_closed(uv_handle_t *h) {
  doorbell *b = h->data;
  napi_remove_async_cleanup_hook(b->cleanup);
  free(b);
}

/* The thread goes away: out of the table first (no ring reaches the fd after), then the fd and the handle. */
static void on_bell_teardown(napi_async_cleanup_hook_handle handle, void *arg) {
  (void)handle;
  doorbell *b = arg;
  uv_poll_stop(&b->poll);
  pthread_mutex_lock(&bells_lock);
  for (unsigned int i = 0; i < bells_count; i++) {
    if (bells[i].id == b->id) {
      bells[i] = bells[--bells_count];
      break;
    }
  }
  close(b->efd);
  pthread_mutex_unlock(&bells_lock);
  if (b->owner != NULL) b->owner->bell = NULL;
  napi_delete_reference(b->env, b->on_ring);
  napi_async_destroy(b->env, b->async);
  uv_close((uv_handle_t *)&b->poll, on_bell_closed);
}

static napi_value js_doorbell(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1) {
    napi_throw_type_error(env, NULL, "doorbell: onRing must be a function");
    return NULL;
  }
  if (!are_functions(env, argv, 0, 1, "doorbell: onRing must be a function")) return NULL;
  env_data *d = get_env_data(env);
  if (d == NULL) return throw_errno(env, ENOMEM, "doorbell");
  if (d->bell != NULL) return throw_errno(env, EEXIST, "doorbell: this thread has one");
  doorbell *b = calloc(1, sizeof *b);
  if (b == NULL) return throw_errno(env, ENOMEM, "doorbell");
  b->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (b->efd < 0) {
    int err = errno;
    free(b);
    return throw_errno(env, err, "doorbell: eventfd");
  }
  uv_loop_t *loop = NULL;
  napi_get_uv_event_loop(env, &loop);
  if (uv_poll_init(loop, &b->poll, b->efd) != 0) {
    close(b->efd);
    free(b);
    return throw_errno(env, EINVAL, "doorbell: uv_poll_init");
  }
  pthread_mutex_lock(&bells_lock);
  if (bells_count == MAX_DOORBELLS) {
    pthread_mutex_unlock(&bells_lock);
    /* The handle is initialised: it must be closed through the loop, which frees it. */
    close(b->efd);
    b->poll.data = b;
    uv_close((uv_handle_t *)&b->poll, free_bell_handle);
    return throw_errno(env, EMFILE, "doorbell: too many threads have one");
  }
  b->id = bells_next_id++;
  bells[bells_count].id = b->id;
  bells[bells_count].efd = b->efd;
  bells_count++;
  pthread_mutex_unlock(&bells_lock);
  b->env = env;
  b->owner = d;
  b->poll.data = b;
  napi_create_reference(env, argv[0], 1, &b->on_ring);
  napi_value name;
  napi_create_string_utf8(env, "netemu.doorbell", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, NULL, name, &b->async);
  uv_poll_start(&b->poll, UV_READABLE, on_bell);
  uv_unref((uv_handle_t *)&b->poll);
  d->bell = b;
  napi_add_async_cleanup_hook(env, on_bell_teardown, b, &b->cleanup);
  napi_value id;
  napi_create_uint32(env, b->id, &id);
  return id;
}

static napi_value js_ring(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  uint32_t id = 0;
  napi_valuetype t;
  if (argc < 1 || napi_typeof(env, argv[0], &t) != napi_ok || t != napi_number || napi_get_value_uint32(env, argv[0], &id) != napi_ok) {
    napi_throw_type_error(env, NULL, "ring: the doorbell id must be a number");
    return NULL;
  }
  int rung = 0;
  uint64_t one = 1;
  pthread_mutex_lock(&bells_lock);
  for (unsigned int i = 0; i < bells_count; i++) {
    if (bells[i].id == id) {
      /* EAGAIN only when the counter is near 2^64: it is rung already. */
      rung = write(bells[i].efd, &one, sizeof one) == (ssize_t)sizeof one || errno == EAGAIN;
      break;
    }
  }
  pthread_mutex_unlock(&bells_lock);
  napi_value result;
  napi_get_boolean(env, rung, &result);
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"open", NULL, js_open, NULL, NULL, NULL, napi_default, NULL},
      {"send", NULL, js_send, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, js_close, NULL, NULL, NULL, napi_default, NULL},
      {"detach", NULL, js_detach, NULL, NULL, NULL, napi_default, NULL},
      {"adopt", NULL, js_adopt, NULL, NULL, NULL, napi_default, NULL},
      {"openTap", NULL, js_open_tap, NULL, NULL, NULL, napi_default, NULL},
      {"openEthernet", NULL, js_open_ethernet, NULL, NULL, NULL, napi_default, NULL},
      {"adoptDevice", NULL, js_adopt_device, NULL, NULL, NULL, napi_default, NULL},
      {"setCoalescing", NULL, js_set_coalescing, NULL, NULL, NULL, napi_default, NULL},
      {"coalescing", NULL, js_coalescing, NULL, NULL, NULL, napi_default, NULL},
      {"doorbell", NULL, js_doorbell, NULL, NULL, NULL, napi_default, NULL},
      {"ring", NULL, js_ring, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

NAPI_MODULE_INIT() { return init(env, exports); }
