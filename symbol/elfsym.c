/* elfsym.c — function symbols of an ELF file (.symtab, .dynsym), sorted for address lookup.
 * Names point into the string table, which stays mapped from the file.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbol/sym_internal.h"

Elf_Scn *elf_find_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

bool elf_has_section(Elf *elf, const char *name)
{
	GElf_Shdr sh;

	return elf_find_section(elf, name, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size > 0;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* At one address, perf's choice (choose_best_symbol): a sized symbol, not weak, global,
 * fewer leading underscores, the longer name; then by name, so the choice is stable. */
static int cmp_entry(const void *a, const void *b)
{
	const struct elfsym_entry *x = a, *y = b;
	size_t ux, uy, lx, ly;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* bigger size first (a sized symbol before an unsized one) */
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if ((x->rank == 1) != (y->rank == 1))
		return x->rank == 1 ? 1 : -1; /* weak last */
	if ((x->rank == 2) != (y->rank == 2))
		return x->rank == 2 ? -1 : 1; /* global first */
	ux = leading_underscores(x->name);
	uy = leading_underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

int elfsym_load(Elf *elf, unsigned shtype, struct elfsym_table *t)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *data;
	size_t i, n, cap = 0, shnum;
	int err = -ENODATA;

	t->v = NULL;
	t->n = 0;
	if (elf_getshdrnum(elf, &shnum) != 0)
		return -ENODATA;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == shtype)
			break;
	}
	if (!scn || sh.sh_entsize == 0)
		return -ENODATA;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return -ENODATA;
	n = sh.sh_size / sh.sh_entsize;
	err = 0;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Shdr ssh;
		Elf_Scn *sscn;
		struct elfsym_entry *e;
		const char *name;
		int type, bind;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_shndx >= SHN_LORESERVE || sym.st_shndx >= shnum || sym.st_value == 0)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		sscn = elf_getscn(elf, sym.st_shndx);
		if (!sscn || !gelf_getshdr(sscn, &ssh) || !(ssh.sh_flags & SHF_EXECINSTR))
			continue;
		if (t->n == cap) {
			size_t nc = cap ? cap * 2 : 256;
			struct elfsym_entry *nv = realloc(t->v, nc * sizeof(*nv));

			if (!nv) {
				err = -ENOMEM;
				goto cleanup;
			}
			t->v = nv;
			cap = nc;
		}
		e = &t->v[t->n++];
		e->addr = sym.st_value;
		e->size = sym.st_size;
		e->limit = ssh.sh_addr + ssh.sh_size;
		e->rank = bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0;
		e->name = name;
		memset(e->local_alias, 0, sizeof(e->local_alias));
	}
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_entry);
	/* one entry per address: the first after sorting is the preferred one; the local
	 * names it beat are kept as its aliases */
	n = 0;
	for (i = 0; i < t->n; i++) {
		if (n && t->v[n - 1].addr == t->v[i].addr) {
			struct elfsym_entry *k = &t->v[n - 1];

			if (t->v[i].rank == 0 && k->rank > 0)
				for (size_t a = 0; a < ELFSYM_ALIASES; a++)
					if (!k->local_alias[a]) {
						k->local_alias[a] = t->v[i].name;
						break;
					}
			continue;
		}
		t->v[n++] = t->v[i];
	}
	t->n = n;
cleanup:
	if (err)
		elfsym_free(t);
	return err;
}

const struct elfsym_entry *elfsym_find(const struct elfsym_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n, back;

	/* last entry with addr <= ADDR */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	/* a sized symbol may enclose a smaller one that starts later (rare): look back a little */
	for (back = 0; back < 8 && lo > 0; back++, lo--) {
		const struct elfsym_entry *e = &t->v[lo - 1];

		if (e->size) {
			if (addr - e->addr < e->size)
				return e;
			if (back == 0)
				continue;
		} else if (back == 0) {
			uint64_t end = e->limit;

			if (lo < t->n && t->v[lo].addr < end)
				end = t->v[lo].addr;
			if (addr < end)
				return e;
		}
	}
	return NULL;
}

const char *elfsym_exported_name(const struct elfsym_table *t, uint64_t start, const char *name)
{
	const struct elfsym_entry *e = elfsym_find(t, start);

	if (!e || e->addr != start || !name || !strcmp(e->name, name))
		return NULL;
	for (size_t a = 0; a < ELFSYM_ALIASES && e->local_alias[a]; a++)
		if (!strcmp(e->local_alias[a], name))
			return e->name;
	return NULL;
}

void elfsym_free(struct elfsym_table *t)
{
	if (!t)
		return;
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

