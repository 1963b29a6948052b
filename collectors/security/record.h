/* record.h — what collectors/security/record.c shares with its unit test (test_security.c). */
#ifndef PTOP_SECURITY_RECORD_H
#define PTOP_SECURITY_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#include "collectors/security/security.h"

/* The path event E's kernel side read (its components, the file's own first) into BUF:
 * 0, or -ENOENT when it did not reach the root (too deep) or does not fit. */
int security__kernel_path(const struct sec_event *e, char *buf, size_t len);

/* The path of the file mapped at START with inode INO in process PID (else another of
 * its mappings of that file), from /proc/PID/maps, into BUF: 0, -ENOENT when none is
 * there (any longer), or -errno of opening the maps. */
int security__map_path(pid_t pid, uint64_t start, uint64_t ino, char *buf, size_t len);

/* The name of capability CAP ("sys_admin"), "" when unknown. */
const char *security__cap_name(unsigned cap);

#endif
