/* kfeature.c — the kernel feature table and its probes (see kfeature.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bpf.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "record/kfeature.h"

#define KF_BTF_PATH "/sys/kernel/btf/vmlinux"
#define KF_UPROBE_MULTI_TYPE 48 /* BPF_TRACE_UPROBE_MULTI (record/uprobe_link.c) */

static const struct kfeature_info table[KF_COUNT] = {
	[KF_BTF] = { "btf", "5.4", "access " KF_BTF_PATH, "kernel BTF" },
	[KF_TP_BTF] = { "tp_btf", "5.5", "load a tp_btf program on sched_switch",
			"BTF-typed tracepoint programs" },
	[KF_RINGBUF] = { "ringbuf", "5.8", "libbpf_probe_bpf_map_type(RINGBUF)",
			 "BPF ring buffers" },
	[KF_TASK_STORAGE] = { "task_storage", "5.11", "libbpf_probe_bpf_map_type(TASK_STORAGE)",
			      "per-task storage maps" },
	[KF_BPF_LOOP] = { "bpf_loop", "5.17", "libbpf_probe_bpf_helper(KPROBE, loop)",
			  "the bpf_loop helper" },
	[KF_FIND_VMA] = { "bpf_find_vma", "5.17", "libbpf_probe_bpf_helper(KPROBE, find_vma)",
			  "the bpf_find_vma helper" },
	[KF_ATTACH_COOKIE] = { "attach_cookie", "5.15",
			       "libbpf_probe_bpf_helper(KPROBE, get_attach_cookie)",
			       "BPF cookies on perf-event uprobes" },
	[KF_UPROBE_MULTI] = { "uprobe_multi", "6.6",
			      "BPF_LINK_CREATE uprobe_multi on \"/\" (EBADF: known)",
			      "uprobe_multi links" },
	[KF_TP_SOCK_SEND_LENGTH] = { "tp_btf:sock_send_length", "6.3",
				     "BTF typedef btf_trace_sock_send_length",
				     "tracepoint sock:sock_send_length" },
	[KF_TP_SOCK_RECV_LENGTH] = { "tp_btf:sock_recv_length", "6.3",
				     "BTF typedef btf_trace_sock_recv_length",
				     "tracepoint sock:sock_recv_length" },
	[KF_TP_IO_URING_SUBMIT] = { "tp_btf:io_uring_submit_req", "6.3",
				    "BTF typedef btf_trace_io_uring_submit_req",
				    "tracepoint io_uring:io_uring_submit_req" },
	[KF_TP_IO_URING_COMPLETE] = { "tp_btf:io_uring_complete", "5.5",
				      "BTF typedef btf_trace_io_uring_complete",
				      "tracepoint io_uring:io_uring_complete" },
};

/* each probe's answer once: 1 has it, 0 has not, -1 could not tell */
static struct {
	bool done;
	int have;
	char why[160];
} cache[KF_COUNT];

const struct kfeature_info *kfeature_info(enum kfeature f)
{
	return f < KF_COUNT ? &table[f] : NULL;
}

bool kfeature_refused(const char *name)
{
	const char *s = getenv("PTOP_TEST_REFUSE"), *p;
	size_t n = strlen(name);

	for (p = s; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

static struct btf *vmlinux_btf(void)
{
	static struct btf *btf;
	static bool tried;

	if (!tried) {
		tried = true;
		btf = btf__load_vmlinux_btf();
		if (!btf)
			btf = NULL;
	}
	return btf;
}

/* The tracepoint NAME in the kernel's BTF (what tp_btf attaches by). */
static int probe_tp(const char *name, char *why, size_t len)
{
	char tn[96];
	struct btf *btf = vmlinux_btf();

	if (!btf) {
		snprintf(why, len, "no kernel BTF");
		return 0;
	}
	snprintf(tn, sizeof(tn), "btf_trace_%s", name);
	if (btf__find_by_name_kind(btf, tn, BTF_KIND_TYPEDEF) > 0)
		return 1;
	snprintf(why, len, "the kernel has no tracepoint %s", name);
	return 0;
}

static int load_err(int fd, char *why, size_t len, const char *what)
{
	int err = -errno;

	if (fd >= 0) {
		close(fd);
		return 1;
	}
	if (err == -EPERM || err == -EACCES) {
		snprintf(why, len, "cannot probe %s: %s (needs CAP_BPF)", what, strerror(-err));
		return -1;
	}
	snprintf(why, len, "%s refused: %s", what, strerror(-err));
	return 0;
}

static int probe_tp_btf(char *why, size_t len)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_RAW_TP);
	struct btf *btf = vmlinux_btf();
	int id, fd;

	if (!btf) {
		snprintf(why, len, "no kernel BTF");
		return 0;
	}
	id = btf__find_by_name_kind(btf, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);
	if (id <= 0) {
		snprintf(why, len, "no btf_trace_sched_switch in the kernel's BTF");
		return 0;
	}
	opts.attach_btf_id = (__u32)id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "ptop_kf_tpbtf", "GPL", insns, 2, &opts);
	return load_err(fd, why, len, "a tp_btf program");
}

/* As libbpf 1.3's probe_uprobe_multi_link: a program of the attach type loads on any
 * kernel, the link is refused with EINVAL where the kernel does not know the type; on
 * one that does, "/" is not a file a uprobe goes on: EBADF. */
static int probe_uprobe_multi(char *why, size_t len)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = (enum bpf_attach_type)KF_UPROBE_MULTI_TYPE);
	struct {
		__u32 prog_fd, target_fd, attach_type, flags;
		__aligned_u64 path, offsets, ref_ctr_offsets, cookies;
		__u32 cnt, um_flags, pid;
	} attr;
	__u64 off = 0;
	int pfd, lfd, err, r;

	pfd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "ptop_kf_um", "GPL", insns, 2, &opts);
	if (pfd < 0)
		return load_err(pfd, why, len, "a uprobe_multi program");
	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = (__u32)pfd;
	attr.attach_type = KF_UPROBE_MULTI_TYPE;
	attr.path = (__u64)(uintptr_t)"/";
	attr.offsets = (__u64)(uintptr_t)&off;
	attr.cnt = 1;
	lfd = (int)syscall(SYS_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	err = errno;
	if (lfd >= 0) {
		close(lfd);
		r = 0;
		snprintf(why, len, "a uprobe_multi link on \"/\" was made: not the kernel's");
	} else if (err == EBADF) {
		r = 1;
	} else {
		r = 0;
		snprintf(why, len, "link refused: %s", strerror(err));
	}
	close(pfd);
	return r;
}

static int probe_libbpf(int r, char *why, size_t len, const char *what)
{
	if (r == 1)
		return 1;
	if (r == 0) {
		snprintf(why, len, "%s refused", what);
		return 0;
	}
	if (r == -EPERM || r == -EACCES) {
		snprintf(why, len, "cannot probe %s: %s (needs CAP_BPF)", what, strerror(-r));
		return -1;
	}
	snprintf(why, len, "%s: %s", what, strerror(-r));
	return 0;
}

static int probe(enum kfeature f, char *why, size_t len)
{
	switch (f) {
	case KF_BTF:
		if (access(KF_BTF_PATH, R_OK) == 0)
			return 1;
		snprintf(why, len, KF_BTF_PATH " is missing");
		return 0;
	case KF_TP_BTF:
		return probe_tp_btf(why, len);
	case KF_RINGBUF:
		return probe_libbpf(libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL), why,
				    len, "a ring buffer map");
	case KF_TASK_STORAGE:
		return probe_libbpf(libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL),
				    why, len, "a task storage map");
	case KF_BPF_LOOP:
		return probe_libbpf(libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_loop,
							    NULL),
				    why, len, "the helper bpf_loop");
	case KF_FIND_VMA:
		return probe_libbpf(libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
							    BPF_FUNC_find_vma, NULL),
				    why, len, "the helper bpf_find_vma");
	case KF_ATTACH_COOKIE:
		return probe_libbpf(libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
							    BPF_FUNC_get_attach_cookie, NULL),
				    why, len, "the helper bpf_get_attach_cookie");
	case KF_UPROBE_MULTI:
		return probe_uprobe_multi(why, len);
	case KF_TP_SOCK_SEND_LENGTH:
		return probe_tp("sock_send_length", why, len);
	case KF_TP_SOCK_RECV_LENGTH:
		return probe_tp("sock_recv_length", why, len);
	case KF_TP_IO_URING_SUBMIT:
		return probe_tp("io_uring_submit_req", why, len);
	case KF_TP_IO_URING_COMPLETE:
		return probe_tp("io_uring_complete", why, len);
	default:
		snprintf(why, len, "unknown feature");
		return 0;
	}
}

bool kfeature_have(enum kfeature f, char *why, size_t len)
{
	char buf[160];

	if (f >= KF_COUNT)
		return false;
	if (!cache[f].done) {
		buf[0] = '\0';
		if (kfeature_refused(table[f].name)) {
			cache[f].have = 0;
			snprintf(buf, sizeof(buf), "refused by PTOP_TEST_REFUSE");
		} else {
			cache[f].have = probe(f, buf, sizeof(buf));
		}
		snprintf(cache[f].why, sizeof(cache[f].why), "%s", buf);
		/* "could not tell" is not kept: privileges may come later (not here) */
		cache[f].done = cache[f].have >= 0;
	}
	if (why && len && cache[f].have != 1)
		snprintf(why, len, "needs Linux %s: %s (%s)", table[f].since, table[f].name,
			 cache[f].why);
	return cache[f].have == 1;
}
