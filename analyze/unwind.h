/* unwind.h — the analyzer's end of --user-stacks dwarf: each stack copy of a capture
 * (table stack_copy: a thread's registers and the top of its user stack, as recorded)
 * is unwound with libdwfl from the CFI (.eh_frame, .debug_frame) of the modules the
 * thread had mapped, found by build-id, into the frames of its stack row. Then the
 * stack is placed and named like any other, and counts recorded under it (CPU profile
 * samples, heap sites) show whole stacks.
 */
#ifndef PTOP_ANALYZE_UNWIND_H
#define PTOP_ANALYZE_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "symbol/symbolizer.h"

/* Whether capture CAP in DB has stack copies not unwound yet (stack_copy.unwound NULL).
 * A DB without the table has none. */
bool unwind__pending(sqlite3 *db, int64_t cap);

/* Unwind every stack copy of capture CAP not unwound yet: its stack row gets the frames
 * found (innermost first: ip, then return addresses), stack_copy.unwound their number
 * and unwind_end why the walk stopped. SZ finds the modules' files by build-id (a
 * module with no file found ends the walk there). DB must be writable and inside the
 * caller's transaction. *DONE (may be NULL) gets the copies unwound. 0, or -errno with
 * a message in ERR (-EIO: SQLite; -ENOMEM). */
int unwind__copies(sqlite3 *db, int64_t cap, struct symbolizer *sz, uint64_t *done, char *err,
		   size_t errlen);

#endif
