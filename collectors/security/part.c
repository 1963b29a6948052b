/* part.c — the analyzer side of the security collector (analyze/part.h): loader (load.c),
 * report (report.c), replay tab (view.c), figures (figures.c), its timeline events (replay.c). */
#include "analyze/part.h"

const struct an_part security_part = {"security", &security_load, security_reports,
				      security_views, security_figures,
				      .replay = &security_replay};
