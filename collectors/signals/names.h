/* names.h — the signals collector's words (collectors/signals/names.c): a signal's name and
 * a set of signals in words, for its recorder, its loader and its reports. */
#ifndef PTOP_SIGNALS_NAMES_H
#define PTOP_SIGNALS_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* Signal SIG's name into BUF as the C library spells it ("SIGUSR1"; "SIGRTMIN+3"; "SIG32"
 * for the two the threads library keeps). */
void signals_sig_name(int sig, char *buf, size_t len);

/* The signals of MASK (bit S-1 for signal S, as /proc/PID/status has them) by name,
 * comma-separated, into BUF ("" for none; cut at LEN with "..." when longer). */
void signals_mask_names(uint64_t mask, char *buf, size_t len);

#endif
