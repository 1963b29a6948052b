/* record_proc.c — the net collector's /proc lane: the target's socket tables
 * (/proc/PID/net/{tcp,tcp6,udp,udp6,unix}, which show the target's network namespace)
 * and its fds (/proc/PID/fd, "socket:[INODE]"), matched by inode. Parsers only: record.c
 * reads the files. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "collectors/net/record.h"

static const char *const tcp_states[] = {
    [1] = "ESTABLISHED", [2] = "SYN_SENT",  [3] = "SYN_RECV", [4] = "FIN_WAIT1",
    [5] = "FIN_WAIT2",	 [6] = "TIME_WAIT", [7] = "CLOSE",    [8] = "CLOSE_WAIT",
    [9] = "LAST_ACK",	 [10] = "LISTEN",   [11] = "CLOSING", [12] = "NEW_SYN_RECV",
};

const char *procnet_tcp_state(unsigned st)
{
	if (st < sizeof(tcp_states) / sizeof(tcp_states[0]) && tcp_states[st])
		return tcp_states[st];
	return "UNKNOWN";
}

const char *procnet_fmt_addr(char *buf, size_t len, int family, const uint8_t *addr, unsigned port)
{
	static const uint8_t zero[16];
	char a[INET6_ADDRSTRLEN];
	size_t alen = family == AF_INET6 ? 16 : 4;

	buf[0] = '\0';
	if (port == 0 && !memcmp(addr, zero, alen))
		return buf;
	if (!inet_ntop(family == AF_INET6 ? AF_INET6 : AF_INET, addr, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	if (family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", a, port);
	else
		snprintf(buf, len, "%s:%u", a, port);
	return buf;
}

/* "0100007F:1F90" (v4) or 32 hex digits (v6), each 32-bit word printed from its value in
 * host memory (the kernel's %08X of a __be32): the bytes are the word's in host order. */
static int parse_hexaddr(const char *p, size_t words, uint8_t *addr, unsigned *port,
			 const char **end)
{
	char w[9];
	size_t i;

	for (i = 0; i < words; i++) {
		uint32_t v;
		char *e;

		memcpy(w, p, 8);
		w[8] = '\0';
		v = (uint32_t)strtoul(w, &e, 16);
		if (e != w + 8)
			return -EINVAL;
		memcpy(addr + 4 * i, &v, 4);
		p += 8;
	}
	if (*p != ':')
		return -EINVAL;
	*port = (unsigned)strtoul(p + 1, (char **)end, 16);
	return *end == p + 1 ? -EINVAL : 0;
}

int procnet_parse_inet_line(const char *line, const char *proto, struct procnet_sock *s)
{
	bool v6 = strchr(proto, '6') != NULL, udp = proto[0] == 'u';
	size_t words = v6 ? 4 : 1;
	uint8_t la[16] = {0}, ra[16] = {0};
	unsigned lp, rp, st;
	unsigned long long txq, rxq, ino;
	const char *p = line;
	char *e;
	int n;

	memset(s, 0, sizeof(*s));
	while (*p == ' ')
		p++;
	strtoul(p, &e, 10); /* "sl:" */
	if (e == p || *e != ':')
		return -EINVAL;
	p = e + 1;
	while (*p == ' ')
		p++;
	if (strlen(p) < 8 * words || parse_hexaddr(p, words, la, &lp, &p))
		return -EINVAL;
	while (*p == ' ')
		p++;
	if (strlen(p) < 8 * words || parse_hexaddr(p, words, ra, &rp, &p))
		return -EINVAL;
	/* st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode */
	if (sscanf(p, " %x %llx:%llx %*x:%*x %*x %*u %*d %llu%n", &st, &txq, &rxq, &ino, &n) != 4)
		return -EINVAL;
	snprintf(s->proto, sizeof(s->proto), "%s", proto);
	procnet_fmt_addr(s->local, sizeof(s->local), v6 ? AF_INET6 : AF_INET, la, lp);
	procnet_fmt_addr(s->remote, sizeof(s->remote), v6 ? AF_INET6 : AF_INET, ra, rp);
	/* UDP reuses TCP's numbers: 7 is unconnected ("CLOSE"), 1 connected */
	snprintf(s->state, sizeof(s->state), "%s",
		 udp ? (st == 1 ? "CONNECTED" : "UNCONNECTED") : procnet_tcp_state(st));
	s->tx_queue = txq;
	s->rx_queue = rxq;
	s->has_queues = true;
	s->inode = ino;
	return 0;
}

int procnet_parse_unix_line(const char *line, struct procnet_sock *s)
{
	unsigned long long ino;
	unsigned type, st;
	int n = 0;
	const char *path;

	memset(s, 0, sizeof(*s));
	/* Num: RefCount Protocol Flags Type St Inode [Path] */
	if (sscanf(line, " %*x: %*x %*x %*x %x %x %llu%n", &type, &st, &ino, &n) != 3)
		return -EINVAL;
	snprintf(s->proto, sizeof(s->proto), "unix");
	snprintf(s->state, sizeof(s->state), "%s",
		 type == 1   ? "STREAM"
		 : type == 2 ? "DGRAM"
		 : type == 5 ? "SEQPACKET"
			     : "OTHER");
	path = line + n;
	while (*path == ' ')
		path++;
	snprintf(s->local, sizeof(s->local), "%.*s", (int)strcspn(path, "\n"), path);
	(void)st;
	s->inode = ino;
	return 0;
}

uint64_t procnet_socket_inode(const char *link)
{
	unsigned long long ino;
	char c;

	if (sscanf(link, "socket:[%llu%c", &ino, &c) != 2 || c != ']')
		return 0;
	return ino;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int procnet_parse_file(char *text, const char *proto, const uint64_t *inodes, size_t n,
		       int (*fn)(const struct procnet_sock *s, void *arg), void *arg)
{
	bool unix_ = !strcmp(proto, "unix");
	struct procnet_sock s;
	char *line, *save = NULL;
	int matched = 0, err;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (unix_ ? procnet_parse_unix_line(line, &s)
			  : procnet_parse_inet_line(line, proto, &s))
			continue; /* the header */
		if (!n || !bsearch(&s.inode, inodes, n, sizeof(*inodes), cmp_u64))
			continue;
		err = fn(&s, arg);
		if (err < 0)
			return err;
		matched++;
	}
	return matched;
}
