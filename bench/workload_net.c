/* workload_net.c — a target for the net overhead bench: a pair of connected sockets inside
 * one process, a send of 64 bytes on one end and a receive of them on the other, paced to
 * a rate; its own CPU time per send+recv pair is what a tracer costs it.
 *
 * usage: workload_net [-k tcp|unix|udp] [-c send|rw] [-r PAIRS_PER_S] [-n PAIRS] [-w]
 *   -k KIND   tcp: a loopback TCP connection (TCP_NODELAY; about 8 us a pair here);
 *             unix: a UNIX stream socketpair; udp: a UDP socket on 127.0.0.1 connected to
 *             itself. The last two are cheap enough for 10^5..10^6 syscalls per second on
 *             one CPU (default tcp)
 *   -c CALLS  send: send(2) and recv(2) (sendto and recvfrom, default); rw: write(2) and
 *             read(2), the calls the io collector's --io-files follows on any fd
 *   -r RATE   send+recv pairs per second (default 0: as fast as it can)
 *   -n PAIRS  make exactly PAIRS pairs (default 200000)
 *   -w        print "pid N" and wait for SIGUSR1 before starting
 * Prints: "pairs N cpu_ns T ns_per_pair X rate R" (T: user+system CPU time of the loop
 * alone, getrusage; R: the pairs per second achieved).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* A loopback TCP connection: the sending end into *C, the receiving one into *S. */
static void open_tcp(int *c, int *s)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int l, one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &len))
		die("listen");
	*c = socket(AF_INET, SOCK_STREAM, 0);
	if (*c < 0 || connect(*c, (struct sockaddr *)&a, sizeof(a)))
		die("connect");
	*s = accept(l, NULL, NULL);
	if (*s < 0)
		die("accept");
	setsockopt(*c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* A UDP socket bound to 127.0.0.1 and connected to itself: both ends are the one fd. */
static void open_udp(int *c, int *s)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	*c = socket(AF_INET, SOCK_DGRAM, 0);
	if (*c < 0 || bind(*c, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(*c, (struct sockaddr *)&a, &len) ||
	    connect(*c, (struct sockaddr *)&a, sizeof(a)))
		die("udp");
	*s = *c;
}

int main(int argc, char **argv)
{
	unsigned long long pairs = 200000, n;
	double rate = 0;
	const char *kind = "tcp";
	int rw = 0;
	int wait = 0, opt, c, s, sp[2];
	uint64_t c0, c1, t0, t1;
	char buf[64] = {0};

	while ((opt = getopt(argc, argv, "k:c:r:n:w")) != -1) {
		switch (opt) {
		case 'k':
			kind = optarg;
			break;
		case 'c':
			if (strcmp(optarg, "send") && strcmp(optarg, "rw")) {
				fprintf(stderr, "workload_net: -c %s: not send or rw\n", optarg);
				return 2;
			}
			rw = !strcmp(optarg, "rw");
			break;
		case 'r':
			rate = strtod(optarg, NULL);
			break;
		case 'n':
			pairs = strtoull(optarg, NULL, 10);
			break;
		case 'w':
			wait = 1;
			break;
		default:
			fprintf(
			    stderr,
			    "usage: workload_net [-k tcp|unix|udp] [-c send|rw] [-r PAIRS_PER_S] "
			    "[-n PAIRS] [-w]\n");
			return 2;
		}
	}
	if (!strcmp(kind, "tcp")) {
		open_tcp(&c, &s);
	} else if (!strcmp(kind, "udp")) {
		open_udp(&c, &s);
	} else if (!strcmp(kind, "unix")) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp))
			die("socketpair");
		c = sp[0];
		s = sp[1];
	} else {
		fprintf(stderr, "workload_net: -k %s: not tcp, unix or udp\n", kind);
		return 2;
	}
	if (wait && wait_for_start())
		return 1;
	c0 = cpu_ns();
	t0 = mono_ns();
	for (n = 0; n < pairs; n++) {
		/* a datagram is received whole; a stream's 64 bytes wait for all (64 bytes
		 * written at once to a stream socket are read at once: one read) */
		if (rw ? write(c, buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
			     read(s, buf, sizeof(buf)) != (ssize_t)sizeof(buf)
		       : send(c, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf) ||
			     recv(s, buf, sizeof(buf), s == c ? 0 : MSG_WAITALL) !=
				 (ssize_t)sizeof(buf))
			die("send/recv");
		if (rate > 0 && (n & 63) == 63) { /* pace in batches of 64 */
			uint64_t due = t0 + (uint64_t)((double)(n + 1) * 1e9 / rate),
				 now = mono_ns();

			if (due > now) {
				struct timespec ts = {(time_t)((due - now) / 1000000000ULL),
						      (long)((due - now) % 1000000000ULL)};

				nanosleep(&ts, NULL);
			}
		}
	}
	c1 = cpu_ns();
	t1 = mono_ns();
	printf("pairs %llu cpu_ns %llu ns_per_pair %.1f rate %.0f\n", n,
	       (unsigned long long)(c1 - c0), (double)(c1 - c0) / (double)n,
	       (double)n * 1e9 / (double)(t1 - t0));
	return 0;
}
