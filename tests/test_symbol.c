/* test_symbol.c — the symbolizer against fixture binaries built here, at test time: a C
 * program with -g (PIE and non-PIE), a shared library, the same stripped with its debug file
 * in a symbol cache / behind .gnu_debuglink / in a build-id dir, a Go binary linked with
 * -s -w, perf maps, kallsyms, embedded images, and a local debuginfod server.
 *
 * Each fixture prints addresses (function entries, and return addresses inside lines marked
 * @name in its source) and its /proc/self/maps; the test turns each address into
 * (build-id, file offset) the way the analyzer does, and checks function and file:line.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <gelf.h>

#include "symbol/buildid.h"
#include "symbol/symbolizer.h"

#define CFLAGS_FIX "-g -O1 -fno-optimize-sibling-calls -fno-omit-frame-pointer"

static char tmp[256];        /* everything this test builds */
static char src[PATH_MAX];   /* tests/fixtures/symbols, absolute */
static bool built, have_go, have_debuginfod;

/* ------------------------------------------------------------------ helpers */

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
	return rc;
}

static const char *tpath(const char *name)
{
	static char buf[32][PATH_MAX]; /* a few at a time: callers keep none for long */
	static int k;

	k = (k + 1) % 32;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmp, name);
	return buf[k];
}

static bool have_cmd(const char *c)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", c);
	return system(cmd) == 0;
}

/* The line of SRCFILE (in the fixture dir) holding "@MARK". */
static unsigned marker_line(const char *srcfile, const char *mark)
{
	char path[PATH_MAX + 64], line[1024], tag[128];
	unsigned n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", src, srcfile);
	snprintf(tag, sizeof(tag), "@%s", mark);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		const char *hit = strstr(line, tag);
		char after;

		n++;
		if (!hit)
			continue;
		after = hit[strlen(tag)];
		if (after == ' ' || after == '\n' || after == '\0') {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("no @%s in %s", mark, srcfile);
	return 0;
}

/* One address printed by a fixture, as the analyzer would see it. */
struct site {
	uint8_t id[BUILDID_MAX];
	size_t id_len;
	enum buildid_kind kind;   /* GNU build-id, else Go build ID */
	char path[PATH_MAX];
	uint64_t off;
};

/* Run fixture EXE; find the line "KIND NAME ADDR" and map ADDR (minus 1 for a return
 * address) to its module and file offset through the printed maps. */
/* ST's module identity, as the recorder reads it: GNU build-id, else Go's. */
static void read_ident(struct site *st)
{
	int fd = open(st->path, O_RDONLY);
	Elf *elf;

	assert_true(fd >= 0);
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_int_equal(buildid_read_ident(elf, st->id, sizeof(st->id), &st->id_len, &st->kind), 0);
	elf_end(elf);
	close(fd);
}

static void locate(const char *exe, const char *kind, const char *name, struct site *st)
{
	char cmd[PATH_MAX + 32], line[4096], k[16], n[128];
	unsigned long long addr = 0, a = 0;
	bool found = false, mapped = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s'", exe);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long lo, hi, off;
		char perms[8], path[PATH_MAX] = "";

		if (sscanf(line, "%15s %127s %llx", k, n, &a) == 3 && !strcmp(k, kind) &&
		    !strcmp(n, name)) {
			addr = !strcmp(kind, "ret") ? a - 1 : a;
			found = true;
			continue;
		}
		if (!found || mapped)
			continue;
		if (sscanf(line, "map %llx-%llx %7s %llx %*s %*s %4095s", &lo, &hi, perms, &off,
			   path) == 5 &&
		    addr >= lo && addr < hi) {
			snprintf(st->path, sizeof(st->path), "%s", path);
			st->off = addr - lo + off;
			mapped = true;
		}
	}
	assert_int_equal(pclose(p), 0);
	assert_true(found);
	assert_true(mapped);
	read_ident(st);
}

static void hexid(const struct site *st, char *hex)
{
	assert_int_equal(buildid_to_hex(st->id, st->id_len, hex, 2 * BUILDID_MAX + 1), 0);
}

static bool ends_with(const char *s, const char *x)
{
	size_t a = s ? strlen(s) : 0, b = strlen(x);

	return s && a >= b && !strcmp(s + a - b, x);
}

static int resolve(struct symbolizer *s, const struct site *st, const char *path,
		   struct sym_result *r)
{
	struct sym_module_key key = {
		.build_id = st->id, .build_id_len = st->id_len, .path = path ? path : st->path
	};

	return symbolizer__resolve(s, &key, st->off, r);
}

/* Print R, so a failing case shows what was found. */
static void dump(const char *what, const struct sym_result *r)
{
	size_t i;

	print_message("%s: source %s miss %s n %zu +0x%llx\n", what, sym_source_name(r->source),
		      sym_miss_name(r->miss), r->n, (unsigned long long)r->func_offset);
	for (i = 0; i < r->n; i++)
		print_message("  %s %s:%u%s\n", r->frames[i].func,
			      r->frames[i].file ? r->frames[i].file : "?", r->frames[i].line,
			      r->frames[i].inlined ? " (inlined)" : "");
}

/* Function and file:line of the outermost frame (and the innermost when INNER). */
static void expect_frame(const struct sym_frame *f, const char *func, const char *file,
			 unsigned line)
{
	assert_non_null(f->func);
	assert_string_equal(f->func, func);
	if (file) {
		if (!ends_with(f->file, file))
			fail_msg("file %s, expected .../%s", f->file ? f->file : "(null)", file);
		assert_int_equal(f->line, line);
	}
}

/* The inlined chain at inner_add's call to record(), and outer_work's own line. */
static void expect_prog(struct symbolizer *s, const char *exe, const char *path_override,
			enum sym_source want_src)
{
	struct site in, out, fn;
	struct sym_result r;

	locate(exe, "ret", "inner_add", &in);
	locate(exe, "ret", "outer_work", &out);
	locate(exe, "func", "outer_work", &fn);

	assert_int_equal(resolve(s, &in, path_override, &r), 0);
	dump("inner_add", &r);
	assert_int_equal(r.miss, SYM_MISS_NONE);
	assert_int_equal(r.source, want_src);
	assert_int_equal(r.n, 2);
	expect_frame(&r.frames[0], "inner_add", "prog.c", marker_line("prog.c", "inner"));
	assert_true(r.frames[0].inlined);
	expect_frame(&r.frames[1], "outer_work", "prog.c", marker_line("prog.c", "outer_call"));
	assert_false(r.frames[1].inlined);

	assert_int_equal(resolve(s, &out, path_override, &r), 0);
	assert_int_equal(r.source, want_src);
	assert_int_equal(r.n, 1);
	expect_frame(&r.frames[0], "outer_work", "prog.c", marker_line("prog.c", "outer"));
	assert_true(r.func_offset > 0);

	assert_int_equal(resolve(s, &fn, path_override, &r), 0);
	assert_int_equal(r.source, want_src);
	expect_frame(&r.frames[r.n - 1], "outer_work", NULL, 0);
	assert_int_equal(r.func_offset, 0);
}

static bool dir_empty(const char *d)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s' 2>/dev/null)\"", d);
	return system(cmd) == 0;
}

/* ------------------------------------------------------------------ setup */

static int build_fixtures(void **state)
{
	const char *e = getenv("PTOP_SRC");
	char t[] = "/tmp/ptop-test-symbol-XXXXXX";

	(void)state;
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "%s/tests/fixtures/symbols", e ? e : ".");
	if (!realpath(rel, src) || strlen(src) >= 1024) {
		fprintf(stderr, "fixture sources not found at %s: run from the repository root "
				"or set PTOP_SRC\n", rel);
		return -1;
	}
	if (!mkdtemp(t))
		return -1;
	snprintf(tmp, sizeof(tmp), "%s", t);
	if (sh("cd '%s' && cc " CFLAGS_FIX " -shared -fPIC '%s/lib.c' -o libsymfix.so", tmp,
	       src) ||
	    sh("cd '%s' && cc " CFLAGS_FIX " -fPIE -pie -DWITH_LIB '%s/prog.c' -o prog_pie "
	       "-L. -lsymfix -Wl,-rpath,'%s' -Wl,--build-id",
	       tmp, src, tmp) ||
	    sh("cd '%s' && cc " CFLAGS_FIX " -fno-pie -no-pie '%s/prog.c' -o prog_nopie "
	       "-Wl,--build-id",
	       tmp, src) ||
	    sh("cd '%s' && cc -O1 -fno-optimize-sibling-calls '%s/prog.c' -o prog_nodebug "
	       "-Wl,--build-id",
	       tmp, src) ||
	    /* stripped, debug info apart */
	    sh("cd '%s' && objcopy --only-keep-debug prog_pie prog_pie.debug && "
	       "objcopy --strip-all prog_pie prog_stripped && "
	       "objcopy --only-keep-debug prog_nopie prog_nopie.debug",
	       tmp) ||
	    /* .gnu_debuglink: the debug file next to the binary */
	    sh("cd '%s' && mkdir -p dl && cp prog_pie.debug dl/prog_dl.debug && "
	       "objcopy --strip-all --add-gnu-debuglink=dl/prog_dl.debug prog_pie dl/prog_dl",
	       tmp) ||
	    /* a library with .dynsym only */
	    sh("cd '%s' && objcopy --strip-all libsymfix.so libsymfix_stripped.so", tmp))
		return -1;
	have_go = have_cmd("go");
	if (have_go &&
	    sh("cd '%s' && mkdir -p gopath gocache && cp '%s/main.go' . && "
	       "GOPATH='%s/gopath' GOCACHE='%s/gocache' GO111MODULE=off GOFLAGS=-mod=mod "
	       "GOPROXY=off go build -ldflags=\"-s -w -B 0x$(sha1sum main.go | cut -c1-40)\" "
	       "-o gofix main.go && "
	       /* as Go builds by default: no GNU build-id, only Go's own note */
	       "GOPATH='%s/gopath' GOCACHE='%s/gocache' GO111MODULE=off GOFLAGS=-mod=mod "
	       "GOPROXY=off go build -ldflags='-s -w' -o gofix_nognu main.go",
	       tmp, src, tmp, tmp, tmp, tmp))
		return -1;
	have_debuginfod = have_cmd("debuginfod");
	built = true;
	return 0;
}

static int remove_fixtures(void **state)
{
	(void)state;
	if (tmp[0] && !getenv("PTOP_KEEP"))
		sh("rm -rf '%s'", tmp);
	return 0;
}

/* ------------------------------------------------------------------ cases */

static void test_01_names_and_no_build_id(void **state)
{
	struct symbolizer *s = symbolizer__new(NULL);
	struct sym_module_key key = { .path = "/bin/true" };
	struct sym_module_info info;
	struct sym_result r;

	(void)state;
	assert_non_null(s);
	assert_string_equal(sym_source_name(SYM_SRC_GOPCLNTAB), "gopclntab");
	assert_string_equal(sym_source_name(SYM_SRC_DWARF), "dwarf");
	assert_string_equal(sym_miss_name(SYM_MISS_BUILD_ID_MISMATCH), "build_id_mismatch");
	assert_string_equal(sym_miss_name(SYM_MISS_OTHER_BOOT), "other_boot");
	assert_string_equal(sym_miss_name((enum sym_miss)99), "unknown");
	/* no build-id: nothing can be verified, so nothing is named, even with a real path */
	assert_int_equal(symbolizer__resolve(s, &key, 0x1000, &r), 0);
	assert_int_equal(r.miss, SYM_MISS_NO_BUILD_ID);
	assert_int_equal(r.source, SYM_SRC_NONE);
	assert_int_equal(r.n, 0);
	assert_int_equal(symbolizer__module_info(s, &key, &info), 0);
	assert_int_equal(info.miss, SYM_MISS_NO_BUILD_ID);
	symbolizer__free(s);
	symbolizer__free(NULL);
}

static void test_02_pie_dwarf_inlined(void **state)
{
	struct symbolizer *s = symbolizer__new(NULL);
	struct sym_module_info info;
	struct sym_module_key key;
	struct site st;

	(void)state;
	assert_true(built);
	expect_prog(s, tpath("prog_pie"), NULL, SYM_SRC_DWARF);
	locate(tpath("prog_pie"), "func", "outer_work", &st);
	key = (struct sym_module_key){ st.id, st.id_len, st.path };
	assert_int_equal(symbolizer__module_info(s, &key, &info), 0);
	assert_int_equal(info.miss, SYM_MISS_NONE);
	assert_string_equal(info.found_via, "path");
	assert_true(info.has_dwarf && info.has_symtab);
	assert_false(info.has_gopclntab);
	symbolizer__free(s);
}

static void test_03_nonpie_dwarf(void **state)
{
	struct symbolizer *s = symbolizer__new(NULL);

	(void)state;
	expect_prog(s, tpath("prog_nopie"), NULL, SYM_SRC_DWARF);
	symbolizer__free(s);
}

static void test_04_shared_library(void **state)
{
	struct symbolizer *s = symbolizer__new(NULL);
	struct sym_result r;
	struct site st;

	(void)state;
	locate(tpath("prog_pie"), "ret", "lib_run", &st);
	assert_true(ends_with(st.path, "libsymfix.so"));
	assert_int_equal(resolve(s, &st, NULL, &r), 0);
	dump("lib_run", &r);
	assert_int_equal(r.source, SYM_SRC_DWARF);
	expect_frame(&r.frames[r.n - 1], "lib_run", "lib.c", marker_line("lib.c", "lib_run"));
	/* the same library stripped: .dynsym still names the exported function */
	assert_int_equal(resolve(s, &st, tpath("libsymfix_stripped.so"), &r), 0);
	/* the module was looked up once, by build-id: the first file found is kept */
	assert_int_equal(r.source, SYM_SRC_DWARF);
	symbolizer__free(s);

	/* a function whose DWARF name is a local alias of an exported symbol at the same
	 * address (glibc's __GI_ names): the exported name, from DWARF and from .symtab */
	s = symbolizer__new(NULL);
	locate(tpath("prog_pie"), "func", "lib_exported", &st);
	assert_true(ends_with(st.path, "libsymfix.so"));
	assert_int_equal(resolve(s, &st, NULL, &r), 0);
	dump("lib_exported", &r);
	assert_int_equal(r.source, SYM_SRC_DWARF);
	expect_frame(&r.frames[r.n - 1], "lib_exported", NULL, 0);
	symbolizer__free(s);

	s = symbolizer__new(NULL);
	locate(tpath("prog_pie"), "ret", "lib_run", &st);
	assert_int_equal(resolve(s, &st, tpath("libsymfix_stripped.so"), &r), 0);
	assert_int_equal(r.source, SYM_SRC_DYNSYM);
	expect_frame(&r.frames[0], "lib_run", NULL, 0);
	assert_null(r.frames[0].file);
	assert_true(r.func_offset > 0);
	symbolizer__free(s);
}

static void test_05_stripped_via_symbol_cache(void **state)
{
	struct symbolizer_opts o = { .debug_dir = tpath("no-debug-dir") };
	struct sym_module_info info;
	struct sym_module_key key;
	struct symbolizer *s;
	struct sym_result r;
	char hex[2 * BUILDID_MAX + 1];
	struct site st;

	(void)state;
	/* without a cache: the stripped executable has no symbol of its own */
	s = symbolizer__new(&o);
	locate(tpath("prog_stripped"), "ret", "outer_work", &st);
	assert_int_equal(resolve(s, &st, NULL, &r), 0);
	assert_int_not_equal(r.miss, SYM_MISS_NONE);
	assert_int_equal(r.source, SYM_SRC_NONE);
	symbolizer__free(s);

	hexid(&st, hex);
	assert_int_equal(sh("mkdir -p '%s/cache/%s' && cp '%s' '%s/cache/%s/debuginfo'", tmp, hex,
			    tpath("prog_pie.debug"), tmp, hex),
			 0);
	o.cache_dir = tpath("cache");
	s = symbolizer__new(&o);
	expect_prog(s, tpath("prog_stripped"), NULL, SYM_SRC_DWARF);
	key = (struct sym_module_key){ st.id, st.id_len, st.path };
	assert_int_equal(symbolizer__module_info(s, &key, &info), 0);
	assert_string_equal(info.found_via, "symbol cache");
	assert_true(ends_with(info.debug_file, "/debuginfo"));
	assert_true(ends_with(info.file, "prog_stripped"));
	symbolizer__free(s);
}

static void test_06_cache_build_id_mismatch_ignored(void **state)
{
	struct symbolizer_opts o = { .debug_dir = tpath("no-debug-dir"),
				     .cache_dir = tpath("badcache") };
	struct symbolizer *s;
	struct sym_result r;
	char hex[2 * BUILDID_MAX + 1];
	struct site st;

	(void)state;
	locate(tpath("prog_stripped"), "ret", "outer_work", &st);
	hexid(&st, hex);
	/* another build's debug file and executable filed under this build-id */
	assert_int_equal(sh("mkdir -p '%s/badcache/%s' && cp '%s' '%s/badcache/%s/debuginfo' && "
			    "cp '%s' '%s/badcache/%s/executable'",
			    tmp, hex, tpath("prog_nopie.debug"), tmp, hex, tpath("prog_nopie"),
			    tmp, hex),
			 0);
	s = symbolizer__new(&o);
	assert_int_equal(resolve(s, &st, NULL, &r), 0);
	assert_int_equal(r.source, SYM_SRC_NONE);
	assert_int_not_equal(r.miss, SYM_MISS_NONE);
	assert_int_equal(r.n, 0);
	symbolizer__free(s);

	/* the recorded file gone: only mismatching files exist anywhere */
	s = symbolizer__new(&o);
	assert_int_equal(resolve(s, &st, tpath("gone/prog"), &r), 0);
	assert_int_equal(r.miss, SYM_MISS_BUILD_ID_MISMATCH);
	assert_int_equal(r.source, SYM_SRC_NONE);
	symbolizer__free(s);

	/* and with nothing at all: no file */
	o.cache_dir = NULL;
	s = symbolizer__new(&o);
	assert_int_equal(resolve(s, &st, tpath("gone/prog"), &r), 0);
	assert_int_equal(r.miss, SYM_MISS_NO_FILE);
	symbolizer__free(s);
}

static void test_07_gnu_debuglink(void **state)
{
	struct symbolizer_opts o = { .debug_dir = tpath("no-debug-dir") };
	struct symbolizer *s = symbolizer__new(&o);
	struct sym_module_info info;
	struct sym_module_key key;
	struct site st;

	(void)state;
	expect_prog(s, tpath("dl/prog_dl"), NULL, SYM_SRC_DWARF);
	locate(tpath("dl/prog_dl"), "ret", "outer_work", &st);
	key = (struct sym_module_key){ st.id, st.id_len, st.path };
	assert_int_equal(symbolizer__module_info(s, &key, &info), 0);
	assert_string_equal(info.found_via, "debuglink");
	assert_true(ends_with(info.debug_file, "dl/prog_dl.debug"));
	symbolizer__free(s);
}

static void test_08_build_id_debug_dir(void **state)
{
	struct symbolizer_opts o = { .debug_dir = tpath("debugdir") };
	struct symbolizer *s;
	struct sym_module_info info;
	struct sym_module_key key;
	char hex[2 * BUILDID_MAX + 1];
	struct site st;

	(void)state;
	locate(tpath("prog_stripped"), "ret", "outer_work", &st);
	hexid(&st, hex);
	assert_int_equal(sh("mkdir -p '%s/debugdir/.build-id/%.2s' && "
			    "cp '%s' '%s/debugdir/.build-id/%.2s/%s.debug'",
			    tmp, hex, tpath("prog_pie.debug"), tmp, hex, hex + 2),
			 0);
	s = symbolizer__new(&o);
	expect_prog(s, tpath("prog_stripped"), NULL, SYM_SRC_DWARF);
	key = (struct sym_module_key){ st.id, st.id_len, st.path };
	assert_int_equal(symbolizer__module_info(s, &key, &info), 0);
	assert_string_equal(info.found_via, "build-id dir");
	symbolizer__free(s);
}

static void test_09_symtab_only(void **state)
{
	struct symbolizer *s = symbolizer__new(NULL);
	struct sym_result r;
	struct site st;

	(void)state;
	locate(tpath("prog_nodebug"), "ret", "outer_work", &st);
	assert_int_equal(resolve(s, &st, NULL, &r), 0);
	assert_int_equal(r.source, SYM_SRC_SYMTAB);
	assert_int_equal(r.n, 1);
	expect_frame(&r.frames[0], "outer_work", NULL, 0);
	assert_null(r.frames[0].file);
	assert_true(r.func_offset > 0);
	/* an offset outside every loaded segment */
	assert_int_equal(symbolizer__resolve(s,
					     &(struct sym_module_key){ st.id, st.id_len,
								       st.path },
					     1ull << 40, &r),
			 0);
	assert_int_equal(r.miss, SYM_MISS_NOT_COVERED);
	symbolizer__free(s);
}

static void test_10_go_gopclntab_stripped(void **state)
{
	struct symbolizer *s;
	struct sym_module_info info;
	struct sym_module_key key;
	struct sym_result r;
	struct site st;

	(void)state;
	if (!have_go) {
		print_message("skipped: no 'go' command (Debian package golang-go)\n");
		skip();
	}
	s = symbolizer__new(NULL);
	locate(tpath("gofix"), "ret", "main.goWork", &st);
	key = (struct sym_module_key){ st.id, st.id_len, st.path };
	assert_int_equal(symbolizer__module_info(s, &key, &info), 0);
	assert_true(info.has_gopclntab);
	assert_false(info.has_dwarf);
	assert_false(info.has_symtab);
	assert_int_equal(resolve(s, &st, NULL, &r), 0);
	dump("goWork", &r);
	assert_int_equal(r.source, SYM_SRC_GOPCLNTAB);
	assert_int_equal(r.n, 1);
	expect_frame(&r.frames[0], "main.goWork", "main.go", marker_line("main.go", "go_callers"));
	assert_true(r.func_offset > 0);
	symbolizer__free(s);
}

/* A Go binary built the default way has no GNU build-id: it is identified by
 * its Go build ID note, and a key of the other kind never matches it. */
static void test_16_go_build_id(void **state)
{
	struct sym_module_key key;
	struct sym_result r;
	struct symbolizer *s;
	struct site st;

	(void)state;
	if (!have_go) {
		print_message("skipped: no 'go' command (Debian package golang-go)\n");
		skip();
	}
	locate(tpath("gofix_nognu"), "ret", "main.goWork", &st);
	assert_int_equal(st.kind, BUILDID_GO);
	assert_true(st.id_len > 20 && memchr(st.id, '/', st.id_len) != NULL);
	s = symbolizer__new(NULL);
	key = (struct sym_module_key){ st.id, st.id_len, st.path, SYM_BUILD_ID_GO };
	assert_int_equal(symbolizer__resolve(s, &key, st.off, &r), 0);
	dump("goWork (Go build ID)", &r);
	assert_int_equal(r.source, SYM_SRC_GOPCLNTAB);
	expect_frame(&r.frames[r.n - 1], "main.goWork", "main.go",
		     marker_line("main.go", "go_callers"));
	/* the same bytes as a GNU build-id: the file carries none, so no match */
	key.kind = SYM_BUILD_ID_GNU;
	assert_int_equal(symbolizer__resolve(s, &key, st.off, &r), 0);
	assert_int_equal(r.miss, SYM_MISS_BUILD_ID_MISMATCH);
	symbolizer__free(s);
}

/* The binary is gone and only its separate debug file is in the cache: the
 * debug file's program headers no longer map file offsets (objcopy zeroes
 * them), so the module is named only with the mapping's ELF address that the
 * capture recorded (symbolizer__add_mapping). */
static void test_17_debug_file_alone(void **state)
{
	struct symbolizer_opts o = { .debug_dir = tpath("no-debug-dir"),
				     .cache_dir = tpath("cache-alone") };
	struct sym_module_key key;
	struct symbolizer *s;
	struct sym_result r;
	char hex[2 * BUILDID_MAX + 1];
	struct site st;
	GElf_Phdr ph, seg = { 0 };
	size_t i, n;
	Elf *elf;
	int fd;

	(void)state;
	locate(tpath("prog_stripped"), "ret", "outer_work", &st);
	hexid(&st, hex);
	assert_int_equal(sh("mkdir -p '%s/cache-alone/%s' && cp '%s' '%s/cache-alone/%s/debuginfo'",
			    tmp, hex, tpath("prog_pie.debug"), tmp, hex),
			 0);
	/* the segment holding the address, from the binary, as the recorder reads it */
	fd = open(st.path, O_RDONLY);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_int_equal(elf_getphdrnum(elf, &n), 0);
	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    st.off >= ph.p_offset && st.off < ph.p_offset + ph.p_filesz)
			seg = ph;
	elf_end(elf);
	close(fd);
	assert_int_equal(seg.p_type, PT_LOAD);

	/* the binary is gone */
	key = (struct sym_module_key){ st.id, st.id_len, "/nonexistent/prog_stripped" };
	s = symbolizer__new(&o);
	assert_int_equal(symbolizer__resolve(s, &key, st.off, &r), 0);
	assert_int_equal(r.miss, SYM_MISS_NO_FILE);
	symbolizer__free(s);

	s = symbolizer__new(&o);
	assert_int_equal(symbolizer__add_mapping(s, &key, seg.p_offset, seg.p_filesz, seg.p_vaddr),
			 0);
	assert_int_equal(symbolizer__resolve(s, &key, st.off, &r), 0);
	dump("outer_work (debug file alone)", &r);
	assert_int_equal(r.source, SYM_SRC_DWARF);
	expect_frame(&r.frames[r.n - 1], "outer_work", "prog.c", marker_line("prog.c", "outer"));
	/* an anchor of another module does not apply */
	key.build_id_len--;
	assert_int_equal(symbolizer__resolve(s, &key, st.off, &r), 0);
	assert_int_not_equal(r.miss, SYM_MISS_NONE);
	symbolizer__free(s);
}

static void test_11_perf_map(void **state)
{
	static const char map[] = "7f0000001000 100 JS:~foo file.js:1\n"
				  "0x7f0000002000 0x80 JS:*foo file.js:1\n"
				  "7f0000003000 40 ^bar\n"
				  "not a line\n"
				  "7f0000004000 zz broken\n"
				  "7f0000005000 100 Builtin:ArrayMap\n"
				  "7f0000005000 100 LazyCompile:+baz x.js:3\n"
				  "7f0000006000 10 ~~~";
	struct symbolizer *s = symbolizer__new(NULL);
	struct sym_result r, r2;

	(void)state;
	assert_int_equal(symbolizer__add_perf_map(s, 42, map, sizeof(map) - 1), 0);
	assert_int_equal(symbolizer__resolve_jit(s, 42, 0x7f0000001010, &r), 0);
	assert_int_equal(r.source, SYM_SRC_PERFMAP);
	assert_string_equal(r.frames[0].func, "JS:foo file.js:1");
	assert_int_equal(r.func_offset, 0x10);
	/* the optimized copy is the same function, the same interned name */
	assert_int_equal(symbolizer__resolve_jit(s, 42, 0x7f000000207f, &r2), 0);
	assert_ptr_equal(r2.frames[0].func, r.frames[0].func);
	assert_int_equal(symbolizer__resolve_jit(s, 42, 0x7f0000003000, &r), 0);
	assert_string_equal(r.frames[0].func, "bar");
	/* overlapping entries: the later line wins */
	assert_int_equal(symbolizer__resolve_jit(s, 42, 0x7f0000005004, &r), 0);
	assert_string_equal(r.frames[0].func, "LazyCompile:baz x.js:3");
	assert_int_equal(symbolizer__resolve_jit(s, 42, 0x7f0000006000, &r), 0);
	assert_string_equal(r.frames[0].func, "~~~");
	/* gaps, the end of an entry, the broken line, another pid */
	assert_int_equal(symbolizer__resolve_jit(s, 42, 0x7f0000002080, &r), 0);
	assert_int_equal(r.miss, SYM_MISS_NOT_COVERED);
	assert_int_equal(symbolizer__resolve_jit(s, 42, 0x7f0000004000, &r), 0);
	assert_int_equal(r.miss, SYM_MISS_NOT_COVERED);
	assert_int_equal(symbolizer__resolve_jit(s, 42, 0x1000, &r), 0);
	assert_int_equal(r.miss, SYM_MISS_NOT_COVERED);
	assert_int_equal(symbolizer__resolve_jit(s, 43, 0x7f0000001010, &r), 0);
	assert_int_equal(r.miss, SYM_MISS_NO_FILE);
	/* a second map for the pid adds to the first */
	assert_int_equal(symbolizer__add_perf_map(s, 42, "7f0000009000 8 qux\n", 18), 0);
	assert_int_equal(symbolizer__resolve_jit(s, 42, 0x7f0000009007, &r), 0);
	assert_string_equal(r.frames[0].func, "qux");
	assert_int_equal(symbolizer__resolve_jit(s, 42, 0x7f0000001000, &r), 0);
	assert_string_equal(r.frames[0].func, "JS:foo file.js:1");
	symbolizer__free(s);
}

/* Loads a two-instruction socket filter named ptop_symtest and returns the address
 * kallsyms gives its text ("bpf_prog_TAG_ptop_symtest [bpf]"), its fd in *FD; 0 when
 * it cannot (not root, no JIT, bpf_jit_kallsyms off). */
static unsigned long long bpf_prog_text(int *fd)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	unsigned long long a, found = 0;
	char line[512], name[256], mod[64], type;
	FILE *f;

	*fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "ptop_symtest", "GPL", insns, 2, NULL);
	if (*fd < 0)
		return 0;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		goto fail;
	while (fgets(line, sizeof(line), f)) {
		size_t n;

		if (sscanf(line, "%llx %c %255s %63s", &a, &type, name, mod) != 4 ||
		    strcmp(mod, "[bpf]"))
			continue;
		n = strlen(name);
		if (n > 13 && !strcmp(name + n - 13, "_ptop_symtest")) {
			found = a;
			break;
		}
	}
	fclose(f);
	if (found)
		return found;
fail:
	if (*fd >= 0)
		close(*fd);
	return 0;
}

static void test_12_kallsyms_boot(void **state)
{
	struct symbolizer *s = symbolizer__new(NULL);
	int prog_fd = -1;
	char boot[64] = "", line[512], name[256], type;
	unsigned long long addr = 0, a;
	struct sym_result r;
	FILE *f;

	(void)state;
	assert_int_equal(symbolizer__resolve_kernel(s, "00000000-0000-0000-0000-000000000000",
						    0xffffffff81000000ull, &r),
			 0);
	assert_int_equal(r.miss, SYM_MISS_OTHER_BOOT);
	assert_int_equal(r.source, SYM_SRC_NONE);
	assert_int_equal(symbolizer__resolve_kernel(s, NULL, 0xffffffff81000000ull, &r), 0);
	assert_int_equal(r.miss, SYM_MISS_OTHER_BOOT);

	f = fopen("/proc/sys/kernel/random/boot_id", "r");
	assert_non_null(f);
	assert_non_null(fgets(boot, sizeof(boot), f));
	fclose(f);
	boot[strcspn(boot, "\n")] = '\0';
	f = fopen("/proc/kallsyms", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && type == 'T' &&
		    !strcmp(name, "schedule")) {
			addr = a;
			break;
		}
	}
	fclose(f);
	if (!addr) {
		print_message("this boot: kallsyms addresses hidden (kptr_restrict); checked "
			      "other-boot only\n");
		symbolizer__free(s);
		return;
	}
	assert_int_equal(symbolizer__resolve_kernel(s, boot, addr + 4, &r), 0);
	assert_int_equal(r.source, SYM_SRC_KALLSYMS);
	assert_string_equal(r.frames[0].func, "schedule");
	assert_int_equal(r.func_offset, 4);

	/* past the core kernel's text (BPF trampolines, module space): never named after
	 * the symbol before it (an end marker), but left unnamed, not covered */
	addr = 0;
	f = fopen("/proc/kallsyms", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 &&
		    !strcmp(name, "_einittext"))
			addr = a;
	fclose(f);
	if (addr) {
		unsigned long long past = addr + 0x1000;

		assert_int_equal(symbolizer__resolve_kernel(s, boot, past, &r), 0);
		if (r.source != SYM_SRC_NONE)
			fail_msg("%#llx, past _einittext, named %s+%#llx", past, r.frames[0].func,
				 (unsigned long long)r.func_offset);
		assert_int_equal(r.miss, SYM_MISS_NOT_COVERED);
	}

	/* a BPF program's text ([bpf] in kallsyms) is never named: the program there now
	 * need not be the one that ran when the capture was made. This test loads one. */
	addr = bpf_prog_text(&prog_fd);
	if (addr) {
		assert_int_equal(symbolizer__resolve_kernel(s, boot, addr + 1, &r), 0);
		if (r.source != SYM_SRC_NONE)
			fail_msg("%#llx, in a BPF program, named %s", addr, r.frames[0].func);
		assert_int_equal(r.miss, SYM_MISS_NOT_COVERED);
		close(prog_fd);
	} else {
		print_message("no BPF program of its own in kallsyms (not root, or "
			      "net.core.bpf_jit_kallsyms=0): [bpf] case not checked\n");
	}
	symbolizer__free(s);
}

static void test_13_embedded_image(void **state)
{
	struct symbolizer_opts o = { .debug_dir = tpath("no-debug-dir") };
	struct symbolizer *s = symbolizer__new(&o);
	struct sym_module_info info;
	struct sym_module_key key;
	struct sym_result r;
	struct site st, other;
	char *img;
	long n;
	FILE *f;

	(void)state;
	locate(tpath("prog_nopie"), "ret", "outer_work", &st);
	locate(tpath("prog_pie"), "ret", "outer_work", &other);
	f = fopen(tpath("prog_nopie"), "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	img = malloc((size_t)n);
	assert_non_null(img);
	assert_int_equal(fread(img, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	/* refused under another build-id, and when not an ELF */
	assert_int_equal(symbolizer__add_embedded(s, other.id, other.id_len, img, (size_t)n),
			 -EINVAL);
	assert_int_equal(symbolizer__add_embedded(s, st.id, st.id_len, "junk", 4), -EINVAL);
	/* before it is offered, the module (recorded path gone) has no file */
	assert_int_equal(resolve(s, &st, tpath("gone/prog_nopie"), &r), 0);
	assert_int_equal(r.miss, SYM_MISS_NO_FILE);
	assert_int_equal(symbolizer__add_embedded(s, st.id, st.id_len, img, (size_t)n), 0);
	memset(img, 0, (size_t)n); /* the symbolizer took a copy */
	free(img);
	assert_int_equal(resolve(s, &st, tpath("gone/prog_nopie"), &r), 0);
	assert_int_equal(r.source, SYM_SRC_DWARF);
	expect_frame(&r.frames[0], "outer_work", "prog.c", marker_line("prog.c", "outer"));
	key = (struct sym_module_key){ st.id, st.id_len, tpath("gone/prog_nopie") };
	assert_int_equal(symbolizer__module_info(s, &key, &info), 0);
	assert_string_equal(info.found_via, "embedded");
	symbolizer__free(s);
}

static void test_14_lookups_remembered(void **state)
{
	struct symbolizer_opts o = { .debug_dir = tpath("no-debug-dir"),
				     .cache_dir = tpath("latecache") };
	struct symbolizer *s = symbolizer__new(&o);
	struct sym_result r;
	char hex[2 * BUILDID_MAX + 1];
	struct site st;

	(void)state;
	/* a hit stays open: the file may go away afterwards */
	assert_int_equal(sh("cp '%s' '%s'", tpath("prog_nodebug"), tpath("moved")), 0);
	locate(tpath("moved"), "ret", "outer_work", &st);
	assert_int_equal(resolve(s, &st, NULL, &r), 0);
	assert_int_equal(r.source, SYM_SRC_SYMTAB);
	assert_int_equal(unlink(tpath("moved")), 0);
	assert_int_equal(resolve(s, &st, NULL, &r), 0);
	assert_int_equal(r.source, SYM_SRC_SYMTAB);
	assert_string_equal(r.frames[0].func, "outer_work");
	/* a miss is remembered too: a file appearing later is not looked for again */
	locate(tpath("prog_stripped"), "ret", "outer_work", &st);
	assert_int_equal(resolve(s, &st, tpath("gone/x"), &r), 0);
	assert_int_equal(r.miss, SYM_MISS_NO_FILE);
	hexid(&st, hex);
	assert_int_equal(sh("mkdir -p '%s/latecache/%s' && cp '%s' '%s/latecache/%s/executable'",
			    tmp, hex, tpath("prog_stripped"), tmp, hex),
			 0);
	assert_int_equal(resolve(s, &st, tpath("gone/x"), &r), 0);
	assert_int_equal(r.miss, SYM_MISS_NO_FILE);
	symbolizer__free(s);
	/* a new symbolizer finds it: the cache's executable, which has no symbols */
	o.cache_dir = tpath("latecache");
	o.debug_dir = tpath("no-debug-dir");
	s = symbolizer__new(&o);
	assert_int_equal(resolve(s, &st, tpath("gone/x"), &r), 0);
	assert_int_equal(r.miss, SYM_MISS_NO_SYMBOLS);
	symbolizer__free(s);
}

/* A free TCP port on 127.0.0.1 (bound, read, closed). */
static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };
	socklen_t l = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &l) == 0)
		port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* HTTP status of GET PATH on 127.0.0.1:PORT, or -1. */
static int http_status(int port, const char *path)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(0x7f000001) };
	char req[PATH_MAX + 128], resp[64] = "";
	int fd = socket(AF_INET, SOCK_STREAM, 0), status = -1;
	ssize_t n;

	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
		snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
		if (write(fd, req, strlen(req)) == (ssize_t)strlen(req)) {
			n = read(fd, resp, sizeof(resp) - 1);
			if (n > 0) {
				resp[n] = '\0';
				if (sscanf(resp, "HTTP/%*s %d", &status) != 1)
					status = -1;
			}
		}
	}
	close(fd);
	return status;
}

static void test_15_debuginfod_only_when_asked(void **state)
{
	struct symbolizer_opts o = { .debug_dir = tpath("no-debug-dir") };
	struct sym_module_info info;
	struct sym_module_key key;
	struct symbolizer *s;
	struct sym_result r;
	char hex[2 * BUILDID_MAX + 1], url[64], path[PATH_MAX], port_s[16];
	struct site st;
	pid_t pid;
	int port, status = -1, i;

	(void)state;
	if (!have_debuginfod) {
		print_message("skipped: no 'debuginfod' command (Debian package debuginfod)\n");
		skip();
	}
	assert_int_equal(sh("mkdir -p '%s/served' '%s/dcache' '%s/nocache' && cp '%s' '%s' "
			    "'%s/served/'",
			    tmp, tmp, tmp, tpath("prog_pie.debug"), tpath("prog_stripped"), tmp),
			 0);
	locate(tpath("prog_stripped"), "ret", "outer_work", &st);
	hexid(&st, hex);
	port = free_port();
	assert_true(port > 0);
	snprintf(port_s, sizeof(port_s), "%d", port);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(tpath("debuginfod.log"), O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		unsetenv("DEBUGINFOD_URLS");
		execlp("debuginfod", "debuginfod", "-p", port_s, "-d", tpath("dbd.sqlite"), "-F",
		       tpath("served"), (char *)NULL);
		_exit(127);
	}
	/* wait until the server has scanned the directory and serves the file */
	snprintf(path, sizeof(path), "/buildid/%s/debuginfo", hex);
	for (i = 0; i < 600 && status != 200; i++) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		status = http_status(port, path);
		if (status != 200)
			nanosleep(&ts, NULL);
		if (waitpid(pid, NULL, WNOHANG) == pid)
			break;
	}
	if (status != 200) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		fail_msg("debuginfod on port %d never served %s (log %s)", port, path,
			 tpath("debuginfod.log"));
	}
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	setenv("DEBUGINFOD_URLS", url, 1);

	/* not asked: nothing fetched, the cache stays empty */
	o.cache_dir = tpath("nocache");
	s = symbolizer__new(&o);
	assert_int_equal(resolve(s, &st, NULL, &r), 0);
	assert_int_equal(r.source, SYM_SRC_NONE);
	symbolizer__free(s);
	assert_true(dir_empty(tpath("nocache")));

	/* asked, with the URL given explicitly: named, and the file lands in the cache */
	unsetenv("DEBUGINFOD_URLS");
	o.cache_dir = tpath("dcache");
	o.debuginfod = true;
	o.debuginfod_urls = url;
	s = symbolizer__new(&o);
	expect_prog(s, tpath("prog_stripped"), NULL, SYM_SRC_DWARF);
	key = (struct sym_module_key){ st.id, st.id_len, st.path };
	assert_int_equal(symbolizer__module_info(s, &key, &info), 0);
	assert_string_equal(info.found_via, "debuginfod");
	symbolizer__free(s);
	assert_null(getenv("DEBUGINFOD_URLS")); /* restored */
	snprintf(path, sizeof(path), "%s/dcache/%s/debuginfo", tmp, hex);
	assert_int_equal(access(path, R_OK), 0);

	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

/* The file offset of virtual address VADDR in the ELF at PATH (through its PT_LOADs). */
static uint64_t vaddr_to_offset(const char *path, uint64_t vaddr)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	size_t n, k;
	uint64_t off = UINT64_MAX;

	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getphdrnum(elf, &n), 0);
	for (k = 0; k < n; k++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)k, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
		    vaddr < ph.p_vaddr + ph.p_filesz)
			off = ph.p_offset + (vaddr - ph.p_vaddr);
	}
	elf_end(elf);
	close(fd);
	return off;
}

/* PLT stubs are named NAME@plt, as objdump and perf name them: every stub objdump labels
 * in .plt, .plt.sec and .plt.got of the fixtures (and of Debian's libc) resolves, by
 * build-id and file offset, to objdump's name; a stub of an IRELATIVE slot (*ABS*+ADDR,
 * libc's ifuncs) stays unnamed. */
static void test_18_plt_names(void **state)
{
	const char *files[] = { tpath("prog_pie"), tpath("prog_nopie"), tpath("libsymfix.so"),
				"/lib/x86_64-linux-gnu/libc.so.6" };
	size_t checked = 0;

	(void)state;
	if (!have_cmd("objdump")) {
		print_message("objdump (binutils) is not installed: PLT names not checked\n");
		return;
	}
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct symbolizer *s = symbolizer__new(NULL);
		char cmd[PATH_MAX + 128], line[1024], want[512];
		struct sym_module_key key = { .path = files[f] };
		uint8_t id[BUILDID_MAX];
		unsigned long long a;
		FILE *p;

		if (access(files[f], R_OK)) {
			symbolizer__free(s);
			continue;
		}
		assert_int_equal(buildid_read_path(files[f], id, sizeof(id), &key.build_id_len), 0);
		key.build_id = id;
		snprintf(cmd, sizeof(cmd),
			 "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null", files[f]);
		p = popen(cmd, "r");
		assert_non_null(p);
		while (fgets(line, sizeof(line), p)) {
			struct sym_result r;
			char *end;

			/* "0000000000001030 <puts@plt>:" */
			if (sscanf(line, "%llx <%511[^>]>:", &a, want) != 2 ||
			    !(end = strstr(want, "@plt")) || end[4])
				continue;
			memset(&r, 0, sizeof(r));
			assert_int_equal(symbolizer__resolve(s, &key, vaddr_to_offset(files[f], a) + 4,
							     &r),
					 0);
			if (!strncmp(want, "*ABS*", 5)) {
				/* an IRELATIVE slot (libc's ifuncs): no symbol names it, and no
				 * other name may be given */
				if (r.source != SYM_SRC_NONE)
					fail_msg("%s: %#llx: %s named %s", files[f], a, want,
						 r.frames[0].func);
				continue;
			}
			if (r.source == SYM_SRC_NONE || strcmp(r.frames[0].func, want))
				fail_msg("%s: %#llx+4: objdump says %s, the symbolizer %s", files[f], a,
					 want, r.source == SYM_SRC_NONE ? "nothing" : r.frames[0].func);
			assert_int_equal(r.func_offset, 4);
			checked++;
		}
		pclose(p);
		symbolizer__free(s);
	}
	print_message("%zu PLT stubs named as objdump names them\n", checked);
	assert_true(checked >= 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_01_names_and_no_build_id),
		cmocka_unit_test(test_02_pie_dwarf_inlined),
		cmocka_unit_test(test_03_nonpie_dwarf),
		cmocka_unit_test(test_04_shared_library),
		cmocka_unit_test(test_05_stripped_via_symbol_cache),
		cmocka_unit_test(test_06_cache_build_id_mismatch_ignored),
		cmocka_unit_test(test_07_gnu_debuglink),
		cmocka_unit_test(test_08_build_id_debug_dir),
		cmocka_unit_test(test_09_symtab_only),
		cmocka_unit_test(test_10_go_gopclntab_stripped),
		cmocka_unit_test(test_16_go_build_id),
		cmocka_unit_test(test_17_debug_file_alone),
		cmocka_unit_test(test_11_perf_map),
		cmocka_unit_test(test_12_kallsyms_boot),
		cmocka_unit_test(test_13_embedded_image),
		cmocka_unit_test(test_14_lookups_remembered),
		cmocka_unit_test(test_15_debuginfod_only_when_asked),
		cmocka_unit_test(test_18_plt_names),
	};

	return cmocka_run_group_tests(tests, build_fixtures, remove_fixtures);
}
