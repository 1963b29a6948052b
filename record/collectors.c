/* collectors.c — ptop-record's table of collectors, built from the one list
 * (collectors/collectors.def): NAME_collector of each, in start order.
 */
#include <stddef.h>

#include "record/collector.h"

#define COLLECTOR(name) extern const struct collector_ops name##_collector;
#include "collectors/collectors.def"
#undef COLLECTOR

const struct collector_ops *const collector_table[] = {
#define COLLECTOR(name) &name##_collector,
#include "collectors/collectors.def"
#undef COLLECTOR
	NULL,
};
