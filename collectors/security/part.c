/* part.c — the analyzer side of the security collector (analyze/part.h): loader (load.c),
 * report (report.c), figures (figures.c); no replay tab of its own yet (its events are in
 * the tables the timeline can read). */
#include "analyze/part.h"

const struct an_part security_part = {"security", &security_load, security_reports, NULL,
				      security_figures};
