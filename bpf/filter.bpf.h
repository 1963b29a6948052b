/* filter.bpf.h — the target filter every ptop BPF program runs first (kernel side only).
 *
 * The recorder writes the target into these read-only globals between open and load
 * (skel->rodata->targ_tgid = pid; in --cgroup mode targ_cgid and targ_cglevel). Once
 * loaded, .rodata is frozen and the verifier knows its values, so the branches of a
 * filter that is not in use are removed before the program is JITed: a pid filter
 * costs one helper call and one compare, and the cgroup branch costs nothing unless
 * --cgroup sets targ_cgid.
 *
 * Match rules: targ_tgid != 0 matches that tgid (root pid namespace); otherwise
 * targ_cgid != 0 matches tasks in the cgroup v2 subtree rooted at the cgroup whose
 * id (kernfs inode) is targ_cgid and whose depth below the v2 root is targ_cglevel:
 * the task's cgroup, or its ancestor at that level, has that id. So a task that
 * forks, execs or moves anywhere below the cgroup stays covered, and one outside it
 * does not. Neither set: no match.
 */
#ifndef PTOP_FILTER_BPF_H
#define PTOP_FILTER_BPF_H

const volatile __u32 targ_tgid = 0;	/* target tgid; 0: no pid filter */
const volatile __u64 targ_cgid = 0;	/* target cgroup v2 id; 0: no cgroup filter */
const volatile __u32 targ_cglevel = 0;	/* its level (the v2 root is 0) */

/* Is the current task part of the target? ID is bpf_get_current_pid_tgid(). */
static __always_inline bool ptop_current_is_target(__u64 id)
{
	if (targ_tgid)
		return (__u32)(id >> 32) == targ_tgid;
	if (targ_cgid)
		return bpf_get_current_ancestor_cgroup_id(targ_cglevel) == targ_cgid;
	return false;
}

/* Is task T part of the target? T must be a BTF pointer (a tp_btf argument or
 * bpf_get_current_task_btf()): its fields are read with plain loads, no helper
 * call. For the cgroup filter, T's default-hierarchy cgroup keeps a pointer to each
 * of its ancestors by level (struct cgroup.ancestors[], itself at its own level):
 * the one at targ_cglevel must be the target cgroup. The verifier allows plain loads
 * down to the cgroup, not into its flexible array, so the ancestor is read with
 * bpf_probe_read_kernel (three helper calls in all; the helper above is one, but
 * only for the current task). */
static __always_inline bool ptop_task_is_target(struct task_struct *t)
{
	struct cgroup *cg, *anc = NULL;

	if (targ_tgid)
		return (__u32)t->tgid == targ_tgid;
	if (targ_cgid) {
		cg = t->cgroups->dfl_cgrp;
		if (!cg || cg->level < (int)targ_cglevel)
			return false;
		if (bpf_probe_read_kernel(&anc, sizeof(anc),
					  (void *)cg + bpf_core_field_offset(struct cgroup, ancestors) +
						  (__u64)targ_cglevel * sizeof(anc)))
			return false;
		return anc && BPF_CORE_READ(anc, kn, id) == targ_cgid;
	}
	return false;
}

#endif
