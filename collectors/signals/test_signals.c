/* test_signals.c — the signals collector's pure parts: the /proc lane's status parser
 * (collectors/signals/record.h) and the names of signals and sets (names.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/signals/names.h"
#include "collectors/signals/record.h"

static void test_parse_status(void **state)
{
	/* as Linux 6.x writes it (lines around the signal ones trimmed) */
	static const char text[] = "Name:\tsig_states\n"
				   "Threads:\t1\n"
				   "SigQ:\t4/96367\n"
				   "SigPnd:\t0000000000000200\n"
				   "ShdPnd:\t0000000000004000\n"
				   "SigBlk:\t0000000000000200\n"
				   "SigIgn:\t0000000000001000\n"
				   "SigCgt:\t0000000180000800\n"
				   "CapInh:\t0000000000000000\n";
	struct signals_sets s;

	(void)state;
	assert_int_equal(signals__parse_status(text, &s), 0);
	assert_true(s.pending == 0x200 && s.shared_pending == 0x4000 && s.blocked == 0x200);
	assert_true(s.ignored == 0x1000 && s.caught == 0x180000800ULL);
	assert_true(s.queued == 4 && s.queue_limit == 96367);
	/* a set missing, or not hexadecimal: refused */
	assert_int_equal(signals__parse_status("SigPnd:\t0\nShdPnd:\t0\nSigBlk:\t0\nSigIgn:\t0\n",
					       &s),
			 -EINVAL);
	assert_int_equal(signals__parse_status("SigPnd:\tzz\nShdPnd:\t0\nSigBlk:\t0\nSigIgn:\t0\n"
					       "SigCgt:\t0\n",
					       &s),
			 -EINVAL);
	/* no SigQ (an old kernel): the sets, and 0/0 */
	assert_int_equal(signals__parse_status("SigPnd:\t1\nShdPnd:\t0\nSigBlk:\t0\nSigIgn:\t0\n"
					       "SigCgt:\t2",
					       &s),
			 0);
	assert_true(s.pending == 1 && s.caught == 2 && s.queued == 0 && s.queue_limit == 0);
}

static void test_names(void **state)
{
	char buf[64];

	(void)state;
	signals_mask_names(0, buf, sizeof(buf));
	assert_string_equal(buf, "");
	signals_mask_names(0x200 | 0x800 | 0x1000, buf, sizeof(buf));
	assert_string_equal(buf, "SIGUSR1,SIGUSR2,SIGPIPE");
	signals_sig_name(1, buf, sizeof(buf));
	assert_string_equal(buf, "SIGHUP");
	signals_sig_name(32, buf, sizeof(buf)); /* kept by the threads library */
	assert_string_equal(buf, "SIG32");
	/* cut: ends with "..." within the buffer */
	signals_mask_names(~0ULL, buf, 20);
	assert_int_equal(strlen(buf), 19);
	assert_string_equal(buf + 16, "...");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_status),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
