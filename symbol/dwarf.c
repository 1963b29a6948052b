/* dwarf.c — function, file:line and the inlined-frame chain of an address, with libdw.
 *
 * The DWARF sections stay mapped from the ELF file (libdw reads them in place). The CU of
 * an address comes from .debug_aranges; when a producer left that out, a table of CU
 * ranges is built once per module from the CUs themselves.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbol/sym_internal.h"

#define MAX_CHAIN 64

struct cu_range {
	Dwarf_Addr lo, hi;
	Dwarf_Off off;       /* the CU DIE's offset */
};

struct dwarfsym {
	Dwarf *dw;
	bool ranges_built;
	struct cu_range *ranges;
	size_t nranges;
};

struct dwarfsym *dwarfsym_open(Elf *elf)
{
	struct dwarfsym *d;
	Dwarf *dw;

	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dw) {
		errno = ENODATA;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		dwarf_end(dw);
		errno = ENOMEM;
		return NULL;
	}
	d->dw = dw;
	return d;
}

void dwarfsym_free(struct dwarfsym *d)
{
	if (!d)
		return;
	dwarf_end(d->dw);
	free(d->ranges);
	free(d);
}

static int cmp_range(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Build the CU range table from every CU's DW_AT_ranges / low_pc..high_pc. */
static void build_ranges(struct dwarfsym *d)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;

	d->ranges_built = true;
	while (dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t it = 0;

		if (dwarf_offdie(d->dw, off + hsize, &cu)) {
			while ((it = dwarf_ranges(&cu, it, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				if (d->nranges == cap) {
					size_t nc = cap ? cap * 2 : 64;
					struct cu_range *nr =
						realloc(d->ranges, nc * sizeof(*nr));

					if (!nr)
						goto done;
					d->ranges = nr;
					cap = nc;
				}
				d->ranges[d->nranges++] =
					(struct cu_range){ .lo = lo, .hi = hi, .off = off + hsize };
			}
		}
		off = next;
	}
done:
	if (d->nranges)
		qsort(d->ranges, d->nranges, sizeof(*d->ranges), cmp_range);
}

static bool find_cu(struct dwarfsym *d, Dwarf_Addr addr, Dwarf_Die *cu)
{
	size_t lo = 0, hi;

	if (dwarf_addrdie(d->dw, addr, cu))
		return true;
	if (!d->ranges_built)
		build_ranges(d);
	hi = d->nranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->ranges[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges may nest or overlap across CUs: look back a few */
	for (size_t k = 0; k < 16 && lo > 0; k++, lo--) {
		const struct cu_range *r = &d->ranges[lo - 1];

		if (addr < r->hi)
			return dwarf_offdie(d->dw, r->off, cu) != NULL;
	}
	return false;
}

/* The name of a subprogram or inlined instance: the demangled linkage name where there is
 * one (C++, Rust), else DW_AT_name; both followed through abstract_origin/specification. */
static const char *die_name(struct symbolizer *s, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n;

	if ((dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	     dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a)) &&
	    (n = dwarf_formstring(&a)) != NULL)
		return symbolizer__demangle(s, n);
	if (dwarf_attr_integrate(die, DW_AT_name, &a) && (n = dwarf_formstring(&a)) != NULL)
		return n;
	return NULL;
}

/* The call site (file, line) of inlined instance DIE. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *die, const char **file, unsigned *line)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Files *files;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	if (dwarf_attr(die, DW_AT_call_line, &a) && dwarf_formudata(&a, &w) == 0)
		*line = (unsigned)w;
	if (dwarf_attr(die, DW_AT_call_file, &a) && dwarf_formudata(&a, &w) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && w < nfiles)
		*file = dwarf_filesrc(files, w, NULL, NULL);
}

int dwarfsym_lookup(struct dwarfsym *d, struct symbolizer *s, uint64_t addr,
		    struct sym_result *r, const char **line_file, unsigned *line)
{
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Line *l;
	struct sym_frame chain[MAX_CHAIN];
	const char *cfile = NULL;
	unsigned cline = 0;
	int nscopes, n = 0, i, err = -ENOENT;
	Dwarf_Addr low = 0;

	*line_file = NULL;
	*line = 0;
	if (!find_cu(d, addr, &cu))
		return -ENOENT;
	l = dwarf_getsrc_die(&cu, addr);
	if (l) {
		int ln = 0;

		*line_file = dwarf_linesrc(l, NULL, NULL);
		if (dwarf_lineno(l, &ln) == 0 && ln > 0)
			*line = (unsigned)ln;
	}
	cfile = *line_file;
	cline = *line;
	/* dwarf_getscopes continues an inlined instance with its abstract definition's
	 * context; the physical nesting (inlined into what) comes from dwarf_getscopes_die
	 * on the innermost scope. */
	nscopes = dwarf_getscopes(&cu, addr, &scopes);
	if (nscopes > 0) {
		Dwarf_Die inner = scopes[0];

		free(scopes);
		scopes = NULL;
		nscopes = dwarf_getscopes_die(&inner, &scopes);
	}
	for (i = 0; i < nscopes && n < MAX_CHAIN; i++) {
		Dwarf_Die *sc = &scopes[i];
		int tag = dwarf_tag(sc);
		const char *name;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		name = die_name(s, sc);
		chain[n] = (struct sym_frame){
			.func = name ? name : "??",
			.file = cfile,
			.line = cline,
			.inlined = tag == DW_TAG_inlined_subroutine,
		};
		n++;
		if (tag == DW_TAG_subprogram) {
			if (dwarf_entrypc(sc, &low) != 0 && dwarf_lowpc(sc, &low) != 0)
				low = addr;
			err = 0;
			break;
		}
		/* the caller's position is where this instance was inlined */
		call_site(&cu, sc, &cfile, &cline);
	}
	free(scopes);
	if (err)
		return err;
	/* keep the innermost frames and the function itself */
	r->n = 0;
	for (i = 0; i < n; i++) {
		if (r->n == SYM_MAX_FRAMES - 1 && i != n - 1)
			continue;
		r->frames[r->n++] = chain[i];
	}
	r->frames[r->n - 1].inlined = false;
	r->source = SYM_SRC_DWARF;
	r->miss = SYM_MISS_NONE;
	r->func_offset = addr >= low ? addr - low : 0;
	return 0;
}
