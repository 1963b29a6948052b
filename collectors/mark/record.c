/* record.c — the mark collector's recorder side: `--mark NAME=FUNC` counts the calls of
 * function FUNC of the target's executable with a uprobe at its entry (mark.bpf.c), a unit
 * of work (a request, a job) that `ptop-analyze diff --per NAME` compares figures by. Each
 * poll sends, per mark, one MarkSample: the calls over the interval and since the start.
 *
 * FUNC is looked up by name in the executable's .symtab, else .dynsym (the launched
 * command's file, or /proc/PID/exe). Active only when --mark is given; like the heap's
 * uprobes it needs one process (not --cgroup) and eBPF (not --no-ebpf). What a call costs
 * the target: bench/README.md ("mark"). After an exec the marks stay on the old program:
 * the counts stop (said in the probe detail).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "record/uprobe_target.h"
#include "collectors/mark/mark.h"
#include "collectors/mark/mark.pb-c.h"
#include "collectors/mark/mark.skel.h"
#include "proto/capture.h"
#include "record/bpf_util.h"
#include "record/collector.h"
#include "record/uprobe_link.h"

#define MARK_NAME_MAX 32
#define MARK_FUNC_MAX 256

static struct mark_settings {
	unsigned n;
	struct {
		char name[MARK_NAME_MAX];
		char func[MARK_FUNC_MAX];
	} m[MARK_MAX];
} mark_settings;

/* --mark NAME=FUNC, repeatable: NAME of letters, digits and _ (at most 31), FUNC the
 * function's symbol; a NAME given twice is an error. */
static int parse_mark(const struct collector_opt *o, const char *arg, void *field, char *err,
		      size_t errlen)
{
	struct mark_settings *s = field;
	const char *eq = arg ? strchr(arg, '=') : NULL;
	size_t nlen;

	(void)o;
	if (!arg)
		return 0; /* no default */
	if (!eq || eq == arg || !eq[1]) {
		snprintf(err, errlen, "--mark takes NAME=FUNCTION (requests=handle_request), not '%s'",
			 arg);
		return -EINVAL;
	}
	nlen = (size_t)(eq - arg);
	if (nlen >= MARK_NAME_MAX || strlen(eq + 1) >= MARK_FUNC_MAX) {
		snprintf(err, errlen, "--mark '%s': the name is at most %d characters, the function %d",
			 arg, MARK_NAME_MAX - 1, MARK_FUNC_MAX - 1);
		return -EINVAL;
	}
	for (size_t k = 0; k < nlen; k++)
		if (!isalnum((unsigned char)arg[k]) && arg[k] != '_') {
			snprintf(err, errlen,
				 "--mark '%s': the name is letters, digits and _ (requests=FUNC)", arg);
			return -EINVAL;
		}
	for (unsigned k = 0; k < s->n; k++)
		if (strlen(s->m[k].name) == nlen && !strncmp(s->m[k].name, arg, nlen)) {
			snprintf(err, errlen, "--mark: the name '%.*s' is given twice", (int)nlen, arg);
			return -EINVAL;
		}
	if (s->n == MARK_MAX) {
		snprintf(err, errlen, "--mark is given at most %d times", MARK_MAX);
		return -EINVAL;
	}
	snprintf(s->m[s->n].name, MARK_NAME_MAX, "%.*s", (int)nlen, arg);
	snprintf(s->m[s->n].func, MARK_FUNC_MAX, "%s", eq + 1);
	s->n++;
	return 0;
}

static const struct collector_opt mark_opts[] = {
	{
		.name = "mark",
		.arg = "NAME=FUNC",
		.help = "count the calls of the target's function FUNC, the\n"
			"unit of work NAME, with a uprobe (repeatable, at most\n"
			"8): ptop-analyze diff --per NAME compares per call",
		.section = COPT_COLLECTORS,
		.order = 80,
		.parse = parse_mark,
		.offset = 0,
	},
	{ .name = NULL },
};

struct mark_priv {
	struct mark_bpf *skel;
	struct uprobe_link *link;
	char path[PATH_MAX];	       /* the executable as the target maps it */
	char open_path[PATH_MAX + 32]; /* where we open it */
	uint64_t off[MARK_MAX];	       /* each function's file offset */
	uint64_t prev[MARK_MAX];       /* the counts at the previous poll */
	uint64_t prev_ns, prev_misses;
};

static Ptop__V1__ProbeState mark_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	Ptop__V1__ProbeState state;
	struct mark_priv *p;
	char detail[sizeof(c->detail)];
	size_t at = 0;
	int fd, err;

	if (!mark_settings.n && !ctx->caps_only) { /* --caps says whether a mark could run */
		c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF;
		snprintf(c->reason, sizeof(c->reason),
			 "no --mark NAME=FUNC given: no unit of work counted");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	state = uprobe_target__precheck(
		c, "a mark is a uprobe on one process's function, not yet per process of a cgroup: "
		   "record one of its processes with --pid",
		"--no-ebpf: marks are counted only by an eBPF uprobe",
		"a uprobe on each --mark function of the target's executable", true);
	if (state != PTOP__V1__PROBE_STATE__PROBE_STATE_UNSPECIFIED)
		return state;
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	}
	if (uprobe_target__exe(ctx, p->path, sizeof(p->path), p->open_path, sizeof(p->open_path),
			     c->reason, sizeof(c->reason))) {
		free(p);
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	}
	fd = open(p->open_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(c->reason, sizeof(c->reason), "cannot open %.300s: %s", p->path,
			 strerror(errno));
		free(p);
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	}
	detail[0] = '\0';
	for (unsigned k = 0; k < mark_settings.n; k++) {
		struct uprobe_point pp;
		uint8_t code[64];
		uint64_t size;
		ssize_t got;

		err = uprobe_target__elf_func(fd, mark_settings.m[k].func, &p->off[k], &size);
		if (err) {
			snprintf(c->reason, sizeof(c->reason),
				 "--mark %s=%s: %s in %.300s (.symtab, .dynsym)",
				 mark_settings.m[k].name, mark_settings.m[k].func,
				 err == -ENOENT ? "no such function" : strerror(-err), p->path);
			close(fd);
			free(p);
			return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
		}
		/* at the first instruction of the entry the kernel emulates, as the heap's
		 * probes (a single-stepped one costs the target far more: bench/README.md) */
		got = pread(fd, code, sizeof(code), (off_t)p->off[k]);
		if (size && got > 0 && (uint64_t)got > size)
			got = (ssize_t)size;
		uprobe_target__choose_probe(code, got > 0 ? (size_t)got : 0, false, &pp);
		p->off[k] += pp.offset;
		at += (size_t)snprintf(detail + at, at < sizeof(detail) ? sizeof(detail) - at : 0,
				       "%s%s=%s+%u%s", k ? ", " : "", mark_settings.m[k].name,
				       mark_settings.m[k].func, pp.offset,
				       pp.emulated ? "" : " (stepped)");
		if (at >= sizeof(detail))
			at = sizeof(detail) - 1;
	}
	close(fd);
	snprintf(c->detail, sizeof(c->detail), "marks %.300s: uprobes on %.150s; an exec stops them",
		 detail, p->path);
	c->priv = p;
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static void mark_stop(struct collector *c)
{
	struct mark_priv *p = c->priv;

	if (!p)
		return;
	uprobe_link__destroy(&p->link, 1);
	mark_bpf__destroy(p->skel);
	free(p);
	c->priv = NULL;
}

static int mark_start(struct collector *c)
{
	struct mark_priv *p = c->priv;
	uint64_t cookies[MARK_MAX];
	int err;

	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "no mark resolved");
		return -ENOENT;
	}
	bpf_util__open_log(c->ctx->verbose);
	p->skel = mark_bpf__open();
	if (!p->skel) {
		err = -errno;
		bpf_util__format_error(c->reason, sizeof(c->reason), "open mark BPF", err);
		goto cleanup;
	}
	/* a uprobe_multi link: one for every mark, each its index as the cookie */
	err = uprobe_link__prepare(p->skel->progs.mark_hit);
	if (!err)
		err = mark_bpf__load(p->skel);
	err = err ?: bpf_util__loaded(p->skel->obj, "mark");
	if (err) {
		bpf_util__format_error(c->reason, sizeof(c->reason), "load mark BPF", err);
		goto cleanup;
	}
	for (unsigned k = 0; k < mark_settings.n; k++)
		cookies[k] = k;
	p->link = uprobe_link__attach(p->skel->progs.mark_hit, c->ctx->pid, p->open_path, p->off,
				      cookies, mark_settings.n, false);
	if (!p->link) {
		err = -errno;
		bpf_util__format_error(c->reason, sizeof(c->reason), "attach the mark uprobes",
				       err);
		goto cleanup;
	}
	p->prev_ns = rec_now_ns();
	return 0;
cleanup:
	c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	mark_stop(c);
	return err ? err : -EINVAL;
}

static int mark_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct mark_priv *p = c->priv;
	uint64_t interval, misses = 0;
	int err = 0;

	(void)flags;
	if (!p || !p->skel)
		return -EINVAL;
	interval = now_ns > p->prev_ns ? now_ns - p->prev_ns : 0;
	for (unsigned k = 0; k < mark_settings.n && !err; k++) {
		Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
		Ptop__V1__MarkSample ms = PTOP__V1__MARK_SAMPLE__INIT;
		Ptop__V1__CollectorPayload cp;
		uint64_t total = __atomic_load_n(&p->skel->bss->mark_calls[k], __ATOMIC_RELAXED);

		ms.name = mark_settings.m[k].name;
		ms.function = mark_settings.m[k].func;
		ms.total = total;
		ms.count = total >= p->prev[k] ? total - p->prev[k] : 0;
		p->prev[k] = total;
		err = capture_payload__pack(&ev, &cp, "mark", &ms.base);
		if (err)
			break;
		err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED, now_ns,
				     interval);
		capture_payload__release(&cp);
	}
	p->prev_ns = now_ns;
	/* calls the kernel did not run the program for (it was running already on that CPU) */
	if (!err && !bpf_util__prog_misses(p->skel->progs.mark_hit, &misses)) {
		err = rec_emit_drop(c, "recursion_miss", misses - p->prev_misses,
				    "marked calls the kernel did not run the mark probe for");
		p->prev_misses = misses;
	}
	return err;
}

const struct collector_ops mark_collector = {
	.name = "mark",
	.summary = "calls of the --mark functions, the units of work (uprobes)",
	.opts = mark_opts,
	.settings = &mark_settings,
	.settings_size = sizeof(mark_settings),
	.check = mark_check,
	.start = mark_start,
	.poll = mark_poll,
	.stop = mark_stop,
};
