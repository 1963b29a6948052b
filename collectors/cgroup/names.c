/* names.c — the cgroup collector's wire words (collectors/cgroup/names.h). */
#include "collectors/cgroup/names.h"

const char *capture_proc_mem_state_name(Ptop__V1__ProcMemState state)
{
	switch (state) {
	case PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_COVERED:
		return "covered";
	case PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_DENIED:
		return "denied";
	case PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_GONE:
		return "gone";
	case PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_SKIPPED:
		return "skipped";
	default:
		return "unspecified";
	}
}
