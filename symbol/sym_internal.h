/* sym_internal.h — pieces of the symbolizer shared between its files (not a public contract):
 * ELF symbol tables, Go's pclntab, DWARF lookups and debuginfod fetches.
 */
#ifndef PTOP_SYM_INTERNAL_H
#define PTOP_SYM_INTERNAL_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

#include "symbol/symbolizer.h"

/* Demangle NAME (C++/Rust "_Z..." names) into a string owned by S; NAME itself when it is
 * not mangled or cannot be demangled. Never NULL for a non-NULL NAME. */
const char *symbolizer__demangle(struct symbolizer *s, const char *name);

/* Intern the LEN bytes at STR (a copy owned by S, NUL-terminated). NULL on ENOMEM. */
const char *symbolizer__intern(struct symbolizer *s, const char *str, size_t len);

/* ---- elfsym.c: .symtab / .dynsym, sorted by address */

#define ELFSYM_ALIASES 4

struct elfsym_entry {
	uint64_t addr;
	uint64_t size;       /* 0: up to the next symbol, bounded by its section */
	uint64_t limit;      /* end of the section the symbol is in */
	const char *name;    /* points into the mapped string table */
	int rank;            /* 2 global, 1 weak, 0 local */
	/* the local names at the same address that lost to NAME (glibc's __GI_ aliases), so
	 * that a DWARF name equal to one is shown as NAME, as perf does; NULL when none */
	const char *local_alias[ELFSYM_ALIASES];
};

struct elfsym_table {
	struct elfsym_entry *v;
	size_t n;
	char **owned;        /* names made here ("NAME@plt"), freed with the table */
	size_t n_owned;
};

/* Load the function symbols of the first section of type SHTYPE (SHT_SYMTAB or SHT_DYNSYM)
 * of ELF. 0 (T may hold 0 entries), -ENODATA when there is no such section, -ENOMEM. */
int elfsym_load(Elf *elf, unsigned shtype, struct elfsym_table *t);

/* The PLT stubs of an x86-64 ELF (.plt, .plt.sec, .plt.got) as symbols "NAME@plt", as perf
 * and objdump name them: each stub's `jmp *SLOT(%rip)` (after an endbr64 or a bnd prefix)
 * names the GOT slot, and the JUMP_SLOT or GLOB_DAT relocation of that slot names the
 * function. 0 (T may hold 0 entries), -ENODATA (not x86-64, or no PLT), -ENOMEM. */
int elfsym_load_plt(Elf *elf, struct elfsym_table *t);

/* The symbol covering ADDR, or NULL. At one address the name perf would pick wins: a
 * sized symbol over an unsized one, then not weak over weak, global over local, fewer
 * leading underscores, the longer name (so __errno_location, not
 * __GI___errno_location; malloc, not __libc_malloc). */
const struct elfsym_entry *elfsym_find(const struct elfsym_table *t, uint64_t addr);

/* The exported name for a function that DWARF calls NAME and that starts at START: the
 * winning symbol there when NAME is one of its local aliases (glibc's internal
 * __GI_ names), else NULL (keep NAME). */
const char *elfsym_exported_name(const struct elfsym_table *t, uint64_t start, const char *name);

void elfsym_free(struct elfsym_table *t);

/* Whether ELF has a section named NAME with contents (not SHT_NOBITS). */
bool elf_has_section(Elf *elf, const char *name);

/* Find the section named NAME; NULL if absent. */
Elf_Scn *elf_find_section(Elf *elf, const char *name, GElf_Shdr *sh);

/* ---- gopclntab.c: Go's function table (Go 1.16 and later formats) */

struct gopcln;

/* Parse ELF's .gopclntab. NULL (errno ENODATA: none, ENOTSUP: a format not handled,
 * EINVAL: malformed, ENOMEM). The table stays mapped from ELF, which must outlive it. */
struct gopcln *gopcln_open(Elf *elf);

/* Name PC: function name, source file and line (0/NULL when unknown) and the function's
 * entry. 0, or -ENOENT when no function covers PC, -EINVAL on a malformed entry. */
int gopcln_find(const struct gopcln *g, uint64_t pc, const char **func, const char **file,
		unsigned *line, uint64_t *entry);

/* The entry pc and end (the next function's entry) of the function named NAME, by a
 * linear walk of the function table. 0, or -ENOENT when no function has that name. */
int gopcln_func_by_name(const struct gopcln *g, const char *name, uint64_t *entry,
			uint64_t *end);

void gopcln_free(struct gopcln *g);

/* ---- dwarf.c: libdw lookups */

struct dwarfsym;

/* Open the DWARF of ELF (which must outlive it). NULL with errno ENODATA when ELF has no
 * DWARF. Sections stay mapped from the file. */
struct dwarfsym *dwarfsym_open(Elf *elf);

/* Fill R's frames (innermost first), source SYM_SRC_DWARF and func_offset for ADDR. 0 when
 * a function was found; -ENOENT when no subprogram covers ADDR (then *LINE_FILE and *LINE
 * carry the line-table row for ADDR if there is one, for a symbol-table name to use). */
int dwarfsym_lookup(struct dwarfsym *d, struct symbolizer *s, uint64_t addr,
		    struct sym_result *r, const char **line_file, unsigned *line);

void dwarfsym_free(struct dwarfsym *d);

/* ---- debuginfod.c */

/* Ask the servers in URLS (NULL: $DEBUGINFOD_URLS) for the debug info (EXECUTABLE false) or
 * the executable of build-id ID, storing into CACHE_DIR (NULL: the client's default cache).
 * Returns an open fd and sets *PATH (malloc'ed, the caller frees), or -errno (-ENOSYS when
 * no server is configured). */
int sym_debuginfod_fetch(const uint8_t *id, size_t len, bool executable, const char *urls,
			 const char *cache_dir, char **path);

#endif
