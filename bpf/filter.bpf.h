/* filter.bpf.h — the target filter every ptop BPF program runs first (kernel side only).
 *
 * The recorder writes the target into these read-only globals between open and load
 * (skel->rodata->targ_tgid = pid). Once loaded, .rodata is frozen and the verifier
 * knows its values, so the branches of a filter that is not in use are removed
 * before the program is JITed: a pid filter costs one helper call and one compare,
 * and the cgroup branch costs nothing until a --cgroup mode sets targ_cgid.
 *
 * Match rules: targ_tgid != 0 matches that tgid (root pid namespace); otherwise
 * targ_cgid != 0 matches tasks whose cgroup v2 id is exactly targ_cgid (a later
 * mode that needs descendants can switch this one function to
 * bpf_current_task_under_cgroup() with a cgroup array map). Neither set: no match.
 */
#ifndef PTOP_FILTER_BPF_H
#define PTOP_FILTER_BPF_H

const volatile __u32 targ_tgid = 0;	/* target tgid; 0: no pid filter */
const volatile __u64 targ_cgid = 0;	/* target cgroup v2 id; 0: no cgroup filter */

/* Is the current task part of the target? ID is bpf_get_current_pid_tgid(). */
static __always_inline bool ptop_current_is_target(__u64 id)
{
	if (targ_tgid)
		return (__u32)(id >> 32) == targ_tgid;
	if (targ_cgid)
		return bpf_get_current_cgroup_id() == targ_cgid;
	return false;
}

/* Is task T part of the target? T must be a BTF pointer (a tp_btf argument or
 * bpf_get_current_task_btf()): its fields are read with plain loads, no helper call. */
static __always_inline bool ptop_task_is_target(struct task_struct *t)
{
	if (targ_tgid)
		return (__u32)t->tgid == targ_tgid;
	if (targ_cgid)
		return BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id) == targ_cgid;
	return false;
}

#endif
