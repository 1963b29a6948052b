/* elfembed.c — build the symbols-only ELF image of a module for --embed-symbols
 * (layout and contents: symbol/elfembed.h). Written with libelf into a memfd,
 * then mapped read-only for the caller.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbol/elfembed.h"

static bool has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static bool has_suffix(const char *s, const char *x)
{
	size_t ls = strlen(s), lx = strlen(x);

	return ls >= lx && strcmp(s + ls - lx, x) == 0;
}

/* Decide which sections keep their bytes. KEEP has SHNUM entries. Fills the
 * counts of IMG. Returns 0 or -EINVAL (a section header does not read). */
static int choose(Elf *src, size_t shnum, size_t shstrndx, unsigned flags, bool *keep,
		  struct elfembed_image *img, bool *worth)
{
	size_t i;
	GElf_Shdr sh;
	const char *name;

	*worth = false;
	for (i = 1; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(src, i);

		if (!scn || !gelf_getshdr(scn, &sh))
			return -EINVAL;
		name = elf_strptr(src, shstrndx, sh.sh_name);
		if (!name)
			name = "";
		if (i == shstrndx || sh.sh_type == SHT_NOTE) {
			keep[i] = true;
		} else if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
			keep[i] = true;
			if (sh.sh_link > 0 && sh.sh_link < shnum)
				keep[sh.sh_link] = true;
			if (sh.sh_entsize && sh.sh_size / sh.sh_entsize > 1) {
				img->symbols += (unsigned)(sh.sh_size / sh.sh_entsize);
				*worth = true;
			}
		} else if (has_suffix(name, "gopclntab")) {
			keep[i] = true;
			*worth = *worth || sh.sh_type != SHT_NOBITS;
		} else if (!strcmp(name, ".gnu_debuglink") || !strcmp(name, ".gnu_debugaltlink") ||
			   !strcmp(name, ".gosymtab") || !strcmp(name, ".go.buildinfo")) {
			keep[i] = true;
		} else if ((flags & ELFEMBED_DEBUG) &&
			   (has_prefix(name, ".debug_") || has_prefix(name, ".zdebug_"))) {
			keep[i] = true;
			if (sh.sh_type != SHT_NOBITS) {
				img->debug = true;
				*worth = true;
			}
		}
	}
	/* extended section indices of a kept symbol table */
	for (i = 1; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(src, i);

		if (scn && gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB_SHNDX &&
		    sh.sh_link < shnum && keep[sh.sh_link])
			keep[i] = true;
	}
	return 0;
}

/* Write the image of SRC into the file open on FD with libelf. */
static int write_image(Elf *src, int fd, unsigned flags, struct elfembed_image *img)
{
	Elf *dst = NULL;
	GElf_Ehdr seh, deh;
	GElf_Phdr ph;
	GElf_Shdr sh;
	size_t shnum, shstrndx, phnum, i;
	bool *keep = NULL, worth;
	int err;

	if (elf_kind(src) != ELF_K_ELF || !gelf_getehdr(src, &seh))
		return -ENOEXEC;
	if (elf_getshdrnum(src, &shnum) || elf_getshdrstrndx(src, &shstrndx) ||
	    elf_getphdrnum(src, &phnum))
		return -EINVAL;
	if (shnum < 2)
		return -ENODATA; /* section headers stripped: nothing to name frames with */
	if (shstrndx >= shnum)
		return -EINVAL;
	keep = calloc(shnum, sizeof(*keep));
	if (!keep)
		return -ENOMEM;
	err = choose(src, shnum, shstrndx, flags, keep, img, &worth);
	if (err)
		goto cleanup;
	if (!worth) {
		err = -ENODATA;
		goto cleanup;
	}

	dst = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!dst || !gelf_newehdr(dst, gelf_getclass(src)) || !gelf_getehdr(dst, &deh)) {
		err = -ENOMEM;
		goto cleanup;
	}
	memcpy(deh.e_ident, seh.e_ident, EI_NIDENT);
	deh.e_type = seh.e_type;
	deh.e_machine = seh.e_machine;
	deh.e_version = seh.e_version;
	deh.e_entry = seh.e_entry;
	deh.e_flags = seh.e_flags;
	if (!gelf_update_ehdr(dst, &deh)) {
		err = -EINVAL;
		goto cleanup;
	}

	if (phnum) {
		if (!gelf_newphdr(dst, phnum)) {
			err = -ENOMEM;
			goto cleanup;
		}
		for (i = 0; i < phnum; i++) {
			if (!gelf_getphdr(src, (int)i, &ph)) {
				err = -EINVAL;
				goto cleanup;
			}
			/* readers (readelf, libelf's dynamic lookups) read these two
			 * segments' bytes through p_offset, which the image lacks */
			if (ph.p_type == PT_INTERP || ph.p_type == PT_DYNAMIC)
				ph.p_filesz = 0;
			if (!gelf_update_phdr(dst, (int)i, &ph)) {
				err = -EINVAL;
				goto cleanup;
			}
		}
	}

	for (i = 1; i < shnum; i++) {
		Elf_Scn *sscn = elf_getscn(src, i), *dscn = elf_newscn(dst);
		Elf_Data *sd, *dd;

		if (!sscn || !dscn || !gelf_getshdr(sscn, &sh)) {
			err = -EINVAL;
			goto cleanup;
		}
		if (keep[i] && sh.sh_type != SHT_NOBITS) {
			/* the bytes as stored: same class and byte order, no conversion */
			sd = elf_rawdata(sscn, NULL);
			dd = elf_newdata(dscn);
			if (!sd || !dd) {
				err = sd ? -ENOMEM : -EINVAL;
				goto cleanup;
			}
			dd->d_buf = sd->d_buf;
			dd->d_size = sd->d_size;
			dd->d_type = ELF_T_BYTE;
			dd->d_off = 0;
			dd->d_align = sh.sh_addralign ? sh.sh_addralign : 1;
			dd->d_version = EV_CURRENT;
			img->sections_kept++;
		} else if (sh.sh_type != SHT_NULL) {
			sh.sh_type = SHT_NOBITS;
		}
		if (!gelf_update_shdr(dscn, &sh)) {
			err = -EINVAL;
			goto cleanup;
		}
	}
	if (!gelf_getehdr(dst, &deh)) { /* again: gelf_newphdr set e_phnum */
		err = -EINVAL;
		goto cleanup;
	}
	if (shstrndx < SHN_LORESERVE) {
		deh.e_shstrndx = (uint16_t)shstrndx;
	} else {
		Elf_Scn *zero = elf_getscn(dst, 0);

		if (!zero || !gelf_getshdr(zero, &sh)) {
			err = -EINVAL;
			goto cleanup;
		}
		sh.sh_link = (uint32_t)shstrndx;
		gelf_update_shdr(zero, &sh);
		deh.e_shstrndx = SHN_XINDEX;
	}
	if (!gelf_update_ehdr(dst, &deh) || elf_update(dst, ELF_C_WRITE) < 0) {
		err = -EINVAL;
		goto cleanup;
	}
	err = 0;
cleanup:
	elf_end(dst);
	free(keep);
	return err;
}

int elfembed_build(Elf *src, unsigned flags, struct elfembed_image *img)
{
	struct elfembed_image out = { 0 };
	off_t size;
	void *map;
	int fd, err;

	memset(img, 0, sizeof(*img));
	if (!src)
		return -ENOEXEC;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOMEM;
	fd = memfd_create("ptop-elfembed", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = write_image(src, fd, flags, &out);
	if (err)
		goto cleanup;
	size = lseek(fd, 0, SEEK_END);
	if (size <= 0) {
		err = size < 0 ? -errno : -EIO;
		goto cleanup;
	}
	map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		err = -errno;
		goto cleanup;
	}
	out.data = map;
	out.size = (size_t)size;
	*img = out;
cleanup:
	close(fd);
	return err;
}

int elfembed_build_fd(int fd, unsigned flags, struct elfembed_image *img)
{
	Elf *elf;
	int err;

	memset(img, 0, sizeof(*img));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOMEM;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -ENOEXEC;
	err = elfembed_build(elf, flags, img);
	elf_end(elf);
	return err;
}

void elfembed_image_free(struct elfembed_image *img)
{
	if (!img)
		return;
	if (img->data)
		munmap(img->data, img->size);
	memset(img, 0, sizeof(*img));
}
