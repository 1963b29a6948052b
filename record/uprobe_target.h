/* uprobe_target.h — where a collector puts its uprobes, a shared service of the
 * recorder beside record/uprobe_link.h (which attaches them): the checks every uprobe
 * collector makes first and the lane its uprobes take, the target's executable as this
 * process opens it, a function's file offset in an ELF file, and the offset in the
 * function where the probe costs least (an instruction the kernel emulates).
 *
 * A collector's check(): uprobe_target__precheck(); when it says
 * PROBE_STATE_UNSPECIFIED, uprobe_target__exe() for the file, uprobe_target__elf_func()
 * for each function, uprobe_target__choose_probe() on its first bytes; its start():
 * uprobe_link__attach() (record/uprobe_link.h) at offset + point.offset.
 */
#ifndef PTOP_RECORD_UPROBE_TARGET_H
#define PTOP_RECORD_UPROBE_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/ptop.pb-c.h"

struct collector;
struct rec_ctx;

/* Where to put a function's entry uprobe. */
struct uprobe_point {
	uint32_t offset;   /* bytes from the function's first instruction */
	bool emulated;	   /* the instruction there is one the kernel emulates (push,
			    * jmp, jcc, nop); false: the fallback +0, single-stepped */
	bool null_skipped; /* the probe is past a NULL check of the first argument */
	char why[80];	   /* what was decoded, for the probe detail */
};

/* Decode the first LEN bytes of a function's code (CODE) and choose the first
 * instruction the kernel can emulate that every call reaches with the argument
 * registers and the stack pointer as they were at entry (so the return address is
 * still on top of the stack). Instructions passed over: endbr64, cmp $imm,rip-rel
 * memory, mov reg,reg into a scratch register, and — only when NULL_SKIP (free) — a
 * `test %rdi,%rdi` followed by `je`, the NULL check (free(NULL) does nothing, so the
 * probe may miss it). Anything else stops the walk and the choice falls back to +0
 * (single-stepped), said in PP->why. Always fills PP; returns 0. */
int uprobe_target__choose_probe(const uint8_t *code, size_t len, bool null_skip,
				struct uprobe_point *pp);

/* The file offset and size of the function NAME defined (not undefined, STT_FUNC or
 * STT_GNU_IFUNC) in the ELF file open on FD, from .symtab or .dynsym; a versioned
 * dynamic name ("malloc@@GLIBC_2.2.5") matches too. 0, -ENOENT (not defined there),
 * or -errno. */
int uprobe_target__elf_func(int fd, const char *name, uint64_t *offset, uint64_t *size);

/* The DT_NEEDED names of the ELF file open on FD, written into BUF (LEN bytes) as
 * NUL-separated strings, the count in *N. 0 or -errno (-ENOENT: no dynamic section). */
int uprobe_target__elf_needed(int fd, char *buf, size_t len, int *n);

/* The file offset of ELF virtual address VADDR (the PT_LOAD holding it), opened
 * with libelf (an Elf *; void * keeps libelf out of this header). 0, -ENOENT
 * when no segment holds it, -EINVAL on a broken file. */
int uprobe_target__vaddr_to_offset(void *elf, uint64_t vaddr, uint64_t *off);

/* What every uprobe collector checks first, alike: not in --cgroup mode (the
 * uprobes attach to one process), not with --no-ebpf, and the privileges to trace;
 * with --caps or no target yet, active with CAPS_DETAIL. Sets the source and clears
 * the reason; the reasons given are CGROUP_WHY and NO_EBPF_WHY. Then the lane the
 * uprobes take (uprobe_multi links, else perf-event uprobes: record/uprobe_link.h), in
 * c->lanes; COOKIES: the program reads attach cookies (perf-event uprobes need 5.15 for
 * them). Returns the state when one of these decides, else PROBE_STATE_UNSPECIFIED: go
 * on to find the probe points. */
Ptop__V1__ProbeState uprobe_target__precheck(struct collector *c, const char *cgroup_why,
					     const char *no_ebpf_why, const char *caps_detail,
					     bool cookies);

/* The target's executable for a uprobe on it: PATH as the target maps it, OPEN_PATH
 * where this process opens it (the command's path as launched; for --pid its
 * /proc/PID/exe through /proc/PID/root, another mount namespace's file included).
 * 0, or -errno with WHY filled ("cannot read /proc/PID/exe: ..."). */
int uprobe_target__exe(const struct rec_ctx *ctx, char *path, size_t plen, char *open_path,
		       size_t olen, char *why, size_t wlen);

#endif
