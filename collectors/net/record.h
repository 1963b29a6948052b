/* record.h — the net collector's /proc lane parsers (record_proc.c), shared with its tests
 * (test_net.c). */
#ifndef PTOP_NET_RECORD_H
#define PTOP_NET_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One line of /proc/PID/net/{tcp,tcp6,udp,udp6,unix}. */
struct procnet_sock {
	uint64_t inode;
	char proto[8];		/* "tcp", "tcp6", "udp", "udp6", "unix" */
	char local[112];	/* "127.0.0.1:80", "[::1]:80", a unix path ("@name": abstract) */
	char remote[64];	/* "" for none (0.0.0.0:0, [::]:0) */
	char state[16];		/* "ESTABLISHED", ...; unix: "STREAM", "DGRAM", "SEQPACKET" */
	uint64_t tx_queue, rx_queue; /* unix: 0, 0 (not in the file) */
	bool has_queues;
};

/* Address FAMILY (AF_INET, AF_INET6) ADDR (network order, 4 or 16 bytes) and PORT (host
 * order) into BUF as "a.b.c.d:p" or "[v6]:p"; "" for the unspecified address and port 0.
 * Returns BUF. */
const char *procnet_fmt_addr(char *buf, size_t len, int family, const uint8_t *addr,
			     unsigned port);

/* The TCP state's name (linux/tcp_states.h numbering), "UNKNOWN" out of range. */
const char *procnet_tcp_state(unsigned st);

/* Parse one data line of /proc/net/{tcp,tcp6,udp,udp6} (PROTO: "tcp", ..., its family by
 * the name's "6") into S. 0, or -EINVAL for a line that is not one (the header). */
int procnet_parse_inet_line(const char *line, const char *proto, struct procnet_sock *s);

/* Parse one data line of /proc/net/unix into S. 0 or -EINVAL. */
int procnet_parse_unix_line(const char *line, struct procnet_sock *s);

/* The inode of a /proc/PID/fd link's target "socket:[12345]", 0 when it is not a socket. */
uint64_t procnet_socket_inode(const char *link);

/* For each line of TEXT, a whole /proc/net file of kind PROTO ("unix" or an inet one),
 * whose inode is in INODES (N, sorted ascending), call FN. Returns lines parsed that
 * matched, or a negative errno from FN. */
int procnet_parse_file(char *text, const char *proto, const uint64_t *inodes, size_t n,
		       int (*fn)(const struct procnet_sock *s, void *arg), void *arg);

#endif
