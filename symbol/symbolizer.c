/* symbolizer.c — find the ELF files of a module by build-id, open them once, and name
 * addresses from Go's pclntab, DWARF, .symtab and .dynsym; JIT code from perf maps, kernel
 * code from /proc/kallsyms of this boot. See symbolizer.h for the contract.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbol/buildid.h"
#include "symbol/sym_internal.h"
#include "symbol/symbolizer.h"
#include "common/array.h"
#include "common/hash.h"

#define MOD_BUCKETS 1024

/* An opened ELF image: a file (fd >= 0) or an embedded copy (fd -1). */
struct elf_file {
	int fd;
	Elf *elf;
	char *path;           /* malloc'ed; NULL for embedded images */
};

struct module {
	struct module *next;  /* hash chain */
	enum sym_build_id_kind kind;
	uint8_t id[SYM_MAX_BUILD_ID];
	size_t id_len;
	enum sym_miss miss;
	struct elf_file code;         /* the ELF with the program headers (and .gopclntab) */
	struct elf_file debug;        /* separate debug file; elf NULL when none */
	bool debug_is_code;
	const char *found_via;
	GElf_Phdr *loads;
	size_t nloads;
	struct gopcln *go;
	struct dwarfsym *dw;
	struct elfsym_table symtab, dynsym, plt;
	bool has_symtab, has_dynsym;
};

struct embedded {
	struct embedded *next;
	enum sym_build_id_kind kind;
	uint8_t id[SYM_MAX_BUILD_ID];
	size_t id_len;
	void *img;
	size_t size;
};

struct pm_entry {
	uint64_t start, size;
	const char *name;     /* interned */
	size_t seq;           /* line order: a later line wins where ranges overlap */
};

struct perf_map {
	struct perf_map *next;
	int pid;
	struct pm_entry *v;
	size_t n, cap;
	bool sorted;
};

struct ksym {
	uint64_t addr;
	const char *name;     /* into kbuf */
};

/* A string map, open addressing; keys and values owned by the symbolizer. */
struct strmap {
	struct { const char *key, *val; } *slots;
	size_t cap, n;
};

/* A recorded mapping: file offsets [lo, hi) of a module are ELF addresses + bias. */
struct anchor {
	struct anchor *next;
	enum sym_build_id_kind kind;
	uint8_t id[SYM_MAX_BUILD_ID];
	size_t id_len;
	uint64_t lo, hi, vaddr;
};

struct symbolizer {
	char *cache_dir, *debuginfod_urls, *debug_dir, *root;
	bool debuginfod;
	struct sym_debuginfod_stats dbi; /* what debuginfod was asked */
	struct anchor *anchors;
	struct module *mods[MOD_BUCKETS];
	struct module *last;
	struct embedded *emb;
	struct perf_map *maps;
	/* kallsyms, loaded on first use */
	bool ks_loaded;
	int ks_err;
	struct ksym *ks;
	size_t nks;
	char *kbuf;
	/* the core kernel's text, from kallsyms' markers (0: marker absent): a core symbol
	 * names only addresses in [_stext, _etext) or [_sinittext, _einittext) */
	uint64_t k_stext, k_etext, k_sinittext, k_einittext;
	/* strings */
	struct strmap interned, demangled;
	char **owned;
	size_t nowned, capowned;
	bool dm_tried;
	void *dm_handle;
	char *(*cxa_demangle)(const char *, char *, size_t *, int *);
};

static const char *const source_names[SYM_SRC__COUNT] = {
	[SYM_SRC_NONE] = "none",         [SYM_SRC_GOPCLNTAB] = "gopclntab",
	[SYM_SRC_DWARF] = "dwarf",       [SYM_SRC_SYMTAB] = "symtab",
	[SYM_SRC_DYNSYM] = "dynsym",     [SYM_SRC_PERFMAP] = "perfmap",
	[SYM_SRC_KALLSYMS] = "kallsyms",
};

static const char *const miss_names[SYM_MISS__COUNT] = {
	[SYM_MISS_NONE] = "none",
	[SYM_MISS_NO_FILE] = "no_file",
	[SYM_MISS_BUILD_ID_MISMATCH] = "build_id_mismatch",
	[SYM_MISS_NO_BUILD_ID] = "no_build_id",
	[SYM_MISS_NO_SYMBOLS] = "no_symbols",
	[SYM_MISS_NOT_COVERED] = "not_covered",
	[SYM_MISS_OTHER_BOOT] = "other_boot",
};

const char *sym_source_name(enum sym_source s)
{
	return (unsigned)s < SYM_SRC__COUNT ? source_names[s] : "unknown";
}

const char *sym_miss_name(enum sym_miss m)
{
	return (unsigned)m < SYM_MISS__COUNT ? miss_names[m] : "unknown";
}

/* ------------------------------------------------------------------ strings */

static int own(struct symbolizer *s, char *p)
{
	if (array__grow((void **)&s->owned, &s->capowned, s->nowned, sizeof(*s->owned)))
		return -ENOMEM;
	s->owned[s->nowned++] = p;
	return 0;
}

/* The slot for KEY (LEN bytes): the one holding it, or the empty one where it goes. */
static size_t strmap_slot(const struct strmap *m, const char *key, size_t len)
{
	size_t i = fnv1a64_bytes(FNV1A64_INIT, key, len) & (m->cap - 1);

	while (m->slots[i].key &&
	       (strncmp(m->slots[i].key, key, len) != 0 || m->slots[i].key[len] != '\0'))
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int strmap_grow(struct strmap *m)
{
	struct strmap nm = { .cap = m->cap ? m->cap * 2 : 1024 };
	size_t i;

	nm.slots = calloc(nm.cap, sizeof(*nm.slots));
	if (!nm.slots)
		return -ENOMEM;
	for (i = 0; i < m->cap; i++) {
		if (m->slots[i].key) {
			size_t j = strmap_slot(&nm, m->slots[i].key, strlen(m->slots[i].key));

			nm.slots[j] = m->slots[i];
			nm.n++;
		}
	}
	free(m->slots);
	*m = nm;
	return 0;
}

static const char *strmap_get(const struct strmap *m, const char *key, size_t len)
{
	if (!m->cap)
		return NULL;
	return m->slots[strmap_slot(m, key, len)].val;
}

/* Store KEY -> VAL; KEY and VAL must already be owned by the symbolizer. */
static int strmap_put(struct strmap *m, const char *key, const char *val)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap && strmap_grow(m))
		return -ENOMEM;
	i = strmap_slot(m, key, strlen(key));
	if (!m->slots[i].key)
		m->n++;
	m->slots[i].key = key;
	m->slots[i].val = val;
	return 0;
}

const char *symbolizer__intern(struct symbolizer *s, const char *str, size_t len)
{
	const char *hit = strmap_get(&s->interned, str, len);
	char *p;

	if (hit)
		return hit;
	p = strndup(str, len);
	if (!p)
		return NULL;
	if (own(s, p)) {
		free(p);
		return NULL;
	}
	if (strmap_put(&s->interned, p, p))
		return NULL;
	return p;
}

const char *symbolizer__demangle(struct symbolizer *s, const char *name)
{
	const char *hit, *out;
	char *dm, *key;
	int status = -1;

	if (!name || name[0] != '_' || name[1] != 'Z')
		return name;
	if (!s->dm_tried) {
		/* libstdc++'s demangler, found at run time: C++ binaries bring it anyway, and
		 * without it names stay mangled (correct, only harder to read). */
		s->dm_tried = true;
		s->dm_handle = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (s->dm_handle)
			*(void **)&s->cxa_demangle = dlsym(s->dm_handle, "__cxa_demangle");
	}
	if (!s->cxa_demangle)
		return name;
	hit = strmap_get(&s->demangled, name, strlen(name));
	if (hit)
		return hit;
	dm = s->cxa_demangle(name, NULL, NULL, &status);
	out = name;
	if (dm && status == 0)
		out = symbolizer__intern(s, dm, strlen(dm));
	free(dm);
	if (!out)
		return name;
	key = strdup(name);
	if (!key || own(s, key)) {
		free(key);
		return out;
	}
	strmap_put(&s->demangled, key, out);
	return out;
}

/* ------------------------------------------------------------------ lifetime */

struct symbolizer *symbolizer__new(const struct symbolizer_opts *o)
{
	struct symbolizer *s;
	const char *root;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOSYS;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	root = o && o->root ? o->root : "";
	if (o && o->cache_dir && !(s->cache_dir = strdup(o->cache_dir)))
		goto nomem;
	if (o && o->debuginfod_urls && !(s->debuginfod_urls = strdup(o->debuginfod_urls)))
		goto nomem;
	if (!(s->root = strdup(root)))
		goto nomem;
	if (o && o->debug_dir)
		s->debug_dir = strdup(o->debug_dir);
	else if (asprintf(&s->debug_dir, "%s/usr/lib/debug", root) < 0)
		s->debug_dir = NULL;
	if (!s->debug_dir)
		goto nomem;
	s->debuginfod = o && o->debuginfod;
	if (s->debuginfod) {
		const char *urls = s->debuginfod_urls ? s->debuginfod_urls : getenv("DEBUGINFOD_URLS");

		s->dbi.asked_for = true;
		snprintf(s->dbi.servers, sizeof(s->dbi.servers), "%s", urls ? urls : "");
	}
	return s;
nomem:
	symbolizer__free(s);
	errno = ENOMEM;
	return NULL;
}

static void elf_file_close(struct elf_file *f)
{
	elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->path);
	f->elf = NULL;
	f->fd = -1;
	f->path = NULL;
}

static void module_free(struct module *m)
{
	if (!m)
		return;
	gopcln_free(m->go);
	dwarfsym_free(m->dw);
	elfsym_free(&m->symtab);
	elfsym_free(&m->dynsym);
	elfsym_free(&m->plt);
	free(m->loads);
	if (!m->debug_is_code)
		elf_file_close(&m->debug);
	elf_file_close(&m->code);
	free(m);
}

void symbolizer__free(struct symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	while (s->anchors) {
		struct anchor *a = s->anchors;

		s->anchors = a->next;
		free(a);
	}
	for (i = 0; i < MOD_BUCKETS; i++) {
		while (s->mods[i]) {
			struct module *m = s->mods[i];

			s->mods[i] = m->next;
			module_free(m);
		}
	}
	while (s->emb) {
		struct embedded *e = s->emb;

		s->emb = e->next;
		free(e->img);
		free(e);
	}
	while (s->maps) {
		struct perf_map *p = s->maps;

		s->maps = p->next;
		free(p->v);
		free(p);
	}
	free(s->ks);
	free(s->kbuf);
	for (i = 0; i < s->nowned; i++)
		free(s->owned[i]);
	free(s->owned);
	free(s->interned.slots);
	free(s->demangled.slots);
	if (s->dm_handle)
		dlclose(s->dm_handle);
	free(s->cache_dir);
	free(s->debuginfod_urls);
	free(s->debug_dir);
	free(s->root);
	free(s);
}

/* ------------------------------------------------------------------ finding files */

enum try_result { TRY_NONE, TRY_MISMATCH, TRY_OK };

/* Open PATH and keep it in OUT if its build-id is M's. */
static enum try_result try_path(struct module *m, const char *path, struct elf_file *out)
{
	uint8_t id[SYM_MAX_BUILD_ID];
	size_t len = 0;
	struct stat st;
	Elf *elf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return TRY_NONE;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return TRY_NONE;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		close(fd);
		return TRY_MISMATCH; /* something is there, but not this module */
	}
	if (buildid_read_kind(elf, (enum buildid_kind)m->kind, id, sizeof(id), &len) != 0 ||
	    len != m->id_len || memcmp(id, m->id, len)) {
		elf_end(elf);
		close(fd);
		return TRY_MISMATCH;
	}
	out->path = strdup(path);
	if (!out->path) {
		elf_end(elf);
		close(fd);
		return TRY_NONE;
	}
	out->fd = fd;
	out->elf = elf;
	return TRY_OK;
}

static bool has_dwarf(Elf *elf)
{
	return elf_has_section(elf, ".debug_info");
}

/* Record the result of a try; true when OUT now holds a match. */
static bool note_try(enum try_result r, bool *mismatch)
{
	if (r == TRY_MISMATCH)
		*mismatch = true;
	return r == TRY_OK;
}

/* The .gnu_debuglink file name of ELF, or NULL. */
static const char *debuglink_name(Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_find_section(elf, ".gnu_debuglink", &sh);
	Elf_Data *d;

	if (!scn || sh.sh_type == SHT_NOBITS)
		return NULL;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size < 2 || !memchr(d->d_buf, 0, d->d_size))
		return NULL;
	if (strchr(d->d_buf, '/') || !*(const char *)d->d_buf)
		return NULL;
	return d->d_buf;
}

static enum try_result try_fmt(struct module *m, struct elf_file *out, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static enum try_result try_fmt(struct module *m, struct elf_file *out, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path))
		return TRY_NONE;
	return try_path(m, path, out);
}

/* Ask debuginfod; a download whose build-id differs is deleted, not kept. */
static enum try_result try_debuginfod(struct symbolizer *s, struct module *m, bool executable,
				      struct elf_file *out)
{
	char *path = NULL;
	enum try_result r;
	int fd;

	if (m->kind != SYM_BUILD_ID_GNU)
		return TRY_NONE; /* servers index GNU build-ids only */
	s->dbi.wanted++;
	fd = sym_debuginfod_fetch(m->id, m->id_len, executable, s->debuginfod_urls,
				  s->cache_dir, &path);
	if (fd == -ENOSYS)
		return TRY_NONE; /* no server to ask: counted as wanted only */
	s->dbi.lookups++;
	if (fd == -ENOENT)
		s->dbi.not_found++;
	if (fd < 0 && fd != -ENOENT) {
		s->dbi.failed++;
		if (!s->dbi.first_error)
			s->dbi.first_error = -fd;
	}
	if (fd < 0)
		return TRY_NONE;
	close(fd);
	r = try_path(m, path, out);
	if (r == TRY_MISMATCH) {
		unlink(path);
		s->dbi.failed++;
		if (!s->dbi.first_error)
			s->dbi.first_error = EILSEQ; /* a file of another build */
	} else if (r == TRY_OK) {
		s->dbi.found++;
	} else {
		s->dbi.failed++; /* downloaded but not readable as ELF */
		if (!s->dbi.first_error)
			s->dbi.first_error = EIO;
	}
	free(path);
	return r;
}

const struct sym_debuginfod_stats *symbolizer__debuginfod(const struct symbolizer *s)
{
	return &s->dbi;
}

static void find_files(struct symbolizer *s, struct module *m, const char *recorded)
{
	char hex[2 * SYM_MAX_BUILD_ID + 1];
	bool mismatch = false, need_debug;
	const char *code_via = NULL, *debug_via = NULL;
	struct embedded *e;

	buildid_to_hex(m->id, m->id_len, hex, sizeof(hex));
	/* 1. the recorded path, under the root */
	if (recorded && recorded[0] == '/' &&
	    note_try(try_fmt(m, &m->code, "%s%s", s->root, recorded), &mismatch))
		code_via = "path";
	/* 2. an image embedded in the capture */
	for (e = s->emb; !code_via && e; e = e->next) {
		if (e->kind != m->kind || e->id_len != m->id_len || memcmp(e->id, m->id, e->id_len))
			continue;
		m->code.elf = elf_memory(e->img, e->size);
		if (m->code.elf)
			code_via = "embedded";
	}
	/* 3. the symbol cache's executable */
	if (!code_via && s->cache_dir &&
	    note_try(try_fmt(m, &m->code, "%s/%s/executable", s->cache_dir, hex), &mismatch))
		code_via = "symbol cache";

	/* Separate debug info, unless the code file carries DWARF or is a Go binary. */
	need_debug = !m->code.elf ||
		     (!has_dwarf(m->code.elf) && !elf_has_section(m->code.elf, ".gopclntab"));
	if (m->code.elf && !need_debug && has_dwarf(m->code.elf)) {
		m->debug = m->code;
		m->debug_is_code = true;
	}
	if (need_debug && m->code.path) {
		const char *link = debuglink_name(m->code.elf);
		char *dir = strdup(m->code.path), *slash = dir ? strrchr(dir, '/') : NULL;

		if (link && slash) {
			*slash = '\0';
			if (note_try(try_fmt(m, &m->debug, "%s/%s", dir, link), &mismatch) ||
			    note_try(try_fmt(m, &m->debug, "%s/.debug/%s", dir, link),
				     &mismatch) ||
			    note_try(try_fmt(m, &m->debug, "%s%s/%s", s->debug_dir,
					     dir + strlen(s->root), link),
				     &mismatch))
				debug_via = "debuglink";
		}
		free(dir);
	}
	if (need_debug && !debug_via &&
	    note_try(try_fmt(m, &m->debug, "%s/.build-id/%.2s/%s.debug", s->debug_dir, hex,
			     hex + 2),
		     &mismatch))
		debug_via = "build-id dir";
	if (need_debug && !debug_via && s->cache_dir &&
	    note_try(try_fmt(m, &m->debug, "%s/%s/debuginfo", s->cache_dir, hex), &mismatch))
		debug_via = "symbol cache";
	if (need_debug && !debug_via && s->debuginfod &&
	    note_try(try_debuginfod(s, m, false, &m->debug), &mismatch))
		debug_via = "debuginfod";
	if (!m->code.elf && s->debuginfod &&
	    note_try(try_debuginfod(s, m, true, &m->code), &mismatch))
		code_via = "debuginfod";

	if (!m->code.elf && !m->debug.elf) {
		m->miss = mismatch ? SYM_MISS_BUILD_ID_MISMATCH : SYM_MISS_NO_FILE;
		return;
	}
	m->found_via = debug_via ? debug_via : code_via;
}

/* Whether ELF holds its code (.text with contents), so that its program headers
 * still describe the file: objcopy --only-keep-debug makes .text NOBITS and
 * zeroes the segments' offsets and sizes, but an unstripped binary put where a
 * debug file is looked for is whole. */
static bool holds_code(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".text"))
			return sh.sh_type == SHT_PROGBITS;
	}
	return false;
}

/* The PT_LOAD segments that map file offsets to addresses. From the code file; a debug
 * file only when it holds the code (else the capture's recorded mappings serve). */
static int load_segments(struct module *m)
{
	Elf *elf = m->code.elf ? m->code.elf : m->debug.elf;
	size_t i, n;

	if (!m->code.elf && !holds_code(elf))
		return -ENODATA;
	if (elf_getphdrnum(elf, &n) != 0)
		return -ENODATA;
	m->loads = calloc(n ? n : 1, sizeof(*m->loads));
	if (!m->loads)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || ph.p_filesz == 0)
			continue;
		m->loads[m->nloads++] = ph;
	}
	return m->nloads ? 0 : -ENODATA;
}

static bool has_anchor(const struct symbolizer *s, const struct module *m)
{
	for (const struct anchor *a = s->anchors; a; a = a->next)
		if (a->kind == m->kind && a->id_len == m->id_len && !memcmp(a->id, m->id, m->id_len))
			return true;
	return false;
}

static int open_module(struct symbolizer *s, struct module *m, const char *recorded)
{
	Elf *sym_elf;

	m->code.fd = m->debug.fd = -1;
	find_files(s, m, recorded);
	if (m->miss)
		return 0;
	if (load_segments(m) == -ENOMEM)
		return -ENOMEM;
	if (!m->nloads && !has_anchor(s, m)) {
		/* only a debug file: its offsets no longer say where the code was,
		 * and the capture recorded no ELF address for the mapping */
		m->miss = SYM_MISS_NO_FILE;
		return 0;
	}
	if (m->code.elf) {
		m->go = gopcln_open(m->code.elf);
		if (!m->go && errno == ENOMEM)
			return -ENOMEM;
	}
	if (m->debug.elf && has_dwarf(m->debug.elf)) {
		m->dw = dwarfsym_open(m->debug.elf);
		if (!m->dw && errno == ENOMEM)
			return -ENOMEM;
	}
	/* .symtab of the code file, else of the debug file (objcopy keeps it there) */
	sym_elf = m->code.elf ? m->code.elf : m->debug.elf;
	if (elfsym_load(sym_elf, SHT_SYMTAB, &m->symtab) == -ENOMEM)
		return -ENOMEM;
	if (!m->symtab.n && m->debug.elf && m->debug.elf != sym_elf &&
	    elfsym_load(m->debug.elf, SHT_SYMTAB, &m->symtab) == -ENOMEM)
		return -ENOMEM;
	if (m->code.elf && elfsym_load(m->code.elf, SHT_DYNSYM, &m->dynsym) == -ENOMEM)
		return -ENOMEM;
	/* PLT stubs: NAME@plt, from the code file's relocations */
	if (m->code.elf && elfsym_load_plt(m->code.elf, &m->plt) == -ENOMEM)
		return -ENOMEM;
	m->has_symtab = m->symtab.n > 0;
	m->has_dynsym = m->dynsym.n > 0;
	if (!m->go && !m->dw && !m->has_symtab && !m->has_dynsym)
		m->miss = SYM_MISS_NO_SYMBOLS;
	return 0;
}

static bool module_is(const struct module *m, const struct sym_module_key *key)
{
	return m->kind == key->kind && m->id_len == key->build_id_len &&
	       !memcmp(m->id, key->build_id, m->id_len);
}

static struct module *get_module(struct symbolizer *s, const struct sym_module_key *key,
				 int *err)
{
	size_t b = fnv1a64_bytes(FNV1A64_INIT, key->build_id, key->build_id_len) &
		   (MOD_BUCKETS - 1);
	struct module *m;

	*err = 0;
	if (s->last && module_is(s->last, key))
		return s->last;
	for (m = s->mods[b]; m; m = m->next) {
		if (module_is(m, key))
			return s->last = m;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		*err = -ENOMEM;
		return NULL;
	}
	memcpy(m->id, key->build_id, key->build_id_len);
	m->id_len = key->build_id_len;
	m->kind = key->kind;
	*err = open_module(s, m, key->path);
	if (*err) {
		module_free(m);
		return NULL;
	}
	m->next = s->mods[b];
	s->mods[b] = m;
	return s->last = m;
}

/* ------------------------------------------------------------------ resolving */

static void result_miss(struct sym_result *r, enum sym_miss why)
{
	memset(r, 0, sizeof(*r));
	r->source = SYM_SRC_NONE;
	r->miss = why;
}

static void result_one(struct sym_result *r, enum sym_source src, const char *func,
		       const char *file, unsigned line, uint64_t off)
{
	memset(r, 0, sizeof(*r));
	r->source = src;
	r->miss = SYM_MISS_NONE;
	r->n = 1;
	r->frames[0] = (struct sym_frame){ .func = func, .file = file, .line = line };
	r->func_offset = off;
}

/* The ELF address of file offset OFF of M: from the file's PT_LOAD segments,
 * else from the mappings the capture recorded (a debug file alone). */
static bool offset_to_addr(const struct symbolizer *s, const struct module *m, uint64_t off,
			   uint64_t *addr)
{
	const struct anchor *a;
	size_t i;

	for (i = 0; i < m->nloads; i++) {
		const GElf_Phdr *ph = &m->loads[i];

		if (off >= ph->p_offset && off - ph->p_offset < ph->p_filesz) {
			*addr = ph->p_vaddr + (off - ph->p_offset);
			return true;
		}
	}
	for (a = s->anchors; a; a = a->next) {
		if (a->kind == m->kind && a->id_len == m->id_len && !memcmp(a->id, m->id, m->id_len) &&
		    off >= a->lo && off < a->hi) {
			*addr = a->vaddr + (off - a->lo);
			return true;
		}
	}
	return false;
}

int symbolizer__add_mapping(struct symbolizer *s, const struct sym_module_key *key,
			    uint64_t file_offset, uint64_t size, uint64_t vaddr)
{
	struct anchor *a;

	if (!s || !key || !key->build_id || !key->build_id_len ||
	    key->build_id_len > SYM_MAX_BUILD_ID || !size)
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->kind = key->kind;
	memcpy(a->id, key->build_id, key->build_id_len);
	a->id_len = key->build_id_len;
	a->lo = file_offset;
	a->hi = file_offset + size;
	a->vaddr = vaddr;
	a->next = s->anchors;
	s->anchors = a;
	return 0;
}

static bool key_valid(const struct sym_module_key *key)
{
	return key && key->build_id && key->build_id_len > 0 &&
	       key->build_id_len <= SYM_MAX_BUILD_ID;
}

int symbolizer__resolve(struct symbolizer *s, const struct sym_module_key *key,
			uint64_t file_offset, struct sym_result *r)
{
	const struct elfsym_entry *e;
	const char *lfile = NULL, *func, *file;
	unsigned line = 0;
	uint64_t addr, entry;
	struct module *m;
	int err;

	if (!s || !r)
		return -EINVAL;
	if (!key_valid(key)) {
		result_miss(r, SYM_MISS_NO_BUILD_ID);
		return 0;
	}
	m = get_module(s, key, &err);
	if (!m)
		return err;
	if (m->miss) {
		result_miss(r, m->miss);
		return 0;
	}
	if (!offset_to_addr(s, m, file_offset, &addr)) {
		result_miss(r, SYM_MISS_NOT_COVERED);
		return 0;
	}
	if (m->go && gopcln_find(m->go, addr, &func, &file, &line, &entry) == 0) {
		result_one(r, SYM_SRC_GOPCLNTAB, func, file, line, addr - entry);
		return 0;
	}
	/* a PLT stub: no DWARF or symbol covers it; its relocation names it */
	if (m->plt.n && (e = elfsym_find(&m->plt, addr)) != NULL) {
		result_one(r, SYM_SRC_DYNSYM, e->name, NULL, 0, addr - e->addr);
		return 0;
	}
	if (m->dw && dwarfsym_lookup(m->dw, s, addr, r, &lfile, &line) == 0) {
		/* glibc's DWARF names its functions by their internal aliases
		 * (__GI___errno_location): the exported name, as perf shows it */
		struct sym_frame *fn = &r->frames[r->n - 1];
		const char *ex = NULL;

		if (m->has_symtab)
			ex = elfsym_exported_name(&m->symtab, addr - r->func_offset, fn->func);
		if (!ex && m->has_dynsym)
			ex = elfsym_exported_name(&m->dynsym, addr - r->func_offset, fn->func);
		if (ex)
			fn->func = symbolizer__demangle(s, ex);
		return 0;
	}
	if (m->has_symtab && (e = elfsym_find(&m->symtab, addr)) != NULL) {
		result_one(r, SYM_SRC_SYMTAB, symbolizer__demangle(s, e->name), lfile,
			   lfile ? line : 0, addr - e->addr);
		return 0;
	}
	if (m->has_dynsym && (e = elfsym_find(&m->dynsym, addr)) != NULL) {
		result_one(r, SYM_SRC_DYNSYM, symbolizer__demangle(s, e->name), lfile,
			   lfile ? line : 0, addr - e->addr);
		return 0;
	}
	result_miss(r, SYM_MISS_NOT_COVERED);
	return 0;
}

int symbolizer__module_info(struct symbolizer *s, const struct sym_module_key *key,
			    struct sym_module_info *info)
{
	struct module *m;
	int err;

	if (!s || !info)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	if (!key_valid(key)) {
		info->miss = SYM_MISS_NO_BUILD_ID;
		return 0;
	}
	m = get_module(s, key, &err);
	if (!m)
		return err;
	info->miss = m->miss;
	info->file = m->code.elf ? (m->code.path ? m->code.path : "(embedded)") : NULL;
	info->debug_file = m->dw ? (m->debug.path ? m->debug.path : "(embedded)") : NULL;
	info->found_via = m->found_via;
	info->has_gopclntab = m->go != NULL;
	info->has_dwarf = m->dw != NULL;
	info->has_symtab = m->has_symtab;
	info->has_dynsym = m->has_dynsym;
	return 0;
}

int symbolizer__add_embedded(struct symbolizer *s, const uint8_t *build_id, size_t len,
			     const void *elf_img, size_t size)
{
	uint8_t id[SYM_MAX_BUILD_ID];
	size_t idlen = 0, b;
	enum buildid_kind kind;
	struct embedded *e = NULL;
	struct module **pm;
	Elf *elf = NULL;
	int err = 0;

	if (!s || !build_id || !len || len > SYM_MAX_BUILD_ID || !elf_img || !size)
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e || !(e->img = malloc(size))) {
		err = -ENOMEM;
		goto cleanup;
	}
	memcpy(e->img, elf_img, size);
	e->size = size;
	elf = elf_memory(e->img, size);
	if (!elf || elf_kind(elf) != ELF_K_ELF ||
	    buildid_read_ident(elf, id, sizeof(id), &idlen, &kind) != 0 || idlen != len ||
	    memcmp(id, build_id, len) != 0) {
		err = -EINVAL;
		goto cleanup;
	}
	memcpy(e->id, build_id, len);
	e->id_len = len;
	e->kind = (enum sym_build_id_kind)kind;
	e->next = s->emb;
	s->emb = e;
	e = NULL;
	/* a module already looked up without success gets another chance */
	b = fnv1a64_bytes(FNV1A64_INIT, build_id, len) & (MOD_BUCKETS - 1);
	for (pm = &s->mods[b]; *pm; pm = &(*pm)->next) {
		struct module *m = *pm;

		if (m->kind == (enum sym_build_id_kind)kind && m->id_len == len && !memcmp(m->id, build_id, len) &&
		    m->miss) {
			*pm = m->next;
			if (s->last == m)
				s->last = NULL;
			module_free(m);
			break;
		}
	}
cleanup:
	elf_end(elf);
	if (e)
		free(e->img);
	free(e);
	return err;
}

/* ------------------------------------------------------------------ perf maps */

static bool tier_marker(char c)
{
	return c == '~' || c == '+' || c == '^' || c == '*';
}

/* V8 writes "JS:~name file:line" (and older "LazyCompile:*name"): the marker after the
 * type prefix, or at the very start, says the tier; one function keeps one name. */
static void strip_tier(const char *name, size_t len, char *out, size_t *olen)
{
	size_t pre = 0, i;

	/* a "Type:" prefix is a colon before any space, after no marker */
	for (i = 0; i < len && name[i] != ' ' && !tier_marker(name[0]); i++) {
		if (name[i] == ':') {
			pre = i + 1;
			break;
		}
	}
	i = pre;
	while (i < len && tier_marker(name[i]))
		i++;
	if (i == len) /* nothing but markers: keep the name as it is */
		i = pre;
	memcpy(out, name, pre);
	memcpy(out + pre, name + i, len - i);
	*olen = pre + len - i;
}

static int pm_cmp(const void *a, const void *b)
{
	const struct pm_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool parse_hex(const char **p, const char *end, uint64_t *v)
{
	const char *q = *p;
	uint64_t r = 0;
	int nd = 0;

	if (end - q > 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
		q += 2;
	while (q < end && isxdigit((unsigned char)*q) && nd < 17) {
		r = r * 16 + (uint64_t)(isdigit((unsigned char)*q) ? *q - '0'
								   : (tolower(*q) - 'a' + 10));
		q++;
		nd++;
	}
	if (!nd || nd > 16)
		return false;
	*p = q;
	*v = r;
	return true;
}

int symbolizer__add_perf_map(struct symbolizer *s, int pid, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	struct perf_map *pm;
	char *buf = NULL;
	int err = 0;

	if (!s || (!text && len))
		return -EINVAL;
	for (pm = s->maps; pm && pm->pid != pid; pm = pm->next)
		;
	if (!pm) {
		pm = calloc(1, sizeof(*pm));
		if (!pm)
			return -ENOMEM;
		pm->pid = pid;
		pm->next = s->maps;
		s->maps = pm;
	}
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q = p, *name;
		uint64_t start, size;
		size_t nlen, olen;
		struct pm_entry *en;

		if (!eol)
			eol = end;
		if (!parse_hex(&q, eol, &start) || q >= eol || *q != ' ')
			goto next;
		q++;
		if (!parse_hex(&q, eol, &size) || q >= eol || *q != ' ' || size == 0)
			goto next;
		name = q + 1;
		nlen = (size_t)(eol - name);
		while (nlen && (name[nlen - 1] == '\r' || name[nlen - 1] == ' '))
			nlen--;
		if (!nlen)
			goto next;
		free(buf);
		buf = malloc(nlen + 1);
		if (!buf) {
			err = -ENOMEM;
			goto cleanup;
		}
		strip_tier(name, nlen, buf, &olen);
		if (pm->n == pm->cap) {
			size_t nc = pm->cap ? pm->cap * 2 : 64;
			struct pm_entry *nv = realloc(pm->v, nc * sizeof(*nv));

			if (!nv) {
				err = -ENOMEM;
				goto cleanup;
			}
			pm->v = nv;
			pm->cap = nc;
		}
		en = &pm->v[pm->n];
		en->name = symbolizer__intern(s, buf, olen);
		if (!en->name) {
			err = -ENOMEM;
			goto cleanup;
		}
		en->start = start;
		en->size = size;
		en->seq = pm->n;
		pm->n++;
		pm->sorted = false;
next:
		p = eol + 1;
	}
cleanup:
	free(buf);
	return err;
}

int symbolizer__resolve_jit(struct symbolizer *s, int pid, uint64_t addr, struct sym_result *r)
{
	const struct pm_entry *best = NULL;
	struct perf_map *pm;
	size_t lo = 0, hi, k;

	if (!s || !r)
		return -EINVAL;
	for (pm = s->maps; pm && pm->pid != pid; pm = pm->next)
		;
	if (!pm) {
		result_miss(r, SYM_MISS_NO_FILE);
		return 0;
	}
	if (!pm->sorted) {
		if (pm->n)
			qsort(pm->v, pm->n, sizeof(*pm->v), pm_cmp);
		pm->sorted = true;
	}
	hi = pm->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* code regions get reused: of the entries covering ADDR, the last written wins */
	for (k = 0; k < 64 && lo > 0; k++, lo--) {
		const struct pm_entry *e = &pm->v[lo - 1];

		if (addr - e->start < e->size && (!best || e->seq > best->seq))
			best = e;
	}
	if (!best) {
		result_miss(r, SYM_MISS_NOT_COVERED);
		return 0;
	}
	result_one(r, SYM_SRC_PERFMAP, best->name, NULL, 0, addr - best->start);
	return 0;
}

/* ------------------------------------------------------------------ kernel */

/* BOOT_ID without dashes or spaces, lowercase, into OUT (at most CAP-1 chars). */
static void norm_boot_id(const char *in, char *out, size_t cap)
{
	size_t o = 0;

	for (; in && *in && o + 1 < cap; in++) {
		if (isxdigit((unsigned char)*in))
			out[o++] = (char)tolower((unsigned char)*in);
	}
	out[o] = '\0';
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int load_kallsyms(struct symbolizer *s)
{
	FILE *f;
	size_t cap = 0, len = 0, kcap = 0;
	char chunk[65536], *p, *eol;
	bool nonzero = false;
	int err = 0;

	s->ks_loaded = true;
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return s->ks_err = -errno;
	for (;;) {
		size_t n = fread(chunk, 1, sizeof(chunk), f);

		if (!n)
			break;
		if (len + n + 1 > cap) {
			size_t nc = cap ? cap * 2 : 1 << 20;
			char *nb;

			while (nc < len + n + 1)
				nc *= 2;
			nb = realloc(s->kbuf, nc);
			if (!nb) {
				err = -ENOMEM;
				goto cleanup;
			}
			s->kbuf = nb;
			cap = nc;
		}
		memcpy(s->kbuf + len, chunk, n);
		len += n;
	}
	if (!s->kbuf)
		goto cleanup;
	s->kbuf[len] = '\0';
	for (p = s->kbuf; *p; p = eol + 1) {
		char *sp1, *sp2, *name, *nend;
		uint64_t a;
		const char *q = p;

		eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p);
		*eol = '\0';
		/* "ffffffff81000000 T _stext [module]" */
		sp1 = strchr(p, ' ');
		if (!sp1 || !parse_hex(&q, sp1, &a) || q != sp1)
			goto next;
		sp2 = strchr(sp1 + 1, ' ');
		if (!sp2 || sp2 != sp1 + 2 || !strchr("tTwW", sp1[1]))
			goto next;
		name = sp2 + 1;
		nend = strchr(name, '\t');
		if (nend)
			*nend = ' '; /* keep " [module]" after the name */
		if (a)
			nonzero = true;
		if (s->nks == kcap) {
			size_t nc = kcap ? kcap * 2 : 65536;
			struct ksym *nv = realloc(s->ks, nc * sizeof(*nv));

			if (!nv) {
				err = -ENOMEM;
				goto cleanup;
			}
			s->ks = nv;
			kcap = nc;
		}
		s->ks[s->nks++] = (struct ksym){ .addr = a, .name = name };
next:
		if (eol == s->kbuf + len)
			break;
	}
	if (!nonzero) /* kptr_restrict: every address reads as 0 */
		s->nks = 0;
	if (s->nks)
		qsort(s->ks, s->nks, sizeof(*s->ks), ksym_cmp);
	for (size_t k = 0; k < s->nks; k++) {
		const char *n = s->ks[k].name;

		if (!strcmp(n, "_stext"))
			s->k_stext = s->ks[k].addr;
		else if (!strcmp(n, "_etext"))
			s->k_etext = s->ks[k].addr;
		else if (!strcmp(n, "_sinittext"))
			s->k_sinittext = s->ks[k].addr;
		else if (!strcmp(n, "_einittext"))
			s->k_einittext = s->ks[k].addr;
	}
cleanup:
	fclose(f);
	return s->ks_err = err;
}

/* Whether kallsyms symbol K, the last at or below ADDR, may name it. kallsyms has no
 * sizes: a core kernel symbol (no " [module]" tag) names only addresses inside the core
 * text, so an address of a BPF trampoline or of module space past _einittext is not
 * "_einittext+1015216343"; nor does an end marker (_etext, _einittext) name anything.
 * Module symbols name up to the next symbol. BPF programs and trampolines ([bpf],
 * [__builtin__ftrace]) name nothing: they come and go as tracers load and unload them
 * (ptop-record's own among them), so the program at an address now is not, as a rule,
 * the one that ran there when the capture was made; a wrong name is worse than none. */
static bool kernel_covers(const struct symbolizer *s, const struct ksym *k, uint64_t addr)
{
	const char *tag = strchr(k->name, ' ');
	bool in_core;

	if (tag)
		return strcmp(tag, " [bpf]") != 0 && strncmp(tag, " [__builtin__", 13) != 0;
	if (!strcmp(k->name, "_etext") || !strcmp(k->name, "_einittext") ||
	    !strcmp(k->name, "_end"))
		return false;
	in_core = (s->k_stext && s->k_etext && addr >= s->k_stext && addr < s->k_etext) ||
		  (s->k_sinittext && s->k_einittext && addr >= s->k_sinittext &&
		   addr < s->k_einittext);
	/* without the markers (an unusual kallsyms), the next symbol is the only bound */
	return in_core || !(s->k_etext || s->k_einittext);
}

int symbolizer__resolve_kernel(struct symbolizer *s, const char *boot_id, uint64_t addr,
			       struct sym_result *r)
{
	char want[64], have[64], raw[64] = "";
	size_t lo = 0, hi;
	FILE *f;
	int err;

	if (!s || !r)
		return -EINVAL;
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (f) {
		if (!fgets(raw, sizeof(raw), f))
			raw[0] = '\0';
		fclose(f);
	}
	norm_boot_id(boot_id, want, sizeof(want));
	norm_boot_id(raw, have, sizeof(have));
	if (!want[0] || !have[0] || strcmp(want, have) != 0) {
		result_miss(r, SYM_MISS_OTHER_BOOT);
		return 0;
	}
	if (!s->ks_loaded) {
		err = load_kallsyms(s);
		if (err == -ENOMEM)
			return err;
	}
	if (!s->nks) {
		result_miss(r, s->ks_err ? SYM_MISS_NO_FILE : SYM_MISS_NO_SYMBOLS);
		return 0;
	}
	hi = s->nks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ks[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* below the first symbol or past the last one: no size is known there */
	if (lo == 0 || lo == s->nks || !kernel_covers(s, &s->ks[lo - 1], addr)) {
		result_miss(r, SYM_MISS_NOT_COVERED);
		return 0;
	}
	result_one(r, SYM_SRC_KALLSYMS, s->ks[lo - 1].name, NULL, 0, addr - s->ks[lo - 1].addr);
	return 0;
}
