/* sysregs.bpf.h — a syscall's number and arguments from the user registers it was made with
 * (the pt_regs of raw_tp/sys_enter and raw_tp/sys_exit), for the programs that classify
 * syscalls by number: syscalls, io, fds, net. Kernel side only. */
#ifndef PTOP_SYSREGS_BPF_H
#define PTOP_SYSREGS_BPF_H

#include <bpf/bpf_core_read.h>

/* The syscall number REGS were made with. */
static __always_inline __u64 ptop_sys_nr(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return BPF_CORE_READ(regs, orig_ax);
#elif defined(__TARGET_ARCH_arm64)
	return BPF_CORE_READ(regs, syscallno);
#else
#error "sysregs.bpf.h: add the syscall number register of this architecture"
#endif
}

/* Syscall argument N (1 to 6) of REGS: at exit too, the registers the call was made with
 * (x86-64: rdi, rsi, rdx, r10, r8, r9; arm64: x0 as it was on entry, x1..x5). */
static __always_inline __u64 ptop_sys_arg(struct pt_regs *regs, int n)
{
#if defined(__TARGET_ARCH_x86)
	switch (n) {
	case 1:
		return BPF_CORE_READ(regs, di);
	case 2:
		return BPF_CORE_READ(regs, si);
	case 3:
		return BPF_CORE_READ(regs, dx);
	case 4:
		return BPF_CORE_READ(regs, r10);
	case 5:
		return BPF_CORE_READ(regs, r8);
	default:
		return BPF_CORE_READ(regs, r9);
	}
#elif defined(__TARGET_ARCH_arm64)
	if (n == 1)
		return BPF_CORE_READ(regs, orig_x0);
	return BPF_CORE_READ(regs, regs[n - 1]);
#else
#error "sysregs.bpf.h: add the syscall argument registers of this architecture"
#endif
}

/* floor(log2(v)), 0 for v == 0; branch-light (as libbpf-tools' bits.bpf.h does it). */
static __always_inline __u64 ptop_log2_u64(__u64 v)
{
	__u64 r, shift;

	r = (v > 0xFFFFFFFFULL) << 5;
	v >>= r;
	shift = (v > 0xFFFF) << 4;
	v >>= shift;
	r |= shift;
	shift = (v > 0xFF) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xF) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	r |= (v >> 1);
	return r;
}

/* The log2 histogram bucket of V among N (a constant): floor(log2(v)), the last bucket
 * for the rest. For indexing a map value's array so that Linux 6.1's verifier sees the
 * bound: it loses the bounds of ptop_log2_u64's ORs and did not take the mask of
 * `hist[ptop_log2_u64(v) & (N - 1)]` through clang's code ("math between map_value
 * pointer and register with unbounded min value"); a u32 index was compared in one
 * register and used from another (zero-extended apart). A 64-bit value kept opaque by
 * barrier_var is compared and used in the one register. */
static __always_inline __u64 ptop_log2_bucket(__u64 v, __u64 n)
{
	__u64 b = ptop_log2_u64(v);

	barrier_var(b);
	if (b > n - 1)
		b = n - 1;
	barrier_var(b);
	return b;
}

#endif
