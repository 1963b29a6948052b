/* syscall_table.h — syscall names by number, per architecture, for the recorder
 * and the analyzer alike.
 *
 * The tables are part of ptop's source, taken from the kernel's own syscall tables
 * (arch/x86/entry/syscalls/syscall_64.tbl, scripts/syscall.tbl), not from the
 * headers of the machine that builds or runs ptop: a capture names its syscalls
 * the same way on every machine that analyzes it, and a kernel newer than the build machine's headers
 * (uretprobe, 335, came in Linux 6.11) still gets names. A number a table lacks
 * has no name here: callers show "sys_N" and say that this ptop version does not
 * know the name.
 *
 * Tables exist for x86_64 and aarch64 (64-bit ABIs); a capture from another
 * architecture keeps the names its recorder stored.
 */
#ifndef PTOP_SYSCALL_TABLE_H
#define PTOP_SYSCALL_TABLE_H

#include <stdbool.h>
#include <stdint.h>

struct syscall_table;

/* The table of MACHINE, the recording host's `uname -m` ("x86_64", "aarch64"), or NULL when
 * this ptop has none or MACHINE is NULL. Static storage. */
const struct syscall_table *syscall_table__find(const char *machine);

/* The table of the architecture this ptop was built for, or NULL when it has none. */
const struct syscall_table *syscall_table__native(void);

/* The name of syscall NR in T ("getppid" for 110 on x86_64), or NULL when T is
 * NULL or has no syscall NR. Static storage. */
const char *syscall_table__name(const struct syscall_table *t, uint32_t nr);

/* True when NR in T is a syscall that only the kernel's uprobe trampolines make in
 * a traced process, so its calls and time are the cost of the uprobes attached to
 * the process (ptop's heap lane or any other tool's), not the process's own work:
 * on x86_64, uretprobe (335: return from a function with a uretprobe, Linux 6.11+)
 * and uprobe (336: an optimized uprobe on a 5-byte nop, Linux 6.17+). False when T
 * is NULL. */
bool syscall_table__is_probe(const struct syscall_table *t, uint32_t nr);

/* What T covers, for messages: "x86_64 syscalls 0-470 (Linux 6.19)";
 * "no syscall table" for NULL. Static storage. */
const char *syscall_table__describe(const struct syscall_table *t);

#endif
