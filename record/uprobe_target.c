/* uprobe_target.c — where a collector puts its uprobes (record/uprobe_target.h): the
 * x86-64 prologue decoder that chooses each probe's offset, the ELF look-ups of a
 * function's file offset and of the needed libraries, the target's executable, and the
 * checks every uprobe collector makes first. Shared by heap, goalloc, mark and fds.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record/bpf_util.h"
#include "record/collector.h"
#include "record/uprobe_link.h"
#include "record/uprobe_target.h"

/* Registers that carry arguments or the stack: a mov into one of them stops the walk. */
static bool arg_or_stack_reg(unsigned r)
{
	/* rcx 1, rdx 2, rsp 4, rbp 5, rsi 6, rdi 7, r8 8, r9 9 */
	return r == 1 || r == 2 || r == 4 || r == 5 || r == 6 || r == 7 || r == 8 || r == 9;
}

static void choose(struct uprobe_point *pp, size_t off, const char *what)
{
	pp->offset = (uint32_t)off;
	pp->emulated = true;
	snprintf(pp->why, sizeof(pp->why), "+%zu %s", off, what);
}

int uprobe_target__choose_probe(const uint8_t *c, size_t len, bool null_skip,
				struct uprobe_point *pp)
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

static Elf *elf_open_fd(int fd)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	return elf_begin(fd, ELF_C_READ_MMAP, NULL);
}

/* The file offset of virtual address VADDR: through the PT_LOAD that holds it. */
int uprobe_target__vaddr_to_offset(void *e, uint64_t vaddr, uint64_t *off)
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

int uprobe_target__elf_func(int fd, const char *name, uint64_t *offset, uint64_t *size)
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
				if (uprobe_target__vaddr_to_offset(elf, s.st_value, offset))
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

int uprobe_target__elf_needed(int fd, char *buf, size_t len, int *n)
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

int uprobe_target__exe(const struct rec_ctx *ctx, char *path, size_t plen, char *open_path,
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

Ptop__V1__ProbeState uprobe_target__precheck(struct collector *c, const char *cgroup_why,
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
