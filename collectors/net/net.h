/* net.h — structs and constants shared by collectors/net/net.bpf.c and collectors/net/record.c. */
#ifndef PTOP_BPF_NET_H
#define PTOP_BPF_NET_H

#define NET_MAX_SOCKS 16384	/* sockets followed at once (hash map entries) */
#define NET_MAX_TRANS 8	/* state changes kept per socket between two polls (a ring, a
			 * power of 2; a TCP connection makes 5 or 6 in its life) */
#define NET_MAX_CFAIL 4096	/* sockets with a failed connect() followed at once */

/* net_sock.proto */
#define NET_PROTO_TCP 1
#define NET_PROTO_UDP 2
#define NET_PROTO_UNIX 3
#define NET_PROTO_OTHER 4

/* One TCP state change (inet_sock_set_state). */
struct net_trans {
	__u64 ns;		/* when (bpf_ktime_get_ns) */
	__u8 oldstate, newstate;	/* linux/tcp_states.h */
	__u8 pad[6];
};

/* One socket of the target, cumulative since the program first saw it (record.c diffs
 * successive reads). Key: its socket cookie (unique while the system runs). */
struct net_sock {
	__u64 inode;		/* its socket inode (matches /proc/PID/fd and /proc/PID/net/x) */
	__u64 first_ns;		/* when the program first saw it */
	__u64 tx_bytes, rx_bytes;	/* sum of sock_send_length / sock_recv_length > 0 */
	__u64 tx_calls, rx_calls;	/* calls with a positive length */
	__u64 tx_errs, rx_errs;		/* calls with a negative result (not -EAGAIN) */
	__u64 segs_out, segs_in;	/* TCP: tcp_sock counters at the last send/recv */
	__u64 srtt_us;			/* TCP: smoothed RTT at the last send/recv (us), 0: none */
	__u64 total_retrans;		/* TCP: tcp_sock.total_retrans at the last send/recv */
	__u64 retrans;			/* tcp:tcp_retransmit_skb on it */
	__u64 syn_ns;			/* TCP: when it entered SYN_SENT (0: not seen) */
	__u64 est_ns;			/* TCP: when SYN_SENT became ESTABLISHED (0: not seen) */
	__u64 close_ns;			/* TCP: when it entered CLOSE (0: not yet) */
	/* errors, cumulative, and the newest one's time and SYN-to-error latency */
	__u64 refused, reset_rcvd, reset_sent, timeout, unreach, other_err;
	__u64 err_ns, err_lat_ns;
	__u64 errq_tail;		/* the newest skb on sk_error_queue at the last error
					 * report (an address, compared only): see net_error */
	__u32 last_err;			/* sk_err of the newest error report */
	__u16 family;			/* AF_INET, AF_INET6, AF_UNIX, ... */
	__u16 proto;			/* NET_PROTO_* */
	__u16 lport, rport;		/* host order */
	__u8 state;			/* TCP state (linux/tcp_states.h) at the last event */
	__u8 type;			/* sk_type: SOCK_STREAM 1, SOCK_DGRAM 2, SOCK_SEQPACKET 5 */
	__u8 pad[2];
	__u8 laddr[16], raddr[16];	/* v4 in the first 4 bytes */
	__u32 ntrans;			/* state changes seen, cumulative: trans[i % NET_MAX_TRANS] */
	__u32 pad2;
	struct net_trans trans[NET_MAX_TRANS];	/* the newest NET_MAX_TRANS, a ring */
};

/* The connect() calls of the target on one socket that failed in the call itself (a route
 * that is unreachable, a UNIX socket nobody listens on, ...): not an error report of the
 * socket (inet_sk_error_report counts those, with the socket in net_sock). Key: the
 * socket's inode. Cumulative, the newest call's errno and address. */
struct net_cfail {
	__u64 first_ns;			/* when the program first saw it */
	__u64 err_ns;			/* the newest failure */
	__u64 refused, unreach, timeout, other;	/* by errno: ECONNREFUSED; ENETUNREACH,
					 * EHOSTUNREACH; ETIMEDOUT; any other */
	__u32 last_err;			/* the newest failure's errno */
	__u16 family;			/* the socket's: AF_INET, AF_INET6, AF_UNIX */
	__u16 proto;			/* NET_PROTO_* */
	__u16 rport;			/* the address connected to (host order) */
	__u8 type;			/* sk_type */
	__u8 pad[5];
	__u8 raddr[16];
	char path[64];			/* AF_UNIX: the path connected to ('@' first: abstract) */
};

/* Indexes of the per-CPU counter array `net_counters`: what could not be followed. */
enum net_counter {
	NET_CNT_MAP_FULL = 0,	/* a new socket of the target found the map full */
	NET_CNT_CFAIL_FULL = 1,	/* a failed connect() found the net_cfails map full */
	NET_CNT_MAX = 2,
};

#endif
