/* part.c — the analyzer side of the syscalls collector (analyze/part.h): loader
 * (load.c), reports (report.c), replay tabs (view.c) and series (replay.c), figures (figures.c). */
#include "analyze/part.h"

const struct an_part syscalls_part = {
	"syscalls", &syscalls_load, syscalls_reports, syscalls_views, syscalls_figures, .replay = &syscalls_replay
};
