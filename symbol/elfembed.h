/* elfembed.h — build the small, self-contained ELF that --embed-symbols puts
 * in a capture (ModuleSymbols): a module's symbols without its code.
 *
 * The image has the layout of a separate debug file (as `objcopy
 * --only-keep-debug` makes): the same ELF header fields (class, data, OS ABI,
 * type, machine, entry, flags), the original program headers copied as they
 * are (but for PT_INTERP and PT_DYNAMIC, whose p_filesz is set to 0 as in a
 * debug file, because readers would read their absent bytes), and the
 * original section headers in the original order, so section
 * indices, sh_link and st_shndx keep their meaning. Only these sections keep
 * their contents:
 *   every SHT_NOTE (.note.gnu.build-id among them), .symtab and .dynsym with
 *   the string tables they link to, .gnu_debuglink, .gnu_debugaltlink,
 *   .shstrtab, and for Go binaries .gopclntab (any section whose name ends
 *   so), .gosymtab, .go.buildinfo;
 *   with ELFEMBED_DEBUG also every .debug_* and .zdebug_* section, copied as
 *   stored (SHF_COMPRESSED sections stay compressed).
 * Every other section becomes SHT_NOBITS: its header (address, size, flags)
 * stays, its bytes are absent. The program headers still give each PT_LOAD's
 * p_offset/p_vaddr/p_filesz in the ORIGINAL file, which is what a symbolizer
 * needs to turn a file offset into an address; the segment contents are not
 * in the image, and p_offset may point past its end.
 */
#ifndef PTOP_ELFEMBED_H
#define PTOP_ELFEMBED_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum elfembed_flags {
	ELFEMBED_DEBUG = 1 << 0, /* keep the DWARF (.debug_*, .zdebug_*) too */
};

/* A built image: SIZE bytes at DATA (a read-only private mapping). */
struct elfembed_image {
	void *data;
	size_t size;
	unsigned symbols;            /* entries of .symtab + .dynsym kept (null ones included) */
	unsigned sections_kept;      /* sections whose contents were kept */
	bool debug;                  /* at least one DWARF section was kept */
};

/* Build the image of SRC (an ELF opened with libelf for reading: a file or a
 * memory image; not freed). FLAGS: ELFEMBED_*. On success IMG is filled and
 * must be released with elfembed_image_free(). Returns 0, or -ENOEXEC (not an
 * ELF object), -ENODATA (no section headers, or nothing worth keeping: no
 * symbol table, no .gopclntab and no DWARF), -EINVAL (malformed section
 * headers), -ENOMEM, or -errno from memfd_create/mmap. */
int elfembed_build(Elf *src, unsigned flags, struct elfembed_image *img);

/* The same for the ELF file open on FD (offset not used or changed). */
int elfembed_build_fd(int fd, unsigned flags, struct elfembed_image *img);

/* Release IMG's mapping and zero it. NULL and an empty image are fine. */
void elfembed_image_free(struct elfembed_image *img);

#endif
