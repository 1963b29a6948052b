/* bench_uprobe_floor.c — the bare-trap floor of the heap bench: attaches
 * bpf/bench_uprobe_noop.bpf.c (programs that only count) at the allocator's probe
 * points — uprobes on malloc, calloc, realloc, free, posix_memalign, aligned_alloc,
 * memalign, valloc, pvalloc and uretprobes on those that return a pointer — in the
 * module that defines them, and holds them until SIGINT or SIGTERM. What an
 * allocating target pays with this running is the price of the traps alone; the heap
 * collector is measured against it (bench/overhead_heap.sh). Single probes (--only)
 * and other offsets (--free-offset, --offset) measure the cost of one kind of hit.
 *
 * usage: bench_uprobe_floor [--pid PID] [--lib PATH] [--only LIST] [--no-ret]
 *                           [--free-offset N|auto] [--offset FUNC=N]...
 *   --pid PID        probe only this process (default: every process mapping LIB)
 *   --lib PATH       the module defining the allocator (default: the libc that PID
 *                    maps, else /lib/x86_64-linux-gnu/libc.so.6)
 *   --only LIST      attach only these, comma-separated: FUNC for the entry probe,
 *                    FUNC.ret for the return probe (e.g. malloc,malloc.ret,free)
 *   --no-ret         no uretprobes
 *   --offset FUNC=N|auto  put FUNC's probes (the uprobe and, as the collector does, its
 *                    uretprobe) N bytes into FUNC; auto (the default) is the heap
 *                    collector's own choice (uprobe_target__choose_probe: the first instruction
 *                    the kernel can emulate that every call reaches — on Debian 12's
 *                    glibc free+9, past "test %rdi,%rdi; je"; malloc+0, a push)
 *   --free-offset N|auto  the same as --offset free=N
 * Prints "attached: LIB malloc+0 malloc+0.ret ..." on stdout once the probes are live,
 * and on exit one line per probe: "hits PROBE N".
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpf/bench_uprobe_noop.skel.h"
#include "record/uprobe_target.h"

#define DEFAULT_LIBC "/lib/x86_64-linux-gnu/libc.so.6"

struct probe {
	const char *func;
	struct bpf_program *entry, *ret;
	volatile __u64 *entry_hits, *ret_hits;
	long offset; /* bytes into the function; -1: the collector's choice */
	int want_entry, want_ret;
	unsigned long addr; /* the symbol's address in the ELF file, 0 if not found */
	long file_off;	    /* its file offset */
	struct bpf_link *entry_link, *ret_link;
	const char *same_as; /* another probe at the same address, attached instead */
};

#define PROBE(name, s)                                                                             \
	{                                                                                          \
		.func = #name, .entry = s->progs.name##_entry, .ret = s->progs.name##_ret,         \
		.entry_hits = &s->bss->hits_##name, .ret_hits = &s->bss->hits_##name##_ret,        \
		.offset = -1, .want_entry = 1, .want_ret = 1                                       \
	}

static void usage(void)
{
	fprintf(stderr, "usage: bench_uprobe_floor [--pid PID] [--lib PATH] [--only LIST] "
			"[--no-ret] [--free-offset N|auto] [--offset FUNC=N]...\n");
	exit(2);
}

/* the libc mapped by pid, from /proc/PID/maps; NULL if none */
static char *pid_libc(int pid)
{
	char path[64], line[4096], *p, *found = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		p = strchr(line, '/');
		if (!p || !strstr(p, "/libc.so"))
			continue;
		p[strcspn(p, "\n")] = 0;
		found = strdup(p);
	}
	fclose(f);
	return found;
}

/* fill addr and file_off of each probe from LIB's symbol tables; 0 or -errno */
static int resolve(const char *lib, struct probe *pr, int n)
{
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	GElf_Phdr ph;
	size_t nph, i;
	int fd, err = 0;

	elf_version(EV_CURRENT);
	fd = open(lib, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_getphdrnum(elf, &nph)) {
		err = -ENOEXEC;
		goto cleanup;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			for (int k = 0; name && k < n; k++)
				if (!pr[k].addr && !strcmp(name, pr[k].func))
					pr[k].addr = sym.st_value;
		}
	}
	for (int k = 0; k < n; k++) {
		pr[k].file_off = -1;
		for (i = 0; pr[k].addr && i < nph; i++) {
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (pr[k].addr >= ph.p_vaddr && pr[k].addr < ph.p_vaddr + ph.p_filesz)
				pr[k].file_off = (long)(pr[k].addr - ph.p_vaddr + ph.p_offset);
		}
	}
cleanup:
	elf_end(elf);
	close(fd);
	return err;
}

/* the collector's choice of offset in the function at file offset OFF of LIB (its
 * uprobe_target__choose_probe), or 0 when the code cannot be read */
static long auto_offset(const char *lib, long off, int is_free)
{
	struct uprobe_point pp;
	uint8_t code[32];
	ssize_t got;
	int fd;

	fd = open(lib, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	got = pread(fd, code, sizeof(code), off);
	close(fd);
	if (got <= 0)
		return 0;
	uprobe_target__choose_probe(code, (size_t)got, is_free, &pp);
	return pp.offset;
}

static int bench_uprobe_floor_main(int argc, char **argv)
{
	struct bench_uprobe_noop_bpf *skel = NULL;
	char *lib = NULL, *only = NULL;
	int pid = -1, no_ret = 0, err = 0, sig, n;
	sigset_t set;

	/* a shell starts background jobs with SIGINT ignored, and an ignored signal
	 * never reaches sigwait(): take the default back before blocking */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);

	skel = bench_uprobe_noop_bpf__open_and_load();
	if (!skel) {
		err = -errno;
		fprintf(stderr,
			"bench_uprobe_floor: load the counting BPF programs: %s "
			"(run as root)\n",
			strerror(-err));
		return 1;
	}
	struct probe pr[] = {
	    PROBE(malloc, skel),
	    PROBE(calloc, skel),
	    PROBE(realloc, skel),
	    {.func = "free",
	     .entry = skel->progs.free_entry,
	     .entry_hits = &skel->bss->hits_free,
	     .offset = -1,
	     .want_entry = 1},
	    PROBE(posix_memalign, skel),
	    PROBE(aligned_alloc, skel),
	    PROBE(memalign, skel),
	    PROBE(valloc, skel),
	    PROBE(pvalloc, skel),
	};
	n = (int)(sizeof(pr) / sizeof(pr[0]));

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *e;

		if (!strcmp(a, "--no-ret")) {
			no_ret = 1;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--pid")) {
			pid = (int)strtol(v, &e, 10);
			if (*e || pid <= 0)
				usage();
		} else if (!strcmp(a, "--lib")) {
			lib = strdup(v);
		} else if (!strcmp(a, "--only")) {
			only = strdup(v);
		} else if (!strcmp(a, "--offset") || !strcmp(a, "--free-offset")) {
			char buf[64];
			const char *eq;
			int k;

			if (!strcmp(a, "--free-offset")) {
				snprintf(buf, sizeof(buf), "free=%s", v);
				v = buf;
			}
			eq = strchr(v, '=');

			for (k = 0; eq && k < n; k++)
				if (strlen(pr[k].func) == (size_t)(eq - v) &&
				    !strncmp(pr[k].func, v, (size_t)(eq - v)))
					break;
			if (!eq || k == n)
				usage();
			if (!strcmp(eq + 1, "auto")) {
				pr[k].offset = -1;
				continue;
			}
			pr[k].offset = strtol(eq + 1, &e, 0);
			if (*e || pr[k].offset < 0)
				usage();
		} else {
			usage();
		}
	}
	if (only) {
		for (int k = 0; k < n; k++)
			pr[k].want_entry = pr[k].want_ret = 0;
		for (char *t = strtok(only, ","); t; t = strtok(NULL, ",")) {
			size_t len = strlen(t);
			int ret = len > 4 && !strcmp(t + len - 4, ".ret"), k;

			for (k = 0; k < n; k++)
				if (strlen(pr[k].func) == len - (ret ? 4 : 0) &&
				    !strncmp(pr[k].func, t, len - (ret ? 4 : 0)))
					break;
			if (k == n || (ret && !pr[k].ret)) {
				fprintf(stderr, "bench_uprobe_floor: --only %s: no such probe\n",
					t);
				err = -EINVAL;
				goto cleanup;
			}
			*(ret ? &pr[k].want_ret : &pr[k].want_entry) = 1;
		}
	}
	for (int k = 0; k < n; k++)
		if (no_ret || !pr[k].ret)
			pr[k].want_ret = 0;
	if (!lib && pid > 0)
		lib = pid_libc(pid);
	if (!lib)
		lib = strdup(DEFAULT_LIBC);
	err = resolve(lib, pr, n);
	if (err) {
		fprintf(stderr, "bench_uprobe_floor: read the symbols of %s: %s\n", lib,
			strerror(-err));
		goto cleanup;
	}
	for (int k = 0; k < n; k++) {
		if (pr[k].offset < 0)
			pr[k].offset =
			    pr[k].file_off >= 0
				? auto_offset(lib, pr[k].file_off, !strcmp(pr[k].func, "free"))
				: 0;
		/* one trap per address: glibc's aligned_alloc and memalign are one function */
		for (int j = 0; j < k; j++)
			if (pr[j].addr && pr[j].addr == pr[k].addr && pr[j].offset == pr[k].offset)
				pr[k].same_as = pr[j].func;
	}

	printf("attached: %s", lib);
	for (int k = 0; k < n; k++) {
		LIBBPF_OPTS(bpf_uprobe_opts, opts);

		if (!pr[k].want_entry && !pr[k].want_ret)
			continue;
		if (pr[k].file_off < 0) {
			fprintf(stderr, "bench_uprobe_floor: %s is not defined in %s: not probed\n",
				pr[k].func, lib);
			continue;
		}
		if (pr[k].same_as) {
			fprintf(stderr,
				"bench_uprobe_floor: %s is %s (same address): probed once\n",
				pr[k].func, pr[k].same_as);
			continue;
		}
		if (pr[k].want_entry) {
			pr[k].entry_link = bpf_program__attach_uprobe_opts(
			    pr[k].entry, pid, lib, (size_t)(pr[k].file_off + pr[k].offset), &opts);
			if (!pr[k].entry_link) {
				err = -errno;
				fprintf(stderr, "bench_uprobe_floor: attach uprobe %s+%ld: %s\n",
					pr[k].func, pr[k].offset, strerror(-err));
				goto cleanup;
			}
			printf(" %s+%ld", pr[k].func, pr[k].offset);
		}
		if (pr[k].want_ret) {
			opts.retprobe = true;
			pr[k].ret_link = bpf_program__attach_uprobe_opts(
			    pr[k].ret, pid, lib, (size_t)(pr[k].file_off + pr[k].offset), &opts);
			if (!pr[k].ret_link) {
				err = -errno;
				fprintf(stderr, "bench_uprobe_floor: attach uretprobe %s: %s\n",
					pr[k].func, strerror(-err));
				goto cleanup;
			}
			printf(" %s+%ld.ret", pr[k].func, pr[k].offset);
		}
	}
	printf("\n");
	fflush(stdout);
	sigwait(&set, &sig);
	for (int k = 0; k < n; k++) {
		if (pr[k].entry_link)
			printf("hits %s %llu\n", pr[k].func, (unsigned long long)*pr[k].entry_hits);
		if (pr[k].ret_link)
			printf("hits %s.ret %llu\n", pr[k].func,
			       (unsigned long long)*pr[k].ret_hits);
	}
cleanup:
	for (int k = 0; k < n; k++) {
		bpf_link__destroy(pr[k].entry_link);
		bpf_link__destroy(pr[k].ret_link);
	}
	bench_uprobe_noop_bpf__destroy(skel);
	free(lib);
	free(only);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	return bench_uprobe_floor_main(argc, argv);
}
