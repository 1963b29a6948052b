/* names.c — see names.h. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "collectors/signals/names.h"

void signals_sig_name(int sig, char *buf, size_t len)
{
	const char *a = sig > 0 && sig < SIGRTMIN ? sigabbrev_np(sig) : NULL;

	if (a)
		snprintf(buf, len, "SIG%s", a);
	else if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, len, sig == SIGRTMIN ? "SIGRTMIN" : "SIGRTMIN+%d", sig - SIGRTMIN);
	else
		snprintf(buf, len, "SIG%d", sig);
}

void signals_mask_names(uint64_t mask, char *buf, size_t len)
{
	size_t at = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (int s = 1; s <= 64; s++) {
		char name[32];
		int n;

		if (!(mask & (1ULL << (s - 1))))
			continue;
		signals_sig_name(s, name, sizeof(name));
		n = snprintf(buf + at, len - at, "%s%s", at ? "," : "", name);
		if (n < 0 || (size_t)n >= len - at) {
			if (len > 4)
				snprintf(buf + len - 4, 4, "...");
			return;
		}
		at += (size_t)n;
	}
}
