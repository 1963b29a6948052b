/* elfsym.c — function symbols of an ELF file (.symtab, .dynsym), sorted for address lookup.
 * Names point into the string table, which stays mapped from the file.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
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
	for (size_t k = 0; k < t->n_owned; k++)
		free(t->owned[k]);
	free(t->owned);
	t->owned = NULL;
	t->n_owned = 0;
}

struct got_slot {
	uint64_t slot;
	const char *name; /* into the dynamic string table */
};

static int cmp_slot(const void *a, const void *b)
{
	const struct got_slot *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* The GOT slots that JUMP_SLOT and GLOB_DAT relocations fill, with their symbols' names,
 * sorted by slot, into *OUT (*N). 0 or -ENOMEM. */
static int got_slots(Elf *elf, struct got_slot **out, size_t *n)
{
	struct got_slot *v = NULL, *nv;
	size_t cap = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	*n = 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *data, *symd;
		Elf_Scn *symscn;
		GElf_Shdr symsh;
		size_t k, cnt;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		symscn = elf_getscn(elf, sh.sh_link);
		if (!data || !symscn || !gelf_getshdr(symscn, &symsh) ||
		    symsh.sh_type != SHT_DYNSYM || !(symd = elf_getdata(symscn, NULL)))
			continue;
		cnt = sh.sh_size / sh.sh_entsize;
		for (k = 0; k < cnt; k++) {
			GElf_Rela rela;
			GElf_Sym sym;
			const char *name;
			unsigned type;

			if (!gelf_getrela(data, (int)k, &rela))
				break;
			type = (unsigned)GELF_R_TYPE(rela.r_info);
			if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
			    !GELF_R_SYM(rela.r_info) ||
			    !gelf_getsym(symd, (int)GELF_R_SYM(rela.r_info), &sym))
				continue;
			name = elf_strptr(elf, symsh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (*n == cap) {
				cap = cap ? cap * 2 : 256;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			v[(*n)++] = (struct got_slot){ .slot = rela.r_offset, .name = name };
		}
	}
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_slot);
	*out = v;
	return 0;
}

/* The GOT slot the stub at ADDR (its bytes B[0..LEN)) jumps through, or 0. */
static uint64_t stub_slot(const unsigned char *b, size_t len, uint64_t addr)
{
	size_t i = 0;
	int32_t disp;

	if (len >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa)
		i = 4; /* endbr64 */
	if (i < len && b[i] == 0xf2)
		i++; /* bnd */
	if (i + 6 > len || b[i] != 0xff || b[i + 1] != 0x25)
		return 0; /* not jmp *disp32(%rip) */
	memcpy(&disp, b + i + 2, sizeof(disp));
	return addr + i + 6 + (uint64_t)(int64_t)disp;
}

int elfsym_load_plt(Elf *elf, struct elfsym_table *t)
{
	static const struct {
		const char *name;
		uint64_t entsize;
	} plts[] = { { ".plt", 16 }, { ".plt.sec", 16 }, { ".plt.got", 8 } };
	struct got_slot *slots = NULL;
	size_t nslots = 0, cap = 0, owned_cap = 0, i;
	GElf_Ehdr eh;
	int err;

	memset(t, 0, sizeof(*t));
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
		return -ENODATA;
	err = got_slots(elf, &slots, &nslots);
	if (err || !nslots) {
		free(slots);
		return err ? err : -ENODATA;
	}
	for (i = 0; i < sizeof(plts) / sizeof(plts[0]); i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_find_section(elf, plts[i].name, &sh);
		Elf_Data *data;
		uint64_t es, o;

		if (!scn || sh.sh_type != SHT_PROGBITS || !(data = elf_getdata(scn, NULL)) ||
		    !data->d_buf || data->d_size < sh.sh_size)
			continue;
		es = sh.sh_entsize >= 8 && sh.sh_entsize <= 32 ? sh.sh_entsize : plts[i].entsize;
		for (o = 0; o + es <= sh.sh_size; o += es) {
			uint64_t slot = stub_slot((const unsigned char *)data->d_buf + o, es,
						  sh.sh_addr + o);
			struct got_slot key = { .slot = slot }, *hit;
			struct elfsym_entry *e;
			char *name;

			if (!slot || !(hit = bsearch(&key, slots, nslots, sizeof(*slots), cmp_slot)))
				continue; /* the PLT's header, or a slot with no symbol */
			if (asprintf(&name, "%s@plt", hit->name) < 0)
				goto nomem;
			if (t->n_owned == owned_cap) {
				size_t nc = owned_cap ? owned_cap * 2 : 64;
				char **no = realloc(t->owned, nc * sizeof(*no));

				if (!no) {
					free(name);
					goto nomem;
				}
				t->owned = no;
				owned_cap = nc;
			}
			t->owned[t->n_owned++] = name;
			if (t->n == cap) {
				size_t nc = cap ? cap * 2 : 64;
				struct elfsym_entry *nv = realloc(t->v, nc * sizeof(*nv));

				if (!nv)
					goto nomem;
				t->v = nv;
				cap = nc;
			}
			e = &t->v[t->n++];
			memset(e, 0, sizeof(*e));
			e->addr = sh.sh_addr + o;
			e->size = es;
			e->limit = sh.sh_addr + sh.sh_size;
			e->rank = 2;
			e->name = name;
		}
	}
	free(slots);
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_entry);
	return 0;
nomem:
	free(slots);
	elfsym_free(t);
	return -ENOMEM;
}

