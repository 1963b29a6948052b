/* uprobe_link.c — uprobes as BPF uprobe_multi links (see uprobe_link.h).
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
	int fd;
};

int uprobe_link__prepare(struct bpf_program *prog)
{
	return bpf_program__set_expected_attach_type(prog, (enum bpf_attach_type)UL_ATTACH_TYPE);
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
	l = malloc(sizeof(*l));
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

	close(l->fd);
	free(l);
	return NULL;
}

void uprobe_link__destroy(struct uprobe_link **links, int n)
{
	bpf_util__each_parallel((void **)links, n, release_one);
}
