/* symbolizer.h — names for code addresses, offline, by build-id.
 *
 * ptop-analyze resolves each user frame of a capture as (module build-id, file
 * offset): file offset = ip - Mapping.start + Mapping.offset. The symbolizer
 * finds an ELF file whose GNU build-id is exactly the one asked for — the
 * recorded path, embedded symbols from the capture, separate debug info
 * (.gnu_debuglink, /usr/lib/debug/.build-id/xx/rest.debug), a symbol cache laid
 * out as debuginfod's client cache (DIR/<build-id>/debuginfo, .../executable),
 * and, only when asked, debuginfod servers — and names the address from, in
 * order: Go .gopclntab, DWARF (function, file:line, inlined frames), .symtab,
 * .dynsym. JIT code is named from perf maps. A file whose build-id differs is
 * never used: the frame stays unnamed and the miss says why (a wrong symbol is
 * worse than none). Each module is opened and parsed once per symbolizer, its
 * DWARF and tables mapped from the file, not copied; lookups by build-id are
 * remembered, hits and misses alike.
 *
 * Not thread-safe: one symbolizer per thread.
 */
#ifndef PTOP_SYMBOLIZER_H
#define PTOP_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SYM_MAX_FRAMES 16    /* inlined frames reported per address, innermost first */
#define SYM_MAX_BUILD_ID 128 /* bytes (a Go build ID is an ASCII string of ~83) */

enum sym_source {
	SYM_SRC_NONE = 0,
	SYM_SRC_GOPCLNTAB,   /* Go's own table: works on stripped Go binaries */
	SYM_SRC_DWARF,       /* DWARF: function, file:line, inlined frames */
	SYM_SRC_SYMTAB,      /* .symtab: function only */
	SYM_SRC_DYNSYM,      /* .dynsym: exported functions only */
	SYM_SRC_PERFMAP,     /* a JIT perf map (module "[jit]") */
	SYM_SRC_KALLSYMS,    /* kernel symbols (same boot only) */
	SYM_SRC__COUNT,
};

enum sym_miss {
	SYM_MISS_NONE = 0,        /* named */
	SYM_MISS_NO_FILE,         /* no file with this build-id was found anywhere */
	SYM_MISS_BUILD_ID_MISMATCH, /* files were found, none with this build-id */
	SYM_MISS_NO_BUILD_ID,     /* the mapping had no build-id: nothing can be verified */
	SYM_MISS_NO_SYMBOLS,      /* the module has no symbol source at all (stripped) */
	SYM_MISS_NOT_COVERED,     /* symbols exist but none covers this address */
	SYM_MISS_OTHER_BOOT,      /* kernel address from another boot: kallsyms do not apply */
	SYM_MISS__COUNT,
};

/* Words for reports and the DB: "gopclntab", "dwarf", ...; "no_file", ... */
const char *sym_source_name(enum sym_source s);
const char *sym_miss_name(enum sym_miss m);

struct symbolizer_opts {
	const char *cache_dir;       /* --symbol-cache DIR; NULL: none */
	bool debuginfod;             /* --debuginfod: ask servers for what is missing */
	const char *debuginfod_urls; /* NULL: $DEBUGINFOD_URLS */
	const char *debug_dir;       /* NULL: /usr/lib/debug */
	const char *root;            /* prefix for recorded paths (a sysroot); NULL: "" */
};

/* Which note BUILD_ID is (Mapping.build_id_kind; the values of enum buildid_kind). */
enum sym_build_id_kind {
	SYM_BUILD_ID_GNU = 0,        /* NT_GNU_BUILD_ID */
	SYM_BUILD_ID_GO = 1,         /* Go build ID note, for Go binaries without a GNU one */
};

/* One module, as recorded in a Mapping. */
struct sym_module_key {
	const uint8_t *build_id;     /* may be NULL with build_id_len 0 */
	size_t build_id_len;
	const char *path;            /* the recorded path; where to look first */
	enum sym_build_id_kind kind; /* 0 (GNU) when not set; a candidate file must carry
				      * the same note of the same kind. debuginfod serves
				      * GNU build-ids only. */
};

/* Strings point into the symbolizer (interned) and live until symbolizer__free. */
struct sym_frame {
	const char *func;            /* demangled where the language is known; never NULL when named */
	const char *file;            /* NULL when the source has no line info */
	unsigned line;               /* 0 when unknown */
	bool inlined;                /* inlined into the next frame */
};

struct sym_result {
	enum sym_source source;      /* SYM_SRC_NONE when not named */
	enum sym_miss miss;          /* SYM_MISS_NONE when named */
	size_t n;                    /* frames[0] innermost (an inlined callee), frames[n-1]
				      * the function the address is in */
	struct sym_frame frames[SYM_MAX_FRAMES];
	uint64_t func_offset;        /* address - start of frames[n-1]'s function */
};

/* What was found for a module, for `ptop-analyze symbolize` to explain misses. */
struct sym_module_info {
	enum sym_miss miss;          /* why the module cannot be symbolized, or NONE */
	const char *file;            /* the ELF used for code (NULL if none) */
	const char *debug_file;      /* where DWARF came from (NULL if none) */
	const char *found_via;       /* "path", "embedded", "debuglink", "build-id dir",
				      * "symbol cache", "debuginfod" */
	bool has_gopclntab, has_dwarf, has_symtab, has_dynsym;
};

/* What the debuginfod servers were asked (--debuginfod), for the reports to say: the
 * servers, how many lookups, how they ended, and the first error. */
struct sym_debuginfod_stats {
	bool asked_for;              /* --debuginfod was given */
	char servers[512];           /* the URLs asked ("" when none is configured) */
	unsigned wanted;             /* files looked for there (also when no server to ask) */
	unsigned lookups;            /* requests made */
	unsigned found, not_found;   /* answered with the file; no server had it */
	unsigned failed;             /* unreachable, timed out, refused, or a file of another build */
	int first_error;             /* the first failure's errno (positive), 0 none */
};

struct symbolizer;

/* A new symbolizer. O may be NULL for defaults. NULL and errno on failure. */
struct symbolizer *symbolizer__new(const struct symbolizer_opts *o);

/* Free S and everything it returned. NULL is fine. */
void symbolizer__free(struct symbolizer *s);

/* What S asked debuginfod so far. */
const struct sym_debuginfod_stats *symbolizer__debuginfod(const struct symbolizer *s);

/* Offer an ELF image embedded in the capture (ModuleSymbols, chunks joined) for
 * BUILD_ID. It is used only if its own identity (GNU build-id, else Go build
 * ID) is BUILD_ID. The symbolizer takes a copy. 0 or -errno (-EINVAL: not an
 * ELF, or its build-id differs). */
int symbolizer__add_embedded(struct symbolizer *s, const uint8_t *build_id, size_t len,
			     const void *elf, size_t size);

/* Offer a JIT perf map of PID ("START SIZE NAME" lines, hex START and SIZE).
 * V8's tier markers (~ + ^ * before a name) are stripped so one function has
 * one name. The text is copied. 0 or -errno. */
int symbolizer__add_perf_map(struct symbolizer *s, int pid, const char *text, size_t len);

/* Tell the symbolizer where a recorded mapping of module KEY sat in the
 * module's ELF address space: file offsets [FILE_OFFSET, FILE_OFFSET + SIZE)
 * are ELF addresses from VADDR on (Mapping.offset, end - start, elf.vaddr).
 * Used when the only file found for the module is a separate debug file,
 * whose own program headers no longer say where the code was. Copied.
 * 0 or -errno. */
int symbolizer__add_mapping(struct symbolizer *s, const struct sym_module_key *key,
			    uint64_t file_offset, uint64_t size, uint64_t vaddr);

/* Name FILE_OFFSET inside module KEY. Returns 0 with R filled (named, or a miss
 * with R->miss saying why), or -errno on a hard error (ENOMEM). */
int symbolizer__resolve(struct symbolizer *s, const struct sym_module_key *key,
			uint64_t file_offset, struct sym_result *r);

/* Name ADDR, a JIT address of PID, from its perf map. 0 or -errno. */
int symbolizer__resolve_jit(struct symbolizer *s, int pid, uint64_t addr, struct sym_result *r);

/* Name kernel address ADDR from /proc/kallsyms, only when BOOT_ID is this
 * machine's current boot (else R->miss = SYM_MISS_OTHER_BOOT). 0 or -errno. */
int symbolizer__resolve_kernel(struct symbolizer *s, const char *boot_id, uint64_t addr,
			       struct sym_result *r);

/* What was found for module KEY (opens it if not yet done). 0 or -errno. */
int symbolizer__module_info(struct symbolizer *s, const struct sym_module_key *key,
			    struct sym_module_info *info);

#endif
