/* record.c — the tls collector's recorder side (`--enable tls`, off by default): uprobes and
 * uretprobes on the target's libssl SSL_write, SSL_read, SSL_write_ex and SSL_read_ex, and
 * a uprobe on SSL_set_fd (tls.bpf.c). Each poll sends one TlsConn per SSL object with calls
 * in the interval: its fd (from SSL_set_fd), per direction the calls, the calls that moved
 * bytes, the bytes and the latency (entry to return).
 *
 * libssl is found in /proc/PID/maps (a file whose name starts with "libssl.so"): at the
 * start, and while none is found, again at every poll, so a libssl the target loads later
 * (dlopen: Python's `import ssl`) is attached within one interval of its mapping; a
 * TlsAttach says when and which. Calls made before the attach are not seen. A target
 * that cannot map a libssl (a static or Go executable) is "unsupported".
 *
 * --tls-bytes N (at most 4096): also the first N plaintext bytes of each call that moved
 * bytes, one TlsData each; the probe detail and a lane "plaintext" say the capture is
 * SENSITIVE. Without it the BPF program is loaded with tls_bytes 0 and its buffer read is
 * dead code: not one payload byte is read (collectors/tls/e2e/tls.sh checks the capture).
 *
 * Keyed by the SSL * pointer: an SSL object freed and another allocated at the same
 * address continue its row (SSL_free is not probed). The peer is the net collector's,
 * joined by the fd in `report tls` when net ran.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/uprobe_target.h" /* where the uprobes go: the target's exe, its ELF functions */
#include "collectors/tls/tls.h"
#include "collectors/tls/tls.pb-c.h"
#include "collectors/tls/tls.skel.h"
#include "proto/capture.h"
#include "record/bpf_util.h"
#include "record/collector.h"
#include "record/uprobe_link.h"

static struct tls_settings {
	unsigned bytes; /* --tls-bytes N: 0, none */
} tls_settings;

static const struct collector_opt tls_opts[] = {
	{
		.name = "tls-bytes",
		.arg = "N",
		.def = "0",
		.help = "tls: also record the first N plaintext bytes of each\n"
			"SSL_write/SSL_read (0 to 4096, default 0: none read);\n"
			"the capture is then marked SENSITIVE",
		.section = COPT_COLLECTORS,
		.order = 85,
		.parse = copt_parse_uint,
		.offset = offsetof(struct tls_settings, bytes),
		.min = 0,
		.max = TLS_BYTES_MAX,
	},
	{ .name = NULL },
};

static const char *const fn_names[TLS_FN_N] = { "SSL_write", "SSL_read", "SSL_write_ex",
						"SSL_read_ex", "SSL_set_fd" };

#define TLS_SEEN_CAP (2 * TLS_CONN_MAX) /* open addressing, a power of 2 */

struct tls_seen {
	uint64_t ssl; /* 0: empty */
	struct tls_conn prev;
};

struct tls_priv {
	struct tls_bpf *skel;
	struct uprobe_link *links[2]; /* entries, returns */
	struct ring_buffer *rb;
	char lib[PATH_MAX];		     /* libssl as the target maps it; "": not yet */
	bool attached;
	bool attach_failed;
	bool attach_said;		     /* its TlsAttach written */
	bool at_start;
	uint64_t attach_ns;
	char fns[256];
	uint64_t prev_ns;
	uint64_t prev_full, prev_lost, prev_unmatched, prev_misses[2];
	struct tls_seen *seen;		     /* TLS_SEEN_CAP */
	int err;			     /* from the ring buffer callback */
	struct collector *c;
};

static int tls_opts_check(const struct copt_choice *ch, char *err, size_t errlen)
{
	if (tls_settings.bytes && !ch->runs) {
		snprintf(err, errlen, "--tls-bytes needs the tls collector, which is off by default: "
			 "add --enable tls");
		return -EINVAL;
	}
	return 0;
}

/* The libssl process PID maps, into LIB (its path as the target names it). 0, -ENOENT
 * (none mapped), or -errno reading /proc/PID/maps. */
static int find_libssl(pid_t pid, char *lib, size_t len)
{
	char path[64], line[PATH_MAX + 128];
	FILE *f;
	int err = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *file = strchr(line, '/'), *base, *nl;

		if (!file)
			continue;
		nl = strchr(file, '\n');
		if (nl)
			*nl = '\0';
		base = strrchr(file, '/') + 1;
		if (!strncmp(base, "libssl.so", 9)) {
			snprintf(lib, len, "%s", file);
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

static Ptop__V1__ProbeState tls_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	Ptop__V1__ProbeState state;
	char path[PATH_MAX], open_path[PATH_MAX + 32], needed[4096], lib[PATH_MAX];
	int fd, n = 0, err;

	state = uprobe_target__precheck(
		c, "tls: uprobes on one process's libssl, not yet per process of a cgroup: "
		   "record one of its processes with --pid",
		"--no-ebpf: TLS calls are seen only by eBPF uprobes on libssl",
		"uprobes on the target's libssl SSL_write/SSL_read(_ex), SSL_set_fd", true);
	if (state != PTOP__V1__PROBE_STATE__PROBE_STATE_UNSPECIFIED)
		return state;
	if (uprobe_target__exe(ctx, path, sizeof(path), open_path, sizeof(open_path), c->reason,
			     sizeof(c->reason)))
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	fd = open(open_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(c->reason, sizeof(c->reason), "cannot open %.300s: %s", path,
			 strerror(errno));
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	}
	/* a static executable (a Go one among them) maps no libssl: its TLS, if any, is
	 * another library's, compiled in */
	err = uprobe_target__elf_needed(fd, needed, sizeof(needed), &n);
	close(fd);
	if (err == -ENOENT || (!err && n == 0)) { /* an ELF file without dynamic section */
		snprintf(c->reason, sizeof(c->reason),
			 "%.300s is statically linked: it maps no libssl (its TLS, if any, is "
			 "compiled in: Go's crypto/tls, a static OpenSSL, another library)", path);
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	if (!ctx->caps_only && ctx->mode == PTOP__V1__TARGET_MODE__TARGET_MODE_PID &&
	    !find_libssl(ctx->pid, lib, sizeof(lib)))
		snprintf(c->detail, sizeof(c->detail), "uprobes on %.300s", lib);
	else
		snprintf(c->detail, sizeof(c->detail),
			 "no libssl mapped yet: attached when the target maps one "
			 "(/proc/PID/maps read each interval; a TlsAttach says when)");
	if (tls_settings.bytes) {
		size_t len = strlen(c->detail);

		snprintf(c->detail + len, sizeof(c->detail) - len,
			 "; SENSITIVE: the first %u plaintext bytes of each call (--tls-bytes)",
			 tls_settings.bytes);
		collector_lane(c, "plaintext", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
			       PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, "%s", "");
	}
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static void tls_stop(struct collector *c)
{
	struct tls_priv *p = c->priv;

	if (!p)
		return;
	uprobe_link__destroy(p->links, 2);
	ring_buffer__free(p->rb);
	tls_bpf__destroy(p->skel);
	free(p->seen);
	free(p);
	c->priv = NULL;
}

/* Attach to libssl P->lib of the target: the offsets of the five functions (the four
 * calls must all be there; SSL_set_fd too). 0, or -errno with the reason in C. */
static int attach(struct collector *c, struct tls_priv *p, bool at_start)
{
	char open_path[PATH_MAX + 32], fns[256];
	uint64_t off[TLS_FN_N], cookies[TLS_FN_N];
	size_t at = 0;
	int fd, err;

	snprintf(open_path, sizeof(open_path), "/proc/%d/root%s", (int)c->ctx->pid, p->lib);
	fd = open(open_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(c->reason, sizeof(c->reason), "cannot open %.300s: %s", p->lib,
			 strerror(-err));
		return err;
	}
	for (int k = 0; k < TLS_FN_N; k++) {
		uint64_t size;

		err = uprobe_target__elf_func(fd, fn_names[k], &off[k], &size);
		if (err) {
			snprintf(c->reason, sizeof(c->reason), "%s: %s in %.300s (.symtab, .dynsym)",
				 fn_names[k], err == -ENOENT ? "no such function" : strerror(-err),
				 p->lib);
			close(fd);
			return err;
		}
		cookies[k] = (uint64_t)k;
		at += (size_t)snprintf(fns + at, sizeof(fns) - at, "%s%s", k ? ", " : "",
				       fn_names[k]);
	}
	close(fd);
	/* entries (with SSL_set_fd) and returns (the four calls), both at +0 */
	p->links[0] = uprobe_link__attach(p->skel->progs.tls_enter, c->ctx->pid, open_path, off,
					  cookies, TLS_FN_N, false);
	if (!p->links[0]) {
		err = -errno;
		bpf_util__format_error(c->reason, sizeof(c->reason), "attach the tls uprobes", err);
		return err;
	}
	p->links[1] = uprobe_link__attach(p->skel->progs.tls_exit, c->ctx->pid, open_path, off,
					  cookies, TLS_FN_SET_FD, true);
	if (!p->links[1]) {
		err = -errno;
		uprobe_link__destroy(p->links, 1);
		bpf_util__format_error(c->reason, sizeof(c->reason), "attach the tls uretprobes",
				       err);
		return err;
	}
	p->attached = true;
	p->attach_ns = rec_now_ns();
	p->at_start = at_start;
	snprintf(p->fns, sizeof(p->fns), "%s", fns);
	p->attach_said = false;
	return 0;
}

/* The TlsAttach of the attach made (at the next poll: start() writes no record). */
static int emit_attach(struct collector *c, struct tls_priv *p)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__TlsAttach ta = PTOP__V1__TLS_ATTACH__INIT;
	Ptop__V1__CollectorPayload cp;
	int err;

	ta.library = p->lib;
	ta.functions = p->fns;
	ta.at_start = p->at_start;
	err = capture_payload__pack(&ev, &cp, "tls", &ta.base);
	if (!err) {
		err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED,
				     p->attach_ns, 0);
		capture_payload__release(&cp);
	}
	p->attach_said = !err;
	return err;
}

static int on_data(void *arg, void *data, size_t size)
{
	struct tls_priv *p = arg;
	const struct tls_data *d = data;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__TlsData td = PTOP__V1__TLS_DATA__INIT;
	Ptop__V1__CollectorPayload cp;
	int err;

	if (size < offsetof(struct tls_data, data) || p->err)
		return 0;
	td.ssl = d->ssl;
	td.fd = d->fd;
	td.direction = d->dir;
	td.length = d->len;
	td.data.data = (uint8_t *)d->data;
	td.data.len = d->n <= TLS_BYTES_MAX ? d->n : 0;
	err = capture_payload__pack(&ev, &cp, "tls", &td.base);
	if (!err) {
		err = rec_emit_event(p->c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED,
				     d->time_ns, 0);
		capture_payload__release(&cp);
	}
	p->err = err;
	return 0;
}

static int tls_start(struct collector *c)
{
	struct tls_priv *p = calloc(1, sizeof(*p));
	int err;

	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	c->priv = p;
	p->c = c;
	p->seen = calloc(TLS_SEEN_CAP, sizeof(*p->seen));
	if (!p->seen) {
		err = -ENOMEM;
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		goto cleanup;
	}
	bpf_util__open_log(c->ctx->verbose);
	p->skel = tls_bpf__open();
	if (!p->skel) {
		err = -errno;
		bpf_util__format_error(c->reason, sizeof(c->reason), "open tls BPF", err);
		goto cleanup;
	}
	p->skel->rodata->tls_bytes = tls_settings.bytes;
	if (!tls_settings.bytes) /* no plaintext: no room for it either */
		bpf_map__set_max_entries(p->skel->maps.tls_data_rb, 4096);
	err = uprobe_link__prepare(p->skel->progs.tls_enter);
	err = err ?: uprobe_link__prepare(p->skel->progs.tls_exit);
	err = err ?: tls_bpf__load(p->skel);
	err = err ?: bpf_util__loaded(p->skel->obj, "tls");
	if (err) {
		bpf_util__format_error(c->reason, sizeof(c->reason), "load tls BPF", err);
		goto cleanup;
	}
	if (tls_settings.bytes) {
		p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.tls_data_rb), on_data, p, NULL);
		if (!p->rb) {
			err = -errno;
			snprintf(c->reason, sizeof(c->reason), "tls ring buffer: %s", strerror(-err));
			goto cleanup;
		}
	}
	p->prev_ns = rec_now_ns();
	if (!find_libssl(c->ctx->pid, p->lib, sizeof(p->lib))) {
		err = attach(c, p, true);
		if (err)
			goto cleanup;
	}
	return 0;
cleanup:
	c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	tls_stop(c);
	return err ? err : -EINVAL;
}

static struct tls_seen *seen_of(struct tls_priv *p, uint64_t ssl)
{
	uint64_t h = ssl * 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < TLS_SEEN_CAP; i++) {
		struct tls_seen *s = &p->seen[(h + i) & (TLS_SEEN_CAP - 1)];

		if (s->ssl == ssl || !s->ssl) {
			s->ssl = ssl;
			return s;
		}
	}
	return NULL;
}

static uint64_t delta(uint64_t now, uint64_t prev)
{
	return now >= prev ? now - prev : 0;
}

static int emit_conns(struct collector *c, struct tls_priv *p, uint64_t now_ns, uint64_t interval)
{
	int map = bpf_map__fd(p->skel->maps.tls_conns);
	uint64_t key, next;
	bool first = true;
	int err = 0;

	while (!err && !bpf_map_get_next_key(map, first ? NULL : &key, &next)) {
		Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
		Ptop__V1__TlsConn tc = PTOP__V1__TLS_CONN__INIT;
		Ptop__V1__CollectorPayload cp;
		struct tls_conn cur;
		struct tls_seen *s;

		first = false;
		key = next;
		if (bpf_map_lookup_elem(map, &key, &cur))
			continue;
		s = seen_of(p, key);
		if (!s)
			break; /* TLS_SEEN_CAP > TLS_CONN_MAX: not reached */
		if (cur.calls[0] == s->prev.calls[0] && cur.calls[1] == s->prev.calls[1])
			continue; /* no call in the interval (an fd alone waits for its calls) */
		tc.ssl = key;
		tc.fd = cur.fd;
		tc.write_calls = delta(cur.calls[0], s->prev.calls[0]);
		tc.write_ok = delta(cur.ok[0], s->prev.ok[0]);
		tc.write_bytes = delta(cur.bytes[0], s->prev.bytes[0]);
		tc.write_lat_ns = delta(cur.lat_ns[0], s->prev.lat_ns[0]);
		tc.write_lat_max_ns = cur.lat_max_ns[0];
		tc.read_calls = delta(cur.calls[1], s->prev.calls[1]);
		tc.read_ok = delta(cur.ok[1], s->prev.ok[1]);
		tc.read_bytes = delta(cur.bytes[1], s->prev.bytes[1]);
		tc.read_lat_ns = delta(cur.lat_ns[1], s->prev.lat_ns[1]);
		tc.read_lat_max_ns = cur.lat_max_ns[1];
		s->prev = cur;
		err = capture_payload__pack(&ev, &cp, "tls", &tc.base);
		if (err)
			break;
		err = rec_emit_event(c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_UNSPECIFIED, now_ns,
				     interval);
		capture_payload__release(&cp);
	}
	return err;
}

static int drop(struct collector *c, const char *kind, uint64_t now, uint64_t *prev,
		const char *detail)
{
	int err = 0;

	if (now > *prev)
		err = rec_emit_drop(c, kind, now - *prev, detail);
	*prev = now;
	return err;
}

static int tls_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct tls_priv *p = c->priv;
	uint64_t interval, misses;
	int err = 0;

	(void)flags;
	if (!p || !p->skel)
		return -EINVAL;
	if (!p->attached && !p->attach_failed &&
	    !find_libssl(c->ctx->pid, p->lib, sizeof(p->lib))) {
		err = attach(c, p, false);
		if (err) { /* said once: the calls are not seen */
			p->attach_failed = true;
			err = rec_emit_drop(c, "attach_failed", 1, c->reason);
			c->reason[0] = '\0';
			if (err)
				return err;
		}
	}
	if (p->attached && !p->attach_said) {
		err = emit_attach(c, p);
		if (err)
			return err;
	}
	if (p->rb) {
		ring_buffer__consume(p->rb);
		if (p->err)
			return p->err;
	}
	interval = now_ns > p->prev_ns ? now_ns - p->prev_ns : 0;
	err = emit_conns(c, p, now_ns, interval);
	p->prev_ns = now_ns;
	err = err ?: drop(c, "conn_table_full", p->skel->bss->tls_conn_full, &p->prev_full,
			  "TLS calls not counted: the table of SSL objects was full");
	err = err ?: drop(c, "ringbuf_full", p->skel->bss->tls_data_lost, &p->prev_lost,
			  "plaintext records (--tls-bytes) the ring buffer had no room for");
	err = err ?: drop(c, "unmatched_return", p->skel->bss->tls_unmatched, &p->prev_unmatched,
			  "TLS calls whose entry was not seen (in flight at the attach)");
	if (!err && !bpf_util__prog_misses(p->skel->progs.tls_enter, &misses))
		err = drop(c, "recursion_miss", misses, &p->prev_misses[0],
			   "TLS calls the kernel did not run the entry probe for");
	if (!err && !bpf_util__prog_misses(p->skel->progs.tls_exit, &misses))
		err = drop(c, "recursion_miss", misses, &p->prev_misses[1],
			   "TLS calls the kernel did not run the return probe for");
	return err;
}

/* The target exec'd: its uprobes were the old program's libssl's. Detach them, and decide
 * again for the new program (static: unsupported); the next poll finds its libssl. */
static int tls_exec(struct collector *c, uint64_t now_ns)
{
	struct tls_priv *p = c->priv;
	Ptop__V1__ProbeState state;
	int err = 0;

	if (p && p->skel)
		err = tls_poll(c, now_ns, 0); /* what the old program did, first */
	c->reason[0] = '\0';
	state = tls_check(c);
	if (state != PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE) {
		tls_stop(c);
		c->state = state;
		return err;
	}
	if (p && p->skel) {
		uprobe_link__destroy(p->links, 2);
		p->attached = false;
		p->attach_failed = false;
		p->lib[0] = '\0';
		c->state = state;
		return err;
	}
	c->state = state;
	return err ?: tls_start(c);
}

const struct collector_ops tls_collector = {
	.name = "tls",
	.summary = "TLS: per SSL connection calls, plaintext bytes and latency of "
		   "SSL_write/SSL_read(_ex) (eBPF uprobes on the target's libssl)",
	.off_by_default = "its uprobes cost the target a trap per SSL_write/SSL_read call "
			  "(see bench/README.md), and --tls-bytes reads plaintext",
	.opts = tls_opts,
	.settings = &tls_settings,
	.settings_size = sizeof(tls_settings),
	.opts_check = tls_opts_check,
	.check = tls_check,
	.start = tls_start,
	.poll = tls_poll,
	.stop = tls_stop,
	.exec = tls_exec,
};
