/* seed_scrub.c — rewrite a real capture into a fuzz seed: the host's name and boot id and
 * every mapping's build-id are replaced, and mapped paths moved under /nonexistent, so that
 * nothing in the seed names this machine and the analyzer finds no local file or kallsyms
 * to symbolize with (a fuzzer that opened libc's DWARF on every run would be slow, and
 * would fuzz nothing that comes from the input). Everything else is kept as recorded.
 *
 *   seed_scrub IN OUT      (tests/fuzz/make_seeds.sh)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/capture.h"

static char *moved(const char *path)
{
	size_t n = strlen(path) + 16;
	char *p = malloc(n);

	if (!p)
		exit(1);
	snprintf(p, n, "/nonexistent%s", path);
	return p;
}

int main(int argc, char **argv)
{
	struct capture_writer_opts o = {.force = false};
	struct capture_writer *w;
	struct capture_reader *r;
	Ptop__V1__Record *rec;
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: seed_scrub IN OUT\n");
		return 2;
	}
	r = capture_reader__open(argv[1]);
	if (!r) {
		fprintf(stderr, "seed_scrub: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	w = capture_writer__create(argv[2], &o);
	if (!w) {
		fprintf(stderr, "seed_scrub: %s: %s\n", argv[2], strerror(errno));
		return 2;
	}
	while ((rc = capture_reader__next(r, &rec)) == 1) {
		char *path = NULL, *saved = NULL;
		char *host = NULL, *boot = NULL;

		if (rec->kind_case == PTOP__V1__RECORD__KIND_HEADER && rec->header->host) {
			host = rec->header->host->hostname;
			boot = rec->header->host->boot_id;
			rec->header->host->hostname = "fuzz-host";
			rec->header->host->boot_id = "00000000-0000-0000-0000-00000000f022";
		}
		if (rec->kind_case == PTOP__V1__RECORD__KIND_MAPPING) {
			Ptop__V1__Mapping *m = rec->mapping;

			for (size_t k = 0; k < m->build_id.len; k++)
				m->build_id.data[k] ^= 0x5a;
			if (m->path && m->path[0] == '/') {
				saved = m->path;
				path = m->path = moved(saved);
			}
		}
		rc = capture_writer__append(w, rec);
		if (host) {
			rec->header->host->hostname = host;
			rec->header->host->boot_id = boot;
		}
		if (saved)
			rec->mapping->path = saved;
		free(path);
		ptop__v1__record__free_unpacked(rec, NULL);
		if (rc) {
			fprintf(stderr, "seed_scrub: writing %s: %s\n", argv[2], strerror(-rc));
			capture_writer__abort(w);
			return 1;
		}
	}
	capture_reader__free(r);
	return capture_writer__close(w) ? 1 : 0;
}
