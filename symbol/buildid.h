/* buildid.h — the identity of an ELF file's build, read with libelf.
 *
 * The build-id (the NT_GNU_BUILD_ID note, usually 20 bytes) names the exact
 * build of a binary: ptop-record stores the target's in TargetInfo.exe_build_id
 * and the analyzer symbolizes only against files whose build-id matches. Go's
 * linker writes no GNU build-id unless asked (-B); its own Go build ID note
 * ("Go", type 4: an ASCII "actionID/.../contentID" string) names the build
 * as exactly, and is what identifies such binaries (BUILDID_GO).
 */
#ifndef PTOP_BUILDID_H
#define PTOP_BUILDID_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BUILDID_MAX 128 /* bytes; longer notes are refused as malformed */

enum buildid_kind {
	BUILDID_GNU = 0, /* NT_GNU_BUILD_ID */
	BUILDID_GO = 1,  /* Go build ID note, for binaries without a GNU one */
};

/* Read the build-id of the ELF file open on FD (the offset is not used or
 * changed). Stores up to CAP bytes in ID and the length in *LEN. Returns 0, or
 * -ENODATA when the file has no build-id note, -ENOEXEC when it is not an ELF
 * file, -ENOBUFS when CAP is too small, -EINVAL on a malformed note, -ENOMEM. */
int buildid_read_fd(int fd, uint8_t *id, size_t cap, size_t *len);

/* The identity (GNU build-id, else Go build ID; *KIND says which) of the ELF
 * file open on FD. Returns as buildid_read_fd. */
int buildid_read_fd_ident(int fd, uint8_t *id, size_t cap, size_t *len, enum buildid_kind *kind);

/* The same for an ELF already open with libelf (a file or a memory image).
 * ELF is not freed. -ENOEXEC when ELF is NULL or not an ELF object. */
int buildid_read_elf(Elf *elf, uint8_t *id, size_t cap, size_t *len);

/* The note of kind KIND only (BUILDID_GNU is buildid_read_elf). */
int buildid_read_kind(Elf *elf, enum buildid_kind kind, uint8_t *id, size_t cap, size_t *len);

/* The identity of ELF: its GNU build-id, else its Go build ID; *KIND says
 * which. Returns as buildid_read_elf (-ENODATA: neither note). */
int buildid_read_ident(Elf *elf, uint8_t *id, size_t cap, size_t *len, enum buildid_kind *kind);

/* The same for an ELF image of SIZE bytes in memory (e.g. the [vdso] as
 * mapped), not copied and not modified. */
int buildid_read_memory(const void *image, size_t size, uint8_t *id, size_t cap, size_t *len);

/* Largest range buildid_read_pid_memory reads (the vdso is 2 to 4 pages). */
#define BUILDID_MEM_MAX (1u << 20)

/* The build-id of the ELF image mapped at [START, END) in process PID (its
 * [vdso]), read through /proc/PID/mem (PTRACE_MODE_ATTACH: root or the same
 * uid with ptrace allowed). Returns as buildid_read_memory, or -errno from
 * open/pread (-EACCES, -EPERM, -ESRCH, -EIO when the process has no memory
 * any more), -EINVAL when the range is empty or over BUILDID_MEM_MAX. */
int buildid_read_pid_memory(pid_t pid, uint64_t start, uint64_t end, uint8_t *id, size_t cap,
			    size_t *len);

/* Read the bytes mapped at [START, END) in process PID through /proc/PID/mem
 * into a new buffer *IMAGE of *SIZE bytes (the caller frees it; a short read
 * gives a shorter image). Errors as buildid_read_pid_memory. */
int buildid_pid_memory(pid_t pid, uint64_t start, uint64_t end, void **image, size_t *size);

/* The same for the file at PATH (opened read-only, closed again). Also
 * returns -errno from open(2). */
int buildid_read_path(const char *path, uint8_t *id, size_t cap, size_t *len);

/* Write ID[0..LEN) as lowercase hex into HEX (2*LEN+1 bytes needed). Returns
 * 0, or -ENOBUFS if HEXLEN is too small (HEX then holds ""). */
int buildid_to_hex(const uint8_t *id, size_t len, char *hex, size_t hexlen);

#endif
