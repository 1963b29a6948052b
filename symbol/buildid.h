/* buildid.h — the GNU build-id of an ELF file, read with libelf.
 *
 * The build-id (the NT_GNU_BUILD_ID note, usually 20 bytes) names the exact
 * build of a binary: ptop-record stores the target's in TargetInfo.exe_build_id
 * and the analyzer symbolizes only against files whose build-id matches.
 */
#ifndef PTOP_BUILDID_H
#define PTOP_BUILDID_H

#include <stddef.h>
#include <stdint.h>

#define BUILDID_MAX 64 /* bytes; longer notes are refused as malformed */

/* Read the build-id of the ELF file open on FD (the offset is not used or
 * changed). Stores up to CAP bytes in ID and the length in *LEN. Returns 0, or
 * -ENODATA when the file has no build-id note, -ENOEXEC when it is not an ELF
 * file, -ENOBUFS when CAP is too small, -EINVAL on a malformed note, -ENOMEM. */
int buildid_read_fd(int fd, uint8_t *id, size_t cap, size_t *len);

/* The same for the file at PATH (opened read-only, closed again). Also
 * returns -errno from open(2). */
int buildid_read_path(const char *path, uint8_t *id, size_t cap, size_t *len);

/* Write ID[0..LEN) as lowercase hex into HEX (2*LEN+1 bytes needed). Returns
 * 0, or -ENOBUFS if HEXLEN is too small (HEX then holds ""). */
int buildid_to_hex(const uint8_t *id, size_t len, char *hex, size_t hexlen);

#endif
