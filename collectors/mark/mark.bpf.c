// SPDX-License-Identifier: GPL-2.0
/* mark.bpf.c — the mark collector's kernel side: one uprobe program attached at the entry of
 * each marked function of the target (record.c attaches it with the mark's index as its
 * cookie), counting the calls. The recorder reads the counters from the mapped .bss at each
 * poll: nothing else crosses. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "collectors/mark/mark.h"

char LICENSE[] SEC("license") = "GPL";

/* the calls of each mark, cumulative */
__u64 mark_calls[MARK_MAX];

SEC("uprobe")
int mark_hit(struct pt_regs *ctx)
{
	__u64 i = bpf_get_attach_cookie(ctx);

	if (i < MARK_MAX)
		__sync_fetch_and_add(&mark_calls[i], 1);
	return 0;
}
