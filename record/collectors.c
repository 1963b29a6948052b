/* collectors.c — the table of ptop-record's collectors, in start order. Adding a collector
 * means writing record/NAME.c (and bpf/NAME.bpf.c) and adding one line here.
 */
#include <stddef.h>

#include "record/collector.h"

extern const struct collector_ops cpu_collector;
extern const struct collector_ops syscalls_collector;
extern const struct collector_ops cpuprof_collector;
extern const struct collector_ops heap_collector;
extern const struct collector_ops goalloc_collector;
extern const struct collector_ops memory_collector;
extern const struct collector_ops vmas_collector;
extern const struct collector_ops proccontext_collector;
extern const struct collector_ops mappings_collector;
extern const struct collector_ops cgroup_collector;

const struct collector_ops *const collector_table[] = {
	&cpu_collector,
	&syscalls_collector,
	&cpuprof_collector,
	&heap_collector,
	&goalloc_collector,
	&memory_collector,
	&vmas_collector,
	&proccontext_collector,
	&mappings_collector,
	&cgroup_collector,
	NULL,
};
