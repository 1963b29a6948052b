// SPDX-License-Identifier: GPL-2.0
/* net.bpf.c — the target's sockets, aggregated in the kernel: one hash map entry per
 * socket (key: its socket cookie, unique for the socket's life, never reused as a freed
 * struct sock's address is), cumulative bytes, calls, TCP state times and
 * errors. No event per byte or per call: collectors/net/record.c reads the map each
 * interval and diffs.
 *
 * tp_btf only (no kprobes on this kernel):
 *   sock_send_length, sock_recv_length  every sendmsg/recvmsg of every socket family; the
 *        target filter runs first; the target's first call on a socket adds its entry.
 *   inet_sock_set_state  TCP: SYN_SENT and LISTEN by the target add an entry (a connect,
 *        a listen); other changes update an entry that exists (ESTABLISHED: connect
 *        latency; CLOSE). They may run in softirq, in another task: matched by socket.
 *   tcp_receive_reset, tcp_send_reset  a reset received (mid-stream) or sent, on a socket
 *        followed.
 *   tcp_retransmit_skb  a retransmit on a socket followed.
 *   inet_sk_error_report  sk_err: ECONNREFUSED (refused, with the SYN-to-error latency),
 *        ETIMEDOUT, EHOSTUNREACH/ENETUNREACH; others counted as other_err.
 * Each TCP state change of a socket followed goes into its ring of the newest
 * NET_MAX_TRANS (time, old, new); record.c reads the ones since its previous poll.
 *
 * raw_tp/sys_exit, connect() only: a connect of the target that fails in the call itself
 * (no route: ENETUNREACH, EHOSTUNREACH, EACCES; a UNIX socket nobody listens on:
 * ECONNREFUSED; ...) never reaches the socket's error report. Its socket is found from
 * the fd (task->files, probe reads: a raw tracepoint has no socket cookie, so the key is
 * the inode) and counted in net_cfails. A TCP connect that sent its SYN and then failed
 * was counted by inet_sk_error_report already, which notes the socket's inode in
 * net_reported: the connect call that returns that error (a blocking one, or a second
 * call after a non-blocking one) is left out here, once. EINPROGRESS, EALREADY, EINTR
 * (the connect goes on) and EISCONN (connected already) are not failures.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "collectors/net/net.h"
#include "filter.bpf.h"
#include "sysregs.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define AF_UNIX 1
#define AF_INET 2
#define AF_INET6 10
#define IPPROTO_TCP 6
#define IPPROTO_UDP 17
#define MSG_PEEK 2
#define EAGAIN 11
#define ETIMEDOUT 110
#define ECONNREFUSED 111
#define EHOSTUNREACH 113
#define ENETUNREACH 101
#define ECONNRESET 104
#define EPIPE 32
#define TCP_ESTABLISHED 1
#define TCP_SYN_SENT 2
#define TCP_CLOSE 7
#define TCP_LISTEN 10

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NET_MAX_SOCKS);
	__type(key, __u64);
	__type(value, struct net_sock);
} net_socks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NET_MAX_CFAIL);
	__type(key, __u64);
	__type(value, struct net_cfail);
} net_cfails SEC(".maps");

/* Inodes of the followed sockets whose error inet_sk_error_report counted, until a
 * connect call on them returns that error (then it is not counted a second time). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} net_reported SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NET_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} net_counters SEC(".maps");

static __always_inline void counter_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&net_counters, &idx);

	if (v)
		*v += 1;
}

/* Addresses and ports of SK into S (they change: a connect binds its port after SYN_SENT). */
static __always_inline void read_addrs(struct net_sock *s, const struct sock *sk)
{
	s->lport = BPF_CORE_READ(sk, __sk_common.skc_num);
	s->rport = __builtin_bswap16(BPF_CORE_READ(sk, __sk_common.skc_dport));
	if (s->family == AF_INET) {
		__u32 l = BPF_CORE_READ(sk, __sk_common.skc_rcv_saddr);
		__u32 r = BPF_CORE_READ(sk, __sk_common.skc_daddr);

		__builtin_memcpy(s->laddr, &l, 4);
		__builtin_memcpy(s->raddr, &r, 4);
	} else if (s->family == AF_INET6) {
		BPF_CORE_READ_INTO(&s->laddr, sk, __sk_common.skc_v6_rcv_saddr.in6_u.u6_addr8);
		BPF_CORE_READ_INTO(&s->raddr, sk, __sk_common.skc_v6_daddr.in6_u.u6_addr8);
	}
}

/* The zero entries new ones are made from (.rodata: too large for the BPF stack). */
const volatile struct net_sock net_sock_zero = {};
const volatile struct net_cfail net_cfail_zero = {};

/* A new entry for SK (the target's), or NULL when the map is full (counted). */
static __always_inline struct net_sock *sock_add(const struct sock *sk, __u64 key, __u64 now)
{
	struct net_sock *s;
	__u16 proto;
	long err;

	err = bpf_map_update_elem(&net_socks, &key, (void *)&net_sock_zero, BPF_ANY);
	if (err) {
		counter_inc(NET_CNT_MAP_FULL);
		return NULL;
	}
	s = bpf_map_lookup_elem(&net_socks, &key);
	if (!s)
		return NULL;
	s->family = BPF_CORE_READ(sk, __sk_common.skc_family);
	proto = BPF_CORE_READ(sk, sk_protocol);
	if (s->family == AF_UNIX)
		s->proto = NET_PROTO_UNIX;
	else if ((s->family == AF_INET || s->family == AF_INET6) && proto == IPPROTO_TCP)
		s->proto = NET_PROTO_TCP;
	else if ((s->family == AF_INET || s->family == AF_INET6) && proto == IPPROTO_UDP)
		s->proto = NET_PROTO_UDP;
	else
		s->proto = NET_PROTO_OTHER;
	s->inode = BPF_CORE_READ(sk, sk_socket, file, f_inode, i_ino);
	s->state = BPF_CORE_READ(sk, __sk_common.skc_state);
	s->type = BPF_CORE_READ(sk, sk_type);
	read_addrs(s, sk);
	s->first_ns = now; /* last: record.c tells a new entry by it */
	return s;
}

/* TCP figures of the socket at a send or receive: one helper call, then plain loads. */
static __always_inline void read_tcp(struct net_sock *s, struct sock *sk)
{
	struct tcp_sock *tp = bpf_skc_to_tcp_sock(sk);

	if (!tp)
		return;
	s->srtt_us = tp->srtt_us >> 3;
	s->segs_out = tp->segs_out;
	s->segs_in = tp->segs_in;
	s->total_retrans = tp->total_retrans;
}

static __always_inline int on_length(struct sock *sk, int ret, int flags, bool tx)
{
	__u64 key, now;
	struct net_sock *s;

	if (!ptop_current_is_target(bpf_get_current_pid_tgid()) || !sk)
		return 0;
	key = bpf_get_socket_cookie(sk);
	if (!tx && (flags & MSG_PEEK))
		return 0; /* a peek consumes nothing: the read that follows counts */
	s = bpf_map_lookup_elem(&net_socks, &key);
	if (!s) {
		now = bpf_ktime_get_ns();
		s = sock_add(sk, key, now);
		if (!s)
			return 0;
	}
	if (ret > 0) {
		if (tx) {
			__sync_fetch_and_add(&s->tx_bytes, ret);
			__sync_fetch_and_add(&s->tx_calls, 1);
		} else {
			__sync_fetch_and_add(&s->rx_bytes, ret);
			__sync_fetch_and_add(&s->rx_calls, 1);
		}
	} else if (ret < 0 && ret != -EAGAIN) {
		if (tx)
			__sync_fetch_and_add(&s->tx_errs, 1);
		else
			__sync_fetch_and_add(&s->rx_errs, 1);
	}
	if (s->proto == NET_PROTO_TCP)
		read_tcp(s, sk);
	return 0;
}

SEC("tp_btf/sock_send_length")
int BPF_PROG(net_send, struct sock *sk, int ret, int flags)
{
	return on_length(sk, ret, flags, true);
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(net_recv, struct sock *sk, int ret, int flags)
{
	return on_length(sk, ret, flags, false);
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(net_state, const struct sock *sk, const int oldstate, const int newstate)
{
	__u64 key = bpf_get_socket_cookie((void *)sk), now = bpf_ktime_get_ns();
	struct net_sock *s;

	if (BPF_CORE_READ(sk, sk_protocol) != IPPROTO_TCP)
		return 0;
	s = bpf_map_lookup_elem(&net_socks, &key);
	if ((newstate == TCP_SYN_SENT || newstate == TCP_LISTEN) &&
	    ptop_current_is_target(bpf_get_current_pid_tgid())) {
		/* a connect or a listen: a socket of the target (a connect again after a
		 * failed one keeps its entry, with a new SYN time) */
		if (!s)
			s = sock_add(sk, key, now);
		if (!s)
			return 0;
		if (newstate == TCP_SYN_SENT) {
			s->syn_ns = now;
			s->est_ns = 0;
		}
	}
	if (!s)
		return 0;
	{
		__u32 i = s->ntrans & (NET_MAX_TRANS - 1);

		s->trans[i].ns = now;
		s->trans[i].oldstate = (__u8)oldstate;
		s->trans[i].newstate = (__u8)newstate;
		s->ntrans++;
	}
	s->state = newstate;
	if (newstate != TCP_CLOSE) /* at CLOSE the local port is released already */
		read_addrs(s, sk);
	if (oldstate == TCP_SYN_SENT && newstate == TCP_ESTABLISHED)
		s->est_ns = now;
	if (newstate == TCP_CLOSE)
		s->close_ns = now;
	return 0;
}

SEC("tp_btf/tcp_receive_reset")
int BPF_PROG(net_rst_in, struct sock *sk)
{
	__u64 key = bpf_get_socket_cookie((void *)sk);
	struct net_sock *s = bpf_map_lookup_elem(&net_socks, &key);

	if (!s)
		return 0;
	read_addrs(s, sk); /* a refused connect's local port, before CLOSE releases it */
	/* a reset answering a SYN is a refusal: inet_sk_error_report counts it */
	if (BPF_CORE_READ(sk, __sk_common.skc_state) == TCP_SYN_SENT)
		return 0;
	__sync_fetch_and_add(&s->reset_rcvd, 1);
	s->err_ns = bpf_ktime_get_ns();
	s->err_lat_ns = 0;
	return 0;
}

SEC("tp_btf/tcp_send_reset")
int BPF_PROG(net_rst_out, const struct sock *sk, const struct sk_buff *skb)
{
	struct net_sock *s;
	__u64 key;

	if (!sk)
		return 0; /* a reset for no socket (a closed port): not the target's */
	key = bpf_get_socket_cookie((void *)sk);
	s = bpf_map_lookup_elem(&net_socks, &key);
	if (!s)
		return 0;
	__sync_fetch_and_add(&s->reset_sent, 1);
	s->err_ns = bpf_ktime_get_ns();
	s->err_lat_ns = 0;
	return 0;
}

SEC("tp_btf/tcp_retransmit_skb")
int BPF_PROG(net_retrans, const struct sock *sk)
{
	__u64 key = bpf_get_socket_cookie((void *)sk);
	struct net_sock *s = bpf_map_lookup_elem(&net_socks, &key);

	if (s)
		__sync_fetch_and_add(&s->retrans, 1);
	return 0;
}

SEC("tp_btf/inet_sk_error_report")
int BPF_PROG(net_error, const struct sock *sk)
{
	__u64 key = bpf_get_socket_cookie((void *)sk), now;
	struct net_sock *s = bpf_map_lookup_elem(&net_socks, &key);
	int err;

	if (!s)
		return 0;
	/* sock_queue_err_skb reports too, for a message it just queued on the error queue
	 * (an ICMP error, a timestamp, a zerocopy completion): not a socket error of its
	 * own. An ICMP error after a SYN is queued so (and reported) and then reported by
	 * tcp_v4_err, both with sk_err set: counted once, on the second report. The queue's
	 * tail changes at the first only. */
	{
		__u64 tail = (__u64)BPF_CORE_READ(sk, sk_error_queue.prev);

		if (BPF_CORE_READ(sk, sk_error_queue.qlen) && tail != s->errq_tail) {
			s->errq_tail = tail;
			return 0;
		}
	}
	err = BPF_CORE_READ(sk, sk_err);
	if (err == 0 || err == ECONNRESET || err == EPIPE)
		return 0; /* no error (read already), or the reset tcp_receive_reset counted */
	now = bpf_ktime_get_ns();
	if (err == ECONNREFUSED)
		__sync_fetch_and_add(&s->refused, 1);
	else if (err == ETIMEDOUT)
		__sync_fetch_and_add(&s->timeout, 1);
	else if (err == EHOSTUNREACH || err == ENETUNREACH)
		__sync_fetch_and_add(&s->unreach, 1);
	else
		__sync_fetch_and_add(&s->other_err, 1);
	s->last_err = err;
	s->err_ns = now;
	s->err_lat_ns = s->syn_ns && !s->est_ns && now > s->syn_ns ? now - s->syn_ns : 0;
	{
		__u8 one = 1;

		bpf_map_update_elem(&net_reported, &s->inode, &one, BPF_ANY);
	}
	return 0;
}

#define EINTR 4
#define EBADF 9
#define EFAULT 14
#define ENOTSOCK 88
#define EISCONN 106
#define EALREADY 114
#define EINPROGRESS 115
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514

#if defined(__TARGET_ARCH_x86)
#define NR_CONNECT 42
#elif defined(__TARGET_ARCH_arm64)
#define NR_CONNECT 203
#else
#error "net.bpf.c: add connect's syscall number for this architecture"
#endif

SEC("raw_tp/sys_exit")
int net_connect_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	long ret = (long)ctx->args[1];
	struct task_struct *task;
	struct file **fdarr, *f = NULL;
	struct socket *sock;
	struct sock *sk;
	struct net_cfail *c;
	__u64 ino, now;
	__u32 fd, max;
	int e;

	if (ret >= 0 || ret < -4095 || ptop_sys_nr(regs) != NR_CONNECT)
		return 0;
	if (!ptop_current_is_target(bpf_get_current_pid_tgid()))
		return 0;
	e = (int)-ret;
	if (e == EINPROGRESS || e == EALREADY || e == EISCONN || e == EINTR ||
	    e == ERESTARTSYS || e == ERESTARTNOINTR || e == ERESTARTNOHAND || e == EBADF ||
	    e == ENOTSOCK || e == EFAULT)
		return 0; /* not a failure of a socket's connect (EISCONN: connected already) */
	fd = (__u32)ptop_sys_arg(regs, 1);
	task = (struct task_struct *)bpf_get_current_task();
	max = BPF_CORE_READ(task, files, fdt, max_fds);
	if (fd >= max)
		return 0;
	fdarr = BPF_CORE_READ(task, files, fdt, fd);
	if (bpf_probe_read_kernel(&f, sizeof(f), &fdarr[fd]) || !f)
		return 0;
	ino = BPF_CORE_READ(f, f_inode, i_ino);
	if (bpf_map_lookup_elem(&net_reported, &ino)) {
		/* the socket reported this error (its SYN went out): counted there */
		bpf_map_delete_elem(&net_reported, &ino);
		return 0;
	}
	sock = (struct socket *)BPF_CORE_READ(f, private_data);
	sk = BPF_CORE_READ(sock, sk);
	if (!sk)
		return 0;
	now = bpf_ktime_get_ns();
	c = bpf_map_lookup_elem(&net_cfails, &ino);
	if (!c) {
		__u16 proto = BPF_CORE_READ(sk, sk_protocol), fam;

		if (bpf_map_update_elem(&net_cfails, &ino, (void *)&net_cfail_zero, BPF_NOEXIST) &&
		    !bpf_map_lookup_elem(&net_cfails, &ino)) {
			counter_inc(NET_CNT_CFAIL_FULL);
			return 0;
		}
		c = bpf_map_lookup_elem(&net_cfails, &ino);
		if (!c)
			return 0;
		fam = BPF_CORE_READ(sk, __sk_common.skc_family);
		c->family = fam;
		c->type = BPF_CORE_READ(sk, sk_type);
		if (fam == AF_UNIX)
			c->proto = NET_PROTO_UNIX;
		else if ((fam == AF_INET || fam == AF_INET6) && proto == IPPROTO_TCP)
			c->proto = NET_PROTO_TCP;
		else if ((fam == AF_INET || fam == AF_INET6) && proto == IPPROTO_UDP)
			c->proto = NET_PROTO_UDP;
		else
			c->proto = NET_PROTO_OTHER;
		if (!c->first_ns)
			c->first_ns = now;
	}
	/* the address asked for, from the caller's sockaddr */
	{
		void *ua = (void *)ptop_sys_arg(regs, 2);
		__u16 fam = 0;

		bpf_probe_read_user(&fam, sizeof(fam), ua);
		if (fam == AF_INET) {
			__u16 port = 0;

			bpf_probe_read_user(&port, sizeof(port), ua + 2);
			c->rport = __builtin_bswap16(port);
			__builtin_memset(c->raddr, 0, sizeof(c->raddr));
			bpf_probe_read_user(c->raddr, 4, ua + 4);
		} else if (fam == AF_INET6) {
			__u16 port = 0;

			bpf_probe_read_user(&port, sizeof(port), ua + 2);
			c->rport = __builtin_bswap16(port);
			bpf_probe_read_user(c->raddr, 16, ua + 8);
		} else if (fam == AF_UNIX) {
			bpf_probe_read_user(c->path, sizeof(c->path) - 1, ua + 2);
			c->path[sizeof(c->path) - 1] = '\0';
		}
	}
	if (e == ECONNREFUSED)
		__sync_fetch_and_add(&c->refused, 1);
	else if (e == ENETUNREACH || e == EHOSTUNREACH)
		__sync_fetch_and_add(&c->unreach, 1);
	else if (e == ETIMEDOUT)
		__sync_fetch_and_add(&c->timeout, 1);
	else
		__sync_fetch_and_add(&c->other, 1);
	c->last_err = e;
	c->err_ns = now;
	return 0;
}
