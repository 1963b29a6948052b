/* test_unwind.c — stack copies (--user-stacks dwarf) unwound by the analyzer
 * (analyze/unwind.h), on a real stack: this test copies the top of its own stack and
 * its registers, as the BPF side does, three calls deep (uw_level1 -> uw_level2 ->
 * grab), writes a capture with that copy as a Stack, its process's executable mappings
 * (with their build-ids, so that the files are found as in a real capture) and a CPU
 * profile counting it, loads it, and checks the stack row's frames: the ip in grab,
 * then return addresses in uw_level2, uw_level1 and the test function, down to the
 * outermost frame. rbp is given as the BPF side gives it, when it points into the
 * copy (this test is built with frame pointers, and its CFI says so). A copy cut to 8
 * bytes unwinds to the ip and one frame at most,
 * and says why the walk stopped; a capture without copies has nothing to unwind.
 * test_02: the same copy with a call into a lazy PLT stub of this program on top (the
 * return address pushed, and once the entry's index too), the leaf pc in that stub: the
 * walk goes from the stub to grab and on, by the .plt's CFA expression.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "analyze/db.h"
#include "analyze/unwind.h"
#include <sqlite3.h>
#include "proto/capture.h"
#include "symbol/buildid.h"
#include "tests/tmpdir.h"
#include "tests/sqlq.h"
#include "tests/capwrite.h"

#define T0 1000000000000ull
#define SEC 1000000000ull
#define COPY_MAX 16384

static char errbuf[1024];

/* What grab() took: the registers and the stack from sp up. */
struct snap {
	uint64_t ip, sp, bp;
	size_t len;
	uint8_t stack[COPY_MAX];
};

static struct snap snap;
static uint64_t stack_end;	/* the end of the [stack] mapping */

static int setup(void **state)
{
	(void)state;
	return tmpdir__make("unwind");
}

/* The ip and sp at one instruction of grab, and the stack above sp (to the stack's
 * end), as the BPF side copies it: word by word, not by memcpy, and not checked by
 * ASan (it reads other frames' red zones on purpose). */
__attribute__((noinline, noipa, no_sanitize_address)) static void grab(struct snap *s)
{
	const volatile uint64_t *from;
	uint64_t ip, sp, bp;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(ip), "=r"(sp), "=r"(bp));
	s->ip = ip;
	s->sp = sp;
	s->bp = bp;
	s->len = stack_end - sp < COPY_MAX ? stack_end - sp : COPY_MAX;
	from = (const volatile uint64_t *)(uintptr_t)sp;
	for (size_t i = 0; i < s->len / 8; i++) {
		uint64_t w = from[i];

		__builtin_memcpy(s->stack + i * 8, &w, 8);
	}
}

__attribute__((noinline, noipa)) static void uw_level2(struct snap *s)
{
	grab(s);
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

__attribute__((noinline, noipa)) static void uw_level1(struct snap *s)
{
	uw_level2(s);
	__asm__ volatile("" ::: "memory");
}

/* The executable file mappings of this process and the end of its stack. */
struct map {
	uint64_t start, end, off;
	char path[512];
};

static size_t read_maps(struct map *m, size_t max)
{
	char line[1024];
	size_t n = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, off;
		char perms[8], path[512] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*u %511s", &a, &b, perms, &off, path) < 4)
			continue;
		if (!strcmp(path, "[stack]"))
			stack_end = b;
		if (perms[2] != 'x' || path[0] != '/' || n == max)
			continue;
		m[n].start = a;
		m[n].end = b;
		m[n].off = off;
		snprintf(m[n].path, sizeof(m[n].path), "%s", path);
		n++;
	}
	fclose(f);
	return n;
}

static void put_mapping(struct capture_writer *w, const struct map *mp)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Mapping m = PTOP__V1__MAPPING__INIT;
	uint8_t bid[64];
	size_t blen = 0;

	m.time_ns = T0;
	m.pid = getpid();
	m.start = mp->start;
	m.end = mp->end;
	m.offset = mp->off;
	m.path = (char *)mp->path;
	if (buildid_read_path(mp->path, bid, sizeof(bid), &blen) == 0 && blen) {
		m.build_id.data = bid;
		m.build_id.len = blen;
	} else {
		m.build_id_error = "no build-id note";
	}
	m.perms = "r-xp";
	m.event = PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START;
	r.kind_case = PTOP__V1__RECORD__KIND_MAPPING;
	r.mapping = &m;
	capw__append(w, &r);
}

static void put_copy(struct capture_writer *w, uint64_t id, const struct snap *s, size_t len)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Stack st = PTOP__V1__STACK__INIT;
	Ptop__V1__StackCopy cp = PTOP__V1__STACK_COPY__INIT;

	cp.pid = getpid();
	cp.tid = getpid();
	cp.ip = s->ip;
	cp.sp = s->sp;
	/* rbp as the BPF side gives it: when it points into the copy (this test is built
	 * with frame pointers: its CFI finds the frames from rbp) */
	cp.bp = s->bp >= s->sp && s->bp < s->sp + len ? s->bp : 0;
	cp.stack.data = (uint8_t *)s->stack;
	cp.stack.len = len;
	cp.time_ns = T0 + 1;
	st.id = id;
	st.copy = &cp;
	r.kind_case = PTOP__V1__RECORD__KIND_STACK;
	r.stack = &st;
	capw__append(w, &r);
}

static void put_profile(struct capture_writer *w, const uint64_t *ids, size_t n)
{
	Ptop__V1__Record r = PTOP__V1__RECORD__INIT;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CpuProfile p = PTOP__V1__CPU_PROFILE__INIT;
	Ptop__V1__StackCount c[4], *cp[4];

	for (size_t k = 0; k < n; k++) {
		ptop__v1__stack_count__init(&c[k]);
		c[k].user_stack_id = ids[k];
		c[k].count = 1;
		cp[k] = &c[k];
	}
	ev.time_ns = T0 + SEC;
	ev.pid = getpid();
	ev.category = PTOP__V1__CATEGORY__CATEGORY_CPUPROF;
	ev.interval_ns = SEC;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_CPUPROF;
	ev.cpuprof = &p;
	p.requested_hz = 99;
	p.samples = n;
	p.user_stacks = "dwarf";
	p.stack_copies = n;
	p.stacks = cp;
	p.n_stacks = n;
	r.kind_case = PTOP__V1__RECORD__KIND_EVENT;
	r.event = &ev;
	capw__append(w, &r);
}

static sqlite3 *load(const char *path)
{
	char dbp[300], id[DB_CAPTURE_ID_LEN];
	sqlite3 *db = NULL;

	snprintf(dbp, sizeof(dbp), "%s.db", path);
	assert_int_equal(db__open(dbp, true, false, &db, errbuf, sizeof(errbuf)), 0);
	if (db__load_capture(db, path, true, id, NULL, errbuf, sizeof(errbuf)))
		fail_msg("load: %s", errbuf);
	return db;
}

/* Which of the test's functions FN[0..N) the address A is in: the one at or below it
 * nearest (within 8 KiB: ASan makes them long), or -1. */
static int which(uint64_t a, const uint64_t *fn, int n)
{
	int best = -1;

	for (int i = 0; i < n; i++)
		if (fn[i] <= a && a - fn[i] < 8192 && (best < 0 || fn[i] > fn[best]))
			best = i;
	return best;
}

static void test_01_own_stack(void **state)
{
	static struct map maps[64];
	const uint64_t fn[] = { (uintptr_t)grab, (uintptr_t)uw_level2, (uintptr_t)uw_level1,
				(uintptr_t)test_01_own_stack };
	const uint64_t ids[] = { 1, 2 };
	struct capture_writer_opts o = { .force = true };
	struct capture_writer *w;
	struct capb_header b;
	char path[256], end[64];
	uint64_t ips[64];
	size_t nm, n = 0;
	sqlite3_stmt *s;
	sqlite3 *db;

	(void)state;
	nm = read_maps(maps, 64);
	assert_true(nm > 0 && stack_end);
	uw_level1(&snap);
	printf("# ip %#llx sp %#llx, %zu bytes copied\n", (unsigned long long)snap.ip,
	       (unsigned long long)snap.sp, snap.len);

	snprintf(path, sizeof(path), "%s/own.ptop", tmpdir);
	w = capture_writer__create(path, &o);
	assert_non_null(w);
	capb__header_init(&b);
	b.t.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_PID;
	b.t.pid = getpid();
	b.clk.monotonic_ns = T0;
	capb__probe(&b, "cpuprof", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
		    PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, NULL, NULL);
	capb__put_header(w, &b);
	for (size_t i = 0; i < nm; i++)
		put_mapping(w, &maps[i]);
	put_copy(w, 1, &snap, snap.len);
	put_copy(w, 2, &snap, 8);	/* only the word at sp */
	put_profile(w, ids, 2);
	capw__trailer(w, T0 + 2 * SEC);
	assert_int_equal(capture_writer__close(w), 0);

	db = load(path);
	/* the load unwound both: nothing is pending */
	assert_false(unwind__pending(db, 1));
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT ip FROM stack_frame WHERE stack_id = 1 "
						"ORDER BY depth", -1, &s, NULL), SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW && n < 64)
		ips[n++] = (uint64_t)sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	for (size_t i = 0; i < n; i++)
		printf("# frame %zu %#llx: %d\n", i, (unsigned long long)ips[i],
		       which(ips[i] - (i > 0), fn, 4));
	assert_true(n >= 5);
	assert_int_equal(ips[0], snap.ip);
	assert_int_equal(which(ips[0], fn, 4), 0);	/* grab */
	assert_int_equal(which(ips[1] - 1, fn, 4), 1);	/* uw_level2 */
	assert_int_equal(which(ips[2] - 1, fn, 4), 2);	/* uw_level1 */
	assert_int_equal(which(ips[3] - 1, fn, 4), 3);	/* this test */
	assert_int_equal(q_int(db, "SELECT depth FROM stack WHERE stack_id = 1"), (int64_t)n);
	assert_int_equal(q_int(db, "SELECT unwound FROM stack_copy WHERE stack_id = 1"),
			 (int64_t)n);
	snprintf(end, sizeof(end), "%s", q_text(db, "SELECT unwind_end FROM stack_copy WHERE stack_id = 1"));
	printf("# whole copy: %zu frames, %s\n", n, end);
	assert_string_equal(end, "outermost frame");	/* _start's CFI: no caller */

	/* 8 bytes: the ip, and the return address at sp at most; the reason is said */
	assert_true(q_int(db, "SELECT unwound FROM stack_copy WHERE stack_id = 2") <= 2);
	snprintf(end, sizeof(end), "%s", q_text(db, "SELECT unwind_end FROM stack_copy WHERE stack_id = 2"));
	printf("# 8-byte copy: %s\n", end);
	assert_string_not_equal(end, "outermost frame");
	assert_string_not_equal(end, "");
	sqlite3_close(db);
}

/* The run-time address of this program's .plt, or 0 (and why, in WHY). */
static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr;
	return 1;	/* the first object is the program */
}

static uint64_t own_plt(uint64_t *size, const char **why)
{
	uint64_t bias = 0, addr = 0;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	size_t shstr;
	Elf *e;

	*why = "/proc/self/exe cannot be opened";
	if (fd < 0)
		return 0;
	dl_iterate_phdr(first_object, &bias);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	*why = "this program has no .plt section (built with -fno-plt?)";
	if (e && !elf_getshdrstrndx(e, &shstr)) {
		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh))
				continue;
			name = elf_strptr(e, shstr, sh.sh_name);
			if (name && !strcmp(name, ".plt") && sh.sh_size >= 32) {
				addr = bias + sh.sh_addr;
				*size = sh.sh_size;
			}
		}
	}
	elf_end(e);
	close(fd);
	return addr;
}

static struct snap plt_snap[2];

static void test_02_leaf_in_plt(void **state)
{
	static struct map maps[64];
	const uint64_t fn[] = { (uintptr_t)grab, (uintptr_t)uw_level2, (uintptr_t)uw_level1,
				(uintptr_t)test_02_leaf_in_plt };
	const uint64_t ids[] = { 1, 2 };
	struct capture_writer_opts o = { .force = true };
	struct capture_writer *w;
	struct capb_header b;
	const char *why = NULL;
	char path[256], end[64];
	uint64_t plt, pltsize = 0;
	size_t nm;
	sqlite3 *db;

	(void)state;
	plt = own_plt(&pltsize, &why);
	if (!plt) {
		printf("# skipped: %s\n", why);
		skip();
	}
	nm = read_maps(maps, 64);
	assert_true(nm > 0 && stack_end);
	uw_level1(&snap);
	/* The first entry after PLT0: at +0 (jmp *GOT) only the return address is pushed;
	 * at +11 (jmp PLT0) the entry's index is pushed too: the CFA is rsp + 16. */
	for (int k = 0; k < 2; k++) {
		struct snap *p = &plt_snap[k];
		size_t pushed = k ? 16 : 8, len = snap.len;
		uint64_t index = 7;

		if (len > COPY_MAX - pushed)
			len = COPY_MAX - pushed;
		p->ip = plt + 16 + (k ? 11 : 0);
		p->sp = snap.sp - pushed;
		p->bp = snap.bp;
		if (k)
			memcpy(p->stack, &index, 8);
		memcpy(p->stack + pushed - 8, &snap.ip, 8);	/* the call's return address */
		memcpy(p->stack + pushed, snap.stack, len);
		p->len = len + pushed;
	}
	printf("# .plt at %#llx (%llu bytes), leaf pcs %#llx and %#llx\n",
	       (unsigned long long)plt, (unsigned long long)pltsize,
	       (unsigned long long)plt_snap[0].ip, (unsigned long long)plt_snap[1].ip);

	snprintf(path, sizeof(path), "%s/plt.ptop", tmpdir);
	w = capture_writer__create(path, &o);
	assert_non_null(w);
	capb__header_init(&b);
	b.t.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_PID;
	b.t.pid = getpid();
	b.clk.monotonic_ns = T0;
	capb__probe(&b, "cpuprof", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
		    PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, NULL, NULL);
	capb__put_header(w, &b);
	for (size_t i = 0; i < nm; i++)
		put_mapping(w, &maps[i]);
	put_copy(w, 1, &plt_snap[0], plt_snap[0].len);
	put_copy(w, 2, &plt_snap[1], plt_snap[1].len);
	put_profile(w, ids, 2);
	capw__trailer(w, T0 + 2 * SEC);
	assert_int_equal(capture_writer__close(w), 0);

	db = load(path);
	for (int k = 0; k < 2; k++) {
		char sql[128];
		uint64_t ips[64];
		size_t n = 0;
		sqlite3_stmt *s;

		snprintf(sql, sizeof(sql),
			 "SELECT ip FROM stack_frame WHERE stack_id = %d ORDER BY depth", k + 1);
		assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
		while (sqlite3_step(s) == SQLITE_ROW && n < 64)
			ips[n++] = (uint64_t)sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
		snprintf(sql, sizeof(sql), "SELECT unwind_end FROM stack_copy WHERE stack_id = %d",
			 k + 1);
		snprintf(end, sizeof(end), "%s", q_text(db, sql));
		for (size_t i = 0; i < n; i++)
			printf("# copy %d frame %zu %#llx: %d\n", k + 1, i,
			       (unsigned long long)ips[i], which(ips[i] - (i > 0), fn, 4));
		printf("# copy %d: %zu frames, %s\n", k + 1, n, end);
		assert_true(n >= 6);
		assert_int_equal(ips[0], plt_snap[k].ip);	/* the stub */
		assert_int_equal(ips[1], snap.ip);	/* its caller: grab */
		assert_int_equal(which(ips[2] - 1, fn, 4), 1);	/* uw_level2 */
		assert_int_equal(which(ips[3] - 1, fn, 4), 2);	/* uw_level1 */
		assert_int_equal(which(ips[4] - 1, fn, 4), 3);	/* this test */
		if (snap.len + 16 <= COPY_MAX)	/* the whole stack was copied */
			assert_string_equal(end, "outermost frame");
	}
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_01_own_stack),
		cmocka_unit_test(test_02_leaf_in_plt),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
