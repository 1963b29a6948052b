/* header.c — the CaptureHeader: who recorded, on which host, when, with what options, what
 * target and which probes. It is the first record of every capture.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "record/stackcopy.h"
#include "proto/capture.h"
#include "proto/version.h"
#include "record/procfs.h"
#include "record/record.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void record_clocks_now(struct record_clocks *c)
{
	c->monotonic_ns = clock_ns(CLOCK_MONOTONIC);
	c->realtime_ns = clock_ns(CLOCK_REALTIME);
	c->boottime_ns = clock_ns(CLOCK_BOOTTIME);
}

static int fill_capture_id(uint8_t id[16])
{
	size_t got = 0;
	ssize_t n;

	while (got < 16) {
		n = getrandom(id + got, 16 - got, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	return 0;
}

int record_write_header(struct capture_writer *w, const struct record_header_in *in)
{
	const struct record_opts *o = in->opts;
	const struct record_target *t = in->target;
	Ptop__V1__Record rec = PTOP__V1__RECORD__INIT;
	Ptop__V1__CaptureHeader h = PTOP__V1__CAPTURE_HEADER__INIT;
	Ptop__V1__Recorder recorder = PTOP__V1__RECORDER__INIT;
	Ptop__V1__Host host = PTOP__V1__HOST__INIT;
	Ptop__V1__Clocks clocks = PTOP__V1__CLOCKS__INIT;
	Ptop__V1__Options options = PTOP__V1__OPTIONS__INIT;
	Ptop__V1__TargetInfo target = PTOP__V1__TARGET_INFO__INIT;
	Ptop__V1__Probe *probes = NULL, **probe_ptrs = NULL;
	Ptop__V1__ProbeLane *lanes = NULL, **lane_ptrs = NULL;
	char hostname[256] = "", boot_id[64] = "", *buf = NULL;
	size_t cap = 0, len = 0, i;
	struct utsname uts;
	uint8_t capture_id[16];
	long v;
	int err;

	err = fill_capture_id(capture_id);
	if (err)
		goto cleanup;
	h.format_version = CAPTURE_FORMAT_VERSION;
	h.capture_id.data = capture_id;
	h.capture_id.len = sizeof(capture_id);

	recorder.version = (char *)ptop_version;
	recorder.commit = (char *)ptop_commit;
	recorder.build_date = (char *)ptop_build_date;
	h.recorder = &recorder;

	if (gethostname(hostname, sizeof(hostname) - 1) == 0)
		hostname[sizeof(hostname) - 1] = '\0';
	host.hostname = hostname;
	if (uname(&uts) == 0) {
		host.kernel_release = uts.release;
		host.kernel_version = uts.version;
		host.machine = uts.machine;
	}
	if (procfs_read_file(0, "sys/kernel/random/boot_id", &buf, &cap, &len) == 0) {
		while (len && buf[len - 1] == '\n')
			buf[--len] = '\0';
		snprintf(boot_id, sizeof(boot_id), "%s", buf);
	}
	host.boot_id = boot_id;
	v = sysconf(_SC_NPROCESSORS_ONLN);
	host.cpus = v > 0 ? (uint32_t)v : 0;
	v = sysconf(_SC_PAGESIZE);
	host.page_size = v > 0 ? (uint32_t)v : 0;
	v = sysconf(_SC_CLK_TCK);
	host.clock_tick = v > 0 ? (uint32_t)v : 0;
	h.host = &host;

	{
		struct record_clocks now;

		if (!in->start_at)
			record_clocks_now(&now);
		clocks.monotonic_ns = (in->start_at ? in->start_at : &now)->monotonic_ns;
		clocks.realtime_ns = (in->start_at ? in->start_at : &now)->realtime_ns;
		clocks.boottime_ns = (in->start_at ? in->start_at : &now)->boottime_ns;
	}
	h.clocks = &clocks;
	if (in->start_monotonic_ns)
		*in->start_monotonic_ns = clocks.monotonic_ns;
	if (in->start_realtime_ns)
		*in->start_realtime_ns = clocks.realtime_ns;

	options.n_argv = (size_t)o->argc;
	options.argv = o->argv;
	options.interval_ns = o->interval_ns;
	options.flush_interval_ns = o->flush_interval_ns;
	options.duration_ns = o->duration_ns;
	options.no_ebpf = o->no_ebpf;
	options.smaps_budget_ns = o->smaps_budget_ns;
	options.user_stacks = (char *)user_stacks_name(o->user_stacks);
	options.n_disabled = o->n_disabled;
	options.disabled = o->disabled;
	options.n_enabled = o->n_enabled;
	options.enabled = o->enabled;
	/* the collectors' own options, each into its fields (collector_ops.header_options) */
	for (i = 0; in->table && in->table[i]; i++)
		if (in->table[i]->header_options)
			in->table[i]->header_options(&options);
	h.options = &options;

	target.mode = t->mode;
	target.pid = t->pid;
	target.comm = (char *)t->comm;
	target.exe = (char *)t->exe;
	target.exe_build_id.data = (uint8_t *)t->build_id;
	target.exe_build_id.len = t->build_id_len;
	target.exe_build_id_kind = (Ptop__V1__BuildIdKind)t->build_id_kind;
	target.n_cmdline = t->n_cmdline;
	target.cmdline = t->cmdline;
	target.cgroup_path = (char *)t->cgroup_path;
	target.cgroup_id = t->cgroup_id;
	target.container_id = (char *)t->container_id;
	h.target = &target;

	if (in->n_collectors) {
		probes = calloc(in->n_collectors, sizeof(*probes));
		probe_ptrs = calloc(in->n_collectors, sizeof(*probe_ptrs));
		lanes = calloc(in->n_collectors * COLLECTOR_MAX_LANES, sizeof(*lanes));
		lane_ptrs = calloc(in->n_collectors * COLLECTOR_MAX_LANES, sizeof(*lane_ptrs));
		if (!probes || !probe_ptrs || !lanes || !lane_ptrs) {
			err = -ENOMEM;
			goto cleanup;
		}
		record_probe_set(in->collectors, in->n_collectors, probes, probe_ptrs, lanes,
				 lane_ptrs);
	}
	h.n_probes = in->n_collectors;
	h.probes = probe_ptrs;

	rec.kind_case = PTOP__V1__RECORD__KIND_HEADER;
	rec.header = &h;
	err = capture_writer__append(w, &rec);
	if (!err)
		err = capture_writer__flush(w); /* the header reaches the disk first */
cleanup:
	free(probes);
	free(probe_ptrs);
	free(lanes);
	free(lane_ptrs);
	free(buf);
	return err;
}
