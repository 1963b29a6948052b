/* parts.c — ptop-analyze's list of collector parts, built from the one list
 * (collectors/collectors.def): NAME_part of each, in its order.
 */
#include <string.h>

#include "analyze/part.h"

#define COLLECTOR(name) extern const struct an_part name##_part;
#include "collectors/collectors.def"
#undef COLLECTOR

const struct an_part *const an_parts[] = {
#define COLLECTOR(name) &name##_part,
#include "collectors/collectors.def"
#undef COLLECTOR
	NULL,
};

const struct an_part *an_part__find(const char *name)
{
	for (const struct an_part *const *p = an_parts; *p; p++)
		if (!strcmp((*p)->name, name))
			return *p;
	return NULL;
}
