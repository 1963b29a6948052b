/* fuzz_reader.c — libFuzzer target for the capture reader: every input is read
 * whole (records, status, index, seeks) and salvaged; nothing may crash, leak
 * or allocate without bound.
 *
 *   make B=build-x fuzz
 *   build-x/fuzz/fuzz_reader -max_total_time=60 tests/fuzz/corpus
 *
 * Binary corpora are not committed: at start-up, when the corpus folder (the
 * first argument that is not a -flag, or $PTOP_FUZZ_SEEDS) is missing or
 * empty, it is created and seeded with captures made by the writer here
 * (tests/fuzz/corpus/ is in .gitignore).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto/capture.h"
#include "tests/codec_samples.h"

static void write_seed(const char *dir, const char *name, size_t frame_bytes, unsigned n,
		       size_t cut)
{
	struct capture_writer_opts o = {.frame_bytes = frame_bytes, .force = true};
	struct capture_writer *w;
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	w = capture_writer__create(path, &o);
	if (!w) {
		fprintf(stderr, "fuzz_reader: cannot write seed %s: %s\n", path, strerror(errno));
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		Ptop__V1__Record *rec = sample_record(i, 1000ull * (i + 1));

		capture_writer__append(w, rec);
		ptop__v1__record__free_unpacked(rec, NULL);
	}
	capture_writer__close(w);
	if (cut && truncate(path, (off_t)cut) < 0)
		fprintf(stderr, "fuzz_reader: cannot cut seed %s\n", path);
}

static bool empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("PTOP_FUZZ_SEEDS");

	for (int i = 1; !dir && i < *argc; i++)
		if ((*argv)[i][0] != '-')
			dir = (*argv)[i];
	if (!dir)
		return 0;
	mkdir(dir, 0700);
	if (!empty_dir(dir))
		return 0;
	write_seed(dir, "seed-small.ptop", 0, 10, 0);
	write_seed(dir, "seed-frames.ptop", 200, 30, 0);
	write_seed(dir, "seed-cut.ptop", 200, 30, 900);
	write_seed(dir, "seed-header-only.ptop", 0, 1, 0);
	return 0;
}

static void drain(struct capture_reader *r)
{
	Ptop__V1__Record *rec;

	while (capture_reader__next(r, &rec) == 1)
		ptop__v1__record__free_unpacked(rec, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct capture_reader *r;
	const struct capture_index_entry *idx;
	char in[64], out[64];
	size_t n;

	if (fd < 0) {
		fd = memfd_create("fuzz-capture", MFD_CLOEXEC);
		if (fd < 0)
			abort();
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	r = capture_reader__open_fd(fd);
	if (!r)
		return 0;
	drain(r);
	if (capture_reader__status(r)->end == CAPTURE_END_NONE)
		abort();
	idx = capture_reader__index(r, &n);
	capture_reader__seek_time(r, 0);
	drain(r);
	if (n) {
		capture_reader__seek_time(r, idx[n / 2].first_ns);
		drain(r);
	}
	capture_reader__seek_time(r, UINT64_MAX);
	drain(r);
	capture_reader__free(r);

	snprintf(in, sizeof(in), "/proc/self/fd/%d", fd);
	snprintf(out, sizeof(out), "/dev/shm/ptop-fuzz-salvage-%d", (int)getpid());
	unlink(out);
	capture__salvage(in, out, NULL);
	unlink(out);
	return 0;
}
