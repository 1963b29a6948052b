/* record_preload.h — the heap collector's preload lane, recorder side
 * (collectors/heap/record_preload.c): for a command ptop-record launches,
 * libptop-preload.so in the command's LD_PRELOAD instead of uprobes, talking through
 * shared memory (preload/ptop_preload.h). Its
 * records are the uprobe lane's (HeapSnapshot with lane "preload", HeapEvent, Stack),
 * written through the shared helpers of collectors/heap/record.h.
 *
 * The order of a run: the heap collector's prepare() (heap_preload__collector_prepare)
 * calls heap_preload__prepare() before the command forks (the memfd and the command's
 * environment exist before exec), then the heap collector's check() asks this lane
 * (heap_preload__check), which falls back to the uprobe lane for a static or Go
 * executable or one with its own malloc; check() keeps nothing, the lane it chose is
 * c->source, which the heap's start(), poll(), stop() and exec() follow. The lane's
 * start() gives the library the command's pid (heap_preload__set_target()). The heap
 * collector's final stop() frees what prepare() made (heap_preload__release()).
 */
#ifndef PTOP_RECORD_HEAP_PRELOAD_H
#define PTOP_RECORD_HEAP_PRELOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/probe_mapping.h"
#include "record/collector.h"

/* --heap-lane */
enum heap_lane {
	HEAP_LANE_AUTO = 0,	/* launched dynamic commands: preload; otherwise uprobes */
	HEAP_LANE_UPROBE = 1,
	HEAP_LANE_PRELOAD = 2,
};

/* The environment variable that names the library, ahead of the usual places. */
#define HEAP_PRELOAD_LIB_ENV "PTOP_PRELOAD_LIB"
#define HEAP_PRELOAD_LIB_NAME PTOP_PRELOAD_LIB_NAME /* common/probe_mapping.h */

struct heap_preload;

/* "auto", "uprobe", "preload" -> *LANE. 0 or -EINVAL. */
int heap_lane__parse(const char *s, uint32_t *lane);
const char *heap_lane__name(uint32_t lane);

/* Find libptop-preload.so: $PTOP_PRELOAD_LIB when set (it must exist), else next to
 * SELF (the recorder's executable), in SELF's ../lib/ptop, /usr/local/lib/ptop and
 * /usr/lib/ptop. Writes the real path into BUF. 0, or -ENOENT with the places looked
 * at in WHY. */
int heap_preload__find_lib(const char *self, char *buf, size_t len, char *why, size_t wlen);

/* What the executable EXE is for the preload lane: 0 a dynamic executable the library
 * can reach; 1 static (no program interpreter: LD_PRELOAD is never read); 2 a Go
 * program (its allocations go through the Go runtime, not malloc); 3 it defines malloc
 * itself (its own definition comes before any preloaded one); 4 set-user-ID or
 * set-group-ID to another user (the loader may ignore LD_PRELOAD). WHY says which in words.
 * A script ("#!") is judged by its interpreter, through up to 4 levels as the kernel
 * follows them (-ELOOP past that). -errno when EXE cannot be read, -EINVAL when it is
 * neither ELF nor a script. */
int heap_preload__exe_kind(const char *exe, char *why, size_t wlen);

/* The new environment of the launched command: ENVP (NULL-terminated) without
 * LD_PRELOAD and the library's variables, then LD_PRELOAD=LIB[:its own], the memfd's
 * descriptor FD and, when it had one, its own LD_PRELOAD for the library to put back.
 * NULL-terminated, one allocation (free() it). NULL with errno ENOMEM. */
char **heap_preload__env(char *const *envp, const char *lib, int fd);

/* Before the command forks, when the heap collector runs on a launched command and
 * LANE is not uprobe: find the library, create and map the shared memory (SAMPLE_BYTES
 * between stacks) and the command's environment, made from ENVP (NULL: the recorder's
 * own). *OUT always gets an object unless -ENOMEM: when the lane cannot run,
 * heap_preload__envp() is NULL and the reason is kept for the probe set. Free with
 * heap_preload__free(). */
int heap_preload__prepare(uint32_t lane, uint64_t sample_bytes, char *const *envp,
			  struct heap_preload **out);

/* collector_ops.prepare of the heap collector: unless --heap-lane uprobe, prepare the
 * preload lane (heap_settings) and give the command its environment through *ENVP. The
 * object is kept for the run (heap_preload__prepared()). 0 or -ENOMEM. */
int heap_preload__collector_prepare(struct collector *c, char *const **envp);

/* What heap_preload__collector_prepare() made for this run; NULL: nothing (--pid, heap
 * off, --heap-lane uprobe, or not yet). */
struct heap_preload *heap_preload__prepared(void);

/* Free what heap_preload__collector_prepare() made (the heap collector's final stop()). */
void heap_preload__release(void);

/* The preload lane's own stop (what its collector_ops.stop does but release the
 * prepared object): for a lane stopped in the run, to be started again or handed over. */
void heap_preload__lane_stop(struct collector *c);

/* The command's environment, or NULL: launch it with the recorder's own. */
char *const *heap_preload__envp(const struct heap_preload *p);

/* The launched command's pid: the one process where the library attaches. */
void heap_preload__set_target(struct heap_preload *p, pid_t pid);

/* Whether the heap collector should hand over to this lane (not once it fell back). */
bool heap_preload__wanted(const struct heap_preload *p);

/* Unmap, close and free. NULL is fine. */
void heap_preload__free(struct heap_preload *p);

/* The lane, as the heap collector (collectors/heap/record.c) runs it when its check()
 * said source PRELOAD: */

/* Whether the prepared lane can run for the command (ctx->exe): the library was found,
 * and the executable is a dynamic one that takes it. When not, the uprobe lane's check
 * decides (heap__uprobe_check), with why not the preload lane in the detail ("lane
 * uprobe, not preload (...)"); with --heap-lane preload and no library: FAILED. Sets
 * c->source, reason and detail; changes nothing else. */
Ptop__V1__ProbeState heap_preload__check(struct collector *c);

/* Start the lane: c->priv becomes the prepared object, the library the command's pid,
 * the ring's reader runs, and the library may attach (PL_ON). 0 or -errno. */
int heap_preload__start(struct collector *c);
int heap_preload__poll(struct collector *c, uint64_t now_ns, unsigned flags);

/* The command exec'd a program the library cannot reach (static, Go, own malloc,
 * set-user-ID): what the lane holds is written, it is stopped and off, and the uprobe
 * lane is checked and started for the new program. 0 or -errno. */
int heap_preload__exec(struct collector *c, uint64_t now_ns);

/* The lane P is off for good (the heap runs on uprobes, or not at all): the library
 * does not attach, and the heap's check() does not offer it again. NULL is fine. */
void heap_preload__off(struct heap_preload *p);

#endif
