/* buildid.c — read the build-id note (GNU, or Go's) of an ELF file with libelf. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbol/buildid.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif
#define NT_GO_BUILD_ID 4 /* name "Go" (cmd/link's ELF_NOTE_GOBUILDID_TAG) */

/* Look for the note of KIND in DATA. 0 found, -ENODATA not there, other -errno. */
static int scan_notes(Elf_Data *data, enum buildid_kind kind, uint8_t *id, size_t cap,
		      size_t *len)
{
	const char *name = kind == BUILDID_GO ? "Go" : "GNU";
	unsigned type = kind == BUILDID_GO ? NT_GO_BUILD_ID : NT_GNU_BUILD_ID;
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		/* the name with its NUL; Go pads it with another ("Go\0\0") */
		if (nh.n_type == type && nh.n_namesz >= strlen(name) + 1 && nh.n_namesz <= 4 &&
		    memcmp((const char *)data->d_buf + name_off, name, strlen(name) + 1) == 0) {
			if (nh.n_descsz == 0 || nh.n_descsz > BUILDID_MAX)
				return -EINVAL;
			if (nh.n_descsz > cap)
				return -ENOBUFS;
			memcpy(id, (const char *)data->d_buf + desc_off, nh.n_descsz);
			*len = nh.n_descsz;
			return 0;
		}
		off = next;
	}
	return -ENODATA;
}

int buildid_read_elf(Elf *elf, uint8_t *id, size_t cap, size_t *len)
{
	return buildid_read_kind(elf, BUILDID_GNU, id, cap, len);
}

int buildid_read_ident(Elf *elf, uint8_t *id, size_t cap, size_t *len, enum buildid_kind *kind)
{
	int err = buildid_read_kind(elf, BUILDID_GNU, id, cap, len);

	*kind = BUILDID_GNU;
	if (err == -ENODATA) {
		err = buildid_read_kind(elf, BUILDID_GO, id, cap, len);
		if (!err)
			*kind = BUILDID_GO;
	}
	return err;
}

int buildid_read_kind(Elf *elf, enum buildid_kind kind, uint8_t *id, size_t cap, size_t *len)
{
	Elf_Scn *scn = NULL;
	size_t i, nphdr;
	int err = -ENODATA, r;
	bool had_sections = false;

	if (!elf || elf_kind(elf) != ELF_K_ELF)
		return -ENOEXEC;
	/* The section headers first (SHT_NOTE), then the program headers (PT_NOTE)
	 * for files whose section headers were stripped. */
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;

		had_sections = true;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		r = scan_notes(data, kind, id, cap, len);
		if (r != -ENODATA) {
			err = r;
			goto cleanup;
		}
	}
	if (had_sections || elf_getphdrnum(elf, &nphdr) != 0)
		goto cleanup;
	for (i = 0; i < nphdr; i++) {
		GElf_Phdr ph;
		Elf_Data *data;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
					    ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (!data || !data->d_buf)
			continue;
		r = scan_notes(data, kind, id, cap, len);
		if (r != -ENODATA) {
			err = r;
			goto cleanup;
		}
	}
cleanup:
	return err;
}

int buildid_read_fd(int fd, uint8_t *id, size_t cap, size_t *len)
{
	Elf *elf;
	int err;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOMEM;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = buildid_read_elf(elf, id, cap, len);
	elf_end(elf);
	return err;
}

int buildid_read_fd_ident(int fd, uint8_t *id, size_t cap, size_t *len, enum buildid_kind *kind)
{
	Elf *elf;
	int err;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOMEM;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = elf ? buildid_read_ident(elf, id, cap, len, kind) : -ENOEXEC;
	elf_end(elf);
	return err;
}

int buildid_read_memory(const void *image, size_t size, uint8_t *id, size_t cap, size_t *len)
{
	Elf *elf;
	int err;

	if (!image || !size)
		return -ENOEXEC;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOMEM;
	/* libelf only reads the image (ELF_C_READ_MMAP is not used for memory) */
	elf = elf_memory((char *)image, size);
	err = buildid_read_elf(elf, id, cap, len);
	elf_end(elf);
	return err;
}

int buildid_pid_memory(pid_t pid, uint64_t start, uint64_t end, void **image, size_t *size)
{
	char path[64];
	uint8_t *buf = NULL;
	size_t want = (size_t)(end - start), got = 0;
	ssize_t n;
	int fd = -1, err = 0;

	*image = NULL;
	*size = 0;
	if (end <= start || end - start > BUILDID_MEM_MAX)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(want);
	if (!buf) {
		err = -ENOMEM;
		goto cleanup;
	}
	while (got < want) {
		n = pread(fd, buf + got, want - got, (off_t)(start + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			goto cleanup;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got == 0) {
		err = -EIO; /* no mm: the process is exiting */
		goto cleanup;
	}
	*image = buf;
	*size = got;
	buf = NULL;
cleanup:
	free(buf);
	if (fd >= 0)
		close(fd);
	return err;
}

int buildid_read_pid_memory(pid_t pid, uint64_t start, uint64_t end, uint8_t *id, size_t cap,
			    size_t *len)
{
	void *image;
	size_t size;
	int err;

	err = buildid_pid_memory(pid, start, end, &image, &size);
	if (err)
		return err;
	err = buildid_read_memory(image, size, id, cap, len);
	free(image);
	return err;
}

int buildid_read_path(const char *path, uint8_t *id, size_t cap, size_t *len)
{
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = buildid_read_fd(fd, id, cap, len);
	close(fd);
	return err;
}

int buildid_to_hex(const uint8_t *id, size_t len, char *hex, size_t hexlen)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	if (!hexlen)
		return -ENOBUFS;
	if (hexlen < 2 * len + 1) {
		hex[0] = '\0';
		return -ENOBUFS;
	}
	for (i = 0; i < len; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 15];
	}
	hex[2 * len] = '\0';
	return 0;
}
