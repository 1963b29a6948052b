/* test_mappings.c — the mappings collector and what it builds on: the maps
 * diff on fixture texts, build-ids read through map_files and from the vdso's
 * memory against independent reads, the --embed-symbols ELF image (build-id,
 * symbol counts, program headers, readelf and eu-readelf), perf map copies
 * (chunked, copied again only when changed), exec seen as GONE/NEW, a
 * target gone mid-recording, and cgroup mode: the process lists (sorted, the
 * cap) and a real cgroup v2 subtree of two processes, one of which exits.
 *
 * The run loop's rec_emit_* are replaced by fakes that keep the records (packed,
 * as a capture would hold them).
 */
#include <dlfcn.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "record/cgroupfs.h"
#include "record/collector.h"
#include "collectors/mappings/record.h"
#include "record/procfs.h"
#include "symbol/buildid.h"
#include "symbol/elfembed.h"

extern const struct collector_ops mappings_collector;

/* ------------------------------------------------------------------ fakes */

#define MAX_RECS 4096

static Ptop__V1__Record *recs[MAX_RECS];
static int n_recs;
static char drop_kinds[16][32];
static int n_drops;

uint64_t rec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int rec_emit(struct rec_ctx *ctx, const Ptop__V1__Record *rec)
{
	size_t len = ptop__v1__record__get_packed_size(rec);
	uint8_t *buf = malloc(len + 1);

	(void)ctx;
	if (!buf || n_recs == MAX_RECS) {
		free(buf);
		return -ENOSPC;
	}
	ptop__v1__record__pack(rec, buf);
	recs[n_recs] = ptop__v1__record__unpack(NULL, len, buf);
	free(buf);
	if (!recs[n_recs])
		return -EINVAL;
	n_recs++;
	return 0;
}

int rec_emit_event(struct rec_ctx *ctx, Ptop__V1__Event *ev, Ptop__V1__Category cat,
		   uint64_t now_ns, uint64_t interval_ns)
{
	(void)ctx;
	(void)ev;
	(void)cat;
	(void)now_ns;
	(void)interval_ns;
	return -ENOTSUP; /* the mappings collector writes no events */
}

int rec_emit_drop(struct collector *c, const char *kind, uint64_t lost, const char *detail)
{
	(void)detail;
	if (lost == 0)
		return 0;
	if (n_drops < 16)
		snprintf(drop_kinds[n_drops++], sizeof(drop_kinds[0]), "%s", kind);
	c->dropped += lost;
	return 0;
}

static void reset_fakes(void)
{
	int i;

	for (i = 0; i < n_recs; i++)
		ptop__v1__record__free_unpacked(recs[i], NULL);
	n_recs = 0;
	n_drops = 0;
}

static int count_kind(Ptop__V1__Record__KindCase k)
{
	int i, n = 0;

	for (i = 0; i < n_recs; i++)
		n += recs[i]->kind_case == k;
	return n;
}

/* The Mapping of PATH with EVENT (the first one), or NULL. */
static const Ptop__V1__Mapping *find_mapping(const char *path, Ptop__V1__MappingEvent ev)
{
	int i;

	for (i = 0; i < n_recs; i++)
		if (recs[i]->kind_case == PTOP__V1__RECORD__KIND_MAPPING &&
		    recs[i]->mapping->event == ev && !strcmp(recs[i]->mapping->path, path))
			return recs[i]->mapping;
	return NULL;
}

static char *read_text(const char *path)
{
	char *buf = NULL;
	size_t cap = 0, len = 0;
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	do {
		if (len + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 8192;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		n = fread(buf + len, 1, 4096, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

struct collector_run {
	struct rec_ctx ctx;
	struct collector c;
};

static void collector_open(struct collector_run *r, pid_t pid, Ptop__V1__EmbedSymbols embed)
{
	memset(r, 0, sizeof(*r));
	r->ctx.pid = pid;
	r->ctx.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_PID;
	r->ctx.interval_ns = 1000000000ull;
	mappings_settings.embed = embed; /* --embed-symbols */
	r->c.ops = &mappings_collector;
	r->c.ctx = &r->ctx;
	assert_int_equal(mappings_collector.check(&r->c),
			 PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
	assert_int_equal(mappings_collector.start(&r->c), 0);
}

/* ------------------------------------------------------------------ diff */

struct diff_log {
	char lines[16][160];
	int n;
};

static int log_diff(const struct xmap *m, bool added, void *arg)
{
	struct diff_log *l = arg;

	assert_true(l->n < 16);
	snprintf(l->lines[l->n++], sizeof(l->lines[0]), "%s %llx-%llx %s %llu %s",
		 added ? "new" : "gone", (unsigned long long)m->start, (unsigned long long)m->end,
		 m->perms, (unsigned long long)m->inode, m->path);
	return 0;
}

static void test_01_maps_diff(void **state)
{
	char *before = read_text("tests/data/mappings/maps_before.txt");
	char *after = read_text("tests/data/mappings/maps_after.txt");
	struct xmap_set a = { 0 }, b = { 0 }, owned = { 0 };
	struct diff_log log = { 0 };
	char bad[] = "not a maps line\n";

	(void)state;
	assert_int_equal(mappings__parse(before, &a), 0);
	assert_int_equal(a.n, 6); /* r-x tool, rwx anon, libc, libold, vdso, vsyscall */
	assert_string_equal(a.v[0].path, "/usr/bin/my tool");
	assert_int_equal(a.v[0].offset, 0x2000);
	assert_string_equal(a.v[1].path, "");
	assert_string_equal(a.v[3].path, "/opt/plugin/libold.so (deleted)");
	assert_string_equal(a.v[5].perms, "--xp");
	/* the old set must survive the text it came from */
	assert_int_equal(mappings__set_copy(&owned, &a), 0);
	memset(before, 'x', strlen(before));
	assert_int_equal(mappings__parse(after, &b), 0);
	assert_int_equal(b.n, 7);

	assert_int_equal(mappings__diff(&owned, &b, log_diff, &log), 5);
	assert_string_equal(log.lines[0], "gone 7f0a0f000000-7f0a0f001000 rwxp 0 ");
	assert_string_equal(log.lines[1], "new 7f0a0f000000-7f0a0f002000 rwxp 0 ");
	assert_string_equal(log.lines[2],
			    "new 7f0a11800000-7f0a11804000 r-xp 9055 /opt/plugin/libnew.so");
	assert_string_equal(log.lines[3], "gone 7f0a12000000-7f0a12004000 r-xp 9001 "
					  "/opt/plugin/libold.so (deleted)");
	assert_string_equal(log.lines[4],
			    "new 7f0a12000000-7f0a12004000 r-xp 9002 /opt/plugin/libold.so");
	/* the same set twice: no difference; against nothing: all new, or all gone */
	log.n = 0;
	assert_int_equal(mappings__diff(&b, &b, log_diff, &log), 0);
	assert_int_equal(log.n, 0);
	mappings__set_clear(&owned);
	owned.owns_paths = false;
	assert_int_equal(mappings__diff(&owned, &b, log_diff, &log), 7);
	assert_int_equal(strncmp(log.lines[6], "new ", 4), 0);
	log.n = 0;
	assert_int_equal(mappings__diff(&b, &owned, log_diff, &log), 7);
	assert_int_equal(strncmp(log.lines[0], "gone ", 5), 0);
	/* malformed text is refused, the set left empty */
	assert_int_equal(mappings__parse(bad, &b), -EINVAL);
	assert_int_equal(b.n, 0);

	mappings__set_clear(&a);
	mappings__set_clear(&b);
	mappings__set_clear(NULL);
	free(before);
	free(after);
}

/* ------------------------------------------------------------------ build-ids */

/* The executable and vdso mappings of this very process, recorded. */
static void test_02_self_build_ids(void **state)
{
	struct collector_run r;
	const Ptop__V1__Mapping *m, *v;
	uint8_t id[BUILDID_MAX];
	size_t len = 0;
	char exe[4096];
	ssize_t n;
	unsigned long vdso = getauxval(AT_SYSINFO_EHDR);

	(void)state;
	reset_fakes();
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	collector_open(&r, getpid(), PTOP__V1__EMBED_SYMBOLS__EMBED_SYMBOLS_NONE);
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), POLL_FIRST), 0);
	assert_true(count_kind(PTOP__V1__RECORD__KIND_MAPPING) >= 3);
	m = find_mapping(exe, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
	assert_non_null(m);
	assert_int_equal(buildid_read_path(exe, id, sizeof(id), &len), 0);
	assert_int_equal(m->build_id.len, len);
	assert_memory_equal(m->build_id.data, id, len);
	assert_string_equal(m->build_id_error, "");
	assert_string_equal(m->perms, "r-xp");
	assert_int_equal(m->pid, getpid());
	/* where the mapping sits in the ELF: this function's ELF address is its
	 * runtime address less the load bias (dladdr's base: a PIE's first segment
	 * is at ELF address 0) */
	{
		uintptr_t fn = (uintptr_t)test_02_self_build_ids;
		Dl_info dl;

		assert_true(fn >= m->start && fn < m->end);
		assert_non_null(m->elf);
		assert_true(dladdr((void *)fn, &dl) != 0);
		assert_int_equal(m->elf->vaddr + (fn - m->start), fn - (uintptr_t)dl.dli_fbase);
	}

	/* the vdso: from /proc/self/mem, checked against the image at AT_SYSINFO_EHDR */
	v = find_mapping("[vdso]", PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
	assert_non_null(v);
	assert_int_equal(v->start, vdso);
	if (buildid_read_memory((void *)vdso, v->end - v->start, id, sizeof(id), &len) == 0) {
		assert_int_equal(v->build_id.len, len);
		assert_memory_equal(v->build_id.data, id, len);
	} else {
		assert_int_equal(v->build_id.len, 0);
		assert_string_not_equal(v->build_id_error, "");
	}
	assert_int_equal(buildid_read_pid_memory(getpid(), v->start, v->end, id, sizeof(id), &len),
			 v->build_id.len ? 0 : -ENODATA);
	/* without --embed-symbols only the vdso's symbols are embedded: its image
	 * exists only in memory, so nothing could name its frames later */
	assert_int_equal(count_kind(PTOP__V1__RECORD__KIND_MODULE_SYMBOLS), v->build_id.len ? 1 : 0);

	/* a second poll with nothing changed writes nothing */
	{
		int before = n_recs;

		assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), 0), 0);
		assert_int_equal(n_recs, before);
		/* the final poll writes every mapping again as END */
		assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), POLL_FINAL), 0);
		assert_int_equal(n_recs - before,
				 count_kind(PTOP__V1__RECORD__KIND_MAPPING) / 2); /* symbols: once */
		assert_non_null(find_mapping(exe, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_END));
	}
	mappings_collector.stop(&r.c);
	assert_int_equal(n_drops, 0);
	reset_fakes();

	/* errors: no such process, an empty range */
	assert_int_equal(buildid_read_pid_memory(0x3fffffff, 0x1000, 0x2000, id, sizeof(id), &len),
			 -ENOENT);
	assert_int_equal(buildid_read_pid_memory(getpid(), 0x2000, 0x2000, id, sizeof(id), &len),
			 -EINVAL);
}

/* ------------------------------------------------------------------ embedded ELF */

struct elf_facts {
	uint8_t id[BUILDID_MAX];
	size_t id_len;
	unsigned symbols;            /* .symtab + .dynsym entries */
	size_t phnum;
	GElf_Phdr ph[64];
	GElf_Ehdr eh;
	bool has_debug_info;
};

static void facts_of(Elf *elf, struct elf_facts *f)
{
	Elf_Scn *scn = NULL;
	size_t i, shstrndx;
	GElf_Shdr sh;

	memset(f, 0, sizeof(*f));
	assert_non_null(elf);
	assert_int_equal(elf_kind(elf), ELF_K_ELF);
	assert_non_null(gelf_getehdr(elf, &f->eh));
	assert_int_equal(buildid_read_elf(elf, f->id, sizeof(f->id), &f->id_len), 0);
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;

		assert_non_null(gelf_getshdr(scn, &sh));
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		assert_non_null(name);
		if (!strcmp(name, ".debug_info") && sh.sh_type != SHT_NOBITS)
			f->has_debug_info = true;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
			Elf_Data *d = elf_getdata(scn, NULL);
			GElf_Sym sym;

			assert_non_null(d);
			f->symbols += (unsigned)(sh.sh_size / sh.sh_entsize);
			/* every symbol reads, and its name too */
			for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				assert_non_null(gelf_getsym(d, (int)i, &sym));
				assert_non_null(elf_strptr(elf, sh.sh_link, sym.st_name));
			}
		}
	}
	assert_int_equal(elf_getphdrnum(elf, &f->phnum), 0);
	assert_true(f->phnum <= 64);
	for (i = 0; i < f->phnum; i++)
		assert_non_null(gelf_getphdr(elf, (int)i, &f->ph[i]));
}

/* Build the image of PATH, compare it with the original, and have readelf and
 * eu-readelf read it. */
static void check_embed(const char *path, unsigned flags)
{
	struct elfembed_image img;
	struct elf_facts orig, emb;
	char tmp[] = "/tmp/ptop-test-embed-XXXXXX", cmd[256];
	Elf *e;
	size_t i;
	int fd, out;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	facts_of(e, &orig);
	elf_end(e);
	assert_int_equal(elfembed_build_fd(fd, flags, &img), 0);
	close(fd);
	assert_non_null(img.data);
	assert_true(img.size > 0);
	assert_int_equal(img.symbols, orig.symbols);

	e = elf_memory(img.data, img.size);
	facts_of(e, &emb);
	elf_end(e);
	assert_int_equal(emb.id_len, orig.id_len);
	assert_memory_equal(emb.id, orig.id, orig.id_len);
	assert_int_equal(emb.symbols, orig.symbols);
	assert_int_equal(emb.eh.e_ident[EI_CLASS], orig.eh.e_ident[EI_CLASS]);
	assert_int_equal(emb.eh.e_machine, orig.eh.e_machine);
	assert_int_equal(emb.eh.e_type, orig.eh.e_type);
	assert_int_equal(emb.phnum, orig.phnum);
	assert_true(orig.phnum > 0);
	for (i = 0; i < orig.phnum; i++) {
		const GElf_Phdr *a = &orig.ph[i], *b = &emb.ph[i];

		assert_int_equal(a->p_type, b->p_type);
		assert_int_equal(a->p_offset, b->p_offset);
		assert_int_equal(a->p_vaddr, b->p_vaddr);
		assert_int_equal(a->p_memsz, b->p_memsz);
		assert_int_equal(a->p_flags, b->p_flags);
		assert_int_equal(a->p_align, b->p_align);
		if (a->p_type != PT_INTERP && a->p_type != PT_DYNAMIC)
			assert_int_equal(a->p_filesz, b->p_filesz);
		else
			assert_int_equal(b->p_filesz, 0);
	}
	assert_int_equal(emb.has_debug_info, (flags & ELFEMBED_DEBUG) && orig.has_debug_info);
	assert_int_equal(img.debug, emb.has_debug_info);

	out = mkstemp(tmp);
	assert_true(out >= 0);
	assert_int_equal(write(out, img.data, img.size), (ssize_t)img.size);
	close(out);
	snprintf(cmd, sizeof(cmd), "readelf -a %s >/dev/null 2>&1", tmp);
	assert_int_equal(system(cmd), 0);
	if (system("command -v eu-readelf >/dev/null 2>&1") == 0) {
		snprintf(cmd, sizeof(cmd), "eu-readelf -a %s >/dev/null 2>&1", tmp);
		assert_int_equal(system(cmd), 0);
	} else {
		print_message("eu-readelf not installed (Debian: elfutils): not checked\n");
	}
	unlink(tmp);
	elfembed_image_free(&img);
	elfembed_image_free(&img); /* a freed image is empty: fine */
}

static void test_03_embed_image(void **state)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *libc = NULL;
	struct xmap_set s = { 0 };
	char *maps;
	size_t i;

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	check_embed(exe, 0);
	check_embed(exe, ELFEMBED_DEBUG); /* built with -g: .debug_info kept */

	/* the libc this process maps */
	maps = read_text("/proc/self/maps");
	assert_int_equal(mappings__parse(maps, &s), 0);
	for (i = 0; i < s.n; i++)
		if (strstr(s.v[i].path, "/libc.so"))
			libc = s.v[i].path;
	assert_non_null(libc);
	check_embed(libc, 0);
	mappings__set_clear(&s);
	free(maps);
}

static void test_04_embed_refusals(void **state)
{
	struct elfembed_image img;
	char tmp[] = "/tmp/ptop-test-embed-XXXXXX";
	int fd;

	(void)state;
	fd = mkstemp(tmp);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\necho not an ELF\n", 26), 26);
	assert_int_equal(elfembed_build_fd(fd, 0, &img), -ENOEXEC);
	assert_null(img.data);
	close(fd);
	unlink(tmp);
	assert_int_equal(elfembed_build(NULL, 0, &img), -ENOEXEC);
	elfembed_image_free(NULL);
}

/* With --embed-symbols the collector writes each module's image once, in
 * chunks that join into an ELF with the module's build-id. */
static void test_05_collector_embeds(void **state)
{
	struct collector_run r;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	uint8_t id[BUILDID_MAX], *joined = NULL;
	size_t len, total = 0, expect = 0;
	int i, modules = 0;
	Elf *e;

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	reset_fakes();
	collector_open(&r, getpid(), PTOP__V1__EMBED_SYMBOLS__EMBED_SYMBOLS_SYMTAB);
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), POLL_FIRST), 0);
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), POLL_FINAL), 0);
	mappings_collector.stop(&r.c);
	assert_int_equal(buildid_read_path(exe, id, sizeof(id), &len), 0);
	for (i = 0; i < n_recs; i++) {
		const Ptop__V1__ModuleSymbols *ms = recs[i]->module_symbols;

		if (recs[i]->kind_case != PTOP__V1__RECORD__KIND_MODULE_SYMBOLS)
			continue;
		if (ms->chunk == 0)
			modules++;
		if (ms->build_id.len != len || memcmp(ms->build_id.data, id, len))
			continue;
		assert_string_equal(ms->path, exe);
		assert_false(ms->debug);
		assert_int_equal(ms->chunk, total ? 1 + (total - 1) / MAPPINGS_SYMBOLS_CHUNK : 0);
		expect = ms->size;
		joined = realloc(joined, total + ms->elf.len);
		assert_non_null(joined);
		memcpy(joined + total, ms->elf.data, ms->elf.len);
		total += ms->elf.len;
	}
	/* at least this test binary, libc and the vdso; each once (not again at END) */
	assert_true(modules >= 3);
	assert_true(total > 0);
	assert_int_equal(total, expect);
	e = elf_memory((char *)joined, total);
	{
		uint8_t got[BUILDID_MAX];
		size_t glen;

		assert_int_equal(buildid_read_elf(e, got, sizeof(got), &glen), 0);
		assert_int_equal(glen, len);
		assert_memory_equal(got, id, len);
	}
	elf_end(e);
	free(joined);
	reset_fakes();
}

/* ------------------------------------------------------------------ perf maps */

/* A child that waits for a byte on a pipe (or EOF) and exits. */
static pid_t child_waiting(int *wfd)
{
	int p[2];
	pid_t pid;
	char ch;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &ch, 1) == 1 && ch == 'x')
			execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(0);
	}
	close(p[0]);
	*wfd = p[1];
	return pid;
}

static void write_perf_map(const char *path, size_t lines, bool append)
{
	FILE *f = fopen(path, append ? "a" : "w");
	size_t i;

	assert_non_null(f);
	for (i = 0; i < lines; i++)
		fprintf(f, "%llx 40 jit_function_number_%zu_with_a_long_name\n",
			0x7f0000000000ull + 0x40 * i, i);
	assert_int_equal(fclose(f), 0);
}

/* Join the PerfMap chunks from record FIRST on; returns the bytes (malloc'ed). */
static char *join_perf_map(int first, size_t *len, int *next)
{
	const Ptop__V1__PerfMap *pm = recs[first]->perf_map;
	char *out = NULL;
	uint32_t i;

	*len = 0;
	for (i = 0; i < pm->chunks; i++) {
		const Ptop__V1__PerfMap *c = recs[first + (int)i]->perf_map;

		assert_int_equal(recs[first + (int)i]->kind_case, PTOP__V1__RECORD__KIND_PERF_MAP);
		assert_int_equal(c->chunk, i);
		assert_int_equal(c->chunks, pm->chunks);
		assert_int_equal(c->time_ns, pm->time_ns);
		if (i + 1 < pm->chunks)
			assert_int_equal(c->content.len, MAPPINGS_PERF_MAP_CHUNK);
		out = realloc(out, *len + c->content.len + 1);
		assert_non_null(out);
		memcpy(out + *len, c->content.data, c->content.len);
		*len += c->content.len;
	}
	out[*len] = '\0';
	*next = first + (int)pm->chunks;
	return out;
}

static int first_perf_map(int from)
{
	for (; from < n_recs; from++)
		if (recs[from]->kind_case == PTOP__V1__RECORD__KIND_PERF_MAP)
			return from;
	return -1;
}

static void test_06_perf_map_copies(void **state)
{
	struct collector_run r;
	char inner[64], host[96], path[64], want_inner[64], *text, *copy;
	struct timespec ts[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
	size_t len;
	int wfd, i, next;
	pid_t pid;

	(void)state;
	reset_fakes();
	pid = child_waiting(&wfd);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	unlink(path);
	collector_open(&r, pid, PTOP__V1__EMBED_SYMBOLS__EMBED_SYMBOLS_NONE);
	/* no perf map yet: nothing, and no drop */
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), POLL_FIRST), 0);
	assert_int_equal(count_kind(PTOP__V1__RECORD__KIND_PERF_MAP), 0);

	/* 20000 lines: about 1 MiB, three chunks */
	write_perf_map(path, 20000, false);
	reset_fakes();
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), 0), 0);
	i = first_perf_map(0);
	assert_true(i >= 0);
	assert_true(recs[i]->perf_map->chunks >= 2);
	snprintf(want_inner, sizeof(want_inner), "/tmp/perf-%d.map", (int)pid);
	assert_string_equal(recs[i]->perf_map->path, want_inner);
	assert_int_equal(recs[i]->perf_map->pid, pid);
	copy = join_perf_map(i, &len, &next);
	text = read_text(path);
	assert_int_equal(len, strlen(text));
	assert_string_equal(copy, text);
	free(copy);
	free(text);
	assert_int_equal(first_perf_map(next), -1);

	/* unchanged: no copy */
	reset_fakes();
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), 0), 0);
	assert_int_equal(count_kind(PTOP__V1__RECORD__KIND_PERF_MAP), 0);

	/* appended: copied again, whole; also touched (mtime) to be sure it differs */
	write_perf_map(path, 3, true);
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	reset_fakes();
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), POLL_FINAL), 0);
	i = first_perf_map(0);
	assert_true(i >= 0);
	copy = join_perf_map(i, &len, &next);
	text = read_text(path);
	assert_string_equal(copy, text);
	free(copy);
	free(text);
	assert_int_equal(n_drops, 0);

	/* an unreadable one is counted once, not at every poll */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0700), 0); /* not a regular file */
	reset_fakes();
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), 0), 0);
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), 0), 0);
	assert_int_equal(n_drops, 1);
	assert_string_equal(drop_kinds[0], "perf_map_unreadable");
	assert_int_equal(rmdir(path), 0);
	mappings_collector.stop(&r.c);

	close(wfd);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(mappings__perf_map_paths(12, 3, inner, sizeof(inner), host, sizeof(host)),
			 0);
	assert_string_equal(inner, "/tmp/perf-3.map");
	assert_string_equal(host, "/proc/12/root/tmp/perf-3.map");
	assert_int_equal(mappings__perf_map_paths(12, 3, inner, 4, host, sizeof(host)),
			 -ENAMETOOLONG);
	reset_fakes();
}

/* ------------------------------------------------------------------ exec, exit */

/* Wait (bounded, no timing assertion) until PID's exe is PATH. */
static bool wait_exe(pid_t pid, const char *path)
{
	char link[64], got[4096];
	struct timespec ts = { 0, 2000000 };
	ssize_t n;
	int i;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	for (i = 0; i < 5000; i++) {
		n = readlink(link, got, sizeof(got) - 1);
		if (n > 0) {
			got[n] = '\0';
			if (!strcmp(got, path))
				return true;
		}
		nanosleep(&ts, NULL);
	}
	return false;
}

/* Wait (bounded) until PID's maps show an executable mapping of PATH: exec
 * points /proc/PID/exe at the new file before it maps it. */
static bool wait_mapped(pid_t pid, const char *path)
{
	struct timespec ts = { 0, 2000000 };
	char name[64], *text, *line;
	bool found = false;
	int i;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	for (i = 0; i < 5000 && !found; i++) {
		text = read_text(name);
		for (line = strtok(text, "\n"); line && !found; line = strtok(NULL, "\n"))
			found = strstr(line, " r-xp ") && strstr(line, path);
		free(text);
		if (!found)
			nanosleep(&ts, NULL);
	}
	return found;
}

static void test_07_exec_gone_new(void **state)
{
	struct collector_run r;
	char sleep_path[4096], exe[4096];
	ssize_t n;
	int wfd, i, gone = 0, added = 0;
	pid_t pid;
	bool exe_gone = false, sleep_new = false;

	(void)state;
	reset_fakes();
	assert_non_null(realpath("/bin/sleep", sleep_path));
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	pid = child_waiting(&wfd);
	collector_open(&r, pid, PTOP__V1__EMBED_SYMBOLS__EMBED_SYMBOLS_NONE);
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), POLL_FIRST), 0);
	assert_non_null(find_mapping(exe, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START));
	assert_int_equal(write(wfd, "x", 1), 1);
	assert_true(wait_exe(pid, sleep_path));
	assert_true(wait_mapped(pid, sleep_path));
	reset_fakes();
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), 0), 0);
	sleep_new = find_mapping(sleep_path, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_NEW);
	assert_true(sleep_new);
	exe_gone = find_mapping(exe, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_GONE);
	assert_true(exe_gone);
	for (i = 0; i < n_recs; i++) {
		if (recs[i]->kind_case != PTOP__V1__RECORD__KIND_MAPPING)
			continue;
		gone += recs[i]->mapping->event == PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_GONE;
		added += recs[i]->mapping->event == PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_NEW;
	}
	assert_true(gone >= 2 && added >= 2);
	{
		const Ptop__V1__Mapping *m =
			find_mapping(sleep_path, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_NEW);
		uint8_t id[BUILDID_MAX];
		size_t len;

		assert_int_equal(buildid_read_path(sleep_path, id, sizeof(id), &len), 0);
		assert_int_equal(m->build_id.len, len);
		assert_memory_equal(m->build_id.data, id, len);
	}

	/* the target dies: a zombie, then reaped; neither is an error, nothing more */
	kill(pid, SIGKILL);
	{
		siginfo_t si;

		assert_int_equal(waitid(P_PID, pid, &si, WEXITED | WNOWAIT), 0);
	}
	reset_fakes();
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), 0), 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), POLL_FINAL), 0);
	assert_int_equal(count_kind(PTOP__V1__RECORD__KIND_MAPPING), 0);
	assert_int_equal(n_drops, 0);
	mappings_collector.stop(&r.c);
	close(wfd);
	reset_fakes();
}

static void test_08_check(void **state)
{
	struct rec_ctx ctx = { 0 };
	struct collector c = { .ops = &mappings_collector, .ctx = &ctx };

	(void)state;
	/* a cgroup target without a directory, or one that is not there */
	ctx.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP;
	assert_int_equal(mappings_collector.check(&c), PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED);
	assert_non_null(strstr(c.reason, "cgroup"));
	assert_int_equal(c.source, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC);
	ctx.cgroup_dir = "/nonexistent/ptop-test-cgroup";
	assert_int_equal(mappings_collector.check(&c), PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED);
	assert_non_null(strstr(c.reason, "/nonexistent/ptop-test-cgroup/cgroup.procs"));
	ctx.cgroup_dir = NULL;
	ctx.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_PID;
	/* --caps: says what it needs */
	ctx.caps_only = true;
	assert_int_equal(mappings_collector.check(&c), PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
	assert_non_null(strstr(c.detail, "PTRACE_MODE_READ"));
	/* a pid that does not exist */
	ctx.caps_only = false;
	ctx.pid = 0x3fffffff;
	assert_int_equal(mappings_collector.check(&c), PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED);
	assert_non_null(strstr(c.reason, "/proc/"));
	/* stop without start is fine */
	mappings_collector.stop(&c);
}

/* A running program whose file was deleted: its build-id comes through
 * map_files (root), else the record says why there is none. */
static void test_09_deleted_file(void **state)
{
	struct collector_run r;
	char copy[] = "/tmp/ptop-test-sleep-XXXXXX", cmd[256], mapped[64];
	const Ptop__V1__Mapping *m;
	uint8_t id[BUILDID_MAX];
	size_t len;
	pid_t pid;
	int fd;

	(void)state;
	reset_fakes();
	fd = mkstemp(copy);
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "cp /bin/sleep %s && chmod 700 %s", copy, copy);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(buildid_read_path(copy, id, sizeof(id), &len), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl(copy, "sleep", "30", (char *)NULL);
		_exit(127);
	}
	assert_true(wait_exe(pid, copy));
	assert_true(wait_mapped(pid, copy));
	assert_int_equal(unlink(copy), 0);
	collector_open(&r, pid, PTOP__V1__EMBED_SYMBOLS__EMBED_SYMBOLS_NONE);
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), POLL_FIRST), 0);
	snprintf(mapped, sizeof(mapped), "%s (deleted)", copy);
	m = find_mapping(mapped, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
	assert_non_null(m);
	if (geteuid() == 0) {
		assert_int_equal(m->build_id.len, len);
		assert_memory_equal(m->build_id.data, id, len);
	} else {
		assert_int_equal(m->build_id.len, 0);
		assert_non_null(strstr(m->build_id_error, "deleted"));
	}
	mappings_collector.stop(&r.c);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	reset_fakes();
}

/* ------------------------------------------------------------------ cgroup mode */

static bool tracked_in(pid_t pid, void *arg)
{
	const pid_t *t = arg;

	for (; *t; t++)
		if (*t == pid)
			return true;
	return false;
}

/* The process lists of cgroup mode: sorted once each, the cap keeps the
 * processes followed already, and only newly left-out ones count. */
static void test_10_pid_lists(void **state)
{
	pid_t pids[] = { 40, 7, 12, 7, 99, 3, 12 }, kept[7], left[7];
	pid_t none[] = { 0 }, followed[] = { 99, 40, 0 };
	pid_t prev[] = { 3, 12, 50 }, cur[] = { 3, 7, 12, 60 };
	size_t n;

	(void)state;
	n = mappings__sort_pids(pids, 7);
	assert_int_equal(n, 5);
	assert_int_equal(pids[0], 3);
	assert_int_equal(pids[1], 7);
	assert_int_equal(pids[2], 12);
	assert_int_equal(pids[3], 40);
	assert_int_equal(pids[4], 99);
	assert_int_equal(mappings__sort_pids(pids, 0), 0);
	/* an empty cgroup's list is NULL: qsort must not see it (UBSan in the asan build) */
	assert_int_equal(mappings__sort_pids(NULL, 0), 0);
	assert_int_equal(mappings__cap_pids(NULL, 0, 5, tracked_in, none, NULL, NULL), 0);

	/* under the cap: all kept */
	assert_int_equal(mappings__cap_pids(pids, 5, 5, tracked_in, none, kept, left), 5);
	assert_memory_equal(kept, pids, 5 * sizeof(*pids));
	/* none followed: the lowest pids */
	assert_int_equal(mappings__cap_pids(pids, 5, 2, tracked_in, none, kept, left), 2);
	assert_int_equal(kept[0], 3);
	assert_int_equal(kept[1], 7);
	assert_int_equal(left[0], 12);
	assert_int_equal(left[1], 40);
	assert_int_equal(left[2], 99);
	/* 99 and 40 followed: both stay, then the lowest new one; all sorted */
	assert_int_equal(mappings__cap_pids(pids, 5, 3, tracked_in, followed, kept, left), 3);
	assert_int_equal(kept[0], 3);
	assert_int_equal(kept[1], 40);
	assert_int_equal(kept[2], 99);
	assert_int_equal(left[0], 7);
	assert_int_equal(left[1], 12);
	/* more followed than the cap (never in the collector): the cap holds */
	assert_int_equal(mappings__cap_pids(pids, 5, 1, tracked_in, followed, kept, left), 1);
	assert_int_equal(kept[0], 40);
	assert_int_equal(left[3], 99);

	assert_int_equal(mappings__count_new(cur, 4, prev, 3), 2); /* 7, 60 */
	assert_int_equal(mappings__count_new(cur, 4, prev, 0), 4);
	assert_int_equal(mappings__count_new(cur, 0, prev, 3), 0);
	assert_int_equal(mappings__count_new(prev, 3, prev, 3), 0);
}

/* Mapping records of PID with EVENT (and PATH unless NULL). */
static int count_mappings(pid_t pid, Ptop__V1__MappingEvent ev, const char *path)
{
	int i, n = 0;

	for (i = 0; i < n_recs; i++) {
		const Ptop__V1__Mapping *m = recs[i]->mapping;

		if (recs[i]->kind_case == PTOP__V1__RECORD__KIND_MAPPING && m->event == ev &&
		    m->pid == pid && (!path || !strcmp(m->path, path)))
			n++;
	}
	return n;
}

/* The Mapping of PID, PATH and EVENT, or NULL. */
static const Ptop__V1__Mapping *pid_mapping(pid_t pid, const char *path,
					    Ptop__V1__MappingEvent ev)
{
	for (int i = 0; i < n_recs; i++)
		if (recs[i]->kind_case == PTOP__V1__RECORD__KIND_MAPPING &&
		    recs[i]->mapping->event == ev && recs[i]->mapping->pid == pid &&
		    !strcmp(recs[i]->mapping->path, path))
			return recs[i]->mapping;
	return NULL;
}

static int write_pid(const char *dir, pid_t pid)
{
	char path[PATH_MAX + 32];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	ok = fprintf(f, "%d\n", (int)pid) > 0;
	return fclose(f) == 0 && ok ? 0 : -errno;
}

/* A real cgroup v2 subtree: this test binary forked into it, /bin/sleep into a
 * child cgroup of it. Each process's executable mappings are recorded under its
 * own pid, with build-ids; the [vdso] they share is embedded once; a JIT perf
 * map is copied for the process that has one; a process that exits gives END
 * for its mappings as last seen; the final poll gives END for the rest. */
static void test_11_cgroup_mode(void **state)
{
	struct cgroupfs_mounts mnt;
	struct collector_run r;
	char cg[PATH_MAX + 128], sub[PATH_MAX + 160], rel[64], cgpath[80], exe[4096];
	char sleep_path[4096];
	char perf[64], at_start[64];
	uint8_t id[BUILDID_MAX];
	size_t len;
	pid_t a, b;
	int wa, wb, i, b_start, a_start, err, before, vdso_syms = 0;
	const Ptop__V1__Mapping *m, *vdso;

	(void)state;
	reset_fakes();
	if (cgroupfs_read_mounts(&mnt) || !mnt.v2[0]) {
		print_message("skipped: cgroup2 is not mounted\n");
		skip();
	}
	snprintf(rel, sizeof(rel), "ptop-test-mappings-%d", (int)getpid());
	snprintf(cg, sizeof(cg), "%s/%s", mnt.v2, rel);
	snprintf(sub, sizeof(sub), "%s/sub", cg);
	if (mkdir(cg, 0755) || mkdir(sub, 0755)) {
		print_message("skipped: cannot create a cgroup under %s: %s\n", mnt.v2,
			      strerror(errno));
		rmdir(cg);
		skip();
	}
	assert_non_null(realpath("/bin/sleep", sleep_path));
	i = (int)readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(i > 0);
	exe[i] = '\0';
	a = child_waiting(&wa); /* this binary, waiting */
	b = child_waiting(&wb);
	assert_int_equal(write(wb, "x", 1), 1); /* sleep */
	assert_true(wait_exe(b, sleep_path));
	assert_true(wait_mapped(b, sleep_path));
	err = write_pid(cg, a);
	if (!err)
		err = write_pid(sub, b);
	if (err) {
		print_message("skipped: cannot move a process into %s: %s\n", cg, strerror(-err));
		kill(a, SIGKILL);
		kill(b, SIGKILL);
		waitpid(a, NULL, 0);
		waitpid(b, NULL, 0);
		rmdir(sub);
		rmdir(cg);
		skip();
	}

	memset(&r, 0, sizeof(r));
	r.ctx.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP;
	r.ctx.cgroup_dir = cg;
	snprintf(cgpath, sizeof(cgpath), "/%s", rel);
	r.ctx.cgroup_path = cgpath;
	r.ctx.interval_ns = 1000000000ull;
	r.c.ops = &mappings_collector;
	r.c.ctx = &r.ctx;
	assert_int_equal(mappings_collector.check(&r.c), PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
	assert_non_null(strstr(r.c.detail, "every process of the cgroup"));
	snprintf(at_start, sizeof(at_start), "(2 at start; at most %u a poll", MAPPINGS_PROC_CAP);
	assert_non_null(strstr(r.c.detail, at_start));
	assert_int_equal(mappings_collector.start(&r.c), 0);
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), POLL_FIRST), 0);

	/* each process under its own pid, its executable named, with its build-id */
	m = pid_mapping(a, exe, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
	assert_non_null(m);
	assert_int_equal(buildid_read_path(exe, id, sizeof(id), &len), 0);
	assert_int_equal(m->build_id.len, len);
	assert_memory_equal(m->build_id.data, id, len);
	assert_non_null(m->elf);
	m = pid_mapping(b, sleep_path, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
	assert_non_null(m);
	assert_int_equal(buildid_read_path(sleep_path, id, sizeof(id), &len), 0);
	assert_int_equal(m->build_id.len, len);
	assert_memory_equal(m->build_id.data, id, len);
	assert_null(pid_mapping(a, sleep_path, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START));
	assert_null(pid_mapping(b, exe, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START));
	/* both vdsos, one image, so one build-id: embedded once (the only symbols
	 * embedded without --embed-symbols) */
	m = pid_mapping(a, "[vdso]", PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
	assert_non_null(m);
	vdso = pid_mapping(b, "[vdso]", PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
	assert_non_null(vdso);
	assert_int_equal(m->build_id.len, vdso->build_id.len);
	assert_memory_equal(m->build_id.data, vdso->build_id.data, m->build_id.len);
	for (i = 0; i < n_recs; i++)
		vdso_syms += recs[i]->kind_case == PTOP__V1__RECORD__KIND_MODULE_SYMBOLS &&
			     recs[i]->module_symbols->chunk == 0;
	assert_int_equal(vdso_syms, m->build_id.len ? 1 : 0);
	/* nobody else: this process is not in the cgroup */
	for (i = 0; i < n_recs; i++)
		if (recs[i]->kind_case == PTOP__V1__RECORD__KIND_MAPPING)
			assert_true(recs[i]->mapping->pid == a || recs[i]->mapping->pid == b);
	a_start = count_mappings(a, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START, NULL);
	b_start = count_mappings(b, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START, NULL);
	assert_true(a_start >= 3 && b_start >= 3);

	/* nothing changed: nothing written; a perf map appears for A: copied, A's */
	before = n_recs;
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), 0), 0);
	assert_int_equal(n_recs, before);
	snprintf(perf, sizeof(perf), "/tmp/perf-%d.map", (int)a);
	write_perf_map(perf, 10, false);
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), 0), 0);
	assert_int_equal(n_recs, before + 1);
	assert_int_equal(recs[before]->kind_case, PTOP__V1__RECORD__KIND_PERF_MAP);
	assert_int_equal(recs[before]->perf_map->pid, a);
	assert_string_equal(recs[before]->perf_map->path, perf);
	assert_int_equal(unlink(perf), 0);

	/* B exits: END for each of its mappings, as last seen; nothing of A's */
	kill(b, SIGKILL);
	assert_int_equal(waitpid(b, NULL, 0), b);
	reset_fakes();
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), 0), 0);
	assert_int_equal(count_mappings(b, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_END, NULL),
			 b_start);
	m = pid_mapping(b, sleep_path, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_END);
	assert_non_null(m);
	assert_int_equal(m->build_id.len, len);
	assert_int_equal(count_kind(PTOP__V1__RECORD__KIND_MAPPING), b_start);
	/* once: the next poll writes nothing */
	reset_fakes();
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), 0), 0);
	assert_int_equal(n_recs, 0);

	/* the final poll: END for A's */
	assert_int_equal(mappings_collector.poll(&r.c, rec_now_ns(), POLL_FINAL), 0);
	assert_int_equal(count_mappings(a, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_END, NULL),
			 a_start);
	assert_non_null(pid_mapping(a, exe, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_END));
	assert_int_equal(count_kind(PTOP__V1__RECORD__KIND_MAPPING), a_start);
	assert_int_equal(n_drops, 0);
	mappings_collector.stop(&r.c);

	close(wa);
	close(wb);
	assert_int_equal(waitpid(a, NULL, 0), a);
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(rmdir(cg), 0);
	reset_fakes();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_01_maps_diff),
		cmocka_unit_test(test_02_self_build_ids),
		cmocka_unit_test(test_03_embed_image),
		cmocka_unit_test(test_04_embed_refusals),
		cmocka_unit_test(test_05_collector_embeds),
		cmocka_unit_test(test_06_perf_map_copies),
		cmocka_unit_test(test_07_exec_gone_new),
		cmocka_unit_test(test_08_check),
		cmocka_unit_test(test_09_deleted_file),
		cmocka_unit_test(test_10_pid_lists),
		cmocka_unit_test(test_11_cgroup_mode),
	};

	elf_version(EV_CURRENT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
