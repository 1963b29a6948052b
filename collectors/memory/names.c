/* names.c — the memory collector's wire words (collectors/memory/names.h). */
#include <stddef.h>
#include <strings.h>

#include "collectors/memory/names.h"

/* Each SmapsField's /proc key, and the memory_sample column name that captures may
 * also carry in SmapsRollup.missing (where it is not the key in another case). */
static const struct {
	Ptop__V1__SmapsField field;
	const char *key, *column;
} smaps_fields[] = {
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_ANON, "Pss_Anon", NULL },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_FILE, "Pss_File", NULL },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PSS_SHMEM, "Pss_Shmem", NULL },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SHARED_CLEAN, "Shared_Clean", NULL },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SHARED_DIRTY, "Shared_Dirty", NULL },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PRIVATE_CLEAN, "Private_Clean", NULL },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_PRIVATE_DIRTY, "Private_Dirty", NULL },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_ANONYMOUS, "Anonymous", "anon" },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SWAP, "Swap", NULL },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_SWAP_PSS, "SwapPss", "swap_pss" },
	{ PTOP__V1__SMAPS_FIELD__SMAPS_FIELD_LOCKED, "Locked", NULL },
};

#define N_SMAPS_FIELDS (sizeof(smaps_fields) / sizeof(smaps_fields[0]))

const char *capture_smaps_field_name(Ptop__V1__SmapsField field)
{
	for (size_t i = 0; i < N_SMAPS_FIELDS; i++)
		if (smaps_fields[i].field == field)
			return smaps_fields[i].key;
	return NULL;
}

uint32_t capture_smaps_missing(const Ptop__V1__SmapsRollup *r)
{
	uint32_t set = 0;

	for (size_t k = 0; k < r->n_missing_fields; k++)
		if (capture_smaps_field_name(r->missing_fields[k]))
			set |= 1u << r->missing_fields[k];
	if (r->n_missing_fields)
		return set;
	for (size_t k = 0; k < r->n_missing; k++) {
		if (!r->missing[k])
			continue;
		for (size_t i = 0; i < N_SMAPS_FIELDS; i++)
			if (!strcasecmp(r->missing[k], smaps_fields[i].key) ||
			    (smaps_fields[i].column &&
			     !strcasecmp(r->missing[k], smaps_fields[i].column)))
				set |= 1u << smaps_fields[i].field;
	}
	return set;
}
