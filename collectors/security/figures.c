/* figures.c — the security collector's figures (analyze/figures.h), from
 * security_counts__load (report.c), the counts `report security` prints: exact counts, so
 * that a new W^X mapping in the new build is a gate (`diff --gate security.wx_mappings`). */
#include <stdint.h>

#include "analyze/figures.h"
#include "analyze/part.h"
#include "collectors/security/report.h"

static int compute(struct fig_ctx *c, const struct an_figure *f, struct fig_family *fam)
{
	struct security_counts s;
	int64_t v;
	int err = security_counts__load(c->db, c->m, &c->w, &s);

	if (err)
		return err;
	switch (f->name[9]) { /* "security." then the first letter of the figure */
	case 'w':
		v = s.wx;
		break;
	case 'e':
		v = s.exec_calls;
		break;
	case 'a':
		v = s.anon;
		break;
	case 'p':
		v = s.ptrace;
		break;
	case 's':
		v = s.setid;
		break;
	default:
		v = s.cap_denied;
		if (v < 0) {
			fig_family__not_measured(fam, "no capability:cap_capable tracepoint on "
						      "the recording's kernel");
			return 0;
		}
	}
	return fig_family__add(fam, NULL, (double)v, (uint64_t)v);
}

#define FIG(var, name, what)                                                                \
	static const struct an_figure var = {name, "security", FIG_COUNT, true, false,      \
					     FIG_TEST_NONE, what, compute}

FIG(wx, "security.wx_mappings",
    "mmap/mprotect calls that made memory writable and executable at once");
FIG(exec, "security.exec_mappings", "mmap/mprotect calls that made memory executable");
FIG(anon, "security.anon_exec", "of them, of anonymous memory and not W^X (JIT-like)");
FIG(ptr, "security.ptrace_attaches", "ptrace attaches to or by the target");
FIG(setid, "security.setid_execs", "set-user-ID, set-group-ID or file-capability execs");
FIG(caps, "security.cap_denied", "failed capability checks of the target");

const struct an_figure *const security_figures[] = {&wx, &exec, &anon, &ptr, &setid, &caps, NULL};
