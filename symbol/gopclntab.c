/* gopclntab.c — Go's own function table (.gopclntab): function name, file and line for a PC.
 *
 * Go keeps this table in every binary, even one linked with -ldflags='-s -w' (no .symtab, no
 * DWARF), because the runtime needs it for tracebacks. Formats handled: Go 1.16-1.17 (magic
 * 0xfffffffa) and Go 1.18+ (0xfffffff0, 0xfffffff1 from 1.20). Every offset read from the
 * table is bounds-checked: a corrupt table gives a miss, never a crash.
 * Inlined Go frames are not expanded (that needs the funcdata base, go:func.*): the line is
 * the innermost one, the function the physical one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbol/sym_internal.h"

struct gopcln {
	const uint8_t *p;     /* the table, mapped from the file */
	size_t size;
	int ver;              /* 116 or 118 */
	unsigned quantum;     /* minLC: pc step unit */
	unsigned ptrsize;
	uint64_t nfunc;
	uint64_t text_start;  /* 1.18+: entry = text_start + entryoff */
	const uint8_t *funcname, *cutab, *filetab, *pctab, *functab;
	size_t funcname_len, cutab_len, filetab_len, pctab_len, functab_len;
};

static uint64_t rd(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Set *BASE and *LEN to the part of the table from OFF on; false if OFF is outside. */
static bool region(const struct gopcln *g, uint64_t off, const uint8_t **base, size_t *len)
{
	if (off > g->size)
		return false;
	*base = g->p + off;
	*len = g->size - off;
	return true;
}

struct gopcln *gopcln_open(Elf *elf)
{
	struct gopcln *g = NULL;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *data;
	uint32_t magic;
	uint64_t off[6];
	unsigned i, nhdr, ps;
	const uint8_t *h;
	int err = EINVAL;

	scn = elf_find_section(elf, ".gopclntab", &sh);
	if (!scn || sh.sh_type == SHT_NOBITS) {
		errno = ENODATA;
		return NULL;
	}
	data = elf_getdata(scn, NULL); /* SHT_PROGBITS: no conversion, a view of the map */
	if (!data || !data->d_buf || data->d_size < 16)
		goto cleanup;
	g = calloc(1, sizeof(*g));
	if (!g) {
		err = ENOMEM;
		goto cleanup;
	}
	g->p = data->d_buf;
	g->size = data->d_size;
	h = g->p;
	magic = (uint32_t)rd(h, 4);
	if (magic == 0xfffffff0 || magic == 0xfffffff1)
		g->ver = 118;
	else if (magic == 0xfffffffa)
		g->ver = 116;
	else {
		err = ENOTSUP;
		goto cleanup;
	}
	if (h[4] != 0 || h[5] != 0 || (h[7] != 4 && h[7] != 8) || h[6] == 0)
		goto cleanup;
	g->quantum = h[6];
	g->ptrsize = ps = h[7];
	/* nfunc, nfiles, [textStart], funcname, cu, filetab, pctab, pcln offsets */
	nhdr = g->ver == 118 ? 8 : 7;
	if (g->size < 8 + (size_t)nhdr * ps)
		goto cleanup;
	g->nfunc = rd(h + 8, ps);
	i = 2;
	if (g->ver == 118)
		g->text_start = rd(h + 8 + 2 * ps, ps), i = 3;
	for (unsigned k = 0; k < 5; k++, i++)
		off[k] = rd(h + 8 + i * ps, ps);
	if (!region(g, off[0], &g->funcname, &g->funcname_len) ||
	    !region(g, off[1], &g->cutab, &g->cutab_len) ||
	    !region(g, off[2], &g->filetab, &g->filetab_len) ||
	    !region(g, off[3], &g->pctab, &g->pctab_len) ||
	    !region(g, off[4], &g->functab, &g->functab_len))
		goto cleanup;
	/* functab: nfunc+1 pairs (entry, funcoff): uint32 each in 1.18+, uintptr in 1.16 */
	if (g->nfunc == 0 ||
	    g->nfunc + 1 > g->functab_len / (g->ver == 118 ? 8 : 2 * (size_t)ps))
		goto cleanup;
	if (g->ver == 118 && g->text_start == 0) {
		/* a PIE's textStart is filled by a dynamic relocation: use .text's address */
		if (elf_find_section(elf, ".text", &sh))
			g->text_start = sh.sh_addr;
	}
	return g;
cleanup:
	free(g);
	errno = err;
	return NULL;
}

/* Entry pc and _func offset of functab slot I. */
static void ftab(const struct gopcln *g, uint64_t i, uint64_t *entry, uint64_t *funcoff)
{
	if (g->ver == 118) {
		const uint8_t *p = g->functab + i * 8;

		*entry = g->text_start + rd(p, 4);
		*funcoff = rd(p + 4, 4);
	} else {
		const uint8_t *p = g->functab + i * 2 * g->ptrsize;

		*entry = rd(p, g->ptrsize);
		*funcoff = rd(p + g->ptrsize, g->ptrsize);
	}
}

static bool varint(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
	uint32_t r = 0;
	unsigned shift = 0;

	while (*p < end && shift < 35) {
		uint8_t b = *(*p)++;

		r |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return true;
		}
		shift += 7;
	}
	return false;
}

/* The value of pc-value table OFF at TARGET for a function starting at ENTRY; -1 if none. */
static int32_t pcvalue(const struct gopcln *g, uint32_t off, uint64_t entry, uint64_t target)
{
	const uint8_t *p, *end = g->pctab + g->pctab_len;
	uint64_t pc = entry;
	int32_t val = -1;
	bool first = true;

	if (off == 0 || off >= g->pctab_len)
		return -1;
	p = g->pctab + off;
	for (int guard = 0; guard < 1000000; guard++) {
		uint32_t uv, pcd;

		if (p >= end)
			return -1;
		if (*p == 0 && !first)
			return -1;
		if (!varint(&p, end, &uv) || !varint(&p, end, &pcd))
			return -1;
		val += (int32_t)(-(uv & 1) ^ (uv >> 1));
		pc += (uint64_t)pcd * g->quantum;
		first = false;
		if (target < pc)
			return val;
	}
	return -1;
}

static const char *cstr(const uint8_t *base, size_t len, uint64_t off)
{
	if (off >= len || !memchr(base + off, 0, len - off))
		return NULL;
	return (const char *)base + off;
}

int gopcln_find(const struct gopcln *g, uint64_t pc, const char **func, const char **file,
		unsigned *line, uint64_t *entry)
{
	uint64_t lo = 0, hi = g->nfunc, e, fo, end;
	const uint8_t *f;
	size_t flen, hdr;
	uint32_t nameoff, pcfile, pcln, cuoff;
	int32_t fno, ln;

	ftab(g, 0, &e, &fo);
	ftab(g, g->nfunc, &end, &fo);
	if (pc < e || pc >= end)
		return -ENOENT;
	while (hi - lo > 1) { /* last slot with entry <= pc */
		uint64_t mid = lo + (hi - lo) / 2;

		ftab(g, mid, &e, &fo);
		if (e <= pc)
			lo = mid;
		else
			hi = mid;
	}
	ftab(g, lo, &e, &fo);
	/* _func: entry (uint32 in 1.18+, uintptr before), nameoff, args, deferreturn, pcsp,
	 * pcfile, pcln, npcdata, cuOffset */
	hdr = g->ver == 118 ? 4 : g->ptrsize;
	if (fo > g->functab_len || g->functab_len - fo < hdr + 8 * 4)
		return -EINVAL;
	f = g->functab + fo;
	flen = hdr;
	nameoff = (uint32_t)rd(f + flen, 4);
	pcfile = (uint32_t)rd(f + flen + 16, 4);
	pcln = (uint32_t)rd(f + flen + 20, 4);
	cuoff = (uint32_t)rd(f + flen + 28, 4);
	*func = cstr(g->funcname, g->funcname_len, nameoff);
	if (!*func)
		return -EINVAL;
	*entry = e;
	*file = NULL;
	*line = 0;
	ln = pcvalue(g, pcln, e, pc);
	fno = pcvalue(g, pcfile, e, pc);
	if (ln > 0)
		*line = (unsigned)ln;
	if (fno >= 0) {
		uint64_t idx = (uint64_t)cuoff + (uint64_t)fno;

		if (idx < g->cutab_len / 4) {
			uint32_t foff = (uint32_t)rd(g->cutab + idx * 4, 4);

			if (foff != 0xffffffffu)
				*file = cstr(g->filetab, g->filetab_len, foff);
		}
	}
	return 0;
}

void gopcln_free(struct gopcln *g)
{
	free(g);
}

int gopcln_func_by_name(const struct gopcln *g, const char *name, uint64_t *entry, uint64_t *end)
{
	size_t hdr = g->ver == 118 ? 4 : g->ptrsize;
	uint64_t i, e, fo, next;

	for (i = 0; i < g->nfunc; i++) {
		const char *nm;

		ftab(g, i, &e, &fo);
		if (fo > g->functab_len || g->functab_len - fo < hdr + 8)
			continue;
		nm = cstr(g->funcname, g->funcname_len, (uint32_t)rd(g->functab + fo + hdr, 4));
		if (!nm || strcmp(nm, name))
			continue;
		ftab(g, i + 1, &next, &fo);
		*entry = e;
		*end = next;
		return 0;
	}
	return -ENOENT;
}
