/* part.h — the analyzer side of a collector, its "part": one
 * `const struct an_part NAME_part` per folder collectors/NAME/ (in its part.c),
 * gathered by analyze/parts.c from the one list, collectors/collectors.def.
 *
 * ptop-analyze's core never names a collector: the loader's dispatch, `report`'s
 * kinds and help, the replay model's probes and tabs, and (issue 14) `figures` and
 * `diff` are loops over an_parts[]. ptop-record never links this.
 *
 * Each member points into the file of the folder that owns it, and is NULL when
 * the collector has nothing of that kind:
 *   load     collectors/NAME/load.c    its payloads -> rows (analyze/load.h)
 *   reports  collectors/NAME/report.c  `report KIND` (analyze/report.h)
 *   views    collectors/NAME/view.c    its replay tabs (analyze/replay_views.h)
 *   figures  collectors/NAME/figures.c its named figures for `figures` and `diff`
 *   stack_cols  collectors/NAME/stacks.c  its tables' stack-id columns, for `symbolize`
 *               (analyze/symbolize.h)
 *   profiles    collectors/NAME/stacks.c  its profiles, for `export --profile NAME`
 *               (analyze/export.h)
 *   replay   collectors/NAME/replay.c  its replay series: the state its views read, its
 *                                      interval ends, its timeline events
 *                                      (analyze/replay_model.h: struct replay_series)
 */
#ifndef PTOP_ANALYZE_PART_H
#define PTOP_ANALYZE_PART_H

#include <stddef.h>

struct an_load;
struct an_report;
struct replay_view;
struct an_figure;
struct an_stack_col;
struct an_profile;
struct replay_series;

struct an_part {
	const char *name; /* the probe's name in the capture's probe set: "syscalls" */
	const struct an_load *load;
	const struct an_report *const *reports; /* NULL-terminated */
	const struct replay_view *const *views; /* NULL-terminated */
	const struct an_figure *const *figures; /* NULL-terminated */
	const struct an_stack_col *const *stack_cols; /* NULL-terminated */
	const struct an_profile *const *profiles; /* NULL-terminated */
	const struct replay_series *replay;
};

/* What a part may point at, declared for every collector of the list, so that a
 * part.c is one line: NAME_load (load.c), NAME_reports (report.c), NAME_views
 * (view.c), NAME_figures (figures.c), NAME_stack_cols and NAME_profiles (stacks.c),
 * NAME_replay (replay.c, or view.c). Only those a part names must exist. */
#define COLLECTOR(name)                                                                    \
	extern const struct an_load name##_load;                                           \
	extern const struct an_report *const name##_reports[];                             \
	extern const struct replay_view *const name##_views[];                             \
	extern const struct an_figure *const name##_figures[];                             \
	extern const struct an_stack_col *const name##_stack_cols[];                       \
	extern const struct an_profile *const name##_profiles[];                         \
	extern const struct replay_series name##_replay;
#include "collectors/collectors.def"
#undef COLLECTOR

/* Every collector's part, in collectors.def order, NULL-terminated (analyze/parts.c). */
extern const struct an_part *const an_parts[];

/* The part named NAME, or NULL. */
const struct an_part *an_part__find(const char *name);

#endif
