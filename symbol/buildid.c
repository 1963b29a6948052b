/* buildid.c — read the GNU build-id note of an ELF file with libelf. */
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

/* Look for the build-id note in DATA. 0 found, -ENODATA not there, other -errno. */
static int scan_notes(Elf_Data *data, uint8_t *id, size_t cap, size_t *len)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4) == 0) {
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
		r = scan_notes(data, id, cap, len);
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
		r = scan_notes(data, id, cap, len);
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

int buildid_read_pid_memory(pid_t pid, uint64_t start, uint64_t end, uint8_t *id, size_t cap,
			    size_t *len)
{
	char path[64];
	uint8_t *buf = NULL;
	size_t size = (size_t)(end - start), got = 0;
	ssize_t n;
	int fd = -1, err;

	if (end <= start || end - start > BUILDID_MEM_MAX)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(size);
	if (!buf) {
		err = -ENOMEM;
		goto cleanup;
	}
	while (got < size) {
		n = pread(fd, buf + got, size - got, (off_t)(start + got));
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
	err = buildid_read_memory(buf, got, id, cap, len);
cleanup:
	free(buf);
	if (fd >= 0)
		close(fd);
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
