/* bench_symbol.c — symbolizer memory and speed: resolve N file offsets spread over each ELF
 * given on the command line (by its own build-id), then print counts by source, the time and
 * the peak RSS (getrusage ru_maxrss). Usage: bench_symbol [-n N] FILE...
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symbol/buildid.h"
#include "symbol/symbolizer.h"

static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
	unsigned long n = 1000000, counts[SYM_SRC__COUNT] = { 0 }, misses[SYM_MISS__COUNT] = { 0 };
	struct symbolizer *s;
	struct timespec t0, t1;
	long rss0;
	int i = 1, err = 0;

	if (argc > 2 && !strcmp(argv[1], "-n")) {
		n = strtoul(argv[2], NULL, 10);
		i = 3;
	}
	if (i >= argc || !n) {
		fprintf(stderr, "usage: bench_symbol [-n N] FILE...\n");
		return 2;
	}
	s = symbolizer__new(NULL);
	if (!s) {
		fprintf(stderr, "bench_symbol: %s\n", strerror(errno));
		return 1;
	}
	rss0 = maxrss_kb();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (; i < argc; i++) {
		uint8_t id[BUILDID_MAX];
		size_t len;
		struct sym_module_key key;
		struct sym_module_info info;
		struct stat st;
		unsigned long k;

		if (stat(argv[i], &st) || buildid_read_path(argv[i], id, sizeof(id), &len)) {
			fprintf(stderr, "bench_symbol: %s: no file or no build-id\n", argv[i]);
			err = 1;
			continue;
		}
		key = (struct sym_module_key){ id, len, argv[i] };
		for (k = 0; k < n; k++) {
			struct sym_result r;
			uint64_t off = (uint64_t)((double)k / (double)n * (double)st.st_size);

			if (symbolizer__resolve(s, &key, off, &r)) {
				err = 1;
				break;
			}
			counts[r.source]++;
			misses[r.miss]++;
		}
		symbolizer__module_info(s, &key, &info);
		printf("%s: %lu offsets; gopclntab %d dwarf %d symtab %d dynsym %d\n", argv[i], n,
		       info.has_gopclntab, info.has_dwarf, info.has_symtab, info.has_dynsym);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (i = 0; i < SYM_SRC__COUNT; i++)
		if (counts[i])
			printf("  source %-10s %lu\n", sym_source_name(i), counts[i]);
	for (i = 1; i < SYM_MISS__COUNT; i++)
		if (misses[i])
			printf("  miss   %-10s %lu\n", sym_miss_name(i), misses[i]);
	printf("time %.2f s, peak RSS %ld KiB (before: %ld KiB)\n",
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       maxrss_kb(), rss0);
	symbolizer__free(s);
	return err;
}
