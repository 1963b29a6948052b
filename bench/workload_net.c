/* workload_net.c — a target for the net overhead bench: a loopback TCP connection inside
 * one process, a send of 64 bytes on one end and a receive of them on the other, paced to
 * a rate; its own CPU time per send+recv pair is what a tracer costs it.
 *
 * usage: workload_net [-r PAIRS_PER_S] [-n PAIRS] [-w]
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

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ULL + (uint64_t)tv.tv_usec * 1000ULL;
}

static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

int main(int argc, char **argv)
{
	unsigned long long pairs = 200000, n;
	double rate = 0;
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int wait = 0, opt, sig, l, c, s, one = 1;
	uint64_t c0, c1, t0, t1;
	char buf[64] = {0};
	sigset_t set;

	while ((opt = getopt(argc, argv, "r:n:w")) != -1) {
		switch (opt) {
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
			fprintf(stderr, "usage: workload_net [-r PAIRS_PER_S] [-n PAIRS] [-w]\n");
			return 2;
		}
	}
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &len))
		die("listen");
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)))
		die("connect");
	s = accept(l, NULL, NULL);
	if (s < 0)
		die("accept");
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (wait) {
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		printf("pid %d\n", (int)getpid());
		fflush(stdout);
		if (sigwait(&set, &sig) != 0)
			return 1;
	}
	c0 = cpu_ns();
	t0 = mono_ns();
	for (n = 0; n < pairs; n++) {
		if (send(c, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf) ||
		    recv(s, buf, sizeof(buf), MSG_WAITALL) != (ssize_t)sizeof(buf))
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
