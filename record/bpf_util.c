/* bpf_util.c — libbpf message capture, privilege check and map helpers shared by
 * the eBPF collectors (see bpf_util.h). */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/bpf_util.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool log_verbose;
static bool log_installed;
static char log_first[256];

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	va_list copy;
	size_t n;

	if (level == LIBBPF_WARN && !log_first[0]) {
		va_copy(copy, ap);
		vsnprintf(log_first, sizeof(log_first), fmt, copy);
		va_end(copy);
		n = strlen(log_first);
		while (n && (log_first[n - 1] == '\n' || log_first[n - 1] == ' '))
			log_first[--n] = '\0';
	}
	if (log_verbose)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

void bpf_util__open_log(bool verbose)
{
	log_verbose = verbose;
	log_first[0] = '\0';
	if (!log_installed) {
		libbpf_set_print(libbpf_print);
		log_installed = true;
	}
}

const char *bpf_util__last_error(void)
{
	return log_first;
}

void bpf_util__format_error(char *buf, size_t len, const char *what, int err)
{
	if (err < 0)
		err = -err;
	if (log_first[0])
		snprintf(buf, len, "%s: %s (%s)", what, strerror(err), log_first);
	else
		snprintf(buf, len, "%s: %s", what, strerror(err));
}

static bool cap_has(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1U << (cap % 32));
}

int bpf_util__can_trace(char *reason, size_t len)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		snprintf(reason, len, "kernel has no BTF (/sys/kernel/btf/vmlinux: %s): "
			 "needs a kernel built with CONFIG_DEBUG_INFO_BTF=y", strerror(errno));
		return -ENOTSUP;
	}
	if (syscall(SYS_capget, &hdr, data) != 0) {
		snprintf(reason, len, "capget: %s", strerror(errno));
		return -EPERM;
	}
	if (cap_has(data, CAP_SYS_ADMIN) || (cap_has(data, CAP_BPF) && cap_has(data, CAP_PERFMON)))
		return 0;
	snprintf(reason, len, "needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN): run as root");
	return -EPERM;
}

int bpf_util__ncpus(void)
{
	return libbpf_num_possible_cpus();
}

int bpf_util__percpu_sum(const struct bpf_map *map, uint32_t key, void *vals, size_t value_size,
			 uint64_t *sum, size_t nwords)
{
	int ncpus = libbpf_num_possible_cpus();
	const uint64_t *v;
	int cpu;
	size_t i;

	if (ncpus < 0)
		return ncpus;
	if (bpf_map_lookup_elem(bpf_map__fd(map), &key, vals) != 0)
		return -errno;
	memset(sum, 0, nwords * sizeof(*sum));
	for (cpu = 0; cpu < ncpus; cpu++) {
		v = (const uint64_t *)((const char *)vals + (size_t)cpu * value_size);
		for (i = 0; i < nwords; i++)
			sum[i] += v[i];
	}
	return 0;
}

int bpf_util__prog_misses(const struct bpf_program *prog, uint64_t *misses)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) != 0)
		return -errno;
	*misses = info.recursion_misses;
	return 0;
}

int bpf_util__verified_insns(const struct bpf_program *prog, uint32_t *n)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) != 0)
		return -errno;
	/* the field came with Linux 5.16; an older kernel's info is shorter */
	if (len < offsetof(struct bpf_prog_info, verified_insns) + sizeof(info.verified_insns) ||
	    !info.verified_insns)
		return -ENOTSUP;
	*n = info.verified_insns;
	return 0;
}

static bool verify_forced;	/* bpf_util__set_verify_only(): --caps */

/* the largest program of each collector's last verified load (--caps) */
static struct {
	char collector[32];
	char prog[64];
	uint32_t insns;		/* 0: the kernel did not say */
} loads[16];

static bool verify_env(void)
{
	const char *v = getenv("PTOP_VERIFY_ONLY");

	return v && strcmp(v, "1") == 0;
}

static bool verify_only(void)
{
	return verify_forced || verify_env();
}

void bpf_util__set_verify_only(bool on)
{
	verify_forced = on;
	memset(loads, 0, sizeof(loads));
}

int bpf_util__verified_largest(const char *collector, const char **prog, uint32_t *insns)
{
	for (size_t i = 0; i < sizeof(loads) / sizeof(loads[0]) && loads[i].collector[0]; i++)
		if (strcmp(loads[i].collector, collector) == 0) {
			*prog = loads[i].prog;
			*insns = loads[i].insns;
			return 0;
		}
	return -ENOENT;
}

/* Keep PROG's count N (0: unknown) as COLLECTOR's largest so far. */
static void note_load(const char *collector, const char *prog, uint32_t n)
{
	size_t i;

	for (i = 0; i < sizeof(loads) / sizeof(loads[0]) && loads[i].collector[0]; i++)
		if (strcmp(loads[i].collector, collector) == 0)
			break;
	if (i == sizeof(loads) / sizeof(loads[0]))
		return;
	if (!loads[i].collector[0])
		snprintf(loads[i].collector, sizeof(loads[i].collector), "%s", collector);
	else if (loads[i].prog[0] && n <= loads[i].insns)
		return;
	snprintf(loads[i].prog, sizeof(loads[i].prog), "%s", prog);
	loads[i].insns = n;
}

int bpf_util__loaded(struct bpf_object *obj, const char *collector)
{
	struct bpf_program *prog;
	uint32_t n;
	int err;

	bpf_object__for_each_program(prog, obj) {
		if (!(log_verbose || verify_only()) || bpf_program__fd(prog) < 0)
			continue;	/* not loaded (autoload off) */
		err = bpf_util__verified_insns(prog, &n);
		if (verify_forced)
			note_load(collector, bpf_program__name(prog), err ? 0 : n);
		if (!(log_verbose || verify_env()))
			continue;	/* --caps prints its own */
		if (!err)
			fprintf(stderr, "ptop-record: verified: %s/%s %u insns%s\n", collector,
				bpf_program__name(prog), n,
				n > BPF_UTIL_VERIFY_BUDGET ? " (over the budget of 250000)" : "");
		else
			fprintf(stderr, "ptop-record: verified: %s/%s unknown insns (%s)\n",
				collector, bpf_program__name(prog),
				err == -ENOTSUP ? "the kernel does not report it" : strerror(-err));
	}
	if (verify_only()) {
		snprintf(log_first, sizeof(log_first),
			 "%s: loaded and verified, not attached",
			 verify_env() ? "PTOP_VERIFY_ONLY=1" : "--caps");
		return -ECANCELED;
	}
	return 0;
}

void bpf_util__each_parallel(void **items, int n, void *(*fn)(void *))
{
	pthread_t *t = n > 1 ? calloc((size_t)n, sizeof(*t)) : NULL;
	bool *started = n > 1 ? calloc((size_t)n, sizeof(*started)) : NULL;
	int i;

	for (i = 0; i < n; i++) {
		if (!items[i])
			continue;
		/* one at a time when threads cannot be had */
		if (t && started && !pthread_create(&t[i], NULL, fn, items[i]))
			started[i] = true;
		else
			fn(items[i]);
		items[i] = NULL;
	}
	for (i = 0; t && started && i < n; i++)
		if (started[i])
			pthread_join(t[i], NULL);
	free(t);
	free(started);
}

static void *destroy_one(void *arg)
{
	bpf_link__destroy(arg);
	return NULL;
}

void bpf_util__destroy_links(struct bpf_link **links, int n)
{
	bpf_util__each_parallel((void **)links, n, destroy_one);
}
