/* stackcopy.c — the recorder's side of the stack copies: their ids and Stack records,
 * and the frame-pointer census behind --user-stacks auto (record/stackcopy.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <elfutils/libdw.h>
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <bpf/bpf.h>

#include "record/bpf_util.h"
#include "record/collector.h"
#include "record/kfeature.h"
#include "record/record.h"
#include "record/stackcopy.h"
#include "record/stack_table.h"

/* ------------------------------------------------------------------ the copies */

struct sc_slot {
	uint64_t hash;			/* 0: empty */
	uint64_t id;
	uint32_t tgid;
};

struct stack_copies {
	struct sc_slot *slots;		/* open addressing */
	size_t cap;			/* power of two */
	size_t count;
};

static struct sc_slot *sc_find(struct sc_slot *slots, size_t cap, uint32_t tgid, uint64_t hash)
{
	size_t i = (hash ^ (uint64_t)tgid * 0x9E3779B97F4A7C15ULL) & (cap - 1);

	for (;; i = (i + 1) & (cap - 1))
		if (!slots[i].hash || (slots[i].hash == hash && slots[i].tgid == tgid))
			return &slots[i];
}

struct stack_copies *stack_copies__capture(void)
{
	static struct stack_copies *capture;

	if (capture)
		return capture;
	capture = calloc(1, sizeof(*capture));
	if (!capture)
		return NULL;
	capture->cap = 256;
	capture->slots = calloc(capture->cap, sizeof(*capture->slots));
	if (!capture->slots) {
		free(capture);
		capture = NULL;
		errno = ENOMEM;
	}
	return capture;
}

static int sc_grow(struct stack_copies *s)
{
	size_t cap = s->cap * 2, i;
	struct sc_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < s->cap; i++)
		if (s->slots[i].hash)
			*sc_find(slots, cap, s->slots[i].tgid, s->slots[i].hash) = s->slots[i];
	free(s->slots);
	s->slots = slots;
	s->cap = cap;
	return 0;
}

int stack_copies__add(struct rec_ctx *ctx, struct stack_copies *s, struct stack_table *t,
		      const struct sc_copy *c, size_t len)
{
	Ptop__V1__Record rec = PTOP__V1__RECORD__INIT;
	Ptop__V1__Stack st = PTOP__V1__STACK__INIT;
	Ptop__V1__StackCopy cp = PTOP__V1__STACK_COPY__INIT;
	struct sc_slot *slot;
	int err;

	if (len < SC_HDR_BYTES || !c->hash || c->bytes > SC_MAX_BYTES ||
	    len < SC_HDR_BYTES + (size_t)c->bytes)
		return -EINVAL;
	slot = sc_find(s->slots, s->cap, c->tgid, c->hash);
	if (slot->hash)
		return 0;
	if ((s->count + 1) * 4 > s->cap * 3) {
		err = sc_grow(s);
		if (err)
			return err;
		slot = sc_find(s->slots, s->cap, c->tgid, c->hash);
	}
	slot->hash = c->hash;
	slot->tgid = c->tgid;
	slot->id = stack_table__reserve(t);
	s->count++;

	cp.pid = (int32_t)c->tgid;
	cp.tid = (int32_t)c->tid;
	cp.ip = c->ip;
	cp.sp = c->sp;
	cp.bp = c->bp;
	cp.stack.data = (uint8_t *)c->words;
	cp.stack.len = c->bytes;
	cp.time_ns = c->time_ns;
	cp.flags = c->flags;
	st.id = slot->id;
	st.copy = &cp;
	rec.kind_case = PTOP__V1__RECORD__KIND_STACK;
	rec.stack = &st;
	return rec_emit(ctx, &rec);
}

int stack_copies__find(const struct stack_copies *s, uint32_t tgid, uint64_t hash, uint64_t *id)
{
	const struct sc_slot *slot;

	if (!s || !hash)
		return -ENOENT;
	slot = sc_find(s->slots, s->cap, tgid, hash);
	if (!slot->hash)
		return -ENOENT;
	*id = slot->id;
	return 0;
}

size_t stack_copies__count(const struct stack_copies *s)
{
	return s ? s->count : 0;
}

int sc_vmas__seed(int fd, pid_t pid, int ncpus)
{
	struct sc_vmas t, *v;
	__u32 key = (__u32)pid;
	int err;

	if (pid <= 0 || ncpus <= 0)
		return -EINVAL;
	err = sc_vmas__read(pid, &t);
	if (err)
		return err;
	v = calloc((size_t)ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (int i = 0; i < ncpus; i++)
		v[i] = t;
	err = bpf_map_update_elem(fd, &key, v, BPF_ANY) ? -errno : 0;
	free(v);
	return err;
}

int sc_vmas__read(pid_t pid, struct sc_vmas *t)
{
	char path[64], line[4096 + 256];
	unsigned n = 0;
	FILE *f;

	struct stat st;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st))
		return -errno;
	t->ino = st.st_ino;	/* the BPF side checks it is still this program */
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	/* three passes: the executable mappings, the stack and the heap, then the other
	 * writable ones, as many as fit; and the VMAs counted, as the kernel counts them
	 * (mm->map_count: [vsyscall] is not one) */
	for (int pass = 0; pass < 3 && n < SC_VMAS; pass++) {
		unsigned vmas = 0, execs = 0;

		f = fopen(path, "re");
		if (!f)
			return -errno;
		while (fgets(line, sizeof(line), f)) {
			unsigned long long a, b;
			char perms[8], name[64];
			bool x;

			name[0] = 0;
			if (sscanf(line, "%llx-%llx %7s %*x %*s %*u %63s", &a, &b, perms, name) < 3)
				continue;
			x = perms[2] == 'x';
			if (a >= 0x800000000000ULL)
				continue;	/* [vsyscall] */
			vmas++;
			execs += x;
			/* the executable ones take 2/3 of the table at most: the stack
			 * and the heap have room */
			if (n == SC_VMAS || (pass == 0 && n == SC_VMAS * 2 / 3))
				continue;
			if (pass == 0 ? !x :
			    pass == 1 ? (x || (strcmp(name, "[stack]") && strcmp(name, "[heap]"))) :
					(x || perms[1] != 'w' || !strcmp(name, "[stack]") ||
					 !strcmp(name, "[heap]")))
				continue;
			t->start[n] = a;
			t->end[n] = b;
			if (x)
				t->exec |= 1u << n;
			n++;
		}
		fclose(f);
		t->map_count = vmas;
		if (pass == 0) {	/* learning keeps the executable ones */
			t->fixed = n;
			t->complete = execs == n;	/* they all fit */
		}
	}
	t->next = n > t->fixed ? n - t->fixed : 0;
	return 0;
}

/* ------------------------------------------------------------------ --user-stacks */

static const char *const us_names[] = {
	[USER_STACKS_AUTO] = "auto",
	[USER_STACKS_FP] = "fp",
	[USER_STACKS_DWARF] = "dwarf",
};

const char *user_stacks_name(enum user_stacks m)
{
	return (unsigned)m < sizeof(us_names) / sizeof(us_names[0]) ? us_names[m] : NULL;
}

int user_stacks_parse(const char *arg, enum user_stacks *m)
{
	for (unsigned i = 0; i < sizeof(us_names) / sizeof(us_names[0]); i++) {
		if (arg && !strcmp(arg, us_names[i])) {
			*m = (enum user_stacks)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* ------------------------------------------------------------------ census */

/* The CFA rule at PC of CFI: 6 when it is on %rbp, 7 on %rsp (*OFF its offset), -1
 * when the CFI has no rule there. */
static int cfa_reg(Dwarf_CFI *cfi, uint64_t pc, int64_t *off)
{
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops = NULL;
	size_t nops = 0;
	int reg = -1;

	if (dwarf_cfi_addrframe(cfi, pc, &fr) != 0)
		return -1;
	if (dwarf_frame_cfa(fr, &ops, &nops) == 0 && nops >= 1) {
		if (ops[0].atom == DW_OP_bregx) {	/* libdw's form: register, offset */
			reg = ops[0].number == 6 || ops[0].number == 7 ? (int)ops[0].number : -1;
			*off = (int64_t)ops[0].number2;
		} else if (ops[0].atom == DW_OP_breg6 || ops[0].atom == DW_OP_breg7) {
			reg = ops[0].atom == DW_OP_breg6 ? 6 : 7;
			*off = (int64_t)ops[0].number;
		}
	}
	free(fr);
	return reg;
}

int fp_census__module(const char *path, struct fp_census *c)
{
	Elf_Scn *scn = NULL;
	Dwarf_CFI *cfi = NULL;
	Elf *e = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	int fd, err = 0;

	memset(c, 0, sizeof(*c));
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx)) {
		err = -EINVAL;
		goto cleanup;
	}
	cfi = dwarf_getcfi_elf(e);
	while (cfi && (scn = elf_nextscn(e, scn))) {
		const uint8_t *p, *end;
		const char *name;
		Elf_Data *d;
		uint32_t count;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".eh_frame_hdr"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < 12)
			break;
		p = d->d_buf;
		end = p + d->d_size;
		/* version 1; eh_frame_ptr pcrel|sdata4; fde_count udata4; table datarel|sdata4:
		 * what binutils and lld write; the table is sorted by address */
		if (p[0] != 1 || p[1] != 0x1b || p[2] != 0x03 || p[3] != 0x3b)
			break;
		memcpy(&count, p + 8, 4);
		p += 12;
		for (uint32_t i = 0; i < count && p + 8 <= end; i++, p += 8) {
			int32_t loc, next;
			uint64_t lo, hi;
			bool framed = false, on_rbp = false;

			memcpy(&loc, p, 4);
			lo = sh.sh_addr + (int64_t)loc;
			if (p + 16 <= end && i + 1 < count) {
				memcpy(&next, p + 8, 4);
				hi = sh.sh_addr + (int64_t)next;
			} else {
				hi = lo + 64;
			}
			if (hi <= lo)
				continue;
			/* the rule a quarter, half and three quarters in: a function with a
			 * frame has one there (past a shrink-wrapped early exit) */
			for (int k = 1; k <= 3; k++) {
				int64_t off = 0;
				int r = cfa_reg(cfi, lo + (hi - lo) * k / 4, &off);

				on_rbp |= r == 6;
				framed |= r == 6 || (r == 7 && off > 8);
			}
			if (!framed)
				continue;	/* a leaf or a stub: nothing to walk through */
			c->functions++;
			c->with_fp += on_rbp;
		}
		c->usable = c->functions > 0;
		break;
	}
cleanup:
	if (cfi)
		dwarf_cfi_end(cfi);
	elf_end(e);
	close(fd);
	return err;
}

bool fp_census__has_fp(const struct fp_census *c)
{
	return c->usable && (uint64_t)c->with_fp * 2 >= (uint64_t)c->functions;
}

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');

	return b ? b + 1 : p;
}

/* glibc's own modules: built without frame pointers nearly everywhere, and not judged.
 * Their frames seldom break a frame-pointer walk: the start frames are the outermost
 * (main is reached), and their leaf functions leave %rbp alone (the walk goes on from
 * the caller's frame). */
static bool is_glibc(const char *path)
{
	static const char *const names[] = { "libc.so", "ld-linux", "libm.so", "libpthread.so",
					     "libdl.so", "librt.so", "libresolv.so" };
	const char *b = base_name(path);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(b, names[i], strlen(names[i])))
			return true;
	return false;
}

/* Judge module PATH (opened through ROOT, "/proc/PID/root", when that works); append
 * it to WHY when it keeps no frame pointers. Returns 1 when it keeps them, 0 not, and
 * 1 too for a module without the .eh_frame_hdr table (a Go program's: Go keeps frame
 * pointers, and no copy could be unwound through it from CFI anyway), which is not
 * counted as judged. */
static int judge(const char *root, const char *path, char *why, size_t len, unsigned *judged)
{
	struct fp_census c;
	char full[4096 + 64];
	size_t at = strlen(why);

	if (is_glibc(path))
		return 1;
	snprintf(full, sizeof(full), "%s%s", root, path);
	if (fp_census__module(full, &c) && fp_census__module(path, &c))
		c.usable = false;
	if (!c.usable)
		return 1;
	(*judged)++;
	if (fp_census__has_fp(&c))
		return 1;
	if (at < len)
		snprintf(why + at, len - at, "%s%s (%u of %u functions)", at ? ", " : "",
			 base_name(path), c.with_fp, c.functions);
	return 0;
}

/* The libraries ELF file PATH needs (DT_NEEDED), each found in the usual library
 * folders, judged as judge() does. Returns 0 when one keeps no frame pointers. */
static int judge_needed(const char *path, char *why, size_t len, unsigned *judged)
{
	static const char *const dirs[] = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
					    "/lib64", "/usr/lib64", "/lib", "/usr/lib",
					    "/usr/local/lib" };
	Elf_Scn *scn = NULL;
	int fd, all = 1;
	Elf *e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			char lib[4096 + 256];
			const char *name;
			GElf_Dyn dyn;

			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag != DT_NEEDED)
				continue;
			name = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
			if (!name || strchr(name, '/'))
				continue;
			for (size_t k = 0; k < sizeof(dirs) / sizeof(dirs[0]); k++) {
				snprintf(lib, sizeof(lib), "%s/%s", dirs[k], name);
				if (access(lib, R_OK) == 0) {
					all &= judge("", lib, why, len, judged);
					break;
				}
			}
		}
	}
	elf_end(e);
	close(fd);
	return all;
}

/* Whether PATH is a script ("#!"): the program it runs is not PATH. */
static bool is_script(const char *path)
{
	char head[2];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool yes;

	if (fd < 0)
		return false;
	yes = read(fd, head, 2) == 2 && head[0] == '#' && head[1] == '!';
	close(fd);
	return yes;
}

enum user_stacks user_stacks__choose(const struct rec_ctx *ctx, char *why, size_t len)
{
	char judged[140];
	enum user_stacks m;

	switch (ctx->user_stacks) {
	case USER_STACKS_FP:
		snprintf(why, len, "--user-stacks fp");
		return USER_STACKS_FP;
	case USER_STACKS_DWARF:
		snprintf(why, len, "--user-stacks dwarf");
		return USER_STACKS_DWARF;
	default:
		break;
	}
	if (ctx->mode == PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP) {
		snprintf(why, len, "--user-stacks auto: a cgroup's processes are not known "
				   "at start");
		return USER_STACKS_DWARF;
	}
	if (ctx->caps_only) {	/* --caps: as a launched command not yet judged */
		snprintf(why, len, "--user-stacks auto: no target to judge (--caps), as for "
				   "a target without frame pointers");
		return USER_STACKS_DWARF;
	}
	/* a command that is a script (a pyenv shim): the program it runs (python3) is not
	 * known until it runs, and is not judged: copies, which unwind with or without
	 * frame pointers */
	if (ctx->mode == PTOP__V1__TARGET_MODE__TARGET_MODE_COMMAND && ctx->exe &&
	    is_script(ctx->exe)) {
		const char *base = strrchr(ctx->exe, '/');

		snprintf(why, len, "--user-stacks auto: %.80s is a script, the program it runs "
				   "is not judged before it runs",
			 base ? base + 1 : ctx->exe);
		return USER_STACKS_DWARF;
	}
	m = user_stacks__auto(ctx->pid,
			      ctx->mode == PTOP__V1__TARGET_MODE__TARGET_MODE_COMMAND ? ctx->exe : NULL,
			      judged, sizeof(judged));
	snprintf(why, len, "--user-stacks auto: %s", judged);
	return m;
}

enum user_stacks user_stacks__auto(pid_t pid, const char *exe, char *why, size_t len)
{
	char list[1024] = "", path[4096 + 64], root[64] = "", line[4096 + 256];
	char seen[64][256];
	unsigned nseen = 0, judged = 0;
	bool all = true;
	FILE *f = NULL;

	if (pid > 0 && !exe) {
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
		snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
		f = fopen(path, "re");
	}
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char perms[8], file[4096];
			unsigned i;

			file[0] = 0;
			if (sscanf(line, "%*x-%*x %7s %*x %*s %*u %4095[^\n]", perms, file) < 2 ||
			    perms[2] != 'x' || file[0] != '/')
				continue;
			for (i = 0; i < nseen; i++)
				if (!strncmp(seen[i], file, sizeof(seen[i]) - 1))
					break;
			if (i < nseen)
				continue;
			if (nseen < 64)
				snprintf(seen[nseen++], sizeof(seen[0]), "%s", file);
			if (!judge(root, file, list, sizeof(list), &judged))
				all = false;
		}
		fclose(f);
	} else {
		/* a launched command: its executable, and the libraries it needs (not
		 * mapped yet) from the usual folders */
		if (exe && !judge("", exe, list, sizeof(list), &judged))
			all = false;
		if (exe && !judge_needed(exe, list, sizeof(list), &judged))
			all = false;
	}
	if (!judged) {
		snprintf(why, len, "no module to judge (glibc's are not; one without "
				   ".eh_frame_hdr, as Go's, keeps frame pointers)");
		return USER_STACKS_FP;
	}
	if (all) {
		snprintf(why, len, "the %u modules judged keep frame pointers (glibc's not "
				   "judged)", judged);
		return USER_STACKS_FP;
	}
	snprintf(why, len, "no frame pointers in %s", list);
	return USER_STACKS_DWARF;
}

/* ------------------------------------------------------------------ the lanes */

enum user_stacks user_stacks__kernel(enum user_stacks mode, char *why, size_t len, char *kwhy,
				     size_t klen)
{
	size_t at;

	kwhy[0] = '\0';
	if (mode != USER_STACKS_DWARF || (kfeature_have(KF_BPF_LOOP, kwhy, klen) &&
					  kfeature_have(KF_FIND_VMA, kwhy, klen) &&
					  kfeature_have(KF_RINGBUF, kwhy, klen))) {
		kwhy[0] = '\0';
		return mode;
	}
	at = strlen(why);
	if (snprintf(why + at, len - at, "; no stack copies here: %s", kwhy) < 0)
		why[at] = '\0';
	return USER_STACKS_FP;
}

void user_stacks__lanes(struct collector *c, enum user_stacks mode, Ptop__V1__ProbeSource src,
			const char *kwhy, const char *standby_why)
{
	const Ptop__V1__ProbeState active = PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE;
	const Ptop__V1__ProbeState standby = PTOP__V1__PROBE_STATE__PROBE_STATE_STANDBY;

	if (mode == USER_STACKS_DWARF) {
		collector_lane(c, "stack_copy", active, src, "%s", "");
		collector_lane(c, "fp", standby, src, "not needed: %s",
			       standby_why ? standby_why : "stack copies");
		return;
	}
	if (kwhy && kwhy[0]) {
		collector_lane(c, "stack_copy", PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED, src,
			       "%s", kwhy);
		collector_lane(c, "fp", active, src, "%s", "");
		collector_lane_fallback(c, "stack_copy", "fp", "--user-stacks fp");
		return;
	}
	collector_lane(c, "stack_copy", standby, src, "not needed: %s",
		       standby_why ? standby_why : "frame pointers");
	collector_lane(c, "fp", active, src, "%s", "");
}

bool user_stacks__copy_refused(enum user_stacks mode)
{
	return mode == USER_STACKS_DWARF && kfeature_refused("stack_copy");
}

void user_stacks__copy_failed(struct collector *c, Ptop__V1__ProbeSource src, const char *what,
			      int err, char *why, size_t len)
{
	if (kfeature_refused("stack_copy"))
		snprintf(why, len, "load refused by PTOP_TEST_REFUSE");
	else
		bpf_util__format_error(why, len, what, err);
	collector_lane(c, "stack_copy", PTOP__V1__PROBE_STATE__PROBE_STATE_FAILED, src, "%s", why);
	collector_lane(c, "fp", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE, src, "%s", "");
	collector_lane_fallback(c, "stack_copy", "fp", "--user-stacks fp");
}
