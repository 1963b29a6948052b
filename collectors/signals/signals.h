/* signals.h — what collectors/signals/signals.bpf.c and collectors/signals/record.c share. */
#ifndef PTOP_SIGNALS_H
#define PTOP_SIGNALS_H

#define SIGNALS_KEYS 4096 /* distinct (stage, signal, code, result, sender, receiver) kept */

/* The two stages of a signal, as the kernel's tracepoints name them. */
#define SIGNALS_GENERATE 0 /* signal:signal_generate: sent (queued, or not) to a target thread */
#define SIGNALS_DELIVER 1  /* signal:signal_deliver: taken by a target thread, its action run */

/* signals_key.result at SIGNALS_GENERATE: the tracepoint's result (TRACE_SIGNAL_DELIVERED 0,
 * _IGNORED 1, _ALREADY_PENDING 2, _OVERFLOW_FAIL 3, _LOSE_INFO 4), and one of ours: queued
 * while the receiving thread blocks it (its mask, at the time of sending). */
#define SIGNALS_R_BLOCKED 8
/* signals_key.result at SIGNALS_DELIVER: the action in place at delivery. */
#define SIGNALS_D_DEFAULT 16 /* SIG_DFL: the default action (fatal, stop or ignore, by signal) */
#define SIGNALS_D_IGNORE 17  /* SIG_IGN */
#define SIGNALS_D_HANDLER 18 /* a handler of the program's */

/* si_code when the tracepoint has no siginfo: SEND_SIG_NOINFO is SI_USER, SEND_SIG_PRIV
 * SI_KERNEL (as the tracepoint's own format does). */
#define SIGNALS_SI_USER 0
#define SIGNALS_SI_KERNEL 0x80

/* One kind of signal between one sender and one receiving thread: the hash key. */
struct signals_key {
	__u32 stage;	   /* SIGNALS_GENERATE or SIGNALS_DELIVER */
	__s32 sig;	   /* signal number */
	__s32 code;	   /* si_code */
	__u32 result;	   /* see above */
	__u32 sender_tgid; /* the task that generated it (the current task at signal_generate:
			    * the kernel's own signals name whoever ran); 0 at delivery */
	__u32 sender_tid;
	__u32 tgid; /* the receiving process and thread (root pid namespace) */
	__u32 tid;
};

/* Its counts, cumulative since the start. */
struct signals_val {
	__u64 count;
	__u64 first_ns; /* bpf_ktime_get_ns of the first and the latest (CLOCK_MONOTONIC) */
	__u64 last_ns;
	char sender_comm[16]; /* the sender thread's name when first seen (generate only) */
};

#endif
