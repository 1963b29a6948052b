/* vmas/record.h — the vmas collector's settings (collectors/vmas/record.c), filled by the
 * recorder from its options table (vmas_collector.opts).
 */
#ifndef PTOP_VMAS_RECORD_H
#define PTOP_VMAS_RECORD_H

#include <stdint.h>

struct vmas_settings {
	/* --vma-interval: period of the full VMA list, default 10 s; 0 (tests only): at
	 * the first and the last poll only */
	uint64_t interval_ns;
};
extern struct vmas_settings vmas_settings;

#endif
