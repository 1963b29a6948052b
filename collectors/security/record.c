/* record.c — the security collector's recorder side (eBPF only, security.bpf.c): memory the
 * target makes executable at run time (SecExecMem, one per call, with its user stack and
 * the VMA's file or "anonymous"), ptrace attaches to or by it (SecPtrace), its execs that
 * changed its credentials (SecSetidExec), and its failed capability checks per interval
 * (SecCapDenied) where the kernel has the capability:cap_capable tracepoint.
 *
 * Lanes (the probe set says which ran and why the others did not):
 *   exec_mem    raw_tp/sys_enter + sys_exit: mmap, mprotect, pkey_mprotect with PROT_EXEC
 *   ptrace      the same programs: PTRACE_ATTACH / PTRACE_SEIZE
 *   setid_exec  tp_btf/sched_process_exec: the new credentials
 *   cap_denied  tp_btf/cap_capable (Linux 6.14+), failures only
 *   lsm_denials SELinux's avc:selinux_audited / AppArmor: not collected (see check)
 * Its programs run at every syscall entry and exit of the machine (no tracefs: no
 * per-syscall tracepoint), so it is off by default.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "record/stack_table.h" /* the capture's stack table, stackmap__read */
#include <linux/types.h>

#include "collectors/security/record.h"
#include "collectors/security/security.pb-c.h"
#include "bpf/stackcopy.h" /* struct sc_vmas, in the skeleton */
#include "collectors/security/security.skel.h"
#include "proto/capture.h"
#include "proto/syscall_table.h"
#include "record/bpf_util.h"
#include "record/collector.h"
#include "record/kfeature.h"
#include "record/stackcopy.h"

static const char *const cap_names[] = {
    "chown",	     "dac_override",	"dac_read_search", "fowner",	      "fsetid",
    "kill",	     "setgid",		"setuid",	   "setpcap",	      "linux_immutable",
    "net_bind_service", "net_broadcast", "net_admin",	   "net_raw",	      "ipc_lock",
    "ipc_owner",     "sys_module",	"sys_rawio",	   "sys_chroot",      "sys_ptrace",
    "sys_pacct",     "sys_admin",	"sys_boot",	   "sys_nice",	      "sys_resource",
    "sys_time",	     "sys_tty_config",	"mknod",	   "lease",	      "audit_write",
    "audit_control", "setfcap",		"mac_override",	   "mac_admin",	      "syslog",
    "wake_alarm",    "block_suspend",	"audit_read",	   "perfmon",	      "bpf",
    "checkpoint_restore",
};

const char *security__cap_name(unsigned cap)
{
	return cap < sizeof(cap_names) / sizeof(cap_names[0]) ? cap_names[cap] : "";
}

/* How the user stacks are taken this run (check decides, start may fall back). */
static struct {
	enum user_stacks mode;
	char why[180];
} sec_stacks;

/* What check found about the kernel, for start and the detail. */
static struct {
	bool cap_tp;	 /* capability:cap_capable exists */
	char lsm[300];	 /* why LSM denials are not collected */
	char cap[200];	 /* why failed capability checks are not (when !cap_tp) */
} sec_kernel;

struct sec_priv {
	struct security_bpf *skel;
	struct rec_ctx *ctx;
	struct collector *c;
	struct ring_buffer *rb;	     /* events */
	struct ring_buffer *crb;     /* stack copies (dwarf); NULL: fp */
	struct stack_copies *copies; /* the capture's (dwarf) */
	int err;		     /* the first error while draining */
	uint64_t bad;		     /* malformed records */
	int ncpus;
	uint64_t *vals; /* ncpus */
	uint64_t prev_counters[SEC_CNT_MAX];
	uint64_t prev_caps[SEC_CAPS];
	uint64_t prev_misses[2];
	uint64_t prev_ns;
};

/* Is the type NAME (a BTF typedef such as "btf_trace_cap_capable") in the kernel's BTF? */
static bool kernel_has(const char *name)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool yes;

	if (!btf)
		return false;
	yes = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) > 0;
	btf__free(btf);
	return yes;
}

/* Why LSM denials are not collected here, into sec_kernel.lsm. */
static void lsm_reason(void)
{
	bool selinux_tp = kernel_has("btf_trace_selinux_audited");
	bool selinux_on = access("/sys/fs/selinux/enforce", F_OK) == 0;
	bool apparmor_on = access("/sys/module/apparmor/parameters/enabled", F_OK) == 0;

	if (selinux_on && selinux_tp)
		snprintf(sec_kernel.lsm, sizeof(sec_kernel.lsm),
			 "SELinux is enabled and avc:selinux_audited exists, but this version "
			 "of ptop does not read it yet (ausearch -m avc lists the denials)");
	else if (selinux_on)
		snprintf(sec_kernel.lsm, sizeof(sec_kernel.lsm),
			 "SELinux is enabled but this kernel has no avc:selinux_audited "
			 "tracepoint");
	else if (apparmor_on)
		snprintf(sec_kernel.lsm, sizeof(sec_kernel.lsm),
			 "AppArmor has no tracepoint (its denials go to the audit log only)%s",
			 selinux_tp ? "; SELinux is not enabled" : "");
	else
		snprintf(sec_kernel.lsm, sizeof(sec_kernel.lsm),
			 "neither SELinux (no /sys/fs/selinux) nor AppArmor is enabled on this "
			 "kernel: no denials to trace%s",
			 selinux_tp ? " (avc:selinux_audited exists)" : "");
}

static Ptop__V1__ProbeState security_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	const Ptop__V1__ProbeState A = PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
				   U = PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	const Ptop__V1__ProbeSource E = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF;
	char why[256];

	c->source = E;
	c->reason[0] = '\0';
	if (ctx->caps_only) {
		snprintf(c->detail, sizeof(c->detail),
			 "eBPF raw_tp/sys_enter, sys_exit, tp_btf/sched_process_exec, "
			 "tp_btf/cap_capable (CAP_BPF and CAP_PERFMON)");
		return A;
	}
	if (ctx->no_ebpf) {
		snprintf(c->reason, sizeof(c->reason), "eBPF only: not with --no-ebpf");
		return U;
	}
	if (bpf_util__can_trace(why, sizeof(why))) {
		snprintf(c->reason, sizeof(c->reason), "%s", why);
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	}
	if (!kfeature_have(KF_TP_BTF, why, sizeof(why)) ||
	    !kfeature_have(KF_RINGBUF, why, sizeof(why)) ||
	    !kfeature_have(KF_FIND_VMA, why, sizeof(why))) {
		snprintf(c->reason, sizeof(c->reason), "%s", why);
		return U;
	}
	/* auto: stack copies wherever they run. Every stack here starts in the C library's
	 * syscall wrapper, which keeps no frame: a frame-pointer walk from it skips the
	 * function that called it, the very caller this collector names. The events are
	 * few, so the copies cost little. */
	if (ctx->user_stacks == USER_STACKS_AUTO) {
		sec_stacks.mode = USER_STACKS_DWARF;
		snprintf(sec_stacks.why, sizeof(sec_stacks.why),
			 "--user-stacks auto: copies, as a frame-pointer walk from a syscall "
			 "wrapper skips its caller");
	} else {
		sec_stacks.mode =
		    user_stacks__choose(ctx, sec_stacks.why, sizeof(sec_stacks.why));
	}
	if (sec_stacks.mode == USER_STACKS_DWARF && (!kfeature_have(KF_BPF_LOOP, why, sizeof(why)) ||
						     !kfeature_have(KF_FIND_VMA, why, sizeof(why)))) {
		sec_stacks.mode = USER_STACKS_FP;
		snprintf(sec_stacks.why, sizeof(sec_stacks.why), "no stack copies here: %.150s", why);
	}
	sec_kernel.cap_tp = kernel_has("btf_trace_cap_capable");
	snprintf(sec_kernel.cap, sizeof(sec_kernel.cap),
		 "no capability:cap_capable tracepoint (Linux 6.14+), and ptop uses no "
		 "kprobe or fentry on cap_capable");
	lsm_reason();
	collector_lane(c, "exec_mem", A, E, "%s", "");
	collector_lane(c, "ptrace", A, E, "%s", "");
	collector_lane(c, "setid_exec", A, E, "%s", "");
	if (sec_kernel.cap_tp)
		collector_lane(c, "cap_denied", A, E, "%s", "");
	else
		collector_lane(c, "cap_denied", U, E, "%s", sec_kernel.cap);
	collector_lane(c, "lsm_denials", U, E, "%s", sec_kernel.lsm);
	snprintf(c->detail, sizeof(c->detail),
		 "raw_tp/sys_enter+sys_exit (every syscall of the machine; kept: mmap, mprotect, "
		 "pkey_mprotect with PROT_EXEC, ptrace attach/seize), tp_btf/sched_process_exec%s; "
		 "user stacks %s (%.150s); LSM denials: not collected (its lane says why)",
		 sec_kernel.cap_tp ? ", tp_btf/cap_capable" : "",
		 user_stacks_name(sec_stacks.mode), sec_stacks.why);
	return A;
}

static int emit(struct collector *c, const ProtobufCMessage *msg, uint64_t t, uint64_t iv)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CollectorPayload cp;
	int err;

	err = capture_payload__pack(&ev, &cp, "security", msg);
	if (err)
		return err;
	err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED, t, iv);
	capture_payload__release(&cp);
	return err;
}

int security__map_path(pid_t pid, uint64_t start, uint64_t ino, char *buf, size_t len)
{
	char path[64], line[4352];
	int found = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off, inode;
		char perms[8], dev[16];
		int at = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %15s %llu %n", &lo, &hi, perms, &off, dev,
			   &inode, &at) < 6 || !at || inode != ino || line[at] != '/')
			continue;
		line[strcspn(line, "\n")] = '\0';
		/* the mapping itself, else another of the same file */
		if (lo == start || found) {
			snprintf(buf, len, "%s", line + at);
			found = 0;
			if (lo == start)
				break;
		}
	}
	fclose(f);
	return found;
}

int security__kernel_path(const struct sec_event *e, char *buf, size_t len)
{
	size_t at = 0;

	if (!e->path_done || !e->comps || e->comps > SEC_COMPS)
		return -ENOENT;
	for (uint32_t i = e->comps; i-- > 0;) {
		int n = snprintf(buf + at, len - at, "/%.*s", SEC_COMP_LEN, e->comp[i]);

		if (n < 0 || (size_t)n >= len - at)
			return -ENOENT;
		at += (size_t)n;
	}
	return 0;
}

/* The stack of event E (its key) as a capture stack id: 0 when none. */
static uint64_t stack_of(struct sec_priv *p, const struct sec_event *e)
{
	struct stack_table *t = stack_table__capture();
	uint64_t ips[SM_MAX_DEPTH], id = 0;
	int k;

	if (!e->stack.hash || !t)
		return 0;
	if (e->stack.kernel == SM_KIND_COPY) {
		if (stack_copies__find(p->copies, e->pid, e->stack.hash, &id)) {
			/* its copy came after the last drain: drain again */
			ring_buffer__consume(p->crb);
			if (stack_copies__find(p->copies, e->pid, e->stack.hash, &id))
				id = 0;
		}
		return id;
	}
	k = stackmap__read(bpf_map__fd(p->skel->maps.sec_stacks), &e->stack, ips, SM_MAX_DEPTH);
	if (k > 0 && !p->err)
		p->err = stack_table__emit(p->ctx, t, false, p->ctx->pid ? 0 : e->pid, ips,
					      (size_t)k, &id);
	return id;
}

static int on_exec_mem(struct sec_priv *p, const struct sec_event *e)
{
	Ptop__V1__SecExecMem m = PTOP__V1__SEC_EXEC_MEM__INIT;
	char path[4096], name[SEC_NAME + 1], comm[17];

	m.call = e->kind == SEC_K_MMAP ? "mmap" : "mprotect";
	m.pid = e->pid;
	m.tid = e->tid;
	m.addr = e->addr;
	m.len = e->len;
	m.prot = e->prot;
	m.flags = e->flags;
	m.fd = e->kind == SEC_K_MMAP ? e->fd : -1;
	m.ret = e->ret;
	m.has_vma = e->has_vma;
	memcpy(name, e->file, SEC_NAME);
	name[SEC_NAME] = '\0';
	memcpy(comm, e->comm, 16);
	comm[16] = '\0';
	m.comm = comm;
	if (e->has_vma) {
		m.vm_start = e->vm_start;
		m.vm_end = e->vm_end;
		m.inode = e->anon ? 0 : e->ino;
		if (e->anon) {
			m.backing = "anonymous";
		} else if (security__kernel_path(e, path, sizeof(path)) == 0) {
			m.backing = path; /* from the kernel's dentries at the call */
		} else if (security__map_path((pid_t)e->pid, e->vm_start, e->ino, path,
					      sizeof(path)) == 0) {
			m.backing = path;
		} else {
			m.backing = name;
			m.name_only = true;
		}
	} else {
		m.backing = "";
	}
	m.stack_id = stack_of(p, e);
	return emit(p->c, &m.base, e->time_ns, 0);
}

static int on_ptrace(struct sec_priv *p, const struct sec_event *e)
{
	Ptop__V1__SecPtrace m = PTOP__V1__SEC_PTRACE__INIT;
	char comm[17];

	memcpy(comm, e->comm, 16);
	comm[16] = '\0';
	m.tracer_pid = e->pid;
	m.tracer_tid = e->tid;
	m.tracer_comm = comm;
	m.tracee = (uint32_t)e->fd;
	m.request = e->flags == 16 ? "attach" : "seize";
	m.ret = e->ret;
	/* cgroup mode: the programs let through only the subtree's own calls */
	m.by_target = !p->ctx->pid || e->pid == (uint32_t)p->ctx->pid;
	m.stack_id = m.by_target ? stack_of(p, e) : 0;
	return emit(p->c, &m.base, e->time_ns, 0);
}

static int on_setid(struct sec_priv *p, const struct sec_event *e)
{
	Ptop__V1__SecSetidExec m = PTOP__V1__SEC_SETID_EXEC__INIT;
	char path[SEC_NAME + 1], comm[17];

	memcpy(path, e->file, SEC_NAME);
	path[SEC_NAME] = '\0';
	memcpy(comm, e->comm, 16);
	comm[16] = '\0';
	m.pid = e->pid;
	m.tid = e->tid;
	m.path = path;
	m.comm = comm;
	m.uid = e->uid;
	m.euid = e->euid;
	m.gid = e->gid;
	m.egid = e->egid;
	m.cap_permitted = e->cap_permitted;
	m.cap_effective = e->cap_effective;
	m.secureexec = e->secureexec;
	return emit(p->c, &m.base, e->time_ns, 0);
}

static int on_event(void *arg, void *data, size_t size)
{
	struct sec_priv *p = arg;
	const struct sec_event *e = data;
	int err;

	if (p->err)
		return 0;
	/* the path's components that were read follow the fixed part */
	if (size < offsetof(struct sec_event, comp) ||
	    (e->comps <= SEC_COMPS &&
	     size < offsetof(struct sec_event, comp) + (size_t)e->comps * SEC_COMP_LEN)) {
		p->bad++;
		return 0;
	}
	switch (e->kind) {
	case SEC_K_MMAP:
	case SEC_K_MPROTECT:
		err = on_exec_mem(p, e);
		break;
	case SEC_K_PTRACE:
		err = on_ptrace(p, e);
		break;
	case SEC_K_EXEC:
		err = on_setid(p, e);
		break;
	default:
		p->bad++;
		err = 0;
	}
	if (err && !p->err)
		p->err = err;
	return 0;
}

static int on_copy(void *arg, void *data, size_t size)
{
	struct sec_priv *p = arg;
	int err;

	if (p->err)
		return 0;
	err = stack_copies__add(p->ctx, p->copies, stack_table__capture(), data, size);
	if (err == -EINVAL)
		p->bad++;
	else if (err)
		p->err = err;
	return 0;
}

static void seed_vmas(struct sec_priv *p, pid_t pid)
{
	struct sc_vmas t, *v;
	__u32 key = (__u32)pid;

	if (pid <= 0 || !p->crb || sc_vmas__read(pid, &t))
		return;
	v = calloc((size_t)p->ncpus, sizeof(*v));
	if (!v)
		return;
	for (int i = 0; i < p->ncpus; i++)
		v[i] = t;
	bpf_map_update_elem(bpf_map__fd(p->skel->maps.sec_vmas), &key, v, BPF_ANY);
	free(v);
}

static void priv_free(struct sec_priv *p)
{
	if (!p)
		return;
	ring_buffer__free(p->rb);
	ring_buffer__free(p->crb);
	security_bpf__destroy(p->skel);
	free(p->vals);
	free(p);
}

/* The syscall NAME's number on this machine, -1 when it has none. */
static int64_t nr_of(const char *name)
{
	const struct syscall_table *tab = syscall_table__native();

	for (uint32_t nr = 0; nr < 1024; nr++) {
		const char *s = syscall_table__name(tab, nr);

		if (s && !strcmp(s, name))
			return nr;
	}
	return -1;
}

static int load_attach(struct collector *c, struct sec_priv *p, char *why, size_t len)
{
	int err;

retry:
	bpf_util__open_log(c->ctx->verbose);
	p->skel = security_bpf__open();
	if (!p->skel) {
		err = -errno;
		bpf_util__format_error(why, len, "open security BPF", err);
		return err;
	}
	p->skel->rodata->targ_tgid = (__u32)c->ctx->pid;
	if (!c->ctx->pid) {
		p->skel->rodata->targ_cgid = c->ctx->cgroup_id;
		p->skel->rodata->targ_cglevel = c->ctx->cgroup_level;
	}
	p->skel->rodata->nr_mmap = nr_of("mmap");
	p->skel->rodata->nr_mprotect = nr_of("mprotect");
	p->skel->rodata->nr_pkey_mprotect = nr_of("pkey_mprotect");
	p->skel->rodata->nr_ptrace = nr_of("ptrace");
	p->skel->rodata->sec_user_stacks =
	    sec_stacks.mode == USER_STACKS_DWARF ? SEC_USER_COPY : SEC_USER_FP;
	if (sec_stacks.mode != USER_STACKS_DWARF) {
		bpf_map__set_max_entries(p->skel->maps.sec_copies, 4096);
		bpf_map__set_max_entries(p->skel->maps.sec_copied, 1);
	}
	bpf_program__set_autoload(p->skel->progs.sec_cap, sec_kernel.cap_tp);
	err = security_bpf__load(p->skel);
	if (err && sec_stacks.mode == USER_STACKS_DWARF) { /* frame pointers instead */
		char cwhy[200];

		bpf_util__format_error(cwhy, sizeof(cwhy), "load with stack copies", err);
		snprintf(sec_stacks.why, sizeof(sec_stacks.why), "the stack copies failed to "
			 "load: %.140s", cwhy);
		sec_stacks.mode = USER_STACKS_FP;
		security_bpf__destroy(p->skel);
		p->skel = NULL;
		goto retry;
	}
	err = err ?: bpf_util__loaded(p->skel->obj, "security");
	if (err) {
		bpf_util__format_error(why, len, "load security BPF", err);
		return err;
	}
	p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.sec_events), on_event, p, NULL);
	if (!p->rb) {
		err = -errno;
		snprintf(why, len, "events' ring buffer: %s", strerror(-err));
		return err;
	}
	if (sec_stacks.mode == USER_STACKS_DWARF) {
		p->copies = stack_copies__capture();
		p->crb = ring_buffer__new(bpf_map__fd(p->skel->maps.sec_copies), on_copy, p, NULL);
		if (!p->copies || !p->crb) {
			err = p->crb ? -ENOMEM : -errno;
			snprintf(why, len, "stack copies' ring buffer: %s", strerror(-err));
			return err;
		}
		seed_vmas(p, c->ctx->pid);
	}
	err = security_bpf__attach(p->skel);
	if (err) {
		bpf_util__format_error(why, len, "attach security BPF", err);
		return err;
	}
	return 0;
}

static int security_start(struct collector *c)
{
	struct sec_priv *p = calloc(1, sizeof(*p));
	char why[300];
	int err;

	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	p->ctx = c->ctx;
	p->c = c;
	c->priv = p;
	p->ncpus = bpf_util__ncpus();
	if (p->ncpus <= 0 || !(p->vals = calloc((size_t)p->ncpus, sizeof(*p->vals)))) {
		snprintf(c->reason, sizeof(c->reason), "cannot count possible CPUs");
		return p->ncpus < 0 ? p->ncpus : -ENOMEM;
	}
	err = load_attach(c, p, why, sizeof(why));
	if (err) {
		snprintf(c->reason, sizeof(c->reason), "%s", why);
		return err;
	}
	if (strstr(c->detail, "user stacks dwarf") && sec_stacks.mode != USER_STACKS_DWARF) {
		char *at = strstr(c->detail, "user stacks dwarf");

		snprintf(at, sizeof(c->detail) - (size_t)(at - c->detail), "user stacks fp (%s)",
			 sec_stacks.why);
	}
	p->prev_ns = rec_now_ns();
	return 0;
}

static const char *const counter_kind[SEC_CNT_MAX] = {
    [SEC_CNT_RING_FULL] = "ringbuf",
    [SEC_CNT_PENDING_FULL] = "map_full",
    [SEC_CNT_STACK_FAIL] = "stack_failed",
    [SEC_CNT_COPY_LOST] = "stack_copy_ring_full",
};
static const char *const counter_detail[SEC_CNT_MAX] = {
    [SEC_CNT_RING_FULL] = "security events the ring had no room for: lost",
    [SEC_CNT_PENDING_FULL] = "sec_pending full: a call's entry not kept, its event lost",
    [SEC_CNT_STACK_FAIL] = "an event without its user stack",
    [SEC_CNT_COPY_LOST] = "stack copies the ring had no room for: the event's stack is "
			  "missing unless a later call there sent it",
};

static int emit_caps(struct sec_priv *p, uint64_t now_ns, uint64_t interval)
{
	Ptop__V1__SecCapDenied m = PTOP__V1__SEC_CAP_DENIED__INIT;
	Ptop__V1__SecCapCount cc[SEC_CAPS], *ptrs[SEC_CAPS];
	size_t n = 0;
	uint64_t v;
	int err;

	for (uint32_t k = 0; k < SEC_CAPS; k++) {
		err = bpf_util__percpu_sum(p->skel->maps.sec_cap_denied, k, p->vals,
					   sizeof(__u64), &v, 1);
		if (err)
			return err;
		if (v == p->prev_caps[k])
			continue;
		ptop__v1__sec_cap_count__init(&cc[n]);
		cc[n].cap = k;
		cc[n].name = (char *)security__cap_name(k);
		cc[n].failed = v - p->prev_caps[k];
		p->prev_caps[k] = v;
		ptrs[n] = &cc[n];
		n++;
	}
	m.n_caps = n;
	m.caps = n ? ptrs : NULL;
	return emit(p->c, &m.base, now_ns, interval);
}

static int security_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct sec_priv *p = c->priv;
	struct bpf_program *progs[2];
	uint64_t v, misses, interval;
	int err = 0;

	(void)flags;
	if (!p || !p->skel)
		return -EINVAL;
	interval = now_ns > p->prev_ns ? now_ns - p->prev_ns : 0;
	p->prev_ns = now_ns;
	if (p->crb) {
		ring_buffer__consume(p->crb); /* the copies before the events naming them */
		seed_vmas(p, c->ctx->pid);
	}
	ring_buffer__consume(p->rb);
	err = p->err;
	if (!err && sec_kernel.cap_tp)
		err = emit_caps(p, now_ns, interval);
	for (uint32_t i = 0; !err && i < SEC_CNT_MAX; i++) {
		err = bpf_util__percpu_sum(p->skel->maps.sec_counters, i, p->vals, sizeof(__u64),
					   &v, 1);
		err = err ?: rec_emit_drop(c, counter_kind[i], v - p->prev_counters[i],
					   counter_detail[i]);
		p->prev_counters[i] = v;
	}
	progs[0] = p->skel->progs.sec_enter;
	progs[1] = p->skel->progs.sec_exit;
	for (int i = 0; !err && i < 2; i++)
		if (bpf_util__prog_misses(progs[i], &misses) == 0) {
			err = rec_emit_drop(c, "recursion_miss", misses - p->prev_misses[i],
					    "sec_enter/sec_exit: runs skipped by the kernel");
			p->prev_misses[i] = misses;
		}
	err = err ?: rec_emit_drop(c, "malformed", p->bad, "security records too short");
	p->bad = 0;
	return err;
}

static void security_stop(struct collector *c)
{
	priv_free(c->priv);
	c->priv = NULL;
}

const struct collector_ops security_collector = {
    .name = "security",
    .summary = "memory made executable (mmap/mprotect PROT_EXEC, W^X) with its caller, "
	       "ptrace attaches, set-user-ID/file-capability execs, failed capability "
	       "checks (eBPF)",
    .off_by_default = "its programs run at every syscall entry and exit of the machine "
		      "(raw_tp: no per-syscall tracepoint here), and it costs the target about "
		      "2.7 us per mmap/mprotect with PROT_EXEC (a stack copy and an event); see "
		      "bench/README.md",
    .check = security_check,
    .start = security_start,
    .poll = security_poll,
    .stop = security_stop,
};
