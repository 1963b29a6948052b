/* test_fds_sites.c — report fds's opening sites over captures written with the codec:
 * how the stacks were taken (the probe detail: fp or dwarf), sites whose stacks have
 * the same frames counted as one, and frame-pointer walks through code without frame
 * pointers never shown as the site's callers (the first frame only, the rest apart).
 * No eBPF: the collectors/fds/e2e scripts record the real thing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/db.h"
#include "analyze/report.h"
#include "collectors/fds/fds.pb-c.h"
#include "proto/capture.h"
#include "tests/tmpdir.h"
#include "tests/sqlq.h"
#include "tests/capwrite.h"

#define T0 1000000000000ull
#define SEC 1000000000ull
#define PID 4321
/* where /opt/ptop-test/app is mapped (no such file: frames stay app+0xOFFSET) */
#define APP 0x400000ull

static char errbuf[1024];

static const char dwarf_detail[] =
    "/proc/4321/fd: one readlink per fd each interval; raw_tp/sys_exit: fds opened and closed "
    "per syscall, opening user stacks dwarf (--user-stacks auto: no frame pointers in app (0 of "
    "5 functions)): 16 KiB stack copies, unwound offline";
static const char fp_untrusted_detail[] =
    "/proc/4321/fd: one readlink per fd each interval; raw_tp/sys_exit: fds opened and closed "
    "per syscall, opening user stacks fp (--user-stacks fp); frame-pointer walks through code "
    "without frame pointers (no frame pointers in app (0 of 5 functions)): a site's frames past "
    "the first are not to be trusted (--user-stacks dwarf unwinds them)";

static int setup(void **state)
{
	(void)state;
	return tmpdir__make("fds_sites");
}

static void put_payload(struct capture_writer *w, uint64_t t, const ProtobufCMessage *msg)
{
	Ptop__V1__Event ev = PTOP__V1__EVENT__INIT;
	Ptop__V1__CollectorPayload cp;

	assert_int_equal(capture_payload__pack(&ev, &cp, "fds", msg), 0);
	ev.time_ns = t;
	ev.pid = PID;
	capb__put_event(w, &ev);
	capture_payload__release(&cp);
}

/* A capture whose fds probe has DETAIL, with stacks 1 and 2 of the same frames (two copy
 * keys unwound alike), stack 3 of others, and a site without a stack:
 *   stack 1: 100 opened, 60 live; stack 2: 50 opened, 40 live; stack 3: 5, 0; none: 2, 1 */
static bool string_bytes; /* write_capture: stack 3's second frame is string bytes */

static void write_capture(const char *path, const char *detail)
{
	static const uint8_t bid[20] = {0xfd, 0x51, 0x7e, 0x5};
	const uint64_t chain[] = {APP + 0x1100, APP + 0x1250, APP + 0x1340, APP + 0x1480};
	const uint64_t other[] = {APP + 0x1100,
				  string_bytes ? 0x6f006e65706f006bull : APP + 0x1990};
	struct capture_writer_opts o = {.force = true};
	struct capture_writer *w = capture_writer__create(path, &o);
	Ptop__V1__Mapping m =
	    capb__mapping(T0, PID, APP + 0x1000, APP + 0x2000, 0x1000, "/opt/ptop-test/app", bid,
			  sizeof(bid), PTOP__V1__MAPPING_EVENT__MAPPING_EVENT_START);
	Ptop__V1__FdSites sites = PTOP__V1__FD_SITES__INIT;
	Ptop__V1__FdSite x[4] = {PTOP__V1__FD_SITE__INIT, PTOP__V1__FD_SITE__INIT,
				 PTOP__V1__FD_SITE__INIT, PTOP__V1__FD_SITE__INIT};
	Ptop__V1__FdSite *xp[4] = {&x[0], &x[1], &x[2], &x[3]};
	static const uint64_t opened[4] = {100, 50, 5, 2}, live[4] = {60, 40, 0, 1};
	struct capb_header b;

	assert_non_null(w);
	capb__header_init(&b);
	memset(b.id, 0x42, sizeof(b.id));
	b.host.machine = "x86_64";
	b.host.clock_tick = 100;
	b.host.page_size = 4096;
	b.clk.monotonic_ns = T0;
	b.opt.interval_ns = SEC;
	b.t.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_PID;
	b.t.pid = PID;
	b.t.comm = "app";
	capb__probe(&b, "fds", PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE,
		    PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_EBPF, NULL, detail);
	capb__put_header(w, &b);
	capb__put_mapping(w, &m);
	capb__put_stack(w, 1, chain, 4, false);
	capb__put_stack(w, 2, chain, 4, false);
	capb__put_stack(w, 3, other, 2, false);
	for (int i = 0; i < 4; i++) {
		x[i].stack_id = i < 3 ? (uint64_t)i + 1 : 0;
		x[i].opened = opened[i];
		x[i].live = live[i];
	}
	sites.sites = xp;
	sites.n_sites = 4;
	put_payload(w, T0 + SEC, &sites.base);
	assert_int_equal(capture_writer__close(w), 0);
}

static char *run_report(sqlite3 *db, enum out_format fmt)
{
	const struct an_report *r = report_kind__find("fds");
	struct report_opts o = {.fmt = fmt};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(r);
	assert_non_null(f);
	assert_int_equal(report__run(r, db, "42424242424242424242424242424242", &o, f), 0);
	fclose(f);
	return buf;
}

static sqlite3 *load(const char *name, const char *detail)
{
	char cap[64], dbp[64], id[DB_CAPTURE_ID_LEN];
	struct load_stats st;
	sqlite3 *db = NULL;

	snprintf(cap, sizeof(cap), "%s.ptop", name);
	snprintf(dbp, sizeof(dbp), "%s.db", name);
	write_capture(tpath(cap), detail);
	assert_int_equal(db__open(tpath(dbp), true, false, &db, errbuf, sizeof(errbuf)), 0);
	if (db__load_capture(db, tpath(cap), false, id, &st, errbuf, sizeof(errbuf)))
		fail_msg("load: %s", errbuf);
	return db;
}

/* Copies unwound to the same frames are one site: 150 opened, 100 live, 2 stacks, first
 * by live; every frame in JSON; the heading says dwarf; no note. */
static void test_01_dwarf_sites_merged(void **state)
{
	sqlite3 *db;
	char *out;

	(void)state;
	db = load("dwarf", dwarf_detail);
	out = run_report(db, OUT_TEXT);
	if (!strstr(out, "(3 of 3; user stacks dwarf, unwound from stack copies;") ||
	    !strstr(out, "     100 live      150 opened  app+0x1100 < app+0x124f < app+0x133f < "
			 "app+0x147f\n") ||
	    !strstr(out, "       1 live        2 opened  (no stack)\n") ||
	    !strstr(out, "       0 live        5 opened  app+0x1100 < app+0x198f\n") ||
	    strstr(out, "note:") || strstr(out, "not trusted"))
		fail_msg("text report:\n%s", out);
	free(out);
	out = run_report(db, OUT_JSON);
	if (!strstr(out, "\"user_stacks\": \"dwarf\"") ||
	    !strstr(out, "\"stacks_trusted\": true") || !strstr(out, "\"stacks_note\": null") ||
	    !strstr(out, "\"live\": 100,\n        \"opened\": 150,\n        \"stack_id\": 1,\n"
			 "        \"stacks\": 2,\n        \"stack\": \"app+0x1100 < app+0x124f < "
			 "app+0x133f < app+0x147f\",\n        \"untrusted_frames\": null\n"))
		fail_msg("json report:\n%s", out);
	free(out);
	sqlite3_close(db);
}

/* fp walks through code without frame pointers: each site's stack is its first frame,
 * the rest apart as untrusted_frames, a note names the modules, text marks the callers
 * as not trusted. */
static void test_02_fp_untrusted(void **state)
{
	sqlite3 *db;
	char *out;

	(void)state;
	db = load("fp", fp_untrusted_detail);
	out = run_report(db, OUT_TEXT);
	if (!strstr(out, "user stacks fp, frame-pointer walks;") ||
	    !strstr(out, "\nnote: frame-pointer walks through code without frame pointers (no "
			 "frame pointers in app (0 of 5 functions)): each site shows the "
			 "syscall's own frame only;") ||
	    !strstr(out, "     100 live      150 opened  app+0x1100 < (callers not trusted)\n") ||
	    strstr(out, "app+0x124f"))
		fail_msg("text report:\n%s", out);
	free(out);
	out = run_report(db, OUT_JSON);
	if (!strstr(out, "\"user_stacks\": \"fp\"") || !strstr(out, "\"stacks_trusted\": false") ||
	    !strstr(out, "\"stacks_note\": \"frame-pointer walks through code without frame "
			 "pointers (no frame pointers in app (0 of 5 functions))\"") ||
	    !strstr(out, "\"stacks\": 2,\n        \"stack\": \"app+0x1100\",\n        "
			 "\"untrusted_frames\": \"app+0x124f < app+0x133f < app+0x147f\"\n") ||
	    !strstr(out, "\"stack\": \"app+0x1100\",\n        \"untrusted_frames\": "
			 "\"app+0x198f\"\n") ||
	    !strstr(out, "\"stack\": \"(no stack)\",\n        \"untrusted_frames\": null\n"))
		fail_msg("json report:\n%s", out);
	free(out);
	sqlite3_close(db);
}

/* A walk that read string bytes ("k\0open\0o") as a return address, in a capture whose
 * probe detail did not flag frame pointers as missing: the walk ends before them (no
 * [unknown]+0x6f006e65706f006b), and the sites' stacks are not trusted (the note says how
 * many were cut and in which module frame pointers are missing). */
static void test_03_string_bytes_cut(void **state)
{
	sqlite3 *db;
	char *out;

	(void)state;
	string_bytes = true;
	db = load("strbytes", dwarf_detail);
	string_bytes = false;
	out = run_report(db, OUT_JSON);
	if (!strstr(out, "\"stacks_trusted\": false") ||
	    !strstr(out, "\"stacks_note\": \"1 of 3 sites' stacks were cut short where the walk "
			 "read a return address in no executable mapping (frame pointers missing "
			 "in /opt/ptop-test/app)\"") ||
	    strstr(out, "6f006e65706f006b"))
		fail_msg("json report:\n%s", out);
	free(out);
	/* only the cut site loses its callers: the others are shown whole */
	out = run_report(db, OUT_TEXT);
	if (!strstr(out, "       0 live        5 opened  app+0x1100\n") ||
	    !strstr(out, "     100 live      150 opened  app+0x1100 < app+0x124f < app+0x133f < "
			 "app+0x147f\n") ||
	    !strstr(out, "\nnote: 1 of 3 sites' stacks were cut short") ||
	    strstr(out, "6f006e65706f006b"))
		fail_msg("text report:\n%s", out);
	free(out);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_01_dwarf_sites_merged),
	    cmocka_unit_test(test_02_fp_untrusted),
	    cmocka_unit_test(test_03_string_bytes_cut),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
