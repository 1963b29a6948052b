/* tp_target.c — see tp_target.h. */
#include <stdio.h>

#include "record/bpf_util.h"
#include "record/collector.h"
#include "record/tp_target.h"

Ptop__V1__ProbeState tp_target__precheck(struct collector *c, const char *no_ebpf_why)
{
	struct rec_ctx *ctx = c->ctx;
	char why[256] = "";

	c->reason[0] = '\0';
	c->source = PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF;
	if (ctx->no_ebpf)
		snprintf(c->reason, sizeof(c->reason), "%s", no_ebpf_why);
	else if (bpf_util__can_trace(why, sizeof(why)))
		snprintf(c->reason, sizeof(c->reason), "%s", why);
	else if (ctx->pid <= 0 && !ctx->cgroup_dir && !ctx->caps_only)
		snprintf(c->reason, sizeof(c->reason), "follows a process or a cgroup");
	if (c->reason[0])
		return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED;
	return PTOP__V1__PROBE_STATE__PROBE_STATE_UNSPECIFIED;
}
