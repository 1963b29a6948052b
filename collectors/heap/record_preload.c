/* record_preload.c — the heap collector's preload lane, recorder side: the shared memory and
 * environment made before the command forks, the choice between this lane and the uprobe
 * lane, and the collector that reads what libptop-preload.so writes (preload/).
 *
 * A consumer thread drains the ring whenever it holds records (every millisecond at
 * most when it is empty), so that the library seldom finds it full: sampled
 * allocations go into a table of the sampled live blocks (address -> site, time,
 * credits) and into their sites' cumulative figures, the frees of sampled blocks come
 * out of it, and each stack's ips are kept by hash. poll() takes the same lock, sums the
 * per-thread counter slots (exact totals), walks the shared live table for the leak
 * figures, takes each site's oldest live sample, ranks the sites with the uprobe lane's
 * rules (heap__select_sites) and writes the same records: Stack once per stack, a
 * HeapSnapshot with lane "preload" and module the library, and with --heap-events the
 * sampled allocations and frees as HeapEvents.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "preload/ptop_preload.h"
#include "record/stack_table.h"
#include "collectors/heap/record.h"
#include "record/uprobe_target.h"
#include "collectors/heap/record_preload.h"


#define HPL_STACK_CAP (1u << 16)	/* distinct stacks kept */
#define HPL_SITE_CAP (4 * HP_SITE_ENTRIES)
#define HPL_SAMPLE_CAP (1u << 20)	/* sampled live blocks (HP_LIVE_MAX) */
#define HPL_EVENTS_MAX (1u << 17)	/* --heap-events records kept between polls, at first */
#define HPL_EVENTS_CAP (1u << 23)	/* and at most */

/* The --heap-events records kept between two polls INTERVAL_NS apart: HP_EVENTS_RATE a
 * second, from HPL_EVENTS_MAX to HPL_EVENTS_CAP. */
static size_t hpl_events_max(uint64_t interval_ns)
{
	double n = (double)interval_ns / 1e9 * (double)HP_EVENTS_RATE;

	return n < HPL_EVENTS_MAX ? HPL_EVENTS_MAX : n > HPL_EVENTS_CAP ? HPL_EVENTS_CAP : (size_t)n;
}
#define HPL_DRAIN_BATCH 65536
#define HPL_PAGE 4096u

struct hpl_stack {
	uint64_t hash;		/* 0: empty */
	uint32_t n;
	uint64_t *ips;
};

struct hpl_sample {
	uint64_t addr;		/* 0: empty */
	uint64_t time_ns;
	uint64_t size;
	uint64_t credit_count;
	uint64_t credit_bytes;
	uint32_t site;		/* index in sites */
	uint32_t pad;
};

struct hpl_peak_site {
	uint64_t site;		/* index in sites (at_peak: the epoch saved) */
	uint64_t live_count, live_bytes;
};

struct heap_preload;
static void site_touch(struct heap_preload *p, size_t si);
static void peak_moment(struct heap_preload *p, uint64_t bytes, uint64_t t);

struct hpl_event {
	uint64_t time_ns;
	uint64_t addr;
	uint64_t size;
	uint32_t site;		/* index in sites + 1; 0: none */
	uint16_t kind;		/* 1 alloc, 2 free */
	uint16_t func;
};

struct heap_preload {
	uint32_t lane;
	int fd;				/* the memfd, until the command has it */
	struct pl_header *h;		/* the mapping, H_SIZE bytes */
	size_t h_size;
	uint8_t *ring;			/* our copies of the layout: the target can write H */
	uint64_t ring_size;
	struct pl_live *live;
	uint64_t live_cap;
	struct pl_slot *slots;
	char lib[PATH_MAX];
	char why[200];			/* why the lane cannot run; empty when it can */
	char **envp;			/* the command's environment; NULL: the lane cannot run */
	pid_t pid;

	/* the collector, from start() */
	struct collector *c;
	pthread_t thread;
	bool thread_started;
	int stop;
	pthread_mutex_t mu;
	bool broken;			/* a record that cannot be right: the ring is not read */
	bool broken_said;
	bool fell_back;			/* check() handed over to the uprobe lane */
	struct hpl_stack *stacks;	/* HPL_STACK_CAP, open addressing by hash */
	struct heap_usite *sites;	/* HPL_SITE_CAP */
	struct hp_site *cur;		/* cumulative per site, by index in sites */
	struct hpl_sample *samp;	/* HPL_SAMPLE_CAP, linear probing, backward-shift delete */
	struct hpl_event *ev;		/* ev_cap, grown up to ev_max */
	size_t ev_cap, ev_max;
	size_t nev;
	uint64_t *temp, *temp_prev;	/* temporaries per site (cumulative, at the last poll) */
	uint32_t *used_idx;		/* the indices of sites used, in order of first use */
	size_t n_used;
	/* The sites at the peak, a lazy snapshot: each peak moment is an epoch; a site's
	 * live figures are saved (at_peak) the first time they change in an epoch, so that
	 * at any time a site held at the peak what it saved in the current epoch, or else
	 * what it holds now. O(1) per record. */
	struct hpl_peak_site *at_peak;	/* HPL_SITE_CAP, by site index (.site: its epoch) */
	uint64_t epoch;			/* 0: no peak yet */
	int64_t rec_live;		/* live bytes of the sampled blocks, from the ring */
	struct heap_peak peak;		/* the sites at the peak, at the poll */
	uint64_t peak_bytes, peak_ns;	/* the peak moment */
	bool peak_new;			/* a new peak moment since the last poll */
	uint64_t h_sample_bytes;	/* the lane's sample_bytes (our copy) */
	uint64_t ev_lost, samp_full, site_full, stack_unknown;	/* cumulative */
	uint64_t prev_lost[4];
	struct pl_counters prev;
	struct heap_rank rank;		/* the sites ranked each poll */
	struct stack_table *table;
	unsigned char *resident;	/* mincore() of the live table, a byte a page */
	uint64_t prev_ns;
	bool attached;
};

/* ------------------------------------------------------------------ options, library */

int heap_lane__parse(const char *s, uint32_t *lane)
{
	if (!strcmp(s, "auto"))
		*lane = HEAP_LANE_AUTO;
	else if (!strcmp(s, "uprobe"))
		*lane = HEAP_LANE_UPROBE;
	else if (!strcmp(s, "preload"))
		*lane = HEAP_LANE_PRELOAD;
	else
		return -EINVAL;
	return 0;
}

const char *heap_lane__name(uint32_t lane)
{
	return lane == HEAP_LANE_UPROBE ? "uprobe" : lane == HEAP_LANE_PRELOAD ? "preload" : "auto";
}

int heap_preload__find_lib(const char *self, char *buf, size_t len, char *why, size_t wlen)
{
	const char *env = getenv(HEAP_PRELOAD_LIB_ENV);
	char dir[PATH_MAX], cand[PATH_MAX + 64], real[PATH_MAX];
	const char *const fixed[] = { "/usr/local/lib/ptop", "/usr/lib/ptop" };
	char *slash;
	size_t i;

	if (env && *env) {
		if (!realpath(env, real) || access(real, R_OK)) {
			snprintf(why, wlen, "%s=%s: %s", HEAP_PRELOAD_LIB_ENV, env, strerror(errno));
			return -ENOENT;
		}
		snprintf(buf, len, "%s", real);
		return 0;
	}
	dir[0] = '\0';
	if (self && realpath(self, dir)) {
		slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
	}
	for (i = 0; i < 4; i++) {
		if (i == 0 && dir[0])
			snprintf(cand, sizeof(cand), "%s/" HEAP_PRELOAD_LIB_NAME, dir);
		else if (i == 1 && dir[0])
			snprintf(cand, sizeof(cand), "%s/../lib/ptop/" HEAP_PRELOAD_LIB_NAME, dir);
		else if (i >= 2)
			snprintf(cand, sizeof(cand), "%s/" HEAP_PRELOAD_LIB_NAME, fixed[i - 2]);
		else
			continue;
		if (realpath(cand, real) && !access(real, R_OK)) {
			snprintf(buf, len, "%s", real);
			return 0;
		}
	}
	snprintf(why, wlen,
		 HEAP_PRELOAD_LIB_NAME " not found next to ptop-record, in its ../lib/ptop, "
		 "/usr/local/lib/ptop or /usr/lib/ptop: set " HEAP_PRELOAD_LIB_ENV);
	return -ENOENT;
}

/* The interpreter of script PATH ("#!INTERP [ARG]", as the kernel reads it: the first
 * line, at most 255 bytes) into BUF: 0, or -EINVAL when PATH is not a script. */
static int script_interp(const char *path, char *buf, size_t len)
{
	char line[256];
	ssize_t n;
	char *s, *e;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n < 2 || line[0] != '#' || line[1] != '!')
		return -EINVAL;
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	for (s = line + 2; *s == ' ' || *s == '\t'; s++)
		;
	e = s + strcspn(s, " \t");
	*e = '\0';
	if (!*s)
		return -EINVAL;
	snprintf(buf, len, "%s", s);
	return 0;
}

/* heap_preload__exe_kind for an ELF file EXE. */
static int elf_kind_of(const char *exe, char *why, size_t wlen)
{
	bool interp = false, go = false;
	uint64_t off, size;
	Elf_Scn *scn = NULL;
	size_t n, i, shstr;
	GElf_Phdr ph;
	Elf *elf;
	struct stat st;
	int fd, kind;

	if (!stat(exe, &st) && (st.st_mode & (S_ISUID | S_ISGID)) && st.st_uid != geteuid()) {
		snprintf(why, wlen, "%s is set-user-ID or set-group-ID: the loader may ignore "
			 "LD_PRELOAD", exe);
		return 4;
	}
	fd = open(exe, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, wlen, "cannot read %s: %s", exe, strerror(errno));
		return -errno;
	}
	elf = elf_version(EV_CURRENT) == EV_NONE ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(why, wlen, "%s is not an ELF file", exe);
		elf_end(elf);
		close(fd);
		return -EINVAL;
	}
	if (!elf_getphdrnum(elf, &n))
		for (i = 0; i < n; i++)
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
				interp = true;
	if (!elf_getshdrstrndx(elf, &shstr)) {
		while ((scn = elf_nextscn(elf, scn)) != NULL) {
			GElf_Shdr sh;
			const char *nm;

			if (!gelf_getshdr(scn, &sh))
				continue;
			nm = elf_strptr(elf, shstr, sh.sh_name);
			if (nm && strlen(nm) >= 9 && !strcmp(nm + strlen(nm) - 9, "gopclntab"))
				go = true;
		}
	}
	elf_end(elf);
	if (go) {
		snprintf(why, wlen, "%s is a Go program: its heap is the Go runtime's "
			 "(the goalloc collector), not malloc", exe);
		kind = 2;
	} else if (!interp) {
		snprintf(why, wlen, "%s is static: it never reads LD_PRELOAD", exe);
		kind = 1;
	} else if (!uprobe_target__elf_func(fd, "malloc", &off, &size)) {
		snprintf(why, wlen, "%s defines malloc itself, ahead of any preloaded library",
			 exe);
		kind = 3;
	} else {
		snprintf(why, wlen, "%s is dynamic", exe);
		kind = 0;
	}
	close(fd);
	return kind;
}

int heap_preload__exe_kind(const char *exe, char *why, size_t wlen)
{
	char path[2][256], inner[200];
	const char *p = exe;
	int depth, kind;

	/* a script runs its interpreter, which reads LD_PRELOAD if it is dynamic (a program
	 * the script execs later is judged at that exec); the kernel follows at most 4
	 * levels of interpreters that are scripts themselves */
	for (depth = 0; !script_interp(p, path[depth & 1], sizeof(path[0])); depth++) {
		if (depth == 4) {
			snprintf(why, wlen, "%s: more than 4 levels of #! interpreters", exe);
			return -ELOOP;
		}
		p = path[depth & 1];
	}
	if (!depth)
		return elf_kind_of(exe, why, wlen);
	kind = elf_kind_of(p, inner, sizeof(inner));
	snprintf(why, wlen, "script %.80s runs %.80s: %s", exe, p, inner);
	return kind;
}

static bool env_is(const char *e, const char *name)
{
	size_t l = strlen(name);

	return !strncmp(e, name, l) && e[l] == '=';
}

char **heap_preload__env(char *const *envp, const char *lib, int fd)
{
	const char *own = NULL;
	size_t n = 0, bytes, i, k = 0;
	char **out, *s;
	int w;

	for (i = 0; envp && envp[i]; i++) {
		n++;
		if (env_is(envp[i], "LD_PRELOAD"))
			own = envp[i] + strlen("LD_PRELOAD=");
	}
	bytes = (n + 4) * sizeof(char *) + strlen(lib) + 64 + 2 * (own ? strlen(own) + 32 : 0) +
		sizeof(PL_ENV_LD_PRELOAD) + sizeof(PL_ENV_FD);
	out = malloc(bytes);
	if (!out)
		return NULL;
	s = (char *)(out + n + 4);
	for (i = 0; envp && envp[i]; i++)
		if (!env_is(envp[i], "LD_PRELOAD") && !env_is(envp[i], PL_ENV_FD) &&
		    !env_is(envp[i], PL_ENV_LD_PRELOAD))
			out[k++] = envp[i];
	/* ours first, so that dlsym(RTLD_NEXT) finds an allocator preloaded after it */
	out[k++] = s;
	w = sprintf(s, "LD_PRELOAD=%s%s%s", lib, own && *own ? ":" : "", own ? own : "");
	s += w + 1;
	out[k++] = s;
	w = sprintf(s, PL_ENV_FD "=%d", fd);
	s += w + 1;
	if (own) {
		out[k++] = s;
		sprintf(s, PL_ENV_LD_PRELOAD "=%s", own);
	}
	out[k] = NULL;
	return out;
}

/* ------------------------------------------------------------------ prepare */

int heap_preload__prepare(uint32_t lane, uint64_t sample_bytes, char *const *envp,
			  struct heap_preload **out)
{
	extern char **environ;
	struct heap_preload *p;
	struct pl_header hd;
	uint64_t size;
	void *m;
	int err;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->lane = lane;
	p->fd = -1;
	*out = p;
	if (heap_preload__find_lib("/proc/self/exe", p->lib, sizeof(p->lib), p->why,
				   sizeof(p->why)))
		return 0;
	memset(&hd, 0, sizeof(hd));
	size = pl_layout(&hd, PL_LIVE_CAP / 2, PL_SEEN_CAP, PL_RING_BYTES);
	/* not close-on-exec: the command inherits it (the library closes it) */
	p->fd = memfd_create(PL_MEMFD_NAME, MFD_ALLOW_SEALING);
	if (p->fd < 0 || ftruncate(p->fd, (off_t)size) ||
	    fcntl(p->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
		err = errno;
		snprintf(p->why, sizeof(p->why), "cannot make its shared memory: %s",
			 strerror(err));
		return 0;
	}
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
	if (m == MAP_FAILED) {
		snprintf(p->why, sizeof(p->why), "cannot map its shared memory: %s",
			 strerror(errno));
		return 0;
	}
	p->h = m;
	p->h_size = size;
	memcpy(p->h, &hd, sizeof(hd));
	p->h->magic = PL_MAGIC;
	p->h->version = PL_VERSION;
	p->h->state = PL_PENDING;
	p->h->sample_bytes = sample_bytes;
	p->h->wait_ns = PL_WAIT_NS;
	heap__exp_table(p->h->exp_table, PL_EXP_TABLE);
	p->ring = pl_ring(p->h);
	p->ring_size = hd.ring_size;
	p->live = pl_live(p->h);
	p->live_cap = hd.live_cap;
	p->slots = pl_slots(p->h);
	p->envp = heap_preload__env(envp ? envp : environ, p->lib, p->fd);
	if (!p->envp)
		return -ENOMEM;
	return 0;
}

/* What the heap collector's prepare() made: one heap collector runs per recorder. */
static struct heap_preload *prepared;

int heap_preload__collector_prepare(struct collector *c, char *const **envp)
{
	int err;

	(void)c;
	heap_preload__release();
	if (heap_settings.lane == HEAP_LANE_UPROBE)
		return 0;
	err = heap_preload__prepare(heap_settings.lane, heap_settings.sample_bytes, *envp,
				    &prepared);
	if (err)
		return err;
	if (heap_preload__envp(prepared))
		*envp = heap_preload__envp(prepared);
	return 0;
}

struct heap_preload *heap_preload__prepared(void)
{
	return prepared;
}

void heap_preload__release(void)
{
	heap_preload__free(prepared);
	prepared = NULL;
}

char *const *heap_preload__envp(const struct heap_preload *p)
{
	return p ? p->envp : NULL;
}

void heap_preload__set_target(struct heap_preload *p, pid_t pid)
{
	if (!p)
		return;
	p->pid = pid;
	if (p->h)
		p->h->target_pid = pid;
	if (p->fd >= 0) {
		close(p->fd);	/* the command holds its own copy */
		p->fd = -1;
	}
}

bool heap_preload__wanted(const struct heap_preload *p)
{
	return p && !p->fell_back;
}

void heap_preload__free(struct heap_preload *p)
{
	if (!p)
		return;
	if (p->h)
		munmap(p->h, p->h_size);
	if (p->fd >= 0)
		close(p->fd);
	free(p->envp);
	free(p);
}

/* ------------------------------------------------------------------ recorder tables */

static size_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull;
	return (size_t)(x ^ (x >> 29));
}

/* The index of stack HASH, or -1 when unknown. */
static int64_t stack_find(const struct heap_preload *p, uint64_t hash)
{
	size_t i = mix(hash) & (HPL_STACK_CAP - 1), n;

	for (n = 0; n < HPL_STACK_CAP; n++, i = (i + 1) & (HPL_STACK_CAP - 1)) {
		if (p->stacks[i].hash == hash)
			return (int64_t)i;
		if (!p->stacks[i].hash)
			return -1;
	}
	return -1;
}

static void stack_add(struct heap_preload *p, const struct pl_ev_stack *e)
{
	size_t i = mix(e->hash) & (HPL_STACK_CAP - 1), n;

	for (n = 0; n < HPL_STACK_CAP / 2; n++, i = (i + 1) & (HPL_STACK_CAP - 1)) {
		struct hpl_stack *s = &p->stacks[i];

		if (s->hash == e->hash)
			return;		/* sent twice */
		if (s->hash)
			continue;
		s->ips = malloc(e->n * sizeof(uint64_t));
		if (!s->ips)
			return;
		memcpy(s->ips, e->ips, e->n * sizeof(uint64_t));
		s->n = e->n;
		s->hash = e->hash;
		return;
	}
}

/* A site is a stack of the table: its key holds the stack's hash and depth, caller 0
 * (the caller is frame 1 of the stack itself). */
static struct heap_usite *site_of(struct heap_preload *p, int64_t stack)
{
	struct hp_site_key k;

	memset(&k, 0, sizeof(k));
	k.stack.hash = p->stacks[stack].hash;
	k.stack.nr = p->stacks[stack].n;
	return heap_usites__get(p->sites, HPL_SITE_CAP, &k);
}

/* The stack source of heap_usite__resolve(): the ips the library sent. */
static int site_ips(void *arg, const struct heap_usite *u, uint64_t *ips, size_t max)
{
	struct heap_preload *p = arg;
	int64_t i = stack_find(p, u->key.stack.hash);
	size_t n;

	if (i < 0)
		return -ENOENT;
	n = p->stacks[i].n < max ? p->stacks[i].n : max;
	memcpy(ips, p->stacks[i].ips, n * sizeof(uint64_t));
	return (int)n;
}

static struct hpl_sample *samp_find(struct heap_preload *p, uint64_t addr, bool add)
{
	size_t i = mix(addr) & (HPL_SAMPLE_CAP - 1), n;

	for (n = 0; n < 64; n++, i = (i + 1) & (HPL_SAMPLE_CAP - 1)) {
		struct hpl_sample *s = &p->samp[i];

		if (s->addr == addr)
			return s;
		if (!s->addr) {
			if (!add)
				return NULL;
			s->addr = addr;
			return s;
		}
	}
	return NULL;
}

/* Remove S from the sample table, shifting back the entries after it. */
static void samp_remove(struct heap_preload *p, struct hpl_sample *s)
{
	size_t i = (size_t)(s - p->samp), j = i, k;

	for (;;) {
		j = (j + 1) & (HPL_SAMPLE_CAP - 1);
		if (!p->samp[j].addr)
			break;
		k = mix(p->samp[j].addr) & (HPL_SAMPLE_CAP - 1);
		/* move j back to i unless its home lies cyclically in (i, j] */
		if ((i <= j) ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		p->samp[i] = p->samp[j];
		i = j;
	}
	memset(&p->samp[i], 0, sizeof(p->samp[i]));
}

static void queue_event(struct heap_preload *p, uint64_t t, uint64_t addr, uint64_t size,
			size_t site, unsigned kind, uint32_t func)
{
	struct hpl_event *e;

	if (!heap_settings.events)
		return;
	if (p->nev == p->ev_cap) { /* grown up to ev_max (the rate --interval allows) */
		size_t cap = p->ev_cap * 2 < p->ev_max ? p->ev_cap * 2 : p->ev_max;
		struct hpl_event *n = cap > p->ev_cap ? realloc(p->ev, cap * sizeof(*n)) : NULL;

		if (!n) {
			p->ev_lost++;
			return;
		}
		p->ev = n;
		p->ev_cap = cap;
	}
	e = &p->ev[p->nev++];
	e->time_ns = t;
	e->addr = addr;
	e->size = size;
	e->site = (uint32_t)site;
	e->kind = (uint16_t)kind;
	e->func = (uint16_t)(func < ALLOC_NFUNCS ? func : 0);
}

static void on_alloc(struct heap_preload *p, const struct pl_ev_alloc *e)
{
	struct heap_usite *u = NULL;
	struct hpl_sample *s;
	struct hp_site *cur;
	int64_t st;
	size_t si;

	st = stack_find(p, e->stack);
	if (st < 0) {
		p->stack_unknown++;
		return;
	}
	u = site_of(p, st);
	if (!u) {
		p->site_full++;
		return;
	}
	si = (size_t)(u - p->sites);
	cur = &p->cur[si];
	if (!cur->alloc_count && p->n_used < HPL_SITE_CAP)
		p->used_idx[p->n_used++] = (uint32_t)si;	/* its first allocation */
	cur->alloc_count += e->credit_count;
	cur->alloc_bytes += e->credit_bytes;
	queue_event(p, e->time_ns, e->addr, e->size, si + 1, 1, e->func);
	if (e->untracked)
		return;
	s = samp_find(p, e->addr, true);
	if (!s) {
		p->samp_full++;
		return;
	}
	if (s->time_ns) {	/* its free was not seen: the old block is gone */
		site_touch(p, s->site);
		p->cur[s->site].live_count -= s->credit_count;
		p->cur[s->site].live_bytes -= s->credit_bytes;
		p->rec_live -= (int64_t)s->size;
	}
	s->time_ns = e->time_ns;
	s->size = e->size;
	s->credit_count = e->credit_count;
	s->credit_bytes = e->credit_bytes;
	s->site = (uint32_t)si;
	site_touch(p, si);
	cur->live_count += e->credit_count;
	cur->live_bytes += e->credit_bytes;
	p->rec_live += (int64_t)e->size;
	/* every allocation in the ring (sample_bytes 0): the recorder sees each peak
	 * moment itself, the sites there exact */
	if (!p->h_sample_bytes && p->rec_live > 0 && (uint64_t)p->rec_live > p->peak_bytes)
		peak_moment(p, (uint64_t)p->rec_live, e->time_ns);
}

static void on_free(struct heap_preload *p, const struct pl_ev_free *e)
{
	struct hpl_sample *s = samp_find(p, e->addr, false);
	struct hp_site *cur;

	if (!s)
		return;		/* not kept (counted in samp_full when it came) */
	cur = &p->cur[s->site];
	site_touch(p, s->site);
	p->rec_live -= (int64_t)s->size;
	cur->live_count -= s->credit_count;
	cur->live_bytes -= s->credit_bytes;
	cur->freed_count += s->credit_count;
	if (e->flags & PL_FREE_TEMPORARY)
		p->temp[s->site] += s->credit_count;
	cur->lifetime_ns_sum +=
		(e->time_ns > s->time_ns ? e->time_ns - s->time_ns : 0) * s->credit_count;
	queue_event(p, e->time_ns, e->addr, s->size, (size_t)s->site + 1, 2, e->func);
	samp_remove(p, s);
}

/* Before site SI's live figures change: save them, once per peak epoch. */
static void site_touch(struct heap_preload *p, size_t si)
{
	struct hpl_peak_site *a = &p->at_peak[si];

	if (!p->epoch || a->site == p->epoch)
		return;
	a->site = p->epoch;
	a->live_count = p->cur[si].live_count;
	a->live_bytes = p->cur[si].live_bytes;
}

/* The live heap is at a new peak, BYTES at T: a new epoch (what the sites hold now is
 * what they held at the peak until they change). */
static void peak_moment(struct heap_preload *p, uint64_t bytes, uint64_t t)
{
	p->epoch++;
	p->peak_bytes = bytes;
	p->peak_ns = t;
	p->peak_new = true;
}

/* The library's live total passed the peak mark (sampled: the recorder does not see
 * every allocation; the sites there are estimates). */
static void on_peak(struct heap_preload *p, const struct pl_ev_peak *e)
{
	if (p->h_sample_bytes && e->bytes > p->peak_bytes)
		peak_moment(p, e->bytes, e->time_ns);
}

/* The recorded process exec'd: the sampled blocks of its old program are gone (not
 * freed: no lifetime for them). */
static void on_exec(struct heap_preload *p)
{
	size_t i;

	for (i = 0; i < HPL_SAMPLE_CAP; i++) {
		struct hpl_sample *s = &p->samp[i];

		if (!s->addr)
			continue;
		site_touch(p, s->site);
		p->cur[s->site].live_count -= s->credit_count;
		p->cur[s->site].live_bytes -= s->credit_bytes;
	}
	memset(p->samp, 0, HPL_SAMPLE_CAP * sizeof(*p->samp));
	p->rec_live = 0;
}

/* Read up to MAX records from the ring. Returns how many. Under p->mu. */
static size_t drain(struct heap_preload *p, size_t max)
{
	const uint8_t *r;
	size_t n = 0;
	uint64_t w;
	uint32_t len;

	while (n < max && !p->broken &&
	       (r = pl_ring_peek(p->h, p->ring, p->ring_size, &w, &p->broken))) {
		len = pl_rec_len(w);
		switch (pl_rec_type(w)) {
		case PL_REC_ALLOC:
			if (len >= sizeof(struct pl_ev_alloc))
				on_alloc(p, (const struct pl_ev_alloc *)r);
			break;
		case PL_REC_FREE:
			if (len >= sizeof(struct pl_ev_free))
				on_free(p, (const struct pl_ev_free *)r);
			break;
		case PL_REC_STACK: {
			const struct pl_ev_stack *s = (const struct pl_ev_stack *)r;

			if (len >= sizeof(*s) && s->n && s->n <= PL_MAX_DEPTH &&
			    len >= sizeof(*s) + s->n * sizeof(uint64_t) && s->hash)
				stack_add(p, s);
			break;
		}
		case PL_REC_EXEC:
			on_exec(p);
			break;
		case PL_REC_PEAK:
			if (len >= sizeof(struct pl_ev_peak))
				on_peak(p, (const struct pl_ev_peak *)r);
			break;
		default:
			break;	/* a pad */
		}
		pl_ring_release(p->h, r, w);
		n++;
	}
	return n;
}

static void *consumer(void *arg)
{
	struct heap_preload *p = arg;
	struct timespec ms = { 0, 1000000 };
	size_t n;

	while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&p->h->now_ns, rec_now_ns(), __ATOMIC_RELAXED);
		pthread_mutex_lock(&p->mu);
		n = drain(p, HPL_DRAIN_BATCH);
		pthread_mutex_unlock(&p->mu);
		if (!n)
			nanosleep(&ms, NULL);
	}
	return NULL;
}

/* ------------------------------------------------------------------ collector */

/* Copy SRC into DST of LEN bytes, cut to fit. */
static void put_text(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memmove(dst, src, n);
	dst[n] = '\0';
}

static Ptop__V1__ProbeState fall_back(struct collector *c, const char *why)
{
	char note[300], rest[1100];
	Ptop__V1__ProbeState st;

	c->detail[0] = '\0';
	st = heap__uprobe_check(c);
	snprintf(note, sizeof(note), "lane uprobe, not preload (%s)", why);
	if (c->detail[0]) {
		snprintf(rest, sizeof(rest), "%.250s: %s", note, c->detail);
		put_text(c->detail, sizeof(c->detail), rest);
	} else {
		snprintf(c->detail, sizeof(c->detail), "%s", note);
	}
	if (st != PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE && c->reason[0]) {
		snprintf(rest, sizeof(rest), "%.100s; %s", note, c->reason);
		put_text(c->reason, sizeof(c->reason), rest);
	}
	return st;
}

Ptop__V1__ProbeState heap_preload__check(struct collector *c)
{
	struct rec_ctx *ctx = c->ctx;
	struct heap_preload *p = prepared;
	char why[200];
	int kind;

	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PRELOAD;
	c->reason[0] = '\0';
	if (!p)
		return fall_back(c, "no launched command");
	if (!p->envp) {
		if (p->lane == HEAP_LANE_PRELOAD) {
			snprintf(c->reason, sizeof(c->reason), "--heap-lane preload: %s", p->why);
			return PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
		}
		return fall_back(c, p->why);
	}
	kind = ctx->exe ? heap_preload__exe_kind(ctx->exe, why, sizeof(why)) : -ENOENT;
	if (kind < 0 && !ctx->exe)
		snprintf(why, sizeof(why), "the command's executable is not known");
	if (kind != 0)
		return fall_back(c, why);
	{
		char d[PATH_MAX + 256];

		snprintf(d, sizeof(d),
			 "lane preload: %s in the command's LD_PRELOAD (malloc, calloc, realloc, "
			 "free and the memalign family); stack every %llu B",
			 p->lib, (unsigned long long)heap_settings.sample_bytes);
		put_text(c->detail, sizeof(c->detail), d);
	}
	if (heap_settings.events) /* its limit, said at start (an active probe's reason) */
		heap_events_limit_text(c->reason, sizeof(c->reason), "recorder",
				       hpl_events_max(ctx->interval_ns), ctx->interval_ns);
	return PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
}

static void hpl_stop(struct collector *c)
{
	struct heap_preload *p = c->priv;
	size_t i;

	if (!p)
		return;
	if (p->h)
		__atomic_store_n(&p->h->state, PL_OFF, __ATOMIC_RELEASE);
	if (p->thread_started) {
		__atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
		pthread_join(p->thread, NULL);
		pthread_mutex_destroy(&p->mu);
		p->thread_started = false;
	}
	if (p->stacks)
		for (i = 0; i < HPL_STACK_CAP; i++)
			free(p->stacks[i].ips);
	free(p->stacks);
	free(p->sites);
	free(p->cur);
	free(p->samp);
	free(p->ev);
	free(p->temp);
	free(p->temp_prev);
	free(p->used_idx);
	heap_peak__free(&p->peak);
	free(p->at_peak);
	p->at_peak = NULL;
	p->temp = p->temp_prev = NULL;
	p->used_idx = NULL;
	heap_rank__free(&p->rank);
	free(p->resident);
	p->resident = NULL;
	p->stacks = NULL;
	p->sites = NULL;
	p->cur = NULL;
	p->samp = NULL;
	p->ev = NULL;
	c->priv = NULL;	/* the object itself is prepare()'s (heap_preload__release) */
}

void heap_preload__lane_stop(struct collector *c)
{
	hpl_stop(c);
}

void heap_preload__off(struct heap_preload *p)
{
	if (!p)
		return;
	if (p->h)
		__atomic_store_n(&p->h->state, PL_OFF, __ATOMIC_RELEASE);
	p->fell_back = true;
}

int heap_preload__start(struct collector *c)
{
	struct heap_preload *p = prepared;
	int err;

	if (!p || !p->h) {
		snprintf(c->reason, sizeof(c->reason), "the preload lane was not prepared");
		return -EINVAL;
	}
	c->priv = p;
	p->c = c;
	heap_preload__set_target(p, c->ctx->pid);	/* the library attaches there only */
	c->ctx->probe_mapping = true; /* its memfd is ptop's memory, not the target's */
	p->stacks = calloc(HPL_STACK_CAP, sizeof(*p->stacks));
	p->sites = calloc(HPL_SITE_CAP, sizeof(*p->sites));
	p->cur = calloc(HPL_SITE_CAP, sizeof(*p->cur));
	p->samp = calloc(HPL_SAMPLE_CAP, sizeof(*p->samp));
	p->ev = heap_settings.events ? calloc(HPL_EVENTS_MAX, sizeof(*p->ev)) : NULL;
	p->ev_cap = HPL_EVENTS_MAX;
	p->ev_max = hpl_events_max(c->ctx->interval_ns);
	if (heap_settings.events) /* the limit it runs within: the probe's reason, at start */
		heap_events_limit_text(c->reason, sizeof(c->reason), "recorder", p->ev_max,
				       c->ctx->interval_ns);
	p->temp = calloc(HPL_SITE_CAP, sizeof(*p->temp));
	p->temp_prev = calloc(HPL_SITE_CAP, sizeof(*p->temp_prev));
	p->used_idx = calloc(HPL_SITE_CAP, sizeof(*p->used_idx));
	p->at_peak = calloc(HPL_SITE_CAP, sizeof(*p->at_peak));
	p->h_sample_bytes = p->h->sample_bytes;
	p->epoch = 0;
	p->rec_live = 0;
	p->n_used = 0;
	p->peak_bytes = p->peak_ns = 0;
	p->peak_new = false;
	p->table = stack_table__capture();
	if (heap_rank__alloc(&p->rank) || !p->stacks || !p->sites || !p->cur || !p->samp ||
	    !p->temp || !p->temp_prev || !p->used_idx || heap_peak__alloc(&p->peak, HPL_SITE_CAP) ||
	    !p->at_peak || (heap_settings.events && !p->ev) || !p->table) {
		err = -ENOMEM;
		snprintf(c->reason, sizeof(c->reason), "out of memory");
		goto cleanup;
	}
	pthread_mutex_init(&p->mu, NULL);
	err = -pthread_create(&p->thread, NULL, consumer, p);
	if (err) {
		pthread_mutex_destroy(&p->mu);
		snprintf(c->reason, sizeof(c->reason), "cannot start the ring's reader: %s",
			 strerror(-err));
		goto cleanup;
	}
	p->thread_started = true;
	p->prev_ns = rec_now_ns();
	__atomic_store_n(&p->h->now_ns, p->prev_ns, __ATOMIC_RELAXED);
	/* the library attaches when the command starts, from now on */
	__atomic_store_n(&p->h->state, PL_ON, __ATOMIC_RELEASE);
	return 0;

cleanup:
	c->state = PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED;
	hpl_stop(c);
	return err;
}

/* The capture stack id of site U, its Stack record written the first time. */
static int resolve_site(struct heap_preload *p, struct heap_usite *u)
{
	struct heap_stack_src src = { site_ips, p };

	return heap_usite__resolve(p->c->ctx, &src, p->table, u);
}

static int emit_events(struct heap_preload *p)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__HeapEvent he = PTOP__V1__HEAP_EVENT__INIT;
	size_t i;
	int err;

	for (i = 0; i < p->nev; i++) {
		const struct hpl_event *e = &p->ev[i];

		he.stack_id = 0;
		if (e->site) {
			err = resolve_site(p, &p->sites[e->site - 1]);
			if (err)
				return err;
			he.stack_id = p->sites[e->site - 1].capid;
		}
		he.kind = e->kind == 2 ? PTOP__V1__HEAP_EVENT__KIND__KIND_FREE :
					 PTOP__V1__HEAP_EVENT__KIND__KIND_ALLOC;
		he.address = e->addr;
		he.size = e->size;
		he.function = (char *)heap_func_names[e->func];
		ev.payload_case = PTOP__V1__EVENT__PAYLOAD_HEAP_EVENT;
		ev.heap_event = &he;
		err = rec_emit_event(p->c->ctx, &ev, PTOP__V1__CATEGORY__CATEGORY_HEAP, e->time_ns,
				     0);
		if (err)
			return err;
	}
	p->nev = 0;
	return 0;
}

/* The sum of the per-thread counter slots. */
static void sum_slots(const struct heap_preload *p, struct pl_counters *sum)
{
	const uint64_t *v;
	uint64_t *o = (uint64_t *)sum;
	size_t i, w, nw = sizeof(*sum) / sizeof(uint64_t);

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < PL_SLOTS; i++) {
		v = (const uint64_t *)&p->slots[i].c;
		for (w = 0; w < nw; w++)
			o[w] += __atomic_load_n(&v[w], __ATOMIC_RELAXED);
	}
}

/* The leak figures over the shared live table; the oldest live sample of each site. */
static void walk_live(struct heap_preload *p, uint64_t now_ns, uint64_t leak_age,
		      uint64_t *leak_bytes, uint64_t *leak_count)
{
	size_t i;

	*leak_bytes = 0;
	*leak_count = 0;
	/* only the table's pages the library touched: reading a hole of the memfd
	 * would make it memory */
	if (!p->resident)
		p->resident = calloc(p->live_cap * sizeof(struct pl_live) / HPL_PAGE + 1, 1);
	if (p->resident && mincore(p->live, p->live_cap * sizeof(struct pl_live), p->resident))
		memset(p->resident, 1, p->live_cap * sizeof(struct pl_live) / HPL_PAGE);
	for (i = 0; i < p->live_cap; i++) {
		const struct pl_live *l = &p->live[i];
		uint64_t a, t;

		if (p->resident && !(p->resident[i * sizeof(*l) / HPL_PAGE] & 1)) {
			i += HPL_PAGE / sizeof(*l) - 1;	/* the rest of this page */
			continue;
		}
		a = __atomic_load_n(&l->addr, __ATOMIC_ACQUIRE);
		if (a <= PL_LIVE_BUSY)
			continue;
		t = l->time_ns;
		if (now_ns > t && now_ns - t >= leak_age) {
			*leak_bytes += l->size & ~PL_LIVE_SAMPLED;
			(*leak_count)++;
		}
	}
	for (i = 0; i < HPL_SITE_CAP; i++)
		p->sites[i].oldest = 0;
	for (i = 0; i < HPL_SAMPLE_CAP; i++) {
		const struct hpl_sample *s = &p->samp[i];
		struct heap_usite *u;

		if (!s->addr)
			continue;
		u = &p->sites[s->site];
		if (!u->oldest || s->time_ns < u->oldest)
			u->oldest = s->time_ns;
	}
}

static int emit_drops(struct collector *c, struct heap_preload *p, const struct pl_counters *d)
{
	uint64_t now[4] = { p->samp_full, p->site_full, p->stack_unknown, p->ev_lost }, x[4];
	int err, i;

	for (i = 0; i < 4; i++) {
		x[i] = now[i] - p->prev_lost[i];
		p->prev_lost[i] = now[i];
	}
	err = rec_emit_drop(c, "map_full", d->live_untracked,
			    "allocations not tracked: the preload live table had no slot "
			    "(live figures leave them out)");
	err = err ?: rec_emit_drop(c, "ring_full", d->ring_lost,
				   "sampled allocations and frees dropped: the preload ring stayed "
				   "full (the recorder did not keep up)");
	err = err ?: rec_emit_drop(c, "sample_map_full", x[0],
				   "sampled allocations not followed to their free: the table of "
				   "sampled live blocks was full");
	err = err ?: rec_emit_drop(c, "site_map_full", x[1],
				   "sampled allocations whose site did not fit the site table");
	err = err ?: rec_emit_drop(c, "stack_failure", x[2],
				   "sampled allocations whose stack the recorder did not keep");
	err = err ?: rec_emit_drop(c, "ringbuf", x[3],
				   "--heap-events records lost: more than the recorder keeps "
				   "between two polls");
	return err;
}

/* The sites at the peak mark taken since the last poll, into HS (peak_sites*): each
 * site's figures saved in the current epoch, else what it holds now. 0 or an error
 * writing their stacks. */
static int peak_sites(struct heap_preload *p, Ptop__V1__HeapSnapshot *hs)
{
	struct heap_stack_src src = { site_ips, p };
	size_t i, np = 0;

	if (!p->peak_new)
		return 0;
	p->peak_new = false;
	for (i = 0; i < p->n_used; i++) {
		size_t si = p->used_idx[i];
		const struct hpl_peak_site *a = &p->at_peak[si];
		uint64_t lb = a->site == p->epoch ? a->live_bytes : p->cur[si].live_bytes;
		uint64_t lc = a->site == p->epoch ? a->live_count : p->cur[si].live_count;

		if ((int64_t)lb <= 0)
			continue;
		p->peak.rows[np].site = si;
		p->peak.rows[np].live_bytes = lb;
		p->peak.rows[np].live_count = (int64_t)lc > 0 ? lc : 0;
		np++;
	}
	return heap__peak_sites(p->c->ctx, &src, p->table, p->sites, &p->peak, np,
				p->h_sample_bytes != 0, p->peak_bytes, p->peak_ns, hs);
}

int heap_preload__poll(struct collector *c, uint64_t now_ns, unsigned flags)
{
	struct heap_preload *p = c->priv;
	struct rec_ctx *ctx = c->ctx;
	Ptop__V1__HeapSnapshot hs = PTOP__V1__HEAP_SNAPSHOT__INIT;
	struct pl_counters sum, d;
	struct heap_stack_src src = { site_ips, p };
	struct heap_census census;
	uint64_t interval, leak_bytes, leak_count;
	size_t nrows = 0, i, j, k = 0;
	int err = 0;

	if (!p || !p->thread_started)
		return -EINVAL;
	pthread_mutex_lock(&p->mu);
	while (drain(p, HPL_DRAIN_BATCH) == HPL_DRAIN_BATCH)
		;
	if (!p->attached)
		p->attached = __atomic_load_n(&p->h->attached_pid, __ATOMIC_ACQUIRE) == p->pid;
	if (!p->attached) {
		/* nothing measured yet: the command has not loaded the library */
		if (flags & POLL_FINAL)
			err = rec_emit_drop(c, "preload_not_loaded", 1,
					    "the command never loaded libptop-preload.so: the "
					    "heap was not measured");
		goto out;
	}
	sum_slots(p, &sum);
	heap__counters_delta((const uint64_t *)&sum, (uint64_t *)&p->prev, (uint64_t *)&d,
			     sizeof(sum) / sizeof(uint64_t));

	err = emit_events(p);
	if (err)
		goto out;
	walk_live(p, now_ns, heap_settings.leak_age_ns, &leak_bytes, &leak_count);
	for (i = 0; i < HPL_SITE_CAP && nrows < HP_SITE_ENTRIES; i++) {
		struct heap_usite *u = &p->sites[i];
		const struct hp_site *cur = &p->cur[i];

		if (!u->used)
			continue;
		heap__site_row(&p->rank.rows[nrows], u, cur, (uint32_t)nrows, true);
		p->rank.row_site[nrows++] = i;
	}
	err = heap__select_sites(p->rank.rows, nrows, heap_settings.top, p->rank.keep, &census);
	if (err)
		goto out;
	err = heap__fill_sites(ctx, &src, p->table, p->sites, &p->rank, nrows, &k);
	if (err)
		goto out;
	/* the temporaries of the sites kept, over the interval (fill_sites keeps the rows'
	 * order) */
	for (i = 0, j = 0; i < nrows && j < k; i++) {
		size_t si = p->rank.row_site[i];

		if (!p->rank.keep[i])
			continue;
		p->rank.hsp[j++]->temporary_count = p->temp[si] - p->temp_prev[si];
	}
	for (i = 0; i < p->n_used; i++)
		p->temp_prev[p->used_idx[i]] = p->temp[p->used_idx[i]];
	err = peak_sites(p, &hs);
	if (err)
		goto out;

	interval = now_ns > p->prev_ns ? now_ns - p->prev_ns : 0;
	p->prev_ns = now_ns;
	heap__snapshot_init(&hs, PTOP__V1__HEAP_LANE__HEAP_LANE_PRELOAD, p->lib, true, &census,
			    p->rank.hsp, k);
	hs.peak_measured = true;
	hs.peak_live_bytes = __atomic_load_n(&p->h->peak_bytes, __ATOMIC_RELAXED);
	hs.peak_time_ns = __atomic_load_n(&p->h->peak_time_ns, __ATOMIC_RELAXED);
	hs.temporary_measured = true;
	hs.temporary_count = d.temp_count;
	hs.alloc_count = d.alloc_count;
	hs.alloc_bytes = d.alloc_bytes;
	hs.free_count = d.free_count;
	hs.free_bytes = d.free_bytes;
	hs.live_bytes = heap__live_total(sum.live_bytes);
	hs.live_count = heap__live_total(sum.live_count);
	hs.leak_bytes = leak_bytes;
	hs.leak_count = leak_count;
	hs.live_untracked = d.live_untracked;
	hs.stack_failures = p->stack_unknown - p->prev_lost[2] + p->site_full - p->prev_lost[1];
	hs.free_untracked = d.free_untracked;
	err = heap__emit_snapshot(ctx, &hs, now_ns, interval);
	if (!err)
		err = emit_drops(c, p, &d);
	if (!err && p->broken && !p->broken_said) {
		p->broken_said = true;
		/* the library goes inert: it has no one to tell */
		__atomic_store_n(&p->h->state, PL_OFF, __ATOMIC_RELEASE);
		err = rec_emit_drop(c, "ring_corrupt", 1,
				    "the preload ring held a record that cannot be right: it is "
				    "no longer read");
	}
out:
	pthread_mutex_unlock(&p->mu);
	return err;
}

/* The command exec'd. A dynamic program loads the library again (PL_REC_EXEC); for a
 * static, Go, own-malloc or set-user-ID one, the lane hands over to uprobes, which the
 * recorder attaches while it holds the new program at its exec: what the lane holds is
 * written first. */
int heap_preload__exec(struct collector *c, uint64_t now_ns)
{
	struct heap_preload *p = c->priv;
	char why[200];

	if (c->state != PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE || !p || !c->ctx->exe ||
	    !c->ctx->exe[0])
		return 0;
	if (heap_preload__exe_kind(c->ctx->exe, why, sizeof(why)) <= 0)
		return 0;
	heap_preload__poll(c, now_ns, 0);
	hpl_stop(c);
	heap_preload__off(p);	/* the library does not attach in the new program */
	return heap__start_checked(c, fall_back(c, why));
}

const struct heap_lane_ops heap_preload_lane = {
	.name = "preload",
	.check = heap_preload__check,
	.start = heap_preload__start,
	.poll = heap_preload__poll,
	.stop = heap_preload__lane_stop,
	.exec = heap_preload__exec,
};
