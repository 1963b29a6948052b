/* load.c — the memory collector's loader (analyze/load.h): each MemorySample is one
 * memory_sample row, its statm, smaps_rollup, fault and budget groups side by side (a
 * group not read is NULL, and so is a rollup counter the kernel did not print).
 */
#include <stddef.h>
#include <stdint.h>

#include "analyze/load.h"
#include "proto/names.h"
#include "collectors/memory/names.h"

enum { ST_SAMPLE, ST_N };

/* The rollup values to store as NULL: those the record says were not measured
 * (SmapsRollup.missing_fields, or missing in older files: proto/names.c reads them).
 * A bit is the position of a column among load_memory's rollup values (rss = 0 ...
 * read_ns = 14); uss is the sum of the two Private_* counters, so it goes with either. */
static uint32_t rollup_missing_bits(const Ptop__V1__SmapsRollup *r)
{
	static const uint32_t column_bits[] = {
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_ANON] = 1u << 3,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_FILE] = 1u << 4,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_SHMEM] = 1u << 5,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SHARED_CLEAN] = 1u << 6,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SHARED_DIRTY] = 1u << 7,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PRIVATE_CLEAN] = 1u << 8 | 1u << 2,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PRIVATE_DIRTY] = 1u << 9 | 1u << 2,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_ANONYMOUS] = 1u << 10,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SWAP] = 1u << 11,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SWAP_PSS] = 1u << 12,
		[PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_LOCKED] = 1u << 13,
	};
	uint32_t set = capture_smaps_missing(r), bits = 0;

	for (size_t f = 0; f < sizeof(column_bits) / sizeof(column_bits[0]); f++)
		if (set & 1u << f)
			bits |= column_bits[f];
	return bits;
}

static const char sample_sql[] =
	"INSERT INTO memory_sample (cap, time_ns, interval_ns, pid, vsize, statm_rss, "
	"statm_shared, statm_text, statm_data, rss, pss, uss, pss_anon, pss_file, "
	"pss_shmem, shared_clean, shared_dirty, private_clean, private_dirty, anon, swap, "
	"swap_pss, locked, rollup_read_ns, minflt, majflt, minflt_total, majflt_total, "
	"smaps_budget_ns, smaps_spent_ns, rollup_skipped, probe_rss, probe_pss, probe_uss)";

static int load_memory(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	const Ptop__V1__MemorySample *m = ev->memory;
	sqlite3_stmt *s = l->st[ST_SAMPLE];
	const Ptop__V1__Statm *sm;
	const Ptop__V1__SmapsRollup *r;
	const Ptop__V1__Faults *f;
	int i;

	if (!m)
		return 0;
	sm = m->statm;
	r = m->rollup;
	f = m->faults;
	bind_envelope(l, s, ev, true);
	if (sm) {
		const uint64_t v[] = { sm->vsize, sm->rss, sm->shared, sm->text, sm->data };

		for (i = 0; i < 5; i++)
			bind_u64(s, 5 + i, v[i]);
	} else {
		for (i = 5; i <= 9; i++)
			sqlite3_bind_null(s, i);
	}
	if (r) {
		const uint64_t v[] = { r->rss,	     r->pss,	      r->uss,	       r->pss_anon,
				       r->pss_file,  r->pss_shmem,    r->shared_clean, r->shared_dirty,
				       r->private_clean, r->private_dirty, r->anon, r->swap,
				       r->swap_pss,  r->locked,	      r->read_ns };
		uint32_t missing = rollup_missing_bits(r); /* not measured: NULL, not 0 */

		for (i = 0; i < 15; i++) {
			if (missing & 1u << i)
				sqlite3_bind_null(s, 10 + i);
			else
				bind_u64(s, 10 + i, v[i]);
		}
	} else {
		for (i = 10; i <= 24; i++)
			sqlite3_bind_null(s, i);
	}
	if (f) {
		bind_u64(s, 25, f->minflt);
		bind_u64(s, 26, f->majflt);
		bind_u64(s, 27, f->minflt_total);
		bind_u64(s, 28, f->majflt_total);
	} else {
		for (i = 25; i <= 28; i++)
			sqlite3_bind_null(s, i);
	}
	if (m->budget) {
		bind_u64(s, 29, m->budget->budget_ns);
		bind_u64(s, 30, m->budget->spent_ns);
		bind_i64(s, 31, !!m->budget->rollup_skipped);
	} else {
		for (i = 29; i <= 31; i++)
			sqlite3_bind_null(s, i);
	}
	if (m->probe && r) { /* ptop's own memory, out of the rollup's figures */
		bind_u64(s, 32, m->probe->rss);
		bind_u64(s, 33, m->probe->pss);
		bind_u64(s, 34, m->probe->uss);
	} else {
		for (i = 32; i <= 34; i++)
			sqlite3_bind_null(s, i);
	}
	return load__step(l, ST_SAMPLE);
}

const struct an_load memory_load = {
	AN_LOAD_PAYLOADS({ PTOP__V1__EVENT__PAYLOAD_MEMORY, "event:memory", load_memory }),
	AN_LOAD_STMTS([ST_SAMPLE] = sample_sql),
	AN_LOAD_CHECKS({ "memory_sample", true, true, "rowid", "pid",
			 "vsize,statm_rss,statm_shared,statm_text,statm_data,rss,pss,uss,pss_anon,"
			 "pss_file,pss_shmem,swap,swap_pss,minflt,majflt" }),
};
