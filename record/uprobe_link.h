/* uprobe_link.h — uprobes attached as BPF uprobe_multi links (Linux 6.6+), which attach
 * and detach without waiting on other probes.
 *
 * The heap and Go lanes attached their uprobes as perf events (libbpf's
 * bpf_program__attach_uprobe_opts). Opening and closing such an event take the kernel's
 * event_mutex, and a close holds it through an RCU grace period (about 85 ms on the 6.18
 * development guest): while the 15 probes of the old program were detached, the new
 * program's attach waited behind them, about 1.3 s per exec in a chain of execs, and as
 * long again at the end of a recording. A uprobe_multi link takes no such lock: its
 * uprobes are registered directly, and its release waits for one grace period that
 * blocks nobody else (several released in parallel share it).
 *
 * The program must be prepared before it is loaded (uprobe_link__prepare); such a
 * program can then only be attached here.
 */
#ifndef PTOP_UPROBE_LINK_H
#define PTOP_UPROBE_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct bpf_program;
struct uprobe_link;

/* Before the object is loaded: make PROG a uprobe_multi program (its expected attach
 * type). 0 or -errno. */
int uprobe_link__prepare(struct bpf_program *prog);

/* Attach PROG (prepared, loaded) to process PID's file PATH at the file offsets
 * OFFSETS[0..N), with COOKIES[0..N) for bpf_get_attach_cookie() (NULL: all 0), as
 * uretprobes when RETPROBE. Returns the link, or NULL with errno set (EINVAL or
 * EOPNOTSUPP on a kernel without uprobe_multi links). Free with uprobe_link__destroy(). */
struct uprobe_link *uprobe_link__attach(const struct bpf_program *prog, pid_t pid, const char *path,
					const uint64_t *offsets, const uint64_t *cookies, size_t n,
					bool retprobe);

/* Detach and free LINKS[0..N) (NULL ones are skipped) and set them to NULL; returns once
 * they are detached. Each release waits for a grace period: they are released in
 * parallel threads (one after the other when threads cannot be had). */
void uprobe_link__destroy(struct uprobe_link **links, int n);

#endif
