/* record.c — the mappings collector: what a later, offline symbolizer needs
 * to name the target's addresses. Three things, all from /proc:
 *
 *  - Mapping records for the target's executable mappings: all of them at the
 *    first poll (START), those that appeared (NEW: dlopen, exec) or vanished
 *    (GONE) at each poll, and all of them again at the final poll (END) while
 *    the process can still be read. Each carries the GNU build-id read from the
 *    mapped file itself through /proc/PID/map_files/START-END (the very file,
 *    deleted or in another mount namespace), else through /proc/PID/root/PATH
 *    when its inode is the mapped one; the [vdso]'s from the target's memory.
 *    When there is no build-id, build_id is empty and build_id_error says why.
 *    Build-ids are cached by (dev, inode): each file is opened once.
 *  - PerfMap records: a copy of the JIT perf map /tmp/perf-NSPID.map (NSPID the
 *    target's pid in its own pid namespace, the file seen through
 *    /proc/PID/root) each time its size, mtime or inode changed since the last
 *    copy, because JITs delete it at exit.
 *  - With --embed-symbols, one ModuleSymbols image per distinct build-id
 *    (symbol/elfembed.h), written when the module is first seen.
 *
 * In cgroup mode (--cgroup) the same for every process of the subtree: each
 * poll lists cgroup.procs of the cgroup and of every cgroup below it, and each
 * process is followed as the one target is in pid mode (Mapping.pid and
 * PerfMap.pid its pid in the root namespace). A process that leaves the
 * subtree or vanishes gets END for its mappings as last seen, and is
 * forgotten. Build-ids are cached for all processes together (a library
 * mapped by a thousand processes is opened once), and so is the [vdso], by
 * its image. At most MAPPINGS_PROC_CAP processes are followed (those followed
 * already stay); the others are counted once as proc_cap drops, and processes
 * whose maps cannot be read once each as proc_unreadable.
 *
 * Per poll the cost is one read of /proc/PID/maps per process (not smaps: no
 * page walk), a parse, and a compare with the last set that allocates nothing
 * while nothing changed; files are opened only for mappings not seen before.
 * In cgroup mode the kernel's writing of maps dominates: about 60 us a
 * process (4096 processes: about 230 ms a poll).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "record/cgroupfs.h"
#include "record/collector.h"
#include "collectors/mappings/record.h"
#include "record/procfs.h"
#include "symbol/buildid.h"
#include "symbol/elfembed.h"
#include "common/array.h"
#include "common/hash.h"

/* ------------------------------------------------------------------ sets and diff */

static int add_exec(const struct proc_vma *v, void *arg)
{
	struct xmap_set *s = arg;
	struct xmap *m;

	if (v->perms[2] != 'x')
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct xmap *nv = realloc(s->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = cap;
	}
	m = &s->v[s->n++];
	m->start = v->start;
	m->end = v->end;
	m->offset = v->offset;
	m->inode = v->inode;
	memcpy(m->perms, v->perms, sizeof(m->perms));
	memcpy(m->dev, v->dev, sizeof(m->dev));
	m->path = v->path;
	return 0;
}

int mappings__parse(char *text, struct xmap_set *set)
{
	int n;

	if (set->owns_paths)
		return -EINVAL;
	set->n = 0;
	n = procfs_parse_smaps(text, add_exec, set);
	if (n < 0) {
		set->n = 0;
		return n;
	}
	return 0;
}

bool mappings__same(const struct xmap *a, const struct xmap *b)
{
	return a->start == b->start && a->end == b->end && a->offset == b->offset &&
	       a->inode == b->inode && !strcmp(a->perms, b->perms) && !strcmp(a->dev, b->dev) &&
	       !strcmp(a->path, b->path);
}

int mappings__diff(const struct xmap_set *old, const struct xmap_set *cur,
		   int (*fn)(const struct xmap *m, bool added, void *arg), void *arg)
{
	size_t i = 0, j = 0;
	int n = 0, err;

	while (i < old->n || j < cur->n) {
		const struct xmap *a = i < old->n ? &old->v[i] : NULL;
		const struct xmap *b = j < cur->n ? &cur->v[j] : NULL;

		if (a && b && mappings__same(a, b)) {
			i++;
			j++;
			continue;
		}
		/* the lower start goes first; at one start the old one is gone */
		if (a && (!b || a->start <= b->start)) {
			err = fn(a, false, arg);
			i++;
		} else {
			err = fn(b, true, arg);
			j++;
		}
		if (err)
			return err;
		n++;
	}
	return n;
}

void mappings__set_clear(struct xmap_set *set)
{
	size_t i;

	if (!set)
		return;
	if (set->owns_paths)
		for (i = 0; i < set->n; i++)
			free((char *)set->v[i].path);
	free(set->v);
	memset(set, 0, sizeof(*set));
}

int mappings__set_copy(struct xmap_set *dst, const struct xmap_set *src)
{
	size_t i;

	mappings__set_clear(dst);
	dst->owns_paths = true;
	if (!src->n)
		return 0;
	dst->v = calloc(src->n, sizeof(*dst->v));
	if (!dst->v)
		return -ENOMEM;
	dst->cap = src->n;
	for (i = 0; i < src->n; i++) {
		dst->v[i] = src->v[i];
		dst->v[i].path = strdup(src->v[i].path);
		if (!dst->v[i].path) {
			dst->n = i;
			mappings__set_clear(dst);
			return -ENOMEM;
		}
	}
	dst->n = src->n;
	return 0;
}

int mappings__perf_map_paths(pid_t pid, pid_t nspid, char *inner, size_t ilen, char *host,
			     size_t hlen)
{
	int a, b;

	a = snprintf(inner, ilen, "/tmp/perf-%d.map", (int)nspid);
	b = snprintf(host, hlen, "/proc/%d/root/tmp/perf-%d.map", (int)pid, (int)nspid);
	if (a < 0 || (size_t)a >= ilen || b < 0 || (size_t)b >= hlen)
		return -ENAMETOOLONG;
	return 0;
}

/* ------------------------------------------------------------------ process lists */

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

size_t mappings__sort_pids(pid_t *pids, size_t n)
{
	size_t i, k = 0;

	if (!n) /* pids may be NULL then: qsort's arguments must not be (UBSan) */
		return 0;
	qsort(pids, n, sizeof(*pids), cmp_pid);
	for (i = 0; i < n; i++)
		if (!k || pids[k - 1] != pids[i])
			pids[k++] = pids[i];
	return k;
}

size_t mappings__cap_pids(const pid_t *pids, size_t n, size_t cap,
			  bool (*tracked)(pid_t pid, void *arg), void *arg, pid_t *kept,
			  pid_t *left)
{
	size_t i, nt = 0, nk = 0, nl = 0, quota;

	if (n <= cap) {
		if (n) /* pids and kept may be NULL when empty: memcpy's must not be */
			memcpy(kept, pids, n * sizeof(*pids));
		return n;
	}
	for (i = 0; i < n; i++)
		nt += tracked(pids[i], arg);
	quota = nt < cap ? cap - nt : 0;
	for (i = 0; i < n; i++) {
		bool t = tracked(pids[i], arg);

		if (nk < cap && (t || quota)) {
			if (!t)
				quota--;
			kept[nk++] = pids[i];
		} else {
			left[nl++] = pids[i];
		}
	}
	return nk;
}

size_t mappings__count_new(const pid_t *cur, size_t n, const pid_t *prev, size_t np)
{
	size_t i = 0, j = 0, fresh = 0;

	while (i < n) {
		if (j < np && prev[j] < cur[i]) {
			j++;
		} else {
			fresh += !(j < np && prev[j] == cur[i]);
			i++;
		}
	}
	return fresh;
}

/* ------------------------------------------------------------------ the collector */

/* What one mapped file (or the vdso) gave: cached so each is read once. */
#define MAX_LOADS 16 /* PT_LOAD segments kept per module; real files have 2 to 5 */

struct module {
	char dev[16];                /* maps' dev; "" for the vdso */
	uint64_t inode;              /* or, for the vdso, a hash of its image */
	size_t image_size;           /* the vdso's image size */
	uint8_t id[BUILDID_MAX];
	size_t id_len;
	enum buildid_kind kind;      /* GNU build-id, or Go's build ID */
	char error[128];             /* why id_len is 0 */
	struct {
		uint64_t offset, vaddr, filesz;
	} loads[MAX_LOADS];          /* the file's PT_LOAD segments (p_offset, p_vaddr, ...) */
	size_t n_loads;
};

struct perf_state {
	bool seen;                   /* a stat or copy attempt was made in this state */
	int err;                     /* its error, 0 if copied */
	off_t size;
	struct timespec mtime;
	ino_t ino;
};

/* One process recorded: the target in pid mode, each process of the subtree in
 * cgroup mode. */
struct mproc {
	pid_t pid;                   /* in the root pid namespace */
	pid_t nspid;                 /* in its own */
	struct xmap_set last;        /* the last poll's, owning */
	bool have_last;
	bool gone;                   /* it vanished during a poll: nothing more is read */
	bool ended;                  /* cgroup mode: END written for LAST */
	int read_err;                /* cgroup mode: why its maps did not read, 0 */
	bool err_counted;            /* cgroup mode: READ_ERR counted as a drop */
	uint64_t vdso_start;         /* its [vdso]'s address, and the module read there */
	size_t vdso_mod;             /* index + 1 into mods; 0 none */
	char perf_inner[64], perf_host[96];
	struct perf_state perf;
};

struct mappings_priv {
	char *buf;                   /* the maps text (and cgroup.procs), reused */
	size_t cap;
	struct xmap_set cur;         /* this poll's, paths into buf */
	struct module *mods;
	size_t n_mods, cap_mods;
	size_t *slots;               /* hash of mods by (dev, inode): index + 1; 0 empty */
	size_t n_slots;
	uint8_t (*embedded)[BUILDID_MAX + 1]; /* build-ids embedded; byte 0 is the length */
	size_t n_embedded, cap_embedded;
	char *perf_buf;
	size_t perf_cap;
	bool cgroup;                 /* cgroup mode */
	struct mproc *procs;         /* by pid; pid mode: the one target */
	size_t n_procs, cap_procs;
	/* cgroup mode, per poll: the subtree's pids, those kept, those left out (cap) */
	pid_t *pids, *kept, *left, *prev_left;
	size_t n_pids, cap_pids, cap_lists, n_prev_left;
};

struct emit_arg {
	struct collector *c;
	struct mproc *mp;
	uint64_t now_ns;
	Ptop__V1__MappingEvent event;
	int err;
};

static bool is_vdso(const struct xmap *m)
{
	return !strcmp(m->path, "[vdso]");
}

static void set_error(struct module *mod, const char *what, int err)
{
	if (err == -ENODATA)
		snprintf(mod->error, sizeof(mod->error), "no build-id note");
	else if (err == -ENOEXEC)
		snprintf(mod->error, sizeof(mod->error), "not an ELF file");
	else if (err == -EINVAL)
		snprintf(mod->error, sizeof(mod->error), "malformed build-id note");
	else
		snprintf(mod->error, sizeof(mod->error), "unreadable: %s: %s", what,
			 strerror(-err));
}

static bool already_embedded(struct mappings_priv *p, const struct module *mod)
{
	size_t i;

	for (i = 0; i < p->n_embedded; i++)
		if (p->embedded[i][0] == mod->id_len &&
		    !memcmp(&p->embedded[i][1], mod->id, mod->id_len))
			return true;
	return false;
}

static int mark_embedded(struct mappings_priv *p, const struct module *mod)
{
	if (p->n_embedded == p->cap_embedded) {
		size_t cap = p->cap_embedded ? 2 * p->cap_embedded : 16;
		void *nv = realloc(p->embedded, cap * sizeof(*p->embedded));

		if (!nv)
			return -ENOMEM;
		p->embedded = nv;
		p->cap_embedded = cap;
	}
	p->embedded[p->n_embedded][0] = (uint8_t)mod->id_len;
	memcpy(&p->embedded[p->n_embedded][1], mod->id, mod->id_len);
	p->n_embedded++;
	return 0;
}

/* Write IMG as ModuleSymbols records of at most MAPPINGS_SYMBOLS_CHUNK bytes. */
static int emit_symbols(struct collector *c, const struct module *mod, const char *path,
			const struct elfembed_image *img)
{
	Ptop__V1__Record rec = PTOP__V1__RECORD__INIT;
	Ptop__V1__ModuleSymbols ms = PTOP__V1__MODULE_SYMBOLS__INIT;
	size_t chunks = (img->size + MAPPINGS_SYMBOLS_CHUNK - 1) / MAPPINGS_SYMBOLS_CHUNK, i;
	int err;

	ms.build_id.data = (uint8_t *)mod->id;
	ms.build_id.len = mod->id_len;
	ms.build_id_kind = (Ptop__V1__BuildIdKind)mod->kind;
	ms.path = (char *)path;
	ms.debug = img->debug;
	ms.size = img->size;
	ms.chunks = (uint32_t)chunks;
	rec.kind_case = PTOP__V1__RECORD__KIND_MODULE_SYMBOLS;
	rec.module_symbols = &ms;
	for (i = 0; i < chunks; i++) {
		size_t off = i * MAPPINGS_SYMBOLS_CHUNK, len = img->size - off;

		if (len > MAPPINGS_SYMBOLS_CHUNK)
			len = MAPPINGS_SYMBOLS_CHUNK;
		ms.chunk = (uint32_t)i;
		ms.elf.data = (uint8_t *)img->data + off;
		ms.elf.len = len;
		err = rec_emit(c->ctx, &rec);
		if (err)
			return err;
	}
	return 0;
}

/* Embed MOD's symbols once per build-id, when --embed-symbols asks for it, or
 * ALWAYS (the [vdso]: its image exists only in memory, so no file can name it
 * later). SRC is the module opened with libelf. A module that cannot be
 * embedded is counted. */
static int embed(struct collector *c, struct module *mod, const char *path, Elf *src, bool always)
{
	struct mappings_priv *p = c->priv;
	struct elfembed_image img = { 0 };
	unsigned flags = 0;
	char detail[192];
	int err;

	if ((!always && mappings_settings.embed == PTOP__V1__EMBED_SYMBOLS__EMBED_SYMBOLS_NONE) ||
	    !mod->id_len || already_embedded(p, mod))
		return 0;
	if (mappings_settings.embed == PTOP__V1__EMBED_SYMBOLS__EMBED_SYMBOLS_DEBUG)
		flags |= ELFEMBED_DEBUG;
	err = mark_embedded(p, mod); /* once, whatever the outcome */
	if (err)
		return err;
	err = elfembed_build(src, flags, &img);
	if (err) {
		snprintf(detail, sizeof(detail), "%s: %s", path,
			 err == -ENODATA ? "no symbol table, .gopclntab or DWARF to embed"
					 : strerror(-err));
		return err == -ENOMEM ? err : rec_emit_drop(c, "embed_symbols", 1, detail);
	}
	err = emit_symbols(c, mod, path, &img);
	elfembed_image_free(&img);
	return err;
}

static size_t slot_of(const char *dev, uint64_t inode, size_t n_slots)
{
	uint64_t h = fnv1a64_bytes(fnv1a64_str(FNV1A64_INIT, dev), &inode, sizeof(inode));

	return (size_t)(h ^ (h >> 29)) & (n_slots - 1);
}

static struct module *find_module(struct mappings_priv *p, const char *dev, uint64_t inode)
{
	size_t i, k;

	if (!p->n_slots)
		return NULL;
	for (i = slot_of(dev, inode, p->n_slots); (k = p->slots[i]) != 0;
	     i = (i + 1) & (p->n_slots - 1))
		if (p->mods[k - 1].inode == inode && !strcmp(p->mods[k - 1].dev, dev))
			return &p->mods[k - 1];
	return NULL;
}

/* Index mods[IDX] in the hash, growing it to keep it at most half full. */
static int index_module(struct mappings_priv *p, size_t idx)
{
	size_t i, k;

	if (2 * (p->n_mods + 1) > p->n_slots) {
		size_t n = p->n_slots ? 2 * p->n_slots : 64;
		size_t *ns = calloc(n, sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		for (k = 0; k < p->n_mods; k++) {
			if (k == idx)
				continue;
			for (i = slot_of(p->mods[k].dev, p->mods[k].inode, n); ns[i];
			     i = (i + 1) & (n - 1))
				;
			ns[i] = k + 1;
		}
		free(p->slots);
		p->slots = ns;
		p->n_slots = n;
	}
	for (i = slot_of(p->mods[idx].dev, p->mods[idx].inode, p->n_slots); p->slots[i];
	     i = (i + 1) & (p->n_slots - 1))
		;
	p->slots[i] = idx + 1;
	return 0;
}

/* Keep ELF's PT_LOAD segments in MOD, to place mappings in the ELF's address space. */
static void read_loads(struct module *mod, Elf *elf)
{
	size_t i, n;
	GElf_Phdr ph;

	if (!elf || elf_getphdrnum(elf, &n) != 0)
		return;
	for (i = 0; i < n && mod->n_loads < MAX_LOADS; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		mod->loads[mod->n_loads].offset = ph.p_offset;
		mod->loads[mod->n_loads].vaddr = ph.p_vaddr;
		mod->loads[mod->n_loads].filesz = ph.p_filesz;
		mod->n_loads++;
	}
}

/* The ELF address of file offset OFF of MOD (a mapping's page-aligned offset:
 * the segment may start later in that page). false if no segment covers it. */
static bool load_vaddr(const struct module *mod, uint64_t off, uint64_t *vaddr)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < mod->n_loads; i++) {
		uint64_t lo = mod->loads[i].offset & ~(page - 1);

		if (off >= lo && off < mod->loads[i].offset + mod->loads[i].filesz) {
			*vaddr = off - mod->loads[i].offset + mod->loads[i].vaddr;
			return true;
		}
	}
	return false;
}

static struct module *new_module(struct mappings_priv *p, const char *dev, uint64_t inode)
{
	struct module *m;

	if (p->n_mods == p->cap_mods) {
		size_t cap = p->cap_mods ? 2 * p->cap_mods : 32;
		struct module *nv = realloc(p->mods, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		p->mods = nv;
		p->cap_mods = cap;
	}
	m = &p->mods[p->n_mods];
	memset(m, 0, sizeof(*m));
	snprintf(m->dev, sizeof(m->dev), "%s", dev);
	m->inode = inode;
	if (index_module(p, p->n_mods))
		return NULL;
	p->n_mods++;
	return m;
}

/* Whether the file open on FD is the one maps names by DEV ("maj:min", hex)
 * and INODE. */
static bool same_file(int fd, const char *dev, uint64_t inode)
{
	unsigned maj, min;
	struct stat st;

	if (fstat(fd, &st) || sscanf(dev, "%x:%x", &maj, &min) != 2)
		return false;
	return (uint64_t)st.st_ino == inode && major(st.st_dev) == maj && minor(st.st_dev) == min;
}

/* Open the file mapped as M: map_files first, then the path in the target's
 * root if it is still the mapped inode. Returns the fd or -errno with WHY set
 * when the failure is about the file (not the process being gone). */
static int open_mapped(pid_t pid, const struct xmap *m, char *why, size_t wlen)
{
	char path[4200];
	size_t plen = strlen(m->path);
	int fd, e1, e2;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	e1 = errno;
	if (e1 == ENOENT && procfs_is_gone(pid, -ENOENT))
		return -ESRCH;
	if (plen >= 10 && !strcmp(m->path + plen - 10, " (deleted)")) {
		snprintf(why, wlen, "file deleted and map_files unreadable (%s)", strerror(e1));
		return -e1;
	}
	if (m->path[0] != '/') {
		snprintf(why, wlen, "map_files: %s", strerror(e1));
		return -e1;
	}
	if (snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, m->path) >=
	    (int)sizeof(path)) {
		snprintf(why, wlen, "path too long");
		return -ENAMETOOLONG;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e2 = errno;
		if (procfs_is_gone(pid, -ENOENT))
			return -ESRCH;
		snprintf(why, wlen, "map_files: %s; root path: %s", strerror(e1), strerror(e2));
		return -e2;
	}
	if (!same_file(fd, m->dev, m->inode)) {
		close(fd);
		snprintf(why, wlen, "map_files: %s; the file at the path is not the mapped one "
			 "(replaced since it was mapped)", strerror(e1));
		return -ESTALE;
	}
	return fd;
}

/* Read (once, whichever process maps it) the build-id of file-backed mapping M
 * of process PID. NULL with *GONE set when the process vanished meanwhile; NULL
 * with *ERR set on ENOMEM. */
static struct module *file_module(struct collector *c, pid_t pid, const struct xmap *m,
				  bool *gone, int *err)
{
	struct mappings_priv *p = c->priv;
	struct module *mod = find_module(p, m->dev, m->inode);
	char why[160] = "";
	Elf *elf = NULL;
	int fd, r;

	if (mod)
		return mod;
	fd = open_mapped(pid, m, why, sizeof(why));
	if (fd == -ESRCH) {
		*gone = true;
		return NULL;
	}
	mod = new_module(p, m->dev, m->inode);
	if (!mod) {
		*err = -ENOMEM;
		goto cleanup;
	}
	if (fd < 0) {
		snprintf(mod->error, sizeof(mod->error), "unreadable: %s", why);
		goto cleanup;
	}
	elf = elf_version(EV_CURRENT) != EV_NONE ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	read_loads(mod, elf);
	r = buildid_read_ident(elf, mod->id, sizeof(mod->id), &mod->id_len, &mod->kind);
	if (r) {
		mod->id_len = 0;
		set_error(mod, "read", r);
		goto cleanup;
	}
	*err = embed(c, mod, m->path, elf, false);
cleanup:
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return mod;
}

/* The [vdso] of MP: its image read once from the process's memory. Processes
 * whose images are the same bytes share one module (keyed by a hash of the
 * image), so a cgroup of thousands of processes has one or two. */
static struct module *vdso_module(struct collector *c, struct mproc *mp, const struct xmap *m,
				  bool *gone, int *err)
{
	struct mappings_priv *p = c->priv;
	struct module *mod;
	void *image = NULL;
	size_t size = 0;
	uint64_t h;
	Elf *elf = NULL;
	int r;

	if (mp->vdso_mod && mp->vdso_start == m->start)
		return &p->mods[mp->vdso_mod - 1];
	r = buildid_pid_memory(mp->pid, m->start, m->end, &image, &size);
	if (r && procfs_is_gone(mp->pid, r == -EIO ? -ESRCH : r)) {
		*gone = true;
		return NULL;
	}
	/* unreadable: keyed by the address, as the image cannot say */
	h = r ? m->start : fnv1a64_bytes(FNV1A64_INIT, image, size);
	mod = find_module(p, "", h);
	if (mod && mod->image_size == size)
		goto found;
	mod = new_module(p, "", h);
	if (!mod) {
		*err = -ENOMEM;
		goto cleanup;
	}
	mod->image_size = size;
	if (r) {
		set_error(mod, "/proc/PID/mem", r);
		goto found;
	}
	elf = elf_version(EV_CURRENT) != EV_NONE ? elf_memory(image, size) : NULL;
	read_loads(mod, elf);
	r = buildid_read_elf(elf, mod->id, sizeof(mod->id), &mod->id_len);
	if (r) {
		mod->id_len = 0;
		set_error(mod, "/proc/PID/mem", r);
		goto found;
	}
	*err = embed(c, mod, m->path, elf, true);
found:
	mp->vdso_start = m->start;
	mp->vdso_mod = (size_t)(mod - p->mods) + 1;
cleanup:
	elf_end(elf);
	free(image);
	return mod;
}

/* Emit one Mapping record for M. */
static int emit_mapping(const struct xmap *m, bool added, void *arg)
{
	struct emit_arg *a = arg;
	struct collector *c = a->c;
	Ptop__V1__Record rec = PTOP__V1__RECORD__INIT;
	Ptop__V1__Mapping mp = PTOP__V1__MAPPING__INIT;
	Ptop__V1__ElfAddress ea = PTOP__V1__ELF_ADDRESS__INIT;
	struct module *mod = NULL, anon = { 0 };
	bool gone = false;
	int err = 0;

	if (is_vdso(m)) {
		mod = vdso_module(c, a->mp, m, &gone, &err);
	} else if (m->path[0] == '/') {
		mod = file_module(c, a->mp->pid, m, &gone, &err);
	} else {
		mod = &anon;
		snprintf(anon.error, sizeof(anon.error), "%s",
			 m->path[0] ? "no file (kernel-provided mapping)"
				    : "anonymous mapping (JIT code: see the perf map)");
	}
	if (gone) {
		a->mp->gone = true;
		return -ESRCH;
	}
	if (err)
		return err;
	if (!mod)
		return -ENOMEM;
	mp.time_ns = a->now_ns;
	mp.pid = a->mp->pid;
	mp.start = m->start;
	mp.end = m->end;
	mp.offset = m->offset;
	mp.path = (char *)m->path;
	mp.perms = (char *)m->perms;
	mp.inode = m->inode;
	mp.dev = (char *)m->dev;
	mp.build_id.data = mod->id;
	mp.build_id.len = mod->id_len;
	mp.build_id_kind = (Ptop__V1__BuildIdKind)mod->kind;
	mp.build_id_error = mod->id_len ? (char *)"" : mod->error;
	if (load_vaddr(mod, m->offset, &ea.vaddr))
		mp.elf = &ea;
	if (a->event == PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_UNSPECIFIED)
		mp.event = added ? PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_NEW
				 : PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_GONE;
	else
		mp.event = a->event;
	rec.kind_case = PTOP__V1__RECORD__KIND_MAPPING;
	rec.mapping = &mp;
	return rec_emit(c->ctx, &rec);
}

/* ------------------------------------------------------------------ perf map */

/* Copy MP's perf map into the capture if it changed since the last copy. */
static int perf_map_poll(struct collector *c, struct mproc *mp, uint64_t now_ns)
{
	struct mappings_priv *p = c->priv;
	Ptop__V1__Record rec = PTOP__V1__RECORD__INIT;
	Ptop__V1__PerfMap pm = PTOP__V1__PERF_MAP__INIT;
	struct perf_state now = { .seen = true };
	struct stat st;
	size_t want, got = 0, chunks, i;
	char detail[160];
	ssize_t n;
	int fd = -1, err = 0;

	if (!mp->perf_host[0])
		return 0;
	if (stat(mp->perf_host, &st)) {
		now.err = -errno;
		if (now.err == -ENOENT || now.err == -ESRCH)
			return 0; /* no perf map (yet), or the process is gone */
	} else if (!S_ISREG(st.st_mode)) {
		now.err = -EINVAL;
	} else {
		now.size = st.st_size;
		now.mtime = st.st_mtim;
		now.ino = st.st_ino;
	}
	if (mp->perf.seen && mp->perf.err == now.err && mp->perf.size == now.size &&
	    mp->perf.ino == now.ino && mp->perf.mtime.tv_sec == now.mtime.tv_sec &&
	    mp->perf.mtime.tv_nsec == now.mtime.tv_nsec)
		return 0; /* unchanged since the last copy (or the last failure) */
	if (!now.err) {
		fd = open(mp->perf_host, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			now.err = -errno;
	}
	if (now.err) {
		mp->perf = now;
		if (now.err == -ENOENT || now.err == -ESRCH)
			return 0;
		snprintf(detail, sizeof(detail), "%s: %s", mp->perf_inner, strerror(-now.err));
		return rec_emit_drop(c, "perf_map_unreadable", 1, detail);
	}
	want = (size_t)now.size < MAPPINGS_PERF_MAP_MAX ? (size_t)now.size : MAPPINGS_PERF_MAP_MAX;
	if (want + 1 > p->perf_cap) {
		char *nb = realloc(p->perf_buf, want + 1);

		if (!nb) {
			err = -ENOMEM;
			goto cleanup;
		}
		p->perf_buf = nb;
		p->perf_cap = want + 1;
	}
	/* read what the file holds now, up to the size it had (it may grow) */
	while (got < want) {
		n = read(fd, p->perf_buf + got, want - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(detail, sizeof(detail), "%s: %s", mp->perf_inner, strerror(errno));
			mp->perf = now;
			mp->perf.err = -errno;
			err = rec_emit_drop(c, "perf_map_unreadable", 1, detail);
			goto cleanup;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	mp->perf = now;
	chunks = got ? (got + MAPPINGS_PERF_MAP_CHUNK - 1) / MAPPINGS_PERF_MAP_CHUNK : 1;
	pm.time_ns = now_ns;
	pm.pid = mp->pid;
	pm.path = mp->perf_inner;
	pm.chunks = (uint32_t)chunks;
	rec.kind_case = PTOP__V1__RECORD__KIND_PERF_MAP;
	rec.perf_map = &pm;
	for (i = 0; i < chunks; i++) {
		size_t off = i * MAPPINGS_PERF_MAP_CHUNK, len = got - off;

		if (len > MAPPINGS_PERF_MAP_CHUNK)
			len = MAPPINGS_PERF_MAP_CHUNK;
		pm.chunk = (uint32_t)i;
		pm.content.data = (uint8_t *)p->perf_buf + off;
		pm.content.len = len;
		err = rec_emit(c->ctx, &rec);
		if (err)
			goto cleanup;
	}
	if ((uint64_t)now.size > MAPPINGS_PERF_MAP_MAX) {
		snprintf(detail, sizeof(detail), "%s: %lld bytes, copied the first %u",
			 mp->perf_inner, (long long)now.size, MAPPINGS_PERF_MAP_MAX);
		err = rec_emit_drop(c, "perf_map_truncated", 1, detail);
	}
cleanup:
	if (fd >= 0)
		close(fd);
	return err;
}

/* ------------------------------------------------------------------ one process */

/* Start following process PID. */
static void mproc_init(struct mproc *mp, pid_t pid)
{
	struct proc_status st;

	memset(mp, 0, sizeof(*mp));
	mp->pid = pid;
	/* the perf map is named by the pid the process sees: NSpid's last entry */
	mp->nspid = pid;
	if (!procfs_read_status(pid, &st) && st.n_nspid > 0)
		mp->nspid = st.nspid[st.n_nspid - 1];
	if (mappings__perf_map_paths(pid, mp->nspid, mp->perf_inner, sizeof(mp->perf_inner),
				     mp->perf_host, sizeof(mp->perf_host)))
		mp->perf_host[0] = '\0';
}

static void mproc_free(struct mproc *mp)
{
	mappings__set_clear(&mp->last);
}

static int emit_all(struct collector *c, struct mproc *mp, uint64_t now_ns,
		    const struct xmap_set *s, Ptop__V1__MappingEvent ev)
{
	struct emit_arg a = { .c = c, .mp = mp, .now_ns = now_ns, .event = ev };
	size_t i;
	int err;

	for (i = 0; i < s->n; i++) {
		err = emit_mapping(&s->v[i], true, &a);
		if (err)
			return err;
	}
	return 0;
}

/* Cgroup mode: MP left the subtree or vanished. Its mappings as last seen, as
 * END, once (the modules are cached: nothing of the process is read). */
static int mproc_end(struct collector *c, struct mproc *mp, uint64_t now_ns)
{
	int err;

	if (mp->ended || !mp->have_last)
		return 0;
	mp->ended = true;
	err = emit_all(c, mp, now_ns, &mp->last, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_END);
	return err == -ESRCH ? 0 : err;
}

/* One poll of one process: its perf map, then its maps against the last poll's.
 * 0 also when it vanished (MP->gone) and, in cgroup mode, when its maps did not
 * read (MP->read_err, for the caller to count). */
static int mproc_poll(struct collector *c, struct mproc *mp, uint64_t now_ns, unsigned flags)
{
	struct mappings_priv *p = c->priv;
	struct emit_arg a = { .c = c, .mp = mp, .now_ns = now_ns };
	size_t len = 0;
	int err, n;

	if (mp->gone)
		return 0;
	/* the perf map first: at the end it is the one thing about to vanish */
	err = perf_map_poll(c, mp, now_ns);
	if (err)
		return err;
	err = procfs_read_file(mp->pid, "maps", &p->buf, &p->cap, &len);
	if (!err && len == 0)
		err = -ESRCH; /* no mm: exiting, or a zombie */
	if (err && procfs_is_gone(mp->pid, err)) {
		mp->gone = true;
		return 0;
	}
	mp->read_err = err;
	if (err && p->cgroup)
		return 0;
	if (err) {
		char detail[96];

		snprintf(detail, sizeof(detail), "maps: %s", strerror(-err));
		return rec_emit_drop(c, "proc_unreadable", 1, detail);
	}
	if (mappings__parse(p->buf, &p->cur)) {
		char detail[96] = "maps: does not parse";

		if (p->cgroup)
			snprintf(detail, sizeof(detail), "/proc/%d/maps: does not parse",
				 (int)mp->pid);
		return rec_emit_drop(c, "proc_malformed", 1, detail);
	}

	if (!mp->have_last) {
		err = emit_all(c, mp, now_ns, &p->cur,
			       PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
		n = 1;
	} else {
		n = mappings__diff(&mp->last, &p->cur, emit_mapping, &a);
		err = n < 0 ? n : 0;
	}
	if (err == -ESRCH && mp->gone)
		return 0; /* vanished mid-poll: what was written stands */
	if (err)
		return err;
	if (n > 0) {
		err = mappings__set_copy(&mp->last, &p->cur);
		if (err)
			return err;
		mp->have_last = true;
	}
	if (flags & POLL_FINAL) {
		mp->ended = true;
		err = emit_all(c, mp, now_ns, &p->cur, PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_END);
		if (err == -ESRCH && mp->gone)
			return 0;
	}
	return err;
}

/* ------------------------------------------------------------------ cgroup mode */

static int cmp_mproc(const void *a, const void *b)
{
	const struct mproc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static struct mproc *find_mproc(struct mproc *v, size_t n, pid_t pid)
{
	struct mproc key = { .pid = pid };

	return n ? bsearch(&key, v, n, sizeof(*v), cmp_mproc) : NULL;
}

static bool is_tracked(pid_t pid, void *arg)
{
	struct mappings_priv *p = arg;

	return find_mproc(p->procs, p->n_procs, pid) != NULL;
}

struct list_arg {
	char **buf;
	size_t *cap;
	pid_t **pids;
	size_t *n, *pcap;
	int err;                     /* -ENOMEM */
};

/* cgroupfs_walk callback: append the pids of one directory of the subtree. */
static int list_dir(const char *dir, const char *rel, void *arg)
{
	struct list_arg *l = arg;
	size_t len = 0;
	int err;

	(void)rel;
	if (cgroupfs_read(dir, "cgroup.procs", l->buf, l->cap, &len))
		return 0; /* vanished (or unreadable) meanwhile: its processes are elsewhere */
	err = cgroupfs_parse_procs(*l->buf, l->pids, l->n, l->pcap);
	if (err == -ENOMEM) {
		l->err = err;
		return err;
	}
	return 0;
}

/* The pids of every cgroup of the subtree at DIR, sorted, each once. 0, or
 * -errno when DIR cannot be read. */
static int list_subtree(const char *dir, char **buf, size_t *cap, pid_t **pids, size_t *n,
			size_t *pcap)
{
	struct list_arg l = { .buf = buf, .cap = cap, .pids = pids, .n = n, .pcap = pcap };
	int err;

	*n = 0;
	err = cgroupfs_walk(dir, list_dir, &l);
	if (l.err)
		return l.err;
	if (err)
		return err;
	*n = mappings__sort_pids(*pids, *n);
	return 0;
}

/* The processes to read this poll: every one of the subtree up to the cap (those
 * followed already first), those that left ended and forgotten, new ones added.
 * Processes newly left out by the cap are counted as proc_cap drops. */
static int cgroup_update(struct collector *c, uint64_t now_ns)
{
	struct mappings_priv *p = c->priv;
	size_t n, nk, nl, i, k, n_old, fresh;
	char detail[192];
	int err;

	err = list_subtree(c->ctx->cgroup_dir, &p->buf, &p->cap, &p->pids, &p->n_pids,
			   &p->cap_pids);
	if (err == -ENOENT)
		p->n_pids = 0; /* the cgroup was removed: every process left */
	else if (err)
		return err;
	n = p->n_pids;
	if (n > p->cap_lists) {
		/* three lists of one capacity: each grows from it alike */
		size_t ck = p->cap_lists, cl = p->cap_lists, cp = p->cap_lists;

		if (array__grow((void **)&p->kept, &ck, n - 1, sizeof(*p->kept)) ||
		    array__grow((void **)&p->left, &cl, n - 1, sizeof(*p->left)) ||
		    array__grow((void **)&p->prev_left, &cp, n - 1, sizeof(*p->prev_left)))
			return -ENOMEM;
		p->cap_lists = ck;
	}
	nk = mappings__cap_pids(p->pids, n, MAPPINGS_PROC_CAP, is_tracked, p, p->kept, p->left);
	nl = n - nk;
	fresh = mappings__count_new(p->left, nl, p->prev_left, p->n_prev_left);
	if (nl)
		memcpy(p->prev_left, p->left, nl * sizeof(*p->left));
	p->n_prev_left = nl;
	if (fresh) {
		snprintf(detail, sizeof(detail),
			 "%zu processes in the cgroup, mappings recorded for at most %u a poll: "
			 "%zu more left out (pid %d first)",
			 n, MAPPINGS_PROC_CAP, fresh, (int)p->left[0]);
		err = rec_emit_drop(c, "proc_cap", fresh, detail);
		if (err)
			return err;
	}

	/* those that left: their mappings as last seen, END; then forgotten */
	for (i = 0, k = 0; i < p->n_procs; i++) {
		struct mproc *mp = &p->procs[i];

		if (bsearch(&mp->pid, p->kept, nk, sizeof(*p->kept), cmp_pid)) {
			if (k != i)
				p->procs[k] = *mp;
			k++;
			continue;
		}
		err = mproc_end(c, mp, now_ns);
		mproc_free(mp);
		if (err) {
			/* keep the array consistent: what is left still needs freeing */
			memmove(&p->procs[k], &p->procs[i + 1],
				(p->n_procs - i - 1) * sizeof(*p->procs));
			p->n_procs = k + p->n_procs - i - 1;
			return err;
		}
	}
	p->n_procs = k;

	/* those that came */
	if (nk > p->cap_procs) {
		struct mproc *nv = realloc(p->procs, nk * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		p->procs = nv;
		p->cap_procs = nk;
	}
	n_old = p->n_procs;
	for (i = 0; i < nk; i++)
		if (!find_mproc(p->procs, n_old, p->kept[i]))
			mproc_init(&p->procs[p->n_procs++], p->kept[i]);
	if (p->n_procs > n_old)
		qsort(p->procs, p->n_procs, sizeof(*p->procs), cmp_mproc);
	return 0;
}

static int cgroup_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct mappings_priv *p = c->priv;
	size_t i, unreadable = 0;
	pid_t first = 0;
	int err, first_err = 0;
	char detail[160];

	err = cgroup_update(c, now_ns);
	if (err)
		return err;
	for (i = 0; i < p->n_procs; i++) {
		struct mproc *mp = &p->procs[i];

		err = mproc_poll(c, mp, now_ns, flags);
		if (err)
			return err;
		if (mp->gone) {
			err = mproc_end(c, mp, now_ns);
			if (err)
				return err;
		}
		if (!mp->read_err) {
			mp->err_counted = false;
		} else if (!mp->err_counted) {
			mp->err_counted = true; /* once while it stays unreadable */
			if (!unreadable++) {
				first = mp->pid;
				first_err = mp->read_err;
			}
		}
	}
	if (!unreadable)
		return 0;
	snprintf(detail, sizeof(detail), "maps of %zu process%s unreadable: /proc/%d/maps: %s",
		 unreadable, unreadable == 1 ? "" : "es", (int)first, strerror(-first_err));
	return rec_emit_drop(c, "proc_unreadable", unreadable, detail);
}

/* ------------------------------------------------------------------ ops */

/* Whether an entry of /proc/PID/map_files opens (the directory lists for
 * anyone with PTRACE_MODE_READ; its entries need CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE). */
static bool map_files_readable(pid_t pid)
{
	char path[64];
	struct dirent *de;
	bool ok = false;
	DIR *d;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/map_files", (int)pid);
	d = opendir(path);
	if (!d)
		return false;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ok = true;
			close(fd);
		}
		break;
	}
	closedir(d);
	return ok;
}

static const char *embed_words(void)
{
	return mappings_settings.embed == PTOP__V1__EMBED_SYMBOLS__EMBED_SYMBOLS_DEBUG
		       ? "symbols and DWARF embedded"
	       : mappings_settings.embed ? "symbols embedded" : "no symbols embedded";
}

static Ptop__V1__ProbeState cgroup_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	char *buf = NULL;
	size_t cap = 0, len = 0, n = 0, pcap = 0;
	pid_t *pids = NULL;
	const char *files = "map_files, else /proc/PID/root";
	int err;

	if (!ctx->cgroup_dir) {
		snprintf(c->reason, sizeof(c->reason), "no cgroup directory to list processes of");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	}
	err = cgroupfs_read(ctx->cgroup_dir, "cgroup.procs", &buf, &cap, &len);
	if (!err)
		err = list_subtree(ctx->cgroup_dir, &buf, &cap, &pids, &n, &pcap);
	free(buf);
	if (err) {
		free(pids);
		snprintf(c->reason, sizeof(c->reason),
			 "cannot list the cgroup's processes: %s/cgroup.procs: %s", ctx->cgroup_dir,
			 strerror(-err));
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	}
	if (n)
		files = map_files_readable(pids[0]) ? "map_files"
						    : "/proc/PID/root (map_files unreadable: "
						      "deleted files get no build-id)";
	free(pids);
	snprintf(c->detail, sizeof(c->detail),
		 "executable mappings of every process of the cgroup (%zu at start; at most %u "
		 "a poll, the rest counted as proc_cap drops), from /proc/PID/maps each poll; "
		 "build-ids through %s; perf map copies per process; %s",
		 n, MAPPINGS_PROC_CAP, files, embed_words());
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static Ptop__V1__ProbeState mappings_check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	bool map_files;

	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC;
	c->reason[0] = '\0';
	if (ctx->caps_only) {
		snprintf(c->detail, sizeof(c->detail),
			 "/proc/PID/maps and map_files (PTRACE_MODE_READ: root or the target's "
			 "uid; "
			 "map_files needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE, else files "
			 "are read through /proc/PID/root); running as uid %u",
			 (unsigned)geteuid());
		return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	}
	if (ctx->mode == PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP)
		return cgroup_check(c);
	if (ctx->pid <= 0) {
		snprintf(c->reason, sizeof(c->reason), "no target process");
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	}
	if (procfs_check_open(ctx->pid, "maps", c->reason, sizeof(c->reason)))
		return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	map_files = map_files_readable(ctx->pid);
	snprintf(c->detail, sizeof(c->detail),
		 "executable mappings from /proc/%d/maps each poll; build-ids through %s; "
		 "perf map copies; %s",
		 (int)ctx->pid,
		 map_files ? "map_files" : "/proc/PID/root (map_files unreadable: deleted files "
					 "get no build-id)",
		 embed_words());
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static int mappings_start(struct collector *c)
{
	struct mappings_priv *p = calloc(1, sizeof(*p));

	if (!p) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	c->priv = p;
	p->cgroup = c->ctx->mode == PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP;
	if (p->cgroup)
		return 0; /* the processes come with each poll */
	p->procs = calloc(1, sizeof(*p->procs));
	if (!p->procs) {
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		return -ENOMEM;
	}
	p->cap_procs = 1;
	p->n_procs = 1;
	mproc_init(&p->procs[0], c->ctx->pid);
	return 0;
}

static void mappings_stop(struct collector *c)
{
	struct mappings_priv *p = c->priv;
	size_t i;

	if (!p)
		return;
	free(p->buf);
	mappings__set_clear(&p->cur);
	for (i = 0; i < p->n_procs; i++)
		mproc_free(&p->procs[i]);
	free(p->procs);
	free(p->pids);
	free(p->kept);
	free(p->left);
	free(p->prev_left);
	free(p->mods);
	free(p->slots);
	free(p->embedded);
	free(p->perf_buf);
	free(p);
	c->priv = NULL;
}

static int mappings_poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct mappings_priv *p = c->priv;

	if (!p)
		return -EINVAL;
	if (p->cgroup)
		return cgroup_poll(c, now_ns, flags);
	if (c->ctx->pid <= 0 || p->n_procs != 1)
		return -EINVAL;
	return mproc_poll(c, &p->procs[0], now_ns, flags);
}

/* Soon after an exec of a launched command: its libraries, before a short program
 * takes them with it (a zombie has no maps to read at the end). */
static int mappings_refresh(struct collector *c, uint64_t now_ns)
{
	struct mappings_priv *p = c->priv;

	if (!p || p->cgroup || p->n_procs != 1)
		return 0;
	return mproc_poll(c, &p->procs[0], now_ns, 0);
}

struct mappings_settings mappings_settings;

/* --embed-symbols: the symbol tables; --embed-symbols=debug: and the DWARF */
static int parse_embed(const struct collector_opt *o, const char *arg, void *field, char *err,
		       size_t errlen)
{
	Ptop__V1__EmbedSymbols *e = field;

	(void)o;
	if (!arg) {
		*e = PTOP__V1__EMBED_SYMBOLS__EMBED_SYMBOLS_SYMTAB;
	} else if (!strcmp(arg, "debug")) {
		*e = PTOP__V1__EMBED_SYMBOLS__EMBED_SYMBOLS_DEBUG;
	} else {
		snprintf(err, errlen, "--embed-symbols takes no value or '=debug', not '%s'", arg);
		return -EINVAL;
	}
	return 0;
}

static const struct collector_opt mappings_opts[] = {
	{
		.name = "embed-symbols",
		.arg = "[=debug]",
		.help = "copy each mapped module's symbol tables (and with\n"
			"=debug its DWARF) into the capture, so frames are\n"
			"named after the binaries are gone",
		.section = COPT_COLLECTORS,
		.order = 20,
		.parse = parse_embed,
		.offset = offsetof(struct mappings_settings, embed),
	},
	{ .name = NULL },
};

static void mappings_header_options(Ptop__V1__Options *o)
{
	o->embed_symbols = mappings_settings.embed;
}

const struct collector_ops mappings_collector = {
	.name = "mappings",
	.summary = "executable mappings with build-ids, JIT perf maps, --embed-symbols",
	.opts = mappings_opts,
	.settings = &mappings_settings,
	.settings_size = sizeof(mappings_settings),
	.header_options = mappings_header_options,
	.check = mappings_check,
	.start = mappings_start,
	.poll = mappings_poll,
	.stop = mappings_stop,
	.refresh = mappings_refresh,
};
