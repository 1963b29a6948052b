/* fuzz_records.c — structure-aware libFuzzer target for the loader and every report.
 *
 * An input is a capture file. The custom mutator decodes it into its records, mutates
 * them where they mean something (a field of a record or of a message inside it: ids,
 * times, counts, lengths, enum values, strings, doubles; a field dropped or repeated; a
 * record dropped, repeated or moved; a value taken from elsewhere in the capture, so ids
 * and times refer to each other) and writes the records again with the real writer, so
 * every frame's checksum passes and the loader sees the records. Each input is loaded
 * into an in-memory DB and, when the DB check passes (as in the commands), every report,
 * export, info and replay --dump run over it (tests/fuzz/fuzz_run.h).
 *
 *   make fuzz
 *   build/fuzz/fuzz_records -close_fd_mask=3 -max_total_time=60 CORPUS tests/fuzz/corpus_records
 *
 * The property of issue 21 is checked on every input: a record that does not decode (no
 * Record at all, or a collector payload its part cannot unpack) is skipped and counted,
 * never a reason to refuse the rest; the load's skipped count equals the records of the
 * input that do not decode (counted here apart, with the payloads' own descriptors);
 * and a capture that loads passes the DB check the reports run (the rows it would refuse
 * are left out at load). A failure of either aborts, as a crash does.
 *
 * The checked-in seeds (tests/fuzz/corpus_records/seed-NN) are small real captures
 * (tests/fuzz/make_seeds.sh). Protobuf wire format is mutated, not protobuf-c structs:
 * a mutated record that no longer decodes is tried again.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/load.h"
#include "analyze/part.h"
#include "proto/capture.h"
#include "tests/fuzz/fuzz_run.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* ------------------------------------------------------------------ random */

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t rnd_below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

/* ------------------------------------------------------------------ byte buffers */

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void buf__put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < b->n + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p)
			abort();
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void buf__varint(struct buf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;

	do {
		t[n] = v & 0x7f;
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	buf__put(b, t, n);
}

/* ------------------------------------------------------------------ wire format */

static int get_varint(const uint8_t *p, size_t n, size_t *i, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned s = 0; s < 64 && *i < n; s += 7) {
		uint8_t c = p[(*i)++];

		x |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

/* One field at P[*I]: its number, wire type, value (varint, fixed) or bytes (LEN). */
struct wfield {
	uint64_t key;
	unsigned wt;
	uint64_t v;
	const uint8_t *d;
	size_t len;
	size_t start, end; /* the whole field's bytes */
};

static int next_field(const uint8_t *p, size_t n, size_t *i, struct wfield *f)
{
	f->start = *i;
	if (get_varint(p, n, i, &f->key) || (f->key >> 3) == 0)
		return -1;
	f->wt = f->key & 7;
	switch (f->wt) {
	case 0:
		if (get_varint(p, n, i, &f->v))
			return -1;
		break;
	case 1:
		if (n - *i < 8)
			return -1;
		memcpy(&f->v, p + *i, 8);
		*i += 8;
		break;
	case 5:
		if (n - *i < 4)
			return -1;
		f->v = 0;
		memcpy(&f->v, p + *i, 4);
		*i += 4;
		break;
	case 2:
		if (get_varint(p, n, i, &f->v) || f->v > n - *i)
			return -1;
		f->d = p + *i;
		f->len = (size_t)f->v;
		*i += f->len;
		break;
	default:
		return -1;
	}
	f->end = *i;
	return 0;
}

/* Whether P[0..N) parses whole as fields (so a LEN field is taken for a message). */
static bool is_message(const uint8_t *p, size_t n, int depth)
{
	struct wfield f;
	size_t i = 0;

	if (!n || depth > 8)
		return false;
	while (i < n)
		if (next_field(p, n, &i, &f))
			return false;
	return true;
}

/* ------------------------------------------------------------------ the value pool */

/* Varints and strings seen in the capture: ids, times, pids, paths to reuse elsewhere. */
#define POOL 512
static uint64_t pool_v[POOL];
static size_t pool_nv;
static struct {
	const uint8_t *d;
	size_t len;
} pool_s[POOL];
static size_t pool_ns;

static void pool_scan(const uint8_t *p, size_t n, int depth)
{
	struct wfield f;
	size_t i = 0;

	while (i < n && !next_field(p, n, &i, &f)) {
		if (f.wt == 0 && f.v > 1) {
			if (pool_nv < POOL)
				pool_v[pool_nv++] = f.v;
			else
				pool_v[rnd_below(POOL)] = f.v;
		} else if (f.wt == 2) {
			if (is_message(f.d, f.len, depth + 1))
				pool_scan(f.d, f.len, depth + 1);
			else if (pool_ns < POOL)
				pool_s[pool_ns].d = f.d, pool_s[pool_ns++].len = f.len;
		}
	}
}

/* ------------------------------------------------------------------ field mutations */

static uint64_t interesting_u64(void)
{
	static const uint64_t v[] = {0,
				     1,
				     2,
				     7,
				     64,
				     255,
				     1000,
				     1000000000,
				     0x7fffffff,
				     0x80000000,
				     0xffffffff,
				     0x100000000,
				     (1ull << 53) + 1,
				     0x7fffffffffffffff,
				     0x8000000000000000,
				     0x8000000000000001,
				     0xfffffffffffffffe,
				     0xffffffffffffffff};

	return v[rnd_below(sizeof(v) / sizeof(v[0]))];
}

static uint64_t mutate_varint(uint64_t x)
{
	switch (rnd_below(8)) {
	case 0:
	case 1:
		return interesting_u64();
	case 2:
		return x + 1 + rnd_below(16);
	case 3:
		return x - 1 - rnd_below(16);
	case 4:
		return pool_nv ? pool_v[rnd_below(pool_nv)] : x;
	case 5:
		return rnd_below(2) ? x * 2 : x / 2;
	case 6:
		return x ^ (1ull << rnd_below(64));
	default:
		return rnd();
	}
}

static uint64_t mutate_fixed64(uint64_t x)
{
	static const double d[] = {0.0, -0.0, 1.0, -1.0, 1e-300, 1e300, -1e300, 99.0, 1e19};
	double v;

	switch (rnd_below(4)) {
	case 0:
		v = d[rnd_below(sizeof(d) / sizeof(d[0]))];
		break;
	case 1:
		v = rnd_below(2) ? __builtin_nan("") : (rnd_below(2) ? __builtin_inf()
								     : -__builtin_inf());
		break;
	case 2:
		return interesting_u64();
	default:
		return x ^ (1ull << rnd_below(64));
	}
	memcpy(&x, &v, 8);
	return x;
}

static void mutate_bytes(struct buf *out, const uint8_t *d, size_t len)
{
	static const char *const s[] = {"", "/", "[heap]", "[stack]", "[anon:x]", "[vdso]",
					"/usr/bin/app", "active", "cgroup", "v1", "v2", "go",
					"user", "kernel", "jit", "memory", "some", "full"};
	uint8_t t[512];
	size_t n;

	switch (rnd_below(7)) {
	case 0: { /* a known word */
		const char *w = s[rnd_below(sizeof(s) / sizeof(s[0]))];

		buf__put(out, w, strlen(w));
		return;
	}
	case 1: /* from elsewhere in the capture */
		if (pool_ns) {
			size_t k = rnd_below(pool_ns);

			buf__put(out, pool_s[k].d, pool_s[k].len);
			return;
		}
		break;
	case 2: /* long */
		n = 100 + rnd_below(400);
		memset(t, 'A' + (int)rnd_below(26), n);
		buf__put(out, t, n);
		return;
	case 3: /* cut */
		buf__put(out, d, rnd_below(len + 1));
		return;
	case 4: /* random bytes, maybe not UTF-8, maybe with NULs */
		n = rnd_below(32);
		for (size_t k = 0; k < n; k++)
			t[k] = (uint8_t)rnd();
		buf__put(out, t, n);
		return;
	case 5: /* doubled */
		buf__put(out, d, len);
		buf__put(out, d, len);
		return;
	default:
		break;
	}
	/* one byte changed */
	buf__put(out, d, len);
	if (len)
		out->p[out->n - len + rnd_below(len)] = (uint8_t)rnd();
}

/* Copy message P[0..N) to OUT with leaf number *TARGET (counted down in field order,
 * messages inside included) mutated: its value changed, or the field dropped or
 * repeated. */
static void rewrite(const uint8_t *p, size_t n, struct buf *out, long *target, int depth)
{
	struct wfield f;
	size_t i = 0;

	while (i < n && !next_field(p, n, &i, &f)) {
		bool sub = f.wt == 2 && is_message(f.d, f.len, depth + 1);
		bool hit = (*target)-- == 0;

		if (hit) {
			unsigned op = (unsigned)rnd_below(10);

			if (op == 0) /* dropped */
				continue;
			if (op == 1) /* repeated (a repeated field gains an element) */
				buf__put(out, p + f.start, f.end - f.start);
			if (op <= 1 || (sub && op < 5)) {
				buf__put(out, p + f.start, f.end - f.start);
				continue;
			}
			if (op == 2 && f.wt == 0) { /* a neighbouring field number */
				buf__varint(out, ((f.key >> 3) + 1) << 3);
				buf__varint(out, f.v);
				continue;
			}
			buf__varint(out, f.key);
			switch (f.wt) {
			case 0:
				buf__varint(out, mutate_varint(f.v));
				break;
			case 1: {
				uint64_t v = mutate_fixed64(f.v);

				buf__put(out, &v, 8);
				break;
			}
			case 5: {
				uint32_t v = (uint32_t)mutate_fixed64(f.v);

				buf__put(out, &v, 4);
				break;
			}
			default: {
				struct buf t = {0};

				if (sub) { /* a field the message lacked: a copy of its first one */
					buf__put(&t, f.d, f.len);
					if (f.len && rnd_below(2)) {
						size_t j = 0;
						struct wfield g;

						if (!next_field(f.d, f.len, &j, &g))
							buf__put(&t, f.d, g.end);
					}
				} else {
					mutate_bytes(&t, f.d, f.len);
				}
				buf__varint(out, t.n);
				buf__put(out, t.p, t.n);
				free(t.p);
			}
			}
			continue;
		}
		if (sub) {
			struct buf t = {0};

			rewrite(f.d, f.len, &t, target, depth + 1);
			buf__varint(out, f.key);
			buf__varint(out, t.n);
			buf__put(out, t.p, t.n);
			free(t.p);
			continue;
		}
		buf__put(out, p + f.start, f.end - f.start);
	}
}

static long count_leaves(const uint8_t *p, size_t n, int depth)
{
	struct wfield f;
	size_t i = 0;
	long c = 0;

	while (i < n && !next_field(p, n, &i, &f)) {
		c++;
		if (f.wt == 2 && is_message(f.d, f.len, depth + 1))
			c += count_leaves(f.d, f.len, depth + 1);
	}
	return c;
}

/* ------------------------------------------------------------------ records */

struct recs {
	struct buf *r; /* each a packed Record */
	size_t n;
};

static void recs__free(struct recs *rs)
{
	for (size_t k = 0; k < rs->n; k++)
		free(rs->r[k].p);
	free(rs->r);
	rs->r = NULL;
	rs->n = 0;
}

static void recs__add(struct recs *rs, const uint8_t *p, size_t n)
{
	rs->r = realloc(rs->r, (rs->n + 1) * sizeof(*rs->r));
	if (!rs->r)
		abort();
	memset(&rs->r[rs->n], 0, sizeof(rs->r[0]));
	buf__put(&rs->r[rs->n++], p, n);
}

static int memfd_with(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-records", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	if (size && pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	return fd;
}

/* The records of capture DATA, packed again (what the reader returned). 0 or -1 when
 * it has none (not a capture). */
static int decode(const uint8_t *data, size_t size, struct recs *rs)
{
	int fd = memfd_with(data, size);
	struct capture_reader *r = capture_reader__open_fd(fd);
	Ptop__V1__Record *rec;

	memset(rs, 0, sizeof(*rs));
	if (r) {
		while (capture_reader__next(r, &rec) == 1) {
			size_t n = ptop__v1__record__get_packed_size(rec);
			uint8_t *p = malloc(n ? n : 1);

			if (!p)
				abort();
			ptop__v1__record__pack(rec, p);
			recs__add(rs, p, n);
			free(p);
			ptop__v1__record__free_unpacked(rec, NULL);
		}
		capture_reader__free(r);
	}
	close(fd);
	return rs->n ? 0 : -1;
}

/* Write RS as a capture with the real writer (frames of FRAME_BYTES) into OUT. Records
 * that no longer decode are left out. 0 or -1. */
static int encode(const struct recs *rs, size_t frame_bytes, struct buf *out)
{
	struct capture_writer_opts o = {.force = true, .frame_bytes = frame_bytes};
	int fd = memfd_create("fuzz-records-out", MFD_CLOEXEC);
	struct capture_writer *w;
	char path[64];
	off_t end;

	if (fd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	w = capture_writer__create(path, &o);
	if (!w) {
		close(fd);
		return -1;
	}
	for (size_t k = 0; k < rs->n; k++) {
		Ptop__V1__Record *rec =
		    ptop__v1__record__unpack(NULL, rs->r[k].n, rs->r[k].p);

		if (!rec)
			continue;
		capture_writer__append(w, rec);
		ptop__v1__record__free_unpacked(rec, NULL);
	}
	capture_writer__close(w);
	end = lseek(fd, 0, SEEK_END);
	out->n = 0;
	if (end > 0) {
		out->p = realloc(out->p, (size_t)end);
		if (!out->p)
			abort();
		out->cap = (size_t)end;
		if (pread(fd, out->p, (size_t)end, 0) != end)
			abort();
		out->n = (size_t)end;
	}
	close(fd);
	return out->n ? 0 : -1;
}

/* Damage the bytes of record K's collector payload (Event.collector_payload.data) the
 * way a disk or a bad copy would: bytes overwritten, the message cut, or bytes inserted;
 * the Record around it still decodes. false when K has no collector payload. */
static bool damage_payload(struct recs *rs, size_t k)
{
	Ptop__V1__Record *rec = ptop__v1__record__unpack(NULL, rs->r[k].n, rs->r[k].p);
	Ptop__V1__CollectorPayload *cp;
	ProtobufCBinaryData keep;
	struct buf d = {0}, t = {0};
	bool done = false;

	if (!rec)
		return false;
	cp = rec->kind_case == PTOP__V1__RECORD__KIND_EVENT && rec->event
		 ? rec->event->collector_payload
		 : NULL;
	if (cp && rec->event->payload_case == PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD &&
	    cp->data.len) {
		size_t at = rnd_below(cp->data.len), n = 1 + rnd_below(8);

		buf__put(&d, cp->data.data, cp->data.len);
		switch (rnd_below(3)) {
		case 0: /* overwritten */
			for (size_t j = 0; j < n && at + j < d.n; j++)
				d.p[at + j] = (uint8_t)rnd();
			break;
		case 1: /* cut */
			d.n = at;
			break;
		default: { /* inserted */
			uint8_t junk[8];

			for (size_t j = 0; j < n; j++)
				junk[j] = (uint8_t)rnd();
			buf__put(&d, junk, n); /* room, then moved into place */
			memmove(d.p + at + n, d.p + at, d.n - n - at);
			memcpy(d.p + at, junk, n);
		}
		}
		keep = cp->data;
		cp->data.data = d.p;
		cp->data.len = d.n;
		t.n = t.cap = ptop__v1__record__get_packed_size(rec);
		t.p = malloc(t.n ? t.n : 1);
		if (!t.p)
			abort();
		ptop__v1__record__pack(rec, t.p);
		cp->data = keep;
		free(rs->r[k].p);
		rs->r[k] = t;
		done = true;
	}
	free(d.p);
	ptop__v1__record__free_unpacked(rec, NULL);
	return done;
}

/* One mutation of one record (a field of it), or of the list. */
static void mutate_once(struct recs *rs)
{
	size_t k = rnd_below(rs->n);
	unsigned op = (unsigned)rnd_below(16);

	if (op == 3 ||
	    op == 4) { /* a collector payload damaged: the first record from K on that has one */
		for (size_t j = 0; j < rs->n; j++)
			if (damage_payload(rs, (k + j) % rs->n))
				return;
	}

	if (op == 0 && rs->n > 1) { /* dropped */
		free(rs->r[k].p);
		memmove(&rs->r[k], &rs->r[k + 1], (rs->n - k - 1) * sizeof(rs->r[0]));
		rs->n--;
		return;
	}
	if (op == 1 && rs->n < 4096) { /* repeated somewhere */
		struct buf copy = {0};
		size_t at = rnd_below(rs->n + 1);

		buf__put(&copy, rs->r[k].p, rs->r[k].n);
		recs__add(rs, NULL, 0);
		free(rs->r[rs->n - 1].p);
		memmove(&rs->r[at + 1], &rs->r[at], (rs->n - 1 - at) * sizeof(rs->r[0]));
		rs->r[at] = copy;
		return;
	}
	if (op == 2 && rs->n > 1) { /* moved */
		size_t j = rnd_below(rs->n);
		struct buf t = rs->r[k];

		rs->r[k] = rs->r[j];
		rs->r[j] = t;
		return;
	}
	for (int tries = 0; tries < 8; tries++) {
		long leaves = count_leaves(rs->r[k].p, rs->r[k].n, 0);
		long target = (long)rnd_below((size_t)(leaves > 0 ? leaves : 1));
		struct buf t = {0};
		Ptop__V1__Record *rec;

		rewrite(rs->r[k].p, rs->r[k].n, &t, &target, 0);
		rec = ptop__v1__record__unpack(NULL, t.n, t.p);
		if (rec) {
			ptop__v1__record__free_unpacked(rec, NULL);
			free(rs->r[k].p);
			rs->r[k] = t;
			return;
		}
		free(t.p);
	}
}

static size_t emit(const struct recs *rs, uint8_t *data, size_t max_size)
{
	struct buf out = {0};
	size_t n = 0;

	if (!encode(rs, rnd_below(3) ? 0 : 256 + rnd_below(4096), &out) && out.n <= max_size) {
		memcpy(data, out.p, out.n);
		n = out.n;
	}
	free(out.p);
	return n;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	struct recs rs;
	size_t n;

	rng = seed | 1;
	if (rnd_below(20) == 0 || decode(data, size, &rs))
		return LLVMFuzzerMutate(data, size, max_size);
	for (unsigned m = 1 + (unsigned)rnd_below(4); m; m--) {
		/* the pool points into the records: scanned again after each change */
		pool_nv = pool_ns = 0;
		for (size_t k = 0; k < rs.n; k++)
			pool_scan(rs.r[k].p, rs.r[k].n, 0);
		mutate_once(&rs);
	}
	n = emit(&rs, data, max_size);
	recs__free(&rs);
	return n ? n : LLVMFuzzerMutate(data, size, max_size);
}

/* The header of the first, then records of both, interleaved at a random cut. */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
				 uint8_t *out, size_t max_out, unsigned int seed)
{
	struct recs a, b, c = {0};
	size_t n = 0;

	rng = seed | 1;
	if (decode(d1, s1, &a))
		return 0;
	if (decode(d2, s2, &b)) {
		recs__free(&a);
		return 0;
	}
	for (size_t k = 0, cut = rnd_below(a.n + 1); k < a.n; k++)
		if (k < cut || rnd_below(2))
			recs__add(&c, a.r[k].p, a.r[k].n);
	for (size_t k = 1; k < b.n; k++)
		if (rnd_below(2))
			recs__add(&c, b.r[k].p, b.r[k].n);
	n = emit(&c, out, max_out);
	recs__free(&a);
	recs__free(&b);
	recs__free(&c);
	return n;
}

/* ------------------------------------------------------------------ one bad record */

/* The part that loads collector payloads of TYPE, and the message's descriptor (the
 * entry's an_load_payload.desc, which test_load holds every such entry to carrying, so a
 * collector added later cannot escape the property): 0, or -1 when no part does. */
static int payload_part(const char *type, const char **part,
			const ProtobufCMessageDescriptor **desc)
{
	for (const struct an_part *const *p = an_parts; *p; p++)
		for (const struct an_load_payload *c = (*p)->load ? (*p)->load->payloads : NULL;
		     c && c->load; c++) {
			if (c->payload != PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD || !c->type ||
			    !type || strcmp(c->type, type))
				continue;
			if (!c->desc || strcmp(c->desc->name, type)) {
				fprintf(stderr,
					"fuzz_records: part %s loads %s without its descriptor "
					"(an_load_payload.desc)\n",
					(*p)->name, type);
				abort();
			}
			*part = (*p)->name;
			*desc = c->desc;
			return 0;
		}
	return -1;
}

/* The records of the capture at PATH that a load must skip: those the reader finds are no
 * Record, and the events whose collector payload the part that claims it cannot unpack. */
static uint64_t undecodable_records(const char *path)
{
	struct capture_reader *r = capture_reader__open(path);
	Ptop__V1__Record *rec;
	uint64_t n = 0;

	if (!r)
		return 0;
	while (capture_reader__next(r, &rec) == 1) {
		const Ptop__V1__Event *ev =
		    rec->kind_case == PTOP__V1__RECORD__KIND_EVENT ? rec->event : NULL;
		const Ptop__V1__CollectorPayload *cp = ev ? ev->collector_payload : NULL;
		const ProtobufCMessageDescriptor *d;
		const char *part;

		if (ev && ev->payload_case == PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD && cp &&
		    !payload_part(cp->type, &part, &d) && cp->collector &&
		    !strcmp(cp->collector, part)) {
			ProtobufCMessage *m =
			    protobuf_c_message_unpack(d, NULL, cp->data.len, cp->data.data);

			if (m)
				protobuf_c_message_free_unpacked(m, NULL);
			else
				n++;
		}
		ptop__v1__record__free_unpacked(rec, NULL);
	}
	n += capture_reader__status(r)->skipped;
	capture_reader__free(r);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	char cid[DB_CAPTURE_ID_LEN], err[1024];
	struct load_stats st;
	sqlite3 *db = fuzz__new_db();
	FILE *f;

	/* a file by name: the loader records the capture's real path, size and mtime */
	if (!path[0])
		snprintf(path, sizeof(path), "/dev/shm/ptop-fuzz-records-%d", (int)getpid());
	f = fopen(path, "w");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
		abort();
	if (!db__load_capture(db, path, false, cid, &st, err, sizeof(err))) {
		uint64_t want = undecodable_records(path);
		int64_t cap = fuzz__cap_of(db, cid);

		if (st.skipped != want) {
			fprintf(stderr,
				"fuzz_records: the load skipped %" PRIu64 " records, %" PRIu64
				" do not decode\n",
				st.skipped, want);
			abort();
		}
		if (cap >= 0 && db__check_capture(db, cap, err, sizeof(err))) {
			fprintf(stderr,
				"fuzz_records: a capture that loaded is refused by the DB "
				"check the reports run: %s\n",
				err);
			abort();
		}
		fuzz__run_checked(db, cid, fuzz__hash(data, size));
	} else if (strstr(err, "does not unpack") || strstr(err, "corrupt DB")) {
		/* a record that does not decode is skipped, not the whole capture refused */
		fprintf(stderr, "fuzz_records: the load refused the capture: %s\n", err);
		abort();
	}
	sqlite3_close(db);
	unlink(path);
	return 0;
}
