/* heap.c — the heap collector: who allocates, who holds memory, who leaks, from uprobes on
 * the allocator the target actually uses (collectors/heap/heap.bpf.c).
 *
 * check() finds the allocator module: the executable itself when it defines malloc (a
 * static build, or its own allocator), else the first mapped library other than libc
 * that does (jemalloc, tcmalloc, mimalloc), else libc. A running target is read from
 * /proc/PID/maps; a launched command is still the recorder's fork at check() time, so
 * its executable, the recorder's LD_PRELOAD (which the command inherits) and its
 * DT_NEEDED libraries (found in the usual directories) are read instead. check() keeps
 * nothing (start() finds the module again), and does not switch lanes: which lane it
 * chose, the preload lane (collectors/heap/record_preload.c) or this one, is c->source,
 * which start(), poll(), stop() and exec() follow. Each function's entry probe goes at
 * the first instruction the kernel can emulate (collectors/heap/record.h,
 * heap__choose_probe): glibc's free starts with `test %rdi,%rdi`, which would be
 * single-stepped at ~10 µs a hit, so its probe goes past the NULL check.
 *
 * Each poll sums the exact per-CPU totals, reads the cumulative per-site counters
 * (taking this interval's deltas), walks the live set once for the leak figures and each
 * site's oldest allocation, ranks the sites (union of the top --heap-top by live bytes,
 * bytes and count, with the census of the rest), writes each kept site's stack once as
 * a Stack record (capture-wide ids shared with cpuprof), and emits one HeapSnapshot.
 * With --heap-events the sampled allocations and frees are drained from the ring buffer
 * first, each as a HeapEvent.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/stackcopy.h"
#include "record/collector.h"
#include "record/bpf_util.h"
#include "collectors/cpuprof/record.h"
#include "collectors/heap/record.h"
#include "collectors/heap/record_preload.h"
#include "proto/names.h"
#include "record/kfeature.h"
#include "record/uprobe_link.h"
#include "common/units.h"
#include "collectors/heap/heap.skel.h"

const char *const heap_func_names[HP_NFUNCS] = {
	[HP_MALLOC] = "malloc",
	[HP_CALLOC] = "calloc",
	[HP_REALLOC] = "realloc",
	[HP_FREE] = "free",
	[HP_POSIX_MEMALIGN] = "posix_memalign",
	[HP_ALIGNED_ALLOC] = "aligned_alloc",
	[HP_MEMALIGN] = "memalign",
	[HP_VALLOC] = "valloc",
	[HP_PVALLOC] = "pvalloc",
};

/* ------------------------------------------------------------------ pure parts */

/* Registers that carry arguments or the stack: a mov into one of them stops the walk. */
static bool arg_or_stack_reg(unsigned r)
{
	/* rcx 1, rdx 2, rsp 4, rbp 5, rsi 6, rdi 7, r8 8, r9 9 */
	return r == 1 || r == 2 || r == 4 || r == 5 || r == 6 || r == 7 || r == 8 || r == 9;
}

static void choose(struct heap_probe_point *pp, size_t off, const char *what)
{
	pp->offset = (uint32_t)off;
	pp->emulated = true;
	snprintf(pp->why, sizeof(pp->why), "+%zu %s", off, what);
}

int heap__choose_probe(const uint8_t *c, size_t len, bool null_skip, struct heap_probe_point *pp)
{
	size_t i = 0;
	int steps;

	memset(pp, 0, sizeof(*pp));
	for (steps = 0; steps < 16 && i < len; steps++) {
		size_t left = len - i;
		const uint8_t *p = c + i;

		if (left >= 4 && p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa) {
			i += 4;		/* endbr64 */
			continue;
		}
		if (p[0] >= 0x50 && p[0] <= 0x57) {
			choose(pp, i, "push");
			return 0;
		}
		if (left >= 2 && p[0] == 0x41 && p[1] >= 0x50 && p[1] <= 0x57) {
			choose(pp, i, "push");
			return 0;
		}
		if (p[0] == 0x90) {
			choose(pp, i, "nop");
			return 0;
		}
		if (p[0] == 0xe9 || p[0] == 0xeb) {
			choose(pp, i, "jmp");
			return 0;
		}
		/* test %rdi,%rdi (48 85 ff) then je: the NULL check of free */
		if (left >= 3 && p[0] == 0x48 && p[1] == 0x85 && p[2] == 0xff) {
			size_t j = i + 3;

			if (!null_skip)
				break;
			if (j + 2 <= len && c[j] == 0x74) {
				i = j + 2;
			} else if (j + 6 <= len && c[j] == 0x0f && c[j + 1] == 0x84) {
				i = j + 6;
			} else {
				break;
			}
			pp->null_skipped = true;
			continue;
		}
		if ((p[0] >= 0x70 && p[0] <= 0x7f) ||
		    (left >= 2 && p[0] == 0x0f && p[1] >= 0x80 && p[1] <= 0x8f)) {
			choose(pp, i, "jcc");
			return 0;
		}
		/* cmpb $imm8, disp32(%rip): flags only */
		if (left >= 7 && p[0] == 0x80 && p[1] == 0x3d) {
			i += 7;
			continue;
		}
		/* mov reg,reg (REX.W 89 /r, mod 11) into a scratch register */
		if (left >= 3 && (p[0] == 0x48 || p[0] == 0x4c) && p[1] == 0x89 &&
		    (p[2] & 0xc0) == 0xc0) {
			unsigned dst = p[2] & 7;

			if (arg_or_stack_reg(dst))
				break;
			i += 3;
			continue;
		}
		break;
	}
	pp->offset = 0;
	pp->emulated = false;
	pp->null_skipped = false;
	snprintf(pp->why, sizeof(pp->why), "+0 (prologue not decoded at +%zu: single-stepped)",
		 i);
	return 0;
}

void heap__exp_table(uint32_t *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		double u = ((double)i + 0.5) / (double)n;

		t[i] = (uint32_t)(-log(u) * 65536.0 + 0.5);
	}
}

size_t heap__site_ips(const uint64_t *ips, size_t n, uint64_t caller, uint64_t *out, size_t max)
{
	size_t k = 0, i;

	if (n && k < max)
		out[k++] = ips[0];
	if (caller && k < max)
		out[k++] = caller;
	for (i = 1; i < n && k < max; i++)
		out[k++] = ips[i];
	return k;
}

struct rank {
	const struct heap_site_row *rows;
	int by;
};

static uint64_t rank_key(const struct heap_site_row *r, int by)
{
	return by == 0 ? r->live_bytes : by == 1 ? r->alloc_bytes : r->alloc_count;
}

static int by_;	/* qsort has no context argument */

static int cmp_rows(const void *a, const void *b)
{
	const struct heap_site_row *x = *(const struct heap_site_row *const *)a;
	const struct heap_site_row *y = *(const struct heap_site_row *const *)b;
	uint64_t kx = rank_key(x, by_), ky = rank_key(y, by_);

	if (kx != ky)
		return kx > ky ? -1 : 1;
	return x < y ? -1 : x > y;
}

int heap__select_sites(const struct heap_site_row *rows, size_t n, size_t top, bool *keep,
		       struct heap_census *out)
{
	const struct heap_site_row **act;
	size_t na = 0, i;
	int by;

	memset(out, 0, sizeof(*out));
	if (n)
		memset(keep, 0, n * sizeof(*keep));
	act = calloc(n ? n : 1, sizeof(*act));
	if (!act)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (rows[i].alloc_count || rows[i].live_count || rows[i].freed_count)
			act[na++] = &rows[i];
	out->total_call_sites = na;
	for (by = 0; by < 3; by++) {
		by_ = by;
		qsort(act, na, sizeof(*act), cmp_rows);
		for (i = 0; i < na && i < top; i++) {
			if (!rank_key(act[i], by))
				break;	/* nothing by this measure: not a top site for it */
			keep[act[i] - rows] = true;
		}
	}
	for (i = 0; i < na; i++) {
		if (keep[act[i] - rows]) {
			out->kept++;
			continue;
		}
		out->omitted_alloc_count += act[i]->alloc_count;
		out->omitted_alloc_bytes += act[i]->alloc_bytes;
		out->omitted_live_bytes += act[i]->live_bytes;
	}
	/* an active site with zeros in all three measures (it only freed) is kept too,
	 * so that absence from the list means nothing happened there */
	for (i = 0; i < na; i++) {
		if (!keep[act[i] - rows] && !act[i]->alloc_count && !act[i]->live_bytes &&
		    out->kept < top) {
			keep[act[i] - rows] = true;
			out->kept++;
		}
	}
	free(act);
	return 0;
}

static Elf *elf_open_fd(int fd)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	return elf_begin(fd, ELF_C_READ_MMAP, NULL);
}

/* The file offset of virtual address VADDR: through the PT_LOAD that holds it. */
int heap__vaddr_to_offset(void *e, uint64_t vaddr, uint64_t *off)
{
	Elf *elf = e;
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

static bool name_matches(const char *sym, const char *name)
{
	size_t l = strlen(name);

	return !strncmp(sym, name, l) && (sym[l] == '\0' || sym[l] == '@');
}

int heap__elf_func(int fd, const char *name, uint64_t *offset, uint64_t *size)
{
	Elf_Scn *scn = NULL;
	Elf *elf;
	int err = -ENOENT, pass;

	elf = elf_open_fd(fd);
	if (!elf)
		return -EINVAL;
	for (pass = 0; pass < 2 && err == -ENOENT; pass++) {
		unsigned want = pass ? SHT_DYNSYM : SHT_SYMTAB;

		scn = NULL;
		while ((scn = elf_nextscn(elf, scn)) != NULL && err == -ENOENT) {
			GElf_Shdr sh;
			Elf_Data *d;
			size_t i, cnt;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != want || !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			if (!d)
				continue;
			cnt = sh.sh_size / sh.sh_entsize;
			for (i = 0; i < cnt; i++) {
				GElf_Sym s;
				const char *nm;
				int t;

				if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
				    !s.st_value)
					continue;
				t = GELF_ST_TYPE(s.st_info);
				if (t != STT_FUNC && t != STT_GNU_IFUNC)
					continue;
				nm = elf_strptr(elf, sh.sh_link, s.st_name);
				if (!nm || !name_matches(nm, name))
					continue;
				if (heap__vaddr_to_offset(elf, s.st_value, offset))
					continue;
				*size = s.st_size;
				err = 0;
				break;
			}
		}
	}
	elf_end(elf);
	return err;
}

int heap__elf_needed(int fd, char *buf, size_t len, int *n)
{
	Elf_Scn *scn = NULL;
	size_t off = 0;
	Elf *elf;
	int err = -ENOENT;

	*n = 0;
	elf = elf_open_fd(fd);
	if (!elf)
		return -EINVAL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, cnt;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		err = 0;
		cnt = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < cnt; i++) {
			GElf_Dyn dyn;
			const char *nm;
			size_t l;

			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag != DT_NEEDED)
				continue;
			nm = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (!nm)
				continue;
			l = strlen(nm) + 1;
			if (off + l > len)
				break;
			memcpy(buf + off, nm, l);
			off += l;
			(*n)++;
		}
		break;
	}
	elf_end(elf);
	return err;
}

/* ------------------------------------------------------------------ the module */

struct hp_module {
	char path[PATH_MAX];		/* as the target maps it */
	char open_path[PATH_MAX + 32];	/* where we open it (/proc/PID/root/... for --pid) */
	bool present[HP_NFUNCS];
	uint64_t offset[HP_NFUNCS];	/* the function's file offset */
	struct heap_probe_point pp[HP_NFUNCS];
};

/* Read the first bytes of the function at file offset OFF of FD. */
static ssize_t read_code(int fd, uint64_t off, uint8_t *buf, size_t len)
{
	return pread(fd, buf, len, (off_t)off);
}

/* Does the file at PATH define malloc? Fill MOD from it when it does. 1, 0, or -errno. */
static int module_from_file(const char *open_path, const char *path, struct hp_module *mod)
{
	uint64_t off, size;
	uint8_t code[32];
	ssize_t got;
	int fd, i, err;

	fd = open(open_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = heap__elf_func(fd, "malloc", &off, &size);
	if (err) {
		close(fd);
		return err == -ENOENT ? 0 : err;
	}
	memset(mod, 0, sizeof(*mod));
	snprintf(mod->path, sizeof(mod->path), "%s", path);
	snprintf(mod->open_path, sizeof(mod->open_path), "%s", open_path);
	for (i = 0; i < HP_NFUNCS; i++) {
		if (heap__elf_func(fd, heap_func_names[i], &off, &size))
			continue;
		mod->present[i] = true;
		mod->offset[i] = off;
		got = read_code(fd, off, code, sizeof(code));
		if (size && (uint64_t)got > size)
			got = (ssize_t)size;
		heap__choose_probe(code, got > 0 ? (size_t)got : 0, i == HP_FREE, &mod->pp[i]);
	}
	close(fd);
	return 1;
}

static bool is_libc(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	return !strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5);
}

static bool is_ld_so(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	return !strncmp(b, "ld-linux", 8) || !strncmp(b, "ld.so", 5);
}

/* A running target: its executable, then each mapped library (libc last). */
static int find_in_maps(pid_t pid, struct hp_module *mod, char *why, size_t wlen)
{
	char path[64], line[PATH_MAX + 256], exe[PATH_MAX], libc[PATH_MAX] = "", op[PATH_MAX + 32];
	char seen[64][256];
	int nseen = 0, r, i;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		snprintf(op, sizeof(op), "/proc/%d/exe", pid);
		r = module_from_file(op, exe, mod);
		if (r > 0) {
			snprintf(mod->open_path, sizeof(mod->open_path), "/proc/%d/root%s", pid,
				 exe);
			return 0;
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f) {
		snprintf(why, wlen, "cannot read %s: %s", path, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		char perms[8], *p;
		bool dup = false;

		if (sscanf(line, "%*x-%*x %7s", perms) != 1 || perms[2] != 'x')
			continue;
		p = strchr(line, '/');
		if (!p)
			continue;
		p[strcspn(p, "\n")] = '\0';
		if (strstr(p, " (deleted)") || !strcmp(p, exe) || is_ld_so(p))
			continue;
		for (i = 0; i < nseen; i++)
			dup |= !strncmp(seen[i], p, sizeof(seen[i]) - 1);
		if (dup)
			continue;
		if (nseen < 64)
			snprintf(seen[nseen++], sizeof(seen[0]), "%s", p);
		if (is_libc(p)) {
			snprintf(libc, sizeof(libc), "%s", p);
			continue;
		}
		snprintf(op, sizeof(op), "/proc/%d/root%s", pid, p);
		if (module_from_file(op, p, mod) > 0) {
			fclose(f);
			return 0;
		}
	}
	fclose(f);
	if (libc[0]) {
		snprintf(op, sizeof(op), "/proc/%d/root%s", pid, libc);
		if (module_from_file(op, libc, mod) > 0)
			return 0;
	}
	snprintf(why, wlen, "no module mapped by pid %d defines malloc (the executable %s, "
		 "libc %s)", pid, n > 0 ? "does not" : "is unreadable",
		 libc[0] ? "does not either" : "is not mapped");
	return -ENOENT;
}

/* A command not yet started: its executable, then its DT_NEEDED libraries. */
static int find_for_command(const char *exe, struct hp_module *mod, char *why, size_t wlen)
{
	static const char *const dirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
		"/lib", "/usr/lib", "/usr/local/lib",
	};
	char needed[4096], cand[PATH_MAX + 4096], libc[PATH_MAX + 4096] = "";
	const char *nm, *pre;
	int n = 0, k, fd, r;
	size_t d;

	r = module_from_file(exe, exe, mod);
	if (r > 0)
		return 0;
	/* the command inherits the recorder's environment: its LD_PRELOAD comes next */
	pre = getenv("LD_PRELOAD");
	if (pre && strlen(pre) < sizeof(needed)) {
		char list[4096], *tok, *save = NULL;

		snprintf(list, sizeof(list), "%s", pre);
		for (tok = strtok_r(list, " :", &save); tok; tok = strtok_r(NULL, " :", &save)) {
			if (strchr(tok, '/')) {
				if (module_from_file(tok, tok, mod) > 0)
					goto found_preload;
				continue;
			}
			for (d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
				snprintf(cand, sizeof(cand), "%s/%s", dirs[d], tok);
				if (!access(cand, R_OK)) {
					if (module_from_file(cand, cand, mod) > 0)
						goto found_preload;
					break;
				}
			}
		}
	}
	fd = open(exe, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || heap__elf_needed(fd, needed, sizeof(needed), &n)) {
		if (fd >= 0)
			close(fd);
		snprintf(why, wlen, "%s does not define malloc and links no library", exe);
		return -ENOENT;
	}
	close(fd);
	for (k = 0, nm = needed; k < n; k++, nm += strlen(nm) + 1) {
		for (d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
			snprintf(cand, sizeof(cand), "%s/%s", dirs[d], nm);
			if (access(cand, R_OK))
				continue;
			if (is_libc(cand)) {
				if (!libc[0])
					snprintf(libc, sizeof(libc), "%s", cand);
				break;
			}
			if (module_from_file(cand, cand, mod) > 0)
				return 0;
			break;
		}
	}
	if (libc[0] && module_from_file(libc, libc, mod) > 0) {
		/* name it the way the process will map it */
		char real[PATH_MAX];

		if (realpath(libc, real))
			snprintf(mod->path, sizeof(mod->path), "%s", real);
		return 0;
	}
	snprintf(why, wlen, "neither %s nor the libraries it needs define malloc", exe);
	return -ENOENT;

found_preload:
	{
		char real[PATH_MAX];

		if (realpath(mod->open_path, real))
			snprintf(mod->path, sizeof(mod->path), "%s", real);
	}
	return 0;
}

/* ------------------------------------------------------------------ collector */

/* A site as user space knows it: the cumulative counters read last time, its stack. */

/* A site at the last peak mark: its index in hp_priv.sites and what it held there. */
struct hp_peak_row {
	size_t site;
	uint64_t live_count, live_bytes;
};

struct hp_priv {
	struct heap_bpf *skel;
	struct uprobe_link *links[2 * HP_NFUNCS];
	int nlinks;
	struct ring_buffer *rb;
	struct ring_buffer *crb;	/* the stack copies' ring (dwarf) */
	struct stack_copies *copies;	/* the capture's (dwarf) */
	size_t bad_copies;		/* malformed copy records (not written) */
	struct hp_module mod;
	int ncpus;
	struct hp_counters *cnt;	/* ncpus */
	struct hp_counters prev;
	struct heap_usite *sites;		/* open addressing, cap entries */
	size_t cap;
	struct heap_rank rank;		/* the sites ranked each poll */
	__u64 *lkeys;
	struct hp_live *lvals;
	struct cp_stack_table *table;
	uint64_t prev_ns;
	uint64_t prev_misses[3];
	uint64_t prev_peak_lost;	/* hp_peak.peak_lost at the last poll */
	uint64_t prev_last_lost;	/* hp_peak.last_lost at the last poll */
	uint64_t *temp_rows;		/* HP_SITE_ENTRIES: each row's temporaries this poll */
	uint64_t prev_marks;		/* hp_peak.marks at the last poll */
	struct hp_peak_row *peak;	/* HP_SITE_ENTRIES: the sites at the last peak mark */
	Ptop__V1__HeapSite *peak_hs;	/* HeapSnapshot.peak_sites, heap_settings.top */
	Ptop__V1__HeapSite **peak_hsp;
	int rb_err;
	struct collector *c;
	dev_t dev;			/* the module's file when its probes were attached */
	ino_t ino;
};

#define HP_USITE_CAP (4 * HP_SITE_ENTRIES)
#define HP_BATCH 4096

static size_t site_hash(const struct hp_site_key *k)
{
	uint64_t h = k->stack.hash ^ k->caller * 0x9e3779b97f4a7c15ULL;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	return (size_t)(h ^ (h >> 32));
}

struct heap_usite *heap_usites__get(struct heap_usite *sites, size_t cap,
				    const struct hp_site_key *k)
{
	size_t i = site_hash(k) & (cap - 1), n;

	for (n = 0; n < cap; n++, i = (i + 1) & (cap - 1)) {
		struct heap_usite *s = &sites[i];

		if (!s->used) {
			s->used = true;
			s->key = *k;
			return s;
		}
		if (s->key.stack.hash == k->stack.hash && s->key.stack.nr == k->stack.nr &&
		    s->key.stack.kernel == k->stack.kernel && s->key.caller == k->caller)
			return s;
	}
	return NULL;
}

int heap__target_exe(const struct rec_ctx *ctx, char *path, size_t plen, char *open_path,
		     size_t olen, char *why, size_t wlen)
{
	char link[64];
	ssize_t n;

	if (ctx->mode == PTOP__V1__TARGET_MODE__TARGET_MODE_COMMAND && ctx->exe && ctx->exe[0]) {
		snprintf(path, plen, "%s", ctx->exe);
		snprintf(open_path, olen, "%s", ctx->exe);
		return 0;
	}
	snprintf(link, sizeof(link), "/proc/%d/exe", ctx->pid);
	n = readlink(link, path, plen - 1);
	if (n <= 0) {
		int e = n < 0 ? errno : ENOENT;

		snprintf(why, wlen, "cannot read %s: %s", link, strerror(e));
		return -e;
	}
	path[n] = '\0';
	snprintf(open_path, olen, "/proc/%d/root%s", ctx->pid, path);
	return 0;
}

Ptop__V1__ProbeState heap__uprobe_precheck(struct collector *c, const char *cgroup_why,
					   const char *no_ebpf_why, const char *caps_detail,
					   bool cookies)
{
	struct rec_ctx *ctx = c->ctx;
	char why[200];

	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF;
	c->reason[0] = '\0';
	if (ctx->mode == PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP)
		snprintf(c->reason, sizeof(c->reason), "%s", cgroup_why);
	else if (ctx->no_ebpf)
		snprintf(c->reason, sizeof(c->reason), "%s", no_ebpf_why);
	else if (bpf_util__can_trace(why, sizeof(why)) != 0)
		snprintf(c->reason, sizeof(c->reason), "%s", why);
	if (c->reason[0])
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	if (uprobe_link__lanes(c, cookies)) {
		const struct collector_lane *l = collector_lane_get(c, "perf_uprobe");

		snprintf(c->reason, sizeof(c->reason), "no uprobe lane: %s",
			 l ? l->reason : "perf-event uprobes cannot run");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	if (ctx->caps_only || ctx->pid <= 0) {
		snprintf(c->detail, sizeof(c->detail), "%s", caps_detail);
		return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	}
	return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSPECIFIED;
}

/* Old attachments being stopped in the background: releasing uprobe links waits for a
 * grace period in the kernel (record/uprobe_link.h), which the held new program need not
 * wait for. Until it is done, the old programs may still fire on a library the new
 * program maps too; their maps are no longer read. */
#define HP_REAPERS 8

static struct hp_reaper {
	pthread_t thread;
	struct collector c;	/* a copy: its ops and priv */
} reapers[HP_REAPERS];
static int n_reapers;
static __thread bool reaping;	/* this thread is a reaper */

static void *reap(void *arg)
{
	struct collector *c = arg;

	reaping = true;
	heap__lane_stop(c);
	return NULL;
}

void heap__reap_wait(void)
{
	int i;

	if (reaping)
		return;
	for (i = 0; i < n_reapers; i++)
		pthread_join(reapers[i].thread, NULL);
	n_reapers = 0;
}

/* Stop what C has attached, in the background when a thread can be had; C is left
 * with nothing attached. (After the new attach: attaching waits behind detaches.) */
static void stop_behind(struct collector *c)
{
	struct hp_reaper *r;

	if (!c->priv)
		return;
	if (n_reapers == HP_REAPERS)
		heap__reap_wait();
	r = &reapers[n_reapers];
	r->c = *c;
	c->priv = NULL;
	if (pthread_create(&r->thread, NULL, reap, &r->c)) {
		heap__lane_stop(&r->c);
		return;
	}
	n_reapers++;
}

extern const struct collector_ops heap_collector;

/* Empty the hash map M: its keys, read in batches, are deleted. 0 or -errno. */
static int clear_hash(struct bpf_map *m)
{
	enum { BATCH = 256 };
	LIBBPF_OPTS(bpf_map_batch_opts, o);
	size_t ks = bpf_map__key_size(m), vs = bpf_map__value_size(m);
	void *keys = malloc(BATCH * ks), *vals = malloc(BATCH * vs), *in = NULL;
	int fd = bpf_map__fd(m), err = -ENOMEM, rounds = 0;
	__u64 batch = 0;
	__u32 n, count;
	bool last;

	while (keys && vals && rounds++ < 1 << 16) {
		n = BATCH;
		err = bpf_map_lookup_batch(fd, in, &batch, keys, vals, &n, &o);
		last = err && errno == ENOENT;
		if (err && !last) {
			err = -errno;
			break;
		}
		count = n;
		if (n && bpf_map_delete_batch(fd, keys, &count, &o)) {
			err = -errno;
			break;
		}
		err = 0;
		if (last)
			break;
		in = &batch;
	}
	free(keys);
	free(vals);
	return err;
}

/* The new program (NEW: checked, not started), held at its exec, has the same allocator
 * module as the old one (OLD: started), the same file at the same probe points: OLD's
 * probes stay (a
 * uprobe belongs to the process, and the new program gets it when it maps the file), its
 * maps and sites are emptied, as a new start would have them (the old program's live set
 * is gone with it), and it becomes NEW's. Loading the BPF object again (its vmlinux BTF,
 * its 1M-entry live map: 50-150 ms) is what a chain of execs of shell scripts waited on
 * each time. 0; -EXDEV when the modules differ; -errno when a map could not be emptied
 * (then OLD is to be stopped and NEW started as usual). */
/* The allocator module of C's target, into MOD: for a command not yet started its
 * executable and libraries, else /proc/PID/maps. 0, or -errno with WHY. */
static int hp_module_find(struct collector *c, struct hp_module *mod, char *why, size_t wlen)
{
	struct rec_ctx *ctx = c->ctx;

	why[0] = '\0';
	if (ctx->mode == PTOP__V1__TARGET_MODE__TARGET_MODE_COMMAND && ctx->exe && ctx->exe[0])
		return find_for_command(ctx->exe, mod, why, wlen);
	return find_in_maps(ctx->pid, mod, why, wlen);
}

static int keep_probes(struct collector *old, struct collector *new)
{
	struct hp_priv *op = old->priv;
	struct hp_module *nm;
	struct stat st;
	char why[200];
	__u32 zero = 0;
	bool same;
	int err;

	/* both the uprobe lane: the heap's (not the Go lane's), which check() chose for both */
	if (old->ops != &heap_collector || new->ops != &heap_collector ||
	    old->source != PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF ||
	    new->source != PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF || !op || !op->c ||
	    !op->skel || new->priv)
		return -EXDEV;
	/* only while the target is held does nothing fire while the maps are emptied (a
	 * --pid target, or an exec the watch could not hold, runs: attach anew) */
	if (!new->ctx->exec_held)
		return -EXDEV;
	/* the new program's module, as check() found it */
	nm = malloc(sizeof(*nm));
	if (!nm)
		return -ENOMEM;
	same = !hp_module_find(new, nm, why, sizeof(why)) && !strcmp(op->mod.path, nm->path) &&
	       !strcmp(op->mod.open_path, nm->open_path) &&
	       !memcmp(op->mod.present, nm->present, sizeof(op->mod.present)) &&
	       !memcmp(op->mod.offset, nm->offset, sizeof(op->mod.offset)) &&
	       !memcmp(op->mod.pp, nm->pp, sizeof(op->mod.pp)) && !stat(op->mod.open_path, &st) &&
	       st.st_dev == op->dev && st.st_ino == op->ino;
	free(nm);
	if (!same)
		return -EXDEV;
	err = clear_hash(op->skel->maps.hp_live);
	if (!err)
		err = clear_hash(op->skel->maps.hp_sites);
	if (!err)
		err = clear_hash(op->skel->maps.hp_stacks);
	if (!err) {
		memset(op->cnt, 0, (size_t)op->ncpus * sizeof(*op->cnt));
		if (bpf_map_update_elem(bpf_map__fd(op->skel->maps.hp_counters), &zero, op->cnt, 0))
			err = -errno;
	}
	if (err)
		return err;
	memset(op->sites, 0, op->cap * sizeof(*op->sites));
	memset(&op->prev, 0, sizeof(op->prev));
	/* the new program starts from nothing live; the peak so far stays (the capture's) */
	__atomic_store_n(&op->skel->bss->hp_peak.live_total, 0, __ATOMIC_RELAXED);
	/* prev_misses stay: the programs' recursion misses go on counting */
	op->prev_ns = rec_now_ns();
	op->c = new;
	new->priv = op;
	old->priv = NULL;
	return 0;
}

int heap__exec_follow(struct collector *c, uint64_t now_ns)
{
	struct collector old;
	Ptop__V1__ProbeState st;
	int err = 0;

	if (c->state == PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE && c->priv)
		err = c->ops->poll(c, now_ns, 0);
	old = *c;	/* detached once the new program's probes are attached */
	c->priv = NULL;
	c->reason[0] = '\0';
	c->detail[0] = '\0';
	st = c->ops->check(c);
	if (st == PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE && keep_probes(&old, c) == 0) {
		c->state = st;
		return err;
	}
	err = heap__start_checked(c, st) ?: err;
	stop_behind(&old);
	return err;
}

int heap__start_checked(struct collector *c, Ptop__V1__ProbeState st)
{
	int err = 0;

	if (st == PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE) {
		err = c->ops->start(c);
		if (err) {
			st = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
			if (!c->reason[0])
				snprintf(c->reason, sizeof(c->reason), "start failed: %s",
					 strerror(-err));
			heap__lane_stop(c);
		}
	} else if (!c->reason[0]) {
		snprintf(c->reason, sizeof(c->reason), "(no reason given)");
	}
	c->state = st;
	return err;
}

/* --caps, when the uprobe lane cannot run here (C->reason says why): the preload lane
 * still records the heap of a launched command, without privileges, when its library
 * is found and --heap-lane allows it. Then the heap is "yes" for launched commands,
 * and C->reason keeps what --pid would need; else the uprobe lane's answer stands. */
static Ptop__V1__ProbeState caps_preload_only(struct collector *c)
{
	char lib[PATH_MAX], why[300], uprobe_why[sizeof(c->reason)];

	if (heap_settings.lane == HEAP_LANE_UPROBE ||
	    heap_preload__find_lib("/proc/self/exe", lib, sizeof(lib), why, sizeof(why)))
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	snprintf(uprobe_why, sizeof(uprobe_why), "%s", c->reason);
	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PRELOAD;
	snprintf(c->detail, sizeof(c->detail), "lane preload: %.*s", (int)sizeof(c->detail) - 16,
		 lib);
	snprintf(c->reason, sizeof(c->reason),
		 "for a launched command (-- COMMAND) only: the preload lane (%s) needs no "
		 "privileges; --pid, and static or Go commands, need the uprobe lane (%.*s)",
		 HEAP_PRELOAD_LIB_NAME, (int)sizeof(c->reason) - 200, uprobe_why);
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

/* How the uprobe lane takes stacks this run (USER_STACKS_FP or _DWARF), decided by its
 * check. */
static enum user_stacks hp_mode = USER_STACKS_FP;
static char hp_mode_why[180];	/* why; "" until decided */
/* why the stack copies cannot run when dwarf was chosen ("" when they can, or fp was) */
static char hp_copy_why[200];
static struct {
	pid_t pid;
	int opt;
	uint64_t start_ns;
} hp_mode_for;			/* the recording it was decided for */

Ptop__V1__ProbeState heap__uprobe_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	Ptop__V1__ProbeState state;
	struct hp_module mod;
	char why[200];
	size_t len;
	int i;

	state = heap__uprobe_precheck(
		c,
		"heap uprobes attach to one process's allocator, not yet per process of a "
		"cgroup: record one of its processes with --pid --enable heap",
		"--no-ebpf: the heap is measured only by eBPF uprobes on the allocator",
		"uprobes on the target's allocator (malloc, free, ...)", true);
	if (ctx->caps_only && state == PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED)
		return caps_preload_only(c);
	if (state != PTOP__V1__PROBE_STATE__PROBE_STATE_UNSPECIFIED)
		return state;
	/* the module is found again by start(): check() keeps nothing */
	if (hp_module_find(c, &mod, why, sizeof(why))) {
		snprintf(c->reason, sizeof(c->reason), "no allocator module: %s", why);
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	len = (size_t)snprintf(c->detail, sizeof(c->detail), "%s:", mod.path);
	for (i = 0; i < HP_NFUNCS && len < sizeof(c->detail); i++) {
		if (!mod.present[i])
			continue;
		if (mod.pp[i].emulated)
			len += (size_t)snprintf(c->detail + len, sizeof(c->detail) - len, " %s+%u",
						heap_func_names[i], mod.pp[i].offset);
		else
			len += (size_t)snprintf(c->detail + len, sizeof(c->detail) - len,
						" %s+0(stepped)", heap_func_names[i]);
	}
	if (len < sizeof(c->detail))
		len += (size_t)snprintf(c->detail + len, sizeof(c->detail) - len,
					"; stack every %llu B",
					(unsigned long long)heap_settings.sample_bytes);
	/* once per target and recording: the BPF side keeps it across execs */
	if (!hp_mode_why[0] || hp_mode_for.pid != ctx->pid || hp_mode_for.opt != ctx->user_stacks ||
	    hp_mode_for.start_ns != ctx->start_ns) {
		hp_mode = user_stacks__choose(ctx, hp_mode_why, sizeof(hp_mode_why));
		if (hp_mode == USER_STACKS_DWARF &&
		    (!kfeature_have(KF_BPF_LOOP, why, sizeof(why)) ||
		     !kfeature_have(KF_FIND_VMA, why, sizeof(why)))) {
			size_t at = strlen(hp_mode_why);

			hp_mode = USER_STACKS_FP; /* the copies need both helpers */
			if (snprintf(hp_mode_why + at, sizeof(hp_mode_why) - at,
				     "; no stack copies here: %s", why) < 0)
				hp_mode_why[at] = '\0';
			snprintf(hp_copy_why, sizeof(hp_copy_why), "%s", why);
		} else {
			hp_copy_why[0] = '\0';
		}
		hp_mode_for.pid = ctx->pid;
		hp_mode_for.opt = ctx->user_stacks;
		hp_mode_for.start_ns = ctx->start_ns;
	}
	if (len < sizeof(c->detail))
		snprintf(c->detail + len, sizeof(c->detail) - len, "; user stacks %s (%s)%s",
			 user_stacks_name(hp_mode), hp_mode_why,
			 hp_mode == USER_STACKS_DWARF ? ": 16 KiB stack copies, unwound offline" : "");
	/* the user stacks' lanes, as cpuprof's: copies, else frame pointers */
	collector_lane(c, "stack_copy",
		       hp_mode == USER_STACKS_DWARF ? PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE
		       : hp_copy_why[0]		    ? PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED
						    : PTOP__V1__PROBE_STATE__PROBE_STATE_STANDBY,
		       c->source, "%s",
		       hp_mode == USER_STACKS_DWARF ? ""
		       : hp_copy_why[0]		    ? hp_copy_why
						    : "not needed: frame pointers");
	collector_lane(c, "fp",
		       hp_mode == USER_STACKS_DWARF ? PTOP__V1__PROBE_STATE__PROBE_STATE_STANDBY
						    : PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
		       c->source, "%s", hp_mode == USER_STACKS_DWARF ? "not needed: stack copies" : "");
	if (heap_settings.events) { /* its limit, said at start (an active probe's reason) */
		uint64_t n;

		heap_events_ring_bytes(ctx->interval_ns, &n);
		heap_events_limit_text(c->reason, sizeof(c->reason), "ring buffer", n,
				       ctx->interval_ns);
	}
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

/* The heap collector's check(): a launched command with the preload lane prepared is
 * that lane's to decide (it comes back to the uprobe lane's check for a static or Go
 * executable, collectors/heap/record_preload.c); else the uprobe lane's. Which lane
 * said yes is c->source (PRELOAD or EBPF): start(), poll(), stop() and exec() follow
 * it. Changes nothing. */
uint64_t heap_events_ring_bytes(uint64_t interval_ns, uint64_t *records)
{
	/* a record: the event and the ring buffer's 8-byte header, rounded to 8 */
	const uint64_t rec = (sizeof(struct hp_event) + 8 + 7) / 8 * 8;
	double want = (double)interval_ns / 1e9 * (double)HP_EVENTS_RATE * (double)rec;
	uint64_t bytes = HP_RINGBUF_BYTES;

	while (bytes < HP_RINGBUF_MAX_BYTES && (double)bytes < want)
		bytes *= 2;
	if (records)
		*records = bytes / rec;
	return bytes;
}

void heap_events_limit_text(char *buf, size_t len, const char *lane, uint64_t records,
			    uint64_t interval_ns)
{
	double s = (double)interval_ns / 1e9;

	snprintf(buf, len,
		 "--heap-events: the %s keeps %" PRIu64 " records between two polls (--interval "
		 "%.3g s): about %.0f allocations and frees a second; more are lost and counted "
		 "(drop ringbuf)",
		 lane, records, s, s > 0 ? (double)records / s : 0.0);
}

static Ptop__V1__ProbeState hp_check(struct collector *c)
{
	if (heap_preload__wanted(heap_preload__prepared()))
		return heap_preload__check(c);
	return heap__uprobe_check(c);
}

static void hp_stop(struct collector *c)
{
	struct hp_priv *p = c->priv;

	heap__reap_wait();
	if (!p)
		return;
	if (p->c) {	/* start() got past finding the module */
		ring_buffer__free(p->rb);
		ring_buffer__free(p->crb);
		uprobe_link__destroy(p->links, p->nlinks);
		heap_bpf__destroy(p->skel);
		free(p->cnt);
		free(p->sites);
		heap_rank__free(&p->rank);
		free(p->lkeys);
		free(p->lvals);
		free(p->temp_rows);
		free(p->peak);
		free(p->peak_hs);
		free(p->peak_hsp);
	}
	free(p);
	c->priv = NULL;
}

static int attach_one(struct collector *c, struct hp_priv *p, struct bpf_program *prog,
		      bool ret, int func)
{
	uint64_t off = p->mod.offset[func] + p->mod.pp[func].offset, cookie = (uint64_t)func;
	struct uprobe_link *l;
	int err;

	l = uprobe_link__attach(prog, c->ctx->pid, p->mod.open_path, &off, &cookie, 1, ret);
	if (!l) {
		char what[96];

		err = -errno;
		snprintf(what, sizeof(what), "attach %s to %s", ret ? "uretprobe" : "uprobe",
			 heap_func_names[func]);
		bpf_util__format_error(c->reason, sizeof(c->reason), what, err);
		return err;
	}
	p->links[p->nlinks++] = l;
	return 0;
}

static int on_event(void *arg, void *data, size_t size);

/* A stack copy from the ring: its Stack record, once per key. */
static int on_copy(void *arg, void *data, size_t size)
{
	struct hp_priv *p = arg;
	int err;

	if (p->rb_err)
		return 0;
	err = stack_copies__add(p->c->ctx, p->copies, p->table, data, size);
	if (err == -EINVAL)
		p->bad_copies++;
	else if (err)
		p->rb_err = err;
	return 0;
}

/* The VMAs of the target for its stack copies (bpf/stackcopy.h), from its maps now. */
static void seed_vmas(struct hp_priv *p, __u32 pid, struct sc_vmas *t)
{
	int fd = bpf_map__fd(p->skel->maps.hp_vmas);
	struct sc_vmas *v;

	if (!pid || sc_vmas__read((pid_t)pid, t))
		return;
	v = calloc((size_t)p->ncpus, sizeof(*v));
	if (!v)
		return;
	for (int i = 0; i < p->ncpus; i++)
		v[i] = *t;
	bpf_map_update_elem(fd, &pid, v, BPF_ANY);
	free(v);
}

static int hp_start(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	struct hp_priv *p;
	char why[200];
	uint32_t table[HP_EXP_TABLE];
	uint64_t done[HP_NFUNCS];
	int err = 0, i, j, nd = 0;

	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	c->priv = p;	/* the module as check() found it: found again */
	err = hp_module_find(c, &p->mod, why, sizeof(why));
	if (err) {
		snprintf(c->reason, sizeof(c->reason), "no allocator module: %s", why);
		hp_stop(c);
		return err;
	}
	p->c = c;
	p->ncpus = bpf_util__ncpus();
	if (p->ncpus <= 0) {
		err = p->ncpus < 0 ? p->ncpus : -EINVAL;
		snprintf(c->reason, sizeof(c->reason), "cannot count possible CPUs");
		goto cleanup;
	}
	p->cap = HP_USITE_CAP;
	p->cnt = calloc(p->ncpus, sizeof(*p->cnt));
	p->sites = calloc(p->cap, sizeof(*p->sites));
	p->lkeys = calloc(HP_BATCH, sizeof(*p->lkeys));
	p->lvals = calloc(HP_BATCH, sizeof(*p->lvals));
	p->temp_rows = calloc(HP_SITE_ENTRIES, sizeof(*p->temp_rows));
	p->peak = calloc(HP_SITE_ENTRIES, sizeof(*p->peak));
	p->peak_hs = calloc(heap_settings.top ? heap_settings.top : 1, sizeof(*p->peak_hs));
	p->peak_hsp = calloc(heap_settings.top ? heap_settings.top : 1, sizeof(*p->peak_hsp));
	p->table = cp_stack_table__capture();
	if (heap_rank__alloc(&p->rank) || !p->cnt || !p->sites || !p->lkeys || !p->lvals ||
	    !p->temp_rows || !p->peak || !p->peak_hs || !p->peak_hsp || !p->table) {
		err = -ENOMEM;
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		goto cleanup;
	}

retry:
	bpf_util__open_log(ctx->verbose);
	p->skel = heap_bpf__open();
	if (!p->skel) {
		err = -errno;
		bpf_util__format_error(c->reason, sizeof(c->reason), "open heap BPF", err);
		goto cleanup;
	}
	p->skel->rodata->targ_tgid = (__u32)ctx->pid;
	p->skel->rodata->targ_cgid = ctx->cgroup_id;
	p->skel->rodata->targ_cglevel = ctx->cgroup_level;
	p->skel->rodata->hp_sample_bytes = heap_settings.sample_bytes;
	p->skel->rodata->hp_events = heap_settings.events;
	heap__exp_table(table, HP_EXP_TABLE);
	memcpy((void *)p->skel->rodata->hp_exp_table, table, sizeof(table));
	if (!heap_settings.events)
		bpf_map__set_max_entries(p->skel->maps.hp_events_rb, 4096);
	else
		bpf_map__set_max_entries(p->skel->maps.hp_events_rb,
					 (__u32)heap_events_ring_bytes(ctx->interval_ns, NULL));
	p->skel->rodata->hp_user_stacks = hp_mode == USER_STACKS_DWARF ? HP_USER_COPY : HP_USER_FP;
	/* test hook: every stack scan's per-CPU state taken over (bpf/stackcopy.bpf.h) */
	p->skel->rodata->sc_test_clobber = getenv("PTOP_TEST_STACK_CLOBBER") != NULL;
	if (hp_mode != USER_STACKS_DWARF) {	/* the copies' maps stay small */
		bpf_map__set_max_entries(p->skel->maps.hp_copies, 4096);
		bpf_map__set_max_entries(p->skel->maps.hp_copied, 1);
	}
	/* uprobe_multi links: no detach holds up an attach (record/uprobe_link.h) */
	err = uprobe_link__prepare(p->skel->progs.hp_enter) ?:
	      uprobe_link__prepare(p->skel->progs.hp_exit) ?:
	      uprobe_link__prepare(p->skel->progs.hp_free);
	if (!err) /* PTOP_TEST_REFUSE=stack_copy: the copies' load refused, as by a verifier */
		err = hp_mode == USER_STACKS_DWARF && kfeature_refused("stack_copy")
			      ? -E2BIG
			      : heap_bpf__load(p->skel);
	if (err && hp_mode == USER_STACKS_DWARF) {
		/* the stack copies did not load: frame-pointer stacks for the rest of the
		 * recording (hp_mode is kept for it), and the lanes say why */
		char why[300];

		if (kfeature_refused("stack_copy"))
			snprintf(why, sizeof(why), "load refused by PTOP_TEST_REFUSE");
		else
			bpf_util__format_error(why, sizeof(why), "load heap BPF with stack copies",
					       err);
		collector_lane(c, "stack_copy", PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED,
			       c->source, "%s", why);
		collector_lane(c, "fp", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE, c->source,
			       "%s", "");
		hp_mode = USER_STACKS_FP; /* and an exec's check says why, from here on */
		snprintf(hp_copy_why, sizeof(hp_copy_why), "%.199s", why);
		snprintf(hp_mode_why, sizeof(hp_mode_why), "the stack copies failed to load: %.140s",
			 why);
		{	/* the detail as check() now writes it, what follows it kept */
			static const char tail[] = ": 16 KiB stack copies, unwound offline";
			char *at = strstr(c->detail, "; user stacks dwarf"), rest[sizeof(c->detail)];
			char *end = at ? strstr(at, tail) : NULL;

			if (at && end) {
				snprintf(rest, sizeof(rest), "%s", end + strlen(tail));
				snprintf(at, sizeof(c->detail) - (size_t)(at - c->detail),
					 "; user stacks fp (%s)%s", hp_mode_why, rest);
			}
		}
		heap_bpf__destroy(p->skel);
		p->skel = NULL;
		err = 0;
		goto retry;
	}
	err = err ?: bpf_util__loaded(p->skel->obj, "heap");
	if (err) {
		bpf_util__format_error(c->reason, sizeof(c->reason), "load heap BPF", err);
		goto cleanup;
	}
	{
		struct stat st;	/* what the probes attach to, for an exec (keep_probes) */

		if (stat(p->mod.open_path, &st) == 0) {
			p->dev = st.st_dev;
			p->ino = st.st_ino;
		}
	}
	for (i = 0; i < HP_NFUNCS; i++) {
		uint64_t at = p->mod.offset[i] + p->mod.pp[i].offset;
		bool dup = false;

		if (!p->mod.present[i])
			continue;
		for (j = 0; j < nd; j++)
			dup |= done[j] == at;	/* aligned_alloc is memalign in glibc */
		if (dup)
			continue;
		done[nd++] = at;
		if (i == HP_FREE) {
			err = attach_one(c, p, p->skel->progs.hp_free, false, i);
		} else {
			/* the return probe first: a call that passes the entry probe
			 * has its return seen (collectors/heap/heap.bpf.c, nested_call) */
			err = attach_one(c, p, p->skel->progs.hp_exit, true, i);
			if (!err)
				err = attach_one(c, p, p->skel->progs.hp_enter, false, i);
		}
		if (err)
			goto cleanup;
	}
	if (hp_mode == USER_STACKS_DWARF) {
		struct sc_vmas t;
		__u32 pid = (__u32)ctx->pid;

		p->copies = stack_copies__capture();
		p->crb = ring_buffer__new(bpf_map__fd(p->skel->maps.hp_copies), on_copy, p, NULL);
		if (!p->copies || !p->crb) {
			err = p->crb ? -ENOMEM : -errno;
			snprintf(c->reason, sizeof(c->reason), "stack copies' ring buffer: %s",
				 strerror(-err));
			goto cleanup;
		}
		seed_vmas(p, pid, &t);
	}
	if (heap_settings.events) {
		uint64_t n;

		p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.hp_events_rb), on_event, p,
					 NULL);
		if (!p->rb) {
			err = -errno;
			bpf_util__format_error(c->reason, sizeof(c->reason),
					       "open the heap event ring buffer", err);
			goto cleanup;
		}
		/* the limit it runs within: the probe's reason, said at start */
		heap_events_ring_bytes(ctx->interval_ns, &n);
		heap_events_limit_text(c->reason, sizeof(c->reason), "ring buffer", n,
				       ctx->interval_ns);
	}
	p->prev_ns = rec_now_ns();
	return 0;

cleanup:
	c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	hp_stop(c);
	return err ? err : -EINVAL;
}

void heap__counters_delta(const uint64_t *now, uint64_t *prev, uint64_t *delta, size_t words)
{
	for (size_t w = 0; w < words; w++) {
		delta[w] = now[w] - prev[w];
		prev[w] = now[w];
	}
}

void heap__site_row(struct heap_site_row *r, struct heap_usite *s, const struct hp_site *cur,
		    uint32_t index, bool live)
{
	memset(r, 0, sizeof(*r));
	r->alloc_count = cur->alloc_count - s->prev.alloc_count;
	r->alloc_bytes = cur->alloc_bytes - s->prev.alloc_bytes;
	if (live) {
		r->freed_count = cur->freed_count - s->prev.freed_count;
		r->lifetime_ns_sum = cur->lifetime_ns_sum - s->prev.lifetime_ns_sum;
		r->live_count = heap__live_total(cur->live_count);
		r->live_bytes = heap__live_total(cur->live_bytes);
		r->oldest_live_ns = r->live_count ? s->oldest : 0;
	}
	r->index = index;
	s->prev = *cur;
}

void heap__snapshot_init(Ptop__V1__HeapSnapshot *hs, Ptop__V1__HeapLane lane, const char *module,
			 bool live_measured, const struct heap_census *census,
			 Ptop__V1__HeapSite **sites, size_t k)
{
	hs->lane_kind = lane;
	hs->lane = (char *)capture_heap_lane_name(lane);
	hs->module = (char *)module;
	hs->sample_bytes = heap_settings.sample_bytes;
	hs->live_measured = live_measured;
	hs->leak_age_ns = heap_settings.leak_age_ns;
	hs->n_sites = k;
	hs->sites = k ? sites : NULL;
	hs->total_call_sites = census->total_call_sites;
	hs->omitted_alloc_count = census->omitted_alloc_count;
	hs->omitted_alloc_bytes = census->omitted_alloc_bytes;
	hs->omitted_live_bytes = live_measured ? census->omitted_live_bytes : 0;
}

int heap_rank__alloc(struct heap_rank *r)
{
	r->rows = calloc(HP_SITE_ENTRIES, sizeof(*r->rows));
	r->keep = calloc(HP_SITE_ENTRIES, sizeof(*r->keep));
	r->row_site = calloc(HP_SITE_ENTRIES, sizeof(*r->row_site));
	r->hs = calloc(HP_SITE_ENTRIES, sizeof(*r->hs));
	r->hsp = calloc(HP_SITE_ENTRIES, sizeof(*r->hsp));
	if (r->rows && r->keep && r->row_site && r->hs && r->hsp)
		return 0;
	heap_rank__free(r);
	return -ENOMEM;
}

void heap_rank__free(struct heap_rank *r)
{
	free(r->rows);
	free(r->keep);
	free(r->row_site);
	free(r->hs);
	free(r->hsp);
	memset(r, 0, sizeof(*r));
}

int heap__fill_sites(struct rec_ctx *ctx, const struct heap_stack_src *src,
		     struct cp_stack_table *table, struct heap_usite *sites,
		     const struct heap_rank *r, size_t nrows, size_t *k)
{
	const struct heap_site_row *rows = r->rows;
	static const Ptop__V1__HeapSite init = PTOP__V1__HEAP_SITE__INIT;
	size_t i;
	int err;

	*k = 0;
	for (i = 0; i < nrows; i++) {
		struct heap_usite *s = &sites[r->row_site[i]];
		Ptop__V1__HeapSite *h = &r->hs[*k];

		if (!r->keep[i])
			continue;
		err = heap_usite__resolve(ctx, src, table, s);
		if (err)
			return err;
		*h = init;
		h->stack_id = s->capid;
		h->alloc_count = rows[i].alloc_count;
		h->alloc_bytes = rows[i].alloc_bytes;
		h->live_count = rows[i].live_count;
		h->live_bytes = rows[i].live_bytes;
		h->freed_count = rows[i].freed_count;
		h->lifetime_ns_sum = rows[i].lifetime_ns_sum;
		h->oldest_live_ns = rows[i].oldest_live_ns;
		r->hsp[(*k)++] = h;
	}
	return 0;
}

int heap_usite__resolve(struct rec_ctx *ctx, const struct heap_stack_src *src,
			struct cp_stack_table *table, struct heap_usite *s)
{
	uint64_t ips[HP_MAX_DEPTH] = { 0 }, sips[HP_MAX_DEPTH + 1];
	size_t n;
	int got;

	if (s->resolved)
		return 0;
	s->resolved = true;	/* once: a stack that cannot be had stays unread */
	if (s->key.stack.kernel == SM_KIND_COPY) {	/* its record came through the ring */
		if (stack_copies__find(stack_copies__capture(), (uint32_t)ctx->pid,
				       s->key.stack.hash, &s->capid)) {
			s->capid = 0;
			s->resolved = false;	/* not drained yet: the next poll */
		}
		return 0;
	}
	got = src->ips(src->arg, s, ips, HP_MAX_DEPTH);
	if (got <= 0)
		return 0;
	n = heap__site_ips(ips, (size_t)got, s->key.caller, sips, HP_MAX_DEPTH + 1);
	return cp_stack_table__emit(ctx, table, false, 0, sips, n, &s->capid);
}

static int map_ips(void *arg, const struct heap_usite *s, uint64_t *ips, size_t max)
{
	return stackmap__read((int)(intptr_t)arg, &s->key.stack, ips, max);
}

struct heap_stack_src heap_stack_src__map(int fd)
{
	struct heap_stack_src src = { .ips = map_ips, .arg = (void *)(intptr_t)fd };

	return src;
}

static int on_event(void *arg, void *data, size_t size)
{
	struct hp_priv *p = arg;
	const struct hp_event *e = data;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__HeapEvent he = PTOP__V1__HEAP_EVENT__INIT;
	struct heap_usite *s = NULL;
	int err;

	if (size < sizeof(*e))
		return 0;
	if (e->site.stack.hash)
		s = heap_usites__get(p->sites, p->cap, &e->site);
	if (s) {
		struct heap_stack_src src = heap_stack_src__map(bpf_map__fd(p->skel->maps.hp_stacks));

		err = heap_usite__resolve(p->c->ctx, &src, p->table, s);
		if (err) {
			p->rb_err = err;
			return err;
		}
		he.stack_id = s->capid;
	}
	he.kind = e->kind == 2 ? PTOP__V1__HEAP_EVENT__KIND__KIND_FREE :
				 PTOP__V1__HEAP_EVENT__KIND__KIND_ALLOC;
	he.address = e->addr;
	he.size = e->size;
	he.function = (char *)(e->func < HP_NFUNCS ? heap_func_names[e->func] : "");
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_HEAP_EVENT;
	ev.heap_event = &he;
	err = rec_emit_event(p->c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_HEAP, e->time_ns, 0);
	if (err)
		p->rb_err = err;
	return err;
}

/* Walk the live set: leak totals and each site's oldest live allocation. */
static int walk_live(struct hp_priv *p, uint64_t now_ns, uint64_t leak_age, uint64_t *leak_bytes,
		     uint64_t *leak_count)
{
	int fd = bpf_map__fd(p->skel->maps.hp_live);
	LIBBPF_OPTS(bpf_map_batch_opts, o);
	__u64 batch = 0;
	void *in = NULL;
	__u32 n, i;
	int err, rounds = 0;

	*leak_bytes = 0;
	*leak_count = 0;
	do {
		n = HP_BATCH;
		err = bpf_map_lookup_batch(fd, in, &batch, p->lkeys, p->lvals, &n, &o);
		if (err && errno != ENOENT)
			return -errno;
		for (i = 0; i < n; i++) {
			const struct hp_live *l = &p->lvals[i];

			if (now_ns > l->time_ns && now_ns - l->time_ns >= leak_age) {
				*leak_bytes += l->size;
				(*leak_count)++;
			}
			if (l->site.stack.hash) {
				struct heap_usite *s = heap_usites__get(p->sites, p->cap, &l->site);

				if (s && (!s->oldest || l->time_ns < s->oldest))
					s->oldest = l->time_ns;
			}
		}
		in = &batch;
	} while (!err && ++rounds < (int)(2 * HP_LIVE_MAX / HP_BATCH + 2));
	return 0;
}

static int emit_drops(struct collector *c, struct hp_priv *p, const struct hp_counters *d)
{
	struct bpf_program *progs[3] = { p->skel->progs.hp_enter, p->skel->progs.hp_exit,
					 p->skel->progs.hp_free };
	uint64_t misses, all = 0, lost;
	int err, i;

	err = rec_emit_drop(c, "map_full", d->live_untracked,
			    "allocations not tracked: the heap live-set map was full "
			    "(live figures leave them out)");
	if (!err)
		err = rec_emit_drop(c, "stack_failure", d->stack_failures,
				    "sampled allocations whose user stack could not be taken");
	if (!err)
		err = rec_emit_drop(c, "stack_state_clobbered", d->stack_clobbered,
				    "sampled allocations without their stack: another stack scan "
				    "on the same CPU (a preempted uprobe) overwrote the scan's "
				    "per-CPU state, so the copy was dropped, not sent mixed");
	if (!err)
		err = rec_emit_drop(c, "stack_copy_malformed", p->bad_copies,
				    "stack copies from the kernel too short for their size: not "
				    "written (their allocations' sites stay unnamed)");
	p->bad_copies = 0;
	if (!err)
		err = rec_emit_drop(c, "site_map_full", d->site_full,
				    "sampled allocations whose site did not fit the heap site map");
	if (!err)
		err = rec_emit_drop(c, "inflight_full", d->inflight_lost,
				    "allocator calls not counted: no per-thread storage for them");
	if (!err)
		err = rec_emit_drop(c, "unmatched_entry", d->unmatched_entry,
				    "allocator calls not counted: their return was not seen "
				    "(the kernel lost its return probe)");
	if (!err)
		err = rec_emit_drop(c, "unmatched_return", d->unmatched_return,
				    "allocator calls not counted: their entry was not seen "
				    "(the kernel did not run the entry probe)");
	if (!err)
		err = rec_emit_drop(c, "attaching", d->attaching,
				    "allocator calls not counted: in flight while the heap "
				    "probes were being attached, at the start or at an exec "
				    "followed (their return seen, not their entry)");
	if (!err)
		err = rec_emit_drop(c, "filtered", d->filtered,
				    "allocator calls in the target's memory by another process "
				    "(a vfork child, or a pid the filter does not match): not "
				    "counted");
	if (!err)
		err = rec_emit_drop(c, "ringbuf", d->events_lost,
				    "--heap-events records lost: the ring buffer was full");
	lost = __atomic_load_n(&p->skel->bss->hp_peak.peak_lost, __ATOMIC_RELAXED);
	if (!err)
		err = rec_emit_drop(c, "peak_race", lost - p->prev_peak_lost,
				    "new peaks of the live heap given up: other CPUs kept raising "
				    "it (the peak is at least the one said)");
	p->prev_peak_lost = lost;
	lost = __atomic_load_n(&p->skel->bss->hp_peak.last_lost, __ATOMIC_RELAXED);
	if (!err)
		err = rec_emit_drop(c, "temporary_untracked", lost - p->prev_last_lost,
				    "allocations whose thread had no storage for its last "
				    "allocation: not counted as temporaries if they were");
	p->prev_last_lost = lost;
	if (err)
		return err;
	for (i = 0; i < 3; i++) {
		if (bpf_util__prog_misses(progs[i], &misses))
			continue;
		all += misses - p->prev_misses[i];
		p->prev_misses[i] = misses;
	}
	return rec_emit_drop(c, "recursion_miss", all,
			     "allocator calls the kernel did not run the heap probes for");
}

static int cmp_peak_row(const void *a, const void *b)
{
	const struct hp_peak_row *x = a, *y = b;

	if (x->live_bytes != y->live_bytes)
		return x->live_bytes < y->live_bytes ? 1 : -1;
	return x->site < y->site ? -1 : x->site > y->site;
}

/* The N sites of p->peak (what they held at the last peak mark) into HS: the top
 * heap_settings.top by live bytes, each with its stack, and the mark's live total and
 * time. Sampled, estimates that add up to more than the mark's live total (exact) are
 * scaled down to it: the samples' split of that total. 0, or -errno from writing a
 * stack. */
static int peak_sites(struct hp_priv *p, Ptop__V1__HeapSnapshot *hs, size_t n)
{
	static const Ptop__V1__HeapSite init = PTOP__V1__HEAP_SITE__INIT;
	struct heap_stack_src src = heap_stack_src__map(bpf_map__fd(p->skel->maps.hp_stacks));
	size_t top = heap_settings.top ? heap_settings.top : 1, i;
	uint64_t mark = __atomic_load_n(&p->skel->bss->hp_peak.mark_bytes, __ATOMIC_RELAXED);
	double sum = 0, f;
	int err;

	for (i = 0; heap_settings.sample_bytes && i < n; i++)
		sum += (double)p->peak[i].live_bytes;
	f = sum > (double)mark ? (double)mark / sum : 1;
	for (i = 0; f < 1 && i < n; i++) {
		p->peak[i].live_bytes = (uint64_t)((double)p->peak[i].live_bytes * f + 0.5);
		p->peak[i].live_count = (uint64_t)((double)p->peak[i].live_count * f + 0.5);
	}
	if (n)
		qsort(p->peak, n, sizeof(*p->peak), cmp_peak_row);
	n = n < top ? n : top;
	for (i = 0; i < n; i++) {
		struct heap_usite *u = &p->sites[p->peak[i].site];

		err = heap_usite__resolve(p->c->ctx, &src, p->table, u);
		if (err)
			return err;
		p->peak_hs[i] = init;
		p->peak_hs[i].stack_id = u->capid;
		p->peak_hs[i].live_count = p->peak[i].live_count;
		p->peak_hs[i].live_bytes = p->peak[i].live_bytes;
		p->peak_hsp[i] = &p->peak_hs[i];
	}
	hs->peak_sites_live_bytes = mark;
	hs->peak_sites_time_ns = __atomic_load_n(&p->skel->bss->hp_peak.mark_ns, __ATOMIC_RELAXED);
	hs->n_peak_sites = n;
	hs->peak_sites = n ? p->peak_hsp : NULL;
	return 0;
}

static int hp_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct hp_priv *p = c->priv;
	struct rec_ctx *ctx = c->ctx;
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__HeapSnapshot hs = PTOP__V1__HEAP_SNAPSHOT__INIT;
	struct hp_counters sum, d;
	struct heap_census census;
	struct hp_site_key key, next;
	struct heap_stack_src src;
	uint64_t interval, leak_bytes, leak_count;
	int sfd, err, guard = 0;
	size_t nrows = 0, npeak = 0, i, j, k = 0;
	uint64_t marks;
	void *prev = NULL;

	(void)flags;
	if (!p || !p->skel)
		return -EINVAL;
	/* a peak mark since the last poll: the sites' peak_live_* are its copy */
	marks = __atomic_load_n(&p->skel->bss->hp_peak.marks, __ATOMIC_ACQUIRE);
	p->rb_err = 0;
	if (p->crb) {	/* the copies before the events and sites that refer to them */
		struct sc_vmas t;

		ring_buffer__consume(p->crb);
		if (p->rb_err)
			return p->rb_err;
		seed_vmas(p, (__u32)ctx->pid, &t);	/* the mappings may have changed */
	}
	if (p->rb) {
		ring_buffer__consume(p->rb);
		if (p->rb_err)
			return p->rb_err;
	}
	err = bpf_util__percpu_sum(p->skel->maps.hp_counters, 0, p->cnt,
				   sizeof(struct hp_counters), (uint64_t *)&sum,
				   sizeof(sum) / sizeof(uint64_t));
	if (err)
		goto read_err;
	heap__counters_delta((const uint64_t *)&sum, (uint64_t *)&p->prev, (uint64_t *)&d,
			     sizeof(sum) / sizeof(uint64_t));

	/* the sites: cumulative in the kernel, this interval's deltas here */
	for (i = 0; i < p->cap; i++)
		p->sites[i].oldest = 0;
	err = walk_live(p, now_ns, heap_settings.leak_age_ns, &leak_bytes, &leak_count);
	if (err)
		goto read_err;
	sfd = bpf_map__fd(p->skel->maps.hp_sites);
	while (guard++ < 2 * HP_SITE_ENTRIES && bpf_map_get_next_key(sfd, prev, &next) == 0) {
		struct hp_site cur;
		struct heap_usite *s;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(sfd, &key, &cur) || nrows == HP_SITE_ENTRIES)
			continue;
		s = heap_usites__get(p->sites, p->cap, &key);
		if (!s)
			continue;
		p->temp_rows[nrows] = cur.temporary_count - s->prev.temporary_count;
		if (marks != p->prev_marks && (int64_t)cur.peak_live_bytes > 0) {
			p->peak[npeak].site = (size_t)(s - p->sites);
			p->peak[npeak].live_bytes = cur.peak_live_bytes;
			p->peak[npeak].live_count = heap__live_total(cur.peak_live_count);
			npeak++;
		}
		heap__site_row(&p->rank.rows[nrows], s, &cur, (uint32_t)nrows, true);
		p->rank.row_site[nrows] = (size_t)(s - p->sites);
		nrows++;
	}
	err = heap__select_sites(p->rank.rows, nrows, heap_settings.top, p->rank.keep, &census);
	if (err)
		goto read_err;
	if (p->crb) {	/* a site's copy went into the ring before the site was made */
		ring_buffer__consume(p->crb);
		if (p->rb_err)
			return p->rb_err;
	}
	src = heap_stack_src__map(bpf_map__fd(p->skel->maps.hp_stacks));
	err = heap__fill_sites(c->ctx, &src, p->table, p->sites, &p->rank, nrows, &k);
	if (err)
		return err;
	/* the temporaries of the sites kept (fill_sites keeps the rows' order) */
	for (i = 0, j = 0; i < nrows && j < k; i++)
		if (p->rank.keep[i])
			p->rank.hsp[j++]->temporary_count = p->temp_rows[i];

	interval = now_ns > p->prev_ns ? now_ns - p->prev_ns : 0;
	p->prev_ns = now_ns;
	heap__snapshot_init(&hs, PTOP__V1__HEAP_LANE__HEAP_LANE_UPROBE, p->mod.path, true, &census,
			    p->rank.hsp, k);
	/* the peak: every tracked allocation and free moved the live total; the sites at
	 * it, the copy of the last peak mark */
	hs.peak_measured = true;
	hs.peak_live_bytes = __atomic_load_n(&p->skel->bss->hp_peak.peak_bytes, __ATOMIC_RELAXED);
	hs.peak_time_ns = __atomic_load_n(&p->skel->bss->hp_peak.peak_time_ns, __ATOMIC_RELAXED);
	hs.temporary_measured = true;
	hs.temporary_count = d.temporary_count;
	if (marks != p->prev_marks) {
		err = peak_sites(p, &hs, npeak);
		if (err)
			return err;
		p->prev_marks = marks;
	}
	hs.user_stacks = (char *)user_stacks_name(p->crb ? USER_STACKS_DWARF : USER_STACKS_FP);
	hs.alloc_count = d.alloc_count;
	hs.alloc_bytes = d.alloc_bytes;
	hs.free_count = d.free_count;
	hs.free_bytes = d.free_bytes;
	hs.live_bytes = heap__live_total(sum.live_bytes);
	hs.live_count = heap__live_total(sum.live_count);
	hs.leak_bytes = leak_bytes;
	hs.leak_count = leak_count;
	hs.live_untracked = d.live_untracked;
	hs.stack_failures = d.stack_failures + d.stack_clobbered + d.site_full;
	hs.free_untracked = d.free_untracked;
	ev.payload_case = PTOP__V1__EVENT__PAYLOAD_HEAP;
	ev.heap = &hs;
	err = rec_emit_event(ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_HEAP, now_ns, interval);
	if (err)
		return err;
	return emit_drops(c, p, &d);

read_err:
	snprintf(c->reason, sizeof(c->reason), "read heap BPF maps: %s", strerror(-err));
	return err;
}

/* The final stop: the lane's, and what prepare() made goes too. */
static void hp_stop_final(struct collector *c)
{
	heap__lane_stop(c);
	heap__reap_wait();
	heap_preload__release();
}

void heap__lane_stop(struct collector *c)
{
	if (c->ops != &heap_collector)
		c->ops->stop(c);	/* the Go lane */
	else if (c->source == PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PRELOAD)
		heap_preload__lane_stop(c);
	else
		hp_stop(c);
}

/* The heap collector's start(), poll() and exec(): the lane check() chose (c->source).
 * When it is not the preload lane, the preload lane (if prepared) is off for good, as
 * check() fell back from it: the library does not attach. */
static int hp_start_lane(struct collector *c)
{
	if (c->source == PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PRELOAD)
		return heap_preload__start(c);
	heap_preload__off(heap_preload__prepared());
	return hp_start(c);
}

static int hp_poll_lane(struct collector *c, uint64_t now_ns, unsigned flags)
{
	if (c->source == PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PRELOAD)
		return heap_preload__poll(c, now_ns, flags);
	return hp_poll(c, now_ns, flags);
}

static int hp_exec_lane(struct collector *c, uint64_t now_ns)
{
	if (c->source == PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PRELOAD)
		return heap_preload__exec(c, now_ns);
	heap_preload__off(heap_preload__prepared());
	return heap__exec_follow(c, now_ns);
}

/* ------------------------------------------------------------------ options */

struct heap_settings heap_settings;

/* --heap-sample-bytes: bytes with an optional K/M/G suffix (common/units.h), from 0 (every
 * allocation) to HEAP_MAX_SAMPLE_BYTES. */
static int parse_sample_bytes(const struct collector_opt *o, const char *arg, void *field,
			      char *err, size_t errlen)
{
	(void)o;
	if (!units__parse_bytes(arg, HEAP_MAX_SAMPLE_BYTES, field))
		return 0;
	snprintf(err, errlen,
		 "--heap-sample-bytes takes a number of bytes from 0 (every allocation) to 1T, "
		 "with an optional K/M/G suffix (e.g. 512K), not '%s'",
		 arg);
	return -EINVAL;
}

static int parse_lane(const struct collector_opt *o, const char *arg, void *field, char *err,
		      size_t errlen)
{
	(void)o;
	if (!heap_lane__parse(arg, field))
		return 0;
	snprintf(err, errlen, "--heap-lane takes auto, uprobe or preload, not '%s'", arg);
	return -EINVAL;
}

static const struct collector_opt hp_opts[] = {
	{
		.name = "heap-sample-bytes",
		.arg = "N",
		.def = "512K",
		.help = "heap: take a call stack once per N bytes allocated on\n"
			"average (randomized; default 512K; 0: every\n"
			"allocation, exact per site). Totals are always exact",
		.section = COPT_COLLECTORS,
		.order = 30,
		.parse = parse_sample_bytes,
		.offset = offsetof(struct heap_settings, sample_bytes),
	},
	{
		.name = "heap-top",
		.arg = "N",
		.def = "64",
		.help = "heap: call sites kept per interval by each of live\n"
			"bytes, bytes and count allocated (default 64)",
		.section = COPT_COLLECTORS,
		.order = 30,
		.parse = copt_parse_uint,
		.offset = offsetof(struct heap_settings, top),
		.min = 1,
		.max = HEAP_MAX_TOP,
	},
	{
		.name = "leak-age",
		.arg = "D",
		.def = "30s",
		.help = "heap: live allocations older than D are leak\n"
			"suspects (default 30s)",
		.section = COPT_COLLECTORS,
		.order = 30,
		.parse = copt_parse_duration,
		.offset = offsetof(struct heap_settings, leak_age_ns),
		.min = 1,
	},
	{
		.name = "heap-events",
		.help = "heap: also write every sampled allocation and free",
		.section = COPT_COLLECTORS,
		.order = 30,
		.parse = copt_parse_flag,
		.offset = offsetof(struct heap_settings, events),
	},
	{
		.name = "heap-lane",
		.arg = "L",
		.def = "auto",
		.help = "heap: auto (default), uprobe or preload. preload puts\n"
			"libptop-preload.so into a launched command's\n"
			"LD_PRELOAD (far cheaper than uprobes, below\n"
			"heaptrack even at --heap-sample-bytes 0; whole stacks\n"
			"from .eh_frame, without frame pointers; static and Go\n"
			"executables fall back to uprobes); auto is preload\n"
			"for launched commands, uprobes for --pid. heap and\n"
			"goalloc follow the target's exec (a wrapper such as\n"
			"sh -c 'exec PROG' or env): see FOLLOWING EXEC in\n"
			"ptop-record(1)",
		.section = COPT_COLLECTORS,
		.order = 30,
		.parse = parse_lane,
		.offset = offsetof(struct heap_settings, lane),
	},
	{ .name = NULL },
};

/* --heap-lane preload is a choice about a heap collector that runs on a launched command. */
static int hp_opts_check(const struct copt_choice *ch, char *err, size_t errlen)
{
	if (heap_settings.lane != HEAP_LANE_PRELOAD)
		return 0;
	if (!ch->runs) {
		snprintf(err, errlen,
			 "--heap-lane preload chooses how the heap collector runs, which is off: "
			 "add --enable heap");
		return -EINVAL;
	}
	if (!ch->command) {
		snprintf(err, errlen,
			 "--heap-lane preload needs a command that ptop-record starts "
			 "(-- COMMAND): the library goes into its LD_PRELOAD before it runs, "
			 "which a running process cannot take; use --heap-lane uprobe (or auto) "
			 "with --pid");
		return -EINVAL;
	}
	return 0;
}

static void hp_header_options(Ptop__V1__Options *o)
{
	o->heap_sample_bytes = heap_settings.sample_bytes;
	o->heap_top = heap_settings.top;
	o->leak_age_ns = heap_settings.leak_age_ns;
	o->heap_events = heap_settings.events;
	o->heap_lane = (char *)heap_lane__name(heap_settings.lane);
}

const struct collector_ops heap_collector = {
	.name = "heap",
	.summary = "heap: allocations by call site, live heap, leak suspects "
		   "(libptop-preload.so in a launched command, else eBPF uprobes on malloc/free)",
	.off_by_default = HEAP_OFF_BY_DEFAULT,
	.opts = hp_opts,
	.settings = &heap_settings,
	.settings_size = sizeof(heap_settings),
	.opts_check = hp_opts_check,
	.header_options = hp_header_options,
	.prepare = heap_preload__collector_prepare,
	.check = hp_check,
	.start = hp_start_lane,
	.poll = hp_poll_lane,
	.stop = hp_stop_final,
	.exec = hp_exec_lane,
};
