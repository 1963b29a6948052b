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
 * Kernels before 6.6 have no uprobe_multi links: there the uprobes are perf events
 * (bpf_program__attach_uprobe_opts, one per offset, with its BPF cookie: Linux 5.15+).
 * Which of the two is decided once per process by a probe (record/kfeature.h, before
 * any program is loaded: a program's attach type is fixed at its load, and one made for
 * uprobe_multi links cannot be attached as a perf event).
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
struct collector;
struct uprobe_link;

/* Does this kernel take uprobe_multi links (probed once; PTOP_TEST_REFUSE=uprobe_multi
 * says no)? WHY gets the reason when not (may be NULL). */
bool uprobe_link__multi(char *why, size_t len);

/* Record in C's lanes which way its uprobes go: "uprobe_multi" active and
 * "perf_uprobe" on standby, or "uprobe_multi" unsupported (with the reason) and
 * "perf_uprobe" active. COOKIES: the program reads bpf_get_attach_cookie(), which
 * perf-event uprobes give from Linux 5.15 on. 0, or -EOPNOTSUPP when no lane can run
 * (both recorded as unsupported). */
int uprobe_link__lanes(struct collector *c, bool cookies);

/* Before the object is loaded: make PROG a uprobe_multi program (its expected attach
 * type) where the kernel has such links; else leave it a perf-event uprobe program.
 * 0 or -errno. */
int uprobe_link__prepare(struct bpf_program *prog);

/* Attach PROG (prepared, loaded) to process PID's file PATH at the file offsets
 * OFFSETS[0..N), with COOKIES[0..N) for bpf_get_attach_cookie() (NULL: all 0), as
 * uretprobes when RETPROBE: one uprobe_multi link, or N perf-event uprobes (as
 * uprobe_link__multi() says). Returns the link, or NULL with errno set. Free with
 * uprobe_link__destroy(). */
struct uprobe_link *uprobe_link__attach(const struct bpf_program *prog, pid_t pid, const char *path,
					const uint64_t *offsets, const uint64_t *cookies, size_t n,
					bool retprobe);

/* Detach and free LINKS[0..N) (NULL ones are skipped) and set them to NULL; returns once
 * they are detached. Each release waits for a grace period: they are released in
 * parallel threads (one after the other when threads cannot be had). */
void uprobe_link__destroy(struct uprobe_link **links, int n);

#endif
