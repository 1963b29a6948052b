/* uprobe_link.c — uprobes as BPF uprobe_multi links, or as perf-event uprobes where the
 * kernel has no such links (see uprobe_link.h).
 *
 * libbpf 1.1 (Debian 12) knows neither the attach type nor the link, so the link is
 * made with the bpf() syscall: BPF_LINK_CREATE with the uprobe_multi part of union
 * bpf_attr, laid out here as the kernel's UAPI has it since 6.6 (the system's
 * <linux/bpf.h> is older).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bpf.h>

#include <bpf/libbpf.h>

#include "record/bpf_util.h"
#include "record/collector.h"
#include "record/kfeature.h"
#include "record/uprobe_link.h"

#define UL_ATTACH_TYPE 48 /* BPF_TRACE_UPROBE_MULTI */
#define UL_F_RETURN 1	  /* BPF_F_UPROBE_MULTI_RETURN */
#define UL_MAX 64	  /* offsets a link takes here */

/* union bpf_attr's link_create, with its uprobe_multi member */
struct ul_create_attr {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__aligned_u64 path;
	__aligned_u64 offsets;
	__aligned_u64 ref_ctr_offsets;
	__aligned_u64 cookies;
	__u32 cnt;
	__u32 um_flags;
	__u32 pid;
};

struct uprobe_link {
	int fd;			/* the uprobe_multi link; -1: perf-event uprobes */
	size_t n;
	struct bpf_link *perf[]; /* N perf-event uprobes, one per offset */
};

bool uprobe_link__multi(char *why, size_t len)
{
	return kfeature_have(KF_UPROBE_MULTI, why, len);
}

int uprobe_link__lanes(struct collector *c, bool cookies)
{
	char why[200], cwhy[200];

	if (uprobe_link__multi(why, sizeof(why))) {
		collector_lane(c, "uprobe_multi", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
			       c->source, "%s", "");
		collector_lane(c, "perf_uprobe", PTOP__V1__PROBE_STATE__PROBE_STATE_STANDBY,
			       c->source, "not needed: uprobe_multi links work");
		return 0;
	}
	collector_lane(c, "uprobe_multi", PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED,
		       c->source, "%s", why);
	if (cookies && !kfeature_have(KF_ATTACH_COOKIE, cwhy, sizeof(cwhy))) {
		collector_lane(c, "perf_uprobe", PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED,
			       c->source, "%s", cwhy);
		return -EOPNOTSUPP;
	}
	collector_lane(c, "perf_uprobe", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE, c->source,
		       "%s", "");
	collector_lane_instead(c, "uprobe_multi", "perf_uprobe");
	return 0;
}

int uprobe_link__prepare(struct bpf_program *prog)
{
	/* the attach type is the program's from its load on: a perf-event uprobe takes
	 * no program made for uprobe_multi links, so the choice is made here, by probe */
	if (!uprobe_link__multi(NULL, 0))
		return 0;
	return bpf_program__set_expected_attach_type(prog, (enum bpf_attach_type)UL_ATTACH_TYPE);
}

/* N perf-event uprobes, one per offset, each with its cookie. */
static struct uprobe_link *attach_perf(const struct bpf_program *prog, pid_t pid,
				       const char *path, const uint64_t *offsets,
				       const uint64_t *cookies, size_t n, bool retprobe)
{
	struct uprobe_link *l = calloc(1, sizeof(*l) + n * sizeof(l->perf[0]));
	size_t i;
	int err;

	if (!l) {
		errno = ENOMEM;
		return NULL;
	}
	l->fd = -1;
	for (i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, o, .retprobe = retprobe,
			    .bpf_cookie = cookies ? cookies[i] : 0);

		l->perf[i] = bpf_program__attach_uprobe_opts(prog, pid, path, (size_t)offsets[i],
							     &o);
		if (!l->perf[i]) {
			err = errno;
			bpf_util__destroy_links(l->perf, (int)i);
			free(l);
			errno = err;
			return NULL;
		}
		l->n = i + 1;
	}
	return l;
}

struct uprobe_link *uprobe_link__attach(const struct bpf_program *prog, pid_t pid, const char *path,
					const uint64_t *offsets, const uint64_t *cookies, size_t n,
					bool retprobe)
{
	struct ul_create_attr attr;
	struct uprobe_link *l;
	__u64 offs[UL_MAX], cks[UL_MAX];
	size_t i;
	int fd;

	if (!n || n > UL_MAX || bpf_program__fd(prog) < 0) {
		errno = EINVAL;
		return NULL;
	}
	if (!uprobe_link__multi(NULL, 0))
		return attach_perf(prog, pid, path, offsets, cookies, n, retprobe);
	for (i = 0; i < n; i++) {
		offs[i] = offsets[i];
		cks[i] = cookies ? cookies[i] : 0;
	}
	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = (__u32)bpf_program__fd(prog);
	attr.attach_type = UL_ATTACH_TYPE;
	attr.path = (__u64)(uintptr_t)path;
	attr.offsets = (__u64)(uintptr_t)offs;
	attr.cookies = (__u64)(uintptr_t)cks;
	attr.cnt = (__u32)n;
	attr.um_flags = retprobe ? UL_F_RETURN : 0;
	attr.pid = (__u32)pid;
	fd = (int)syscall(SYS_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	if (fd < 0)
		return NULL;
	l = calloc(1, sizeof(*l));
	if (!l) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	l->fd = fd;
	return l;
}

static void *release_one(void *arg)
{
	struct uprobe_link *l = arg;

	if (l->fd >= 0)
		close(l->fd);
	else
		bpf_util__destroy_links(l->perf, (int)l->n);
	free(l);
	return NULL;
}

void uprobe_link__destroy(struct uprobe_link **links, int n)
{
	bpf_util__each_parallel((void **)links, n, release_one);
}
