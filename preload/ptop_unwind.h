/* ptop_unwind.h — the preload lane's unwinder for code built without frame pointers
 * (x86-64): the call-frame rules of .eh_frame, found through the module's .eh_frame_hdr
 * search table (PT_GNU_EH_FRAME), reduced to the subset compilers emit for ordinary
 * code: the CFA is rsp or rbp plus an offset, the return address and the saved rbp at
 * fixed offsets from it; and the kernel's signal frame (the 'S' CIE of glibc's
 * __restore_rt), through the ucontext the kernel pushed. Anything else (a CFA
 * expression as in PLT entries, a return address or rbp kept in another register or
 * computed) is not understood: the walk falls back to the frame-pointer step for that
 * frame.
 *
 * Safety, for it runs inside the target on every sampled allocation: every read of the
 * stack lies inside the bounds the caller gives (the part of the thread's stack above
 * the interposed function's frame), aligned; every read of the unwinding tables lies
 * inside the module's mapping and inside the CIE/FDE's own length; a return address
 * found by the frame-pointer step (a guess) that lies in no loaded module ends the walk
 * and is not kept; the stack pointer only goes up, and the walk ends after MAX frames.
 * No allocation, no lock, no system call: the caller's rule look-up is the only call out.
 *
 * Header-only and allocation-free: libptop-preload.so runs it inside allocations, and
 * the unit tests run it on their own .eh_frame. The caller supplies the look-up of a
 * pc's rule (pl_cfi_rule on the module's .eh_frame_hdr, through a cache).
 */
#ifndef PTOP_UNWIND_H
#define PTOP_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A frame's rule, packed in 64 bits (so that a cache entry is two words):
 *   bits 0-3   kind (PL_RULE_*)
 *   bit 4      the CFA is rbp + offset (else rsp + offset)
 *   bits 8-31  the CFA offset (signed, 24 bits)
 *   bits 32-47 the return address's offset from the CFA (signed)
 *   bits 48-63 the saved rbp's offset from the CFA (signed; 0: rbp is not saved) */
enum {
	PL_RULE_NONE = 0,	/* not known (an empty cache entry) */
	PL_RULE_CFA = 1,	/* the rule above */
	PL_RULE_FP = 2,		/* no usable rule: take the frame-pointer step */
	PL_RULE_END = 3,	/* the outermost frame (the return address is undefined) */
	PL_RULE_SIGNAL = 4,	/* the kernel's signal trampoline: the ucontext is at the CFA */
	PL_RULE_NOCODE = 5,	/* the pc lies in no loaded module (never cached) */
};

struct pl_rule {
	int kind;
	int cfa_rbp;		/* CFA = rbp + cfa_off, else rsp + cfa_off */
	int32_t cfa_off;
	int32_t ra_off;		/* the return address is at CFA + ra_off */
	int32_t rbp_off;	/* rbp was saved at CFA + rbp_off; 0: rbp unchanged */
};

static inline uint64_t pl_rule_pack(const struct pl_rule *r)
{
	if (r->kind != PL_RULE_CFA)
		return (uint64_t)r->kind;
	if (r->cfa_off < -(1 << 23) || r->cfa_off >= (1 << 23) || r->ra_off < -32768 ||
	    r->ra_off > 32767 || r->rbp_off < -32768 || r->rbp_off > 32767)
		return PL_RULE_FP;
	return PL_RULE_CFA | (r->cfa_rbp ? 0x10u : 0) |
	       ((uint64_t)((uint32_t)r->cfa_off & 0xffffff) << 8) |
	       ((uint64_t)(uint16_t)r->ra_off << 32) | ((uint64_t)(uint16_t)r->rbp_off << 48);
}

static inline struct pl_rule pl_rule_unpack(uint64_t v)
{
	struct pl_rule r = { 0 };

	r.kind = (int)(v & 0xf);
	if (r.kind != PL_RULE_CFA)
		return r;
	r.cfa_rbp = !!(v & 0x10);
	r.cfa_off = (int32_t)((uint32_t)(v >> 8) << 8) >> 8;
	r.ra_off = (int16_t)(v >> 32);
	r.rbp_off = (int16_t)(v >> 48);
	return r;
}

/* ------------------------------------------------------------------ DWARF readers */

struct pl_cur {
	const uint8_t *p, *end;
	int bad;
};

static inline uint64_t pl_uleb(struct pl_cur *c)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (c->p < c->end) {
		uint8_t b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	c->bad = 1;
	return 0;
}

static inline int64_t pl_sleb(struct pl_cur *c)
{
	int64_t v = 0;
	unsigned int shift = 0;
	uint8_t b = 0x80;

	while (c->p < c->end) {
		b = *c->p++;
		if (shift < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (b & 0x80) {
		c->bad = 1;
		return 0;
	}
	if (shift < 64 && (b & 0x40))
		v |= -((int64_t)1 << shift);
	return v;
}

static inline uint64_t pl_fixed(struct pl_cur *c, size_t n)
{
	uint64_t v = 0;

	if ((size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, n);	/* x86-64: little-endian */
	c->p += n;
	return v;
}

#define PL_PE_OMIT 0xff

/* A pointer in encoding ENC (DW_EH_PE_*), DATAREL the base of datarel pointers. */
static inline uint64_t pl_encoded(struct pl_cur *c, uint8_t enc, uint64_t datarel)
{
	uint64_t base = 0, v;
	const uint8_t *at = c->p;

	if (enc == PL_PE_OMIT)
		return 0;
	switch (enc & 0x70) {
	case 0x00: break;				/* absptr */
	case 0x10: base = (uint64_t)(uintptr_t)at; break;	/* pcrel */
	case 0x30: base = datarel; break;		/* datarel */
	default: c->bad = 1; return 0;			/* textrel, funcrel, aligned */
	}
	switch (enc & 0x0f) {
	case 0x00: case 0x04: v = pl_fixed(c, 8); break;	/* absptr, udata8 */
	case 0x01: v = pl_uleb(c); break;
	case 0x02: v = pl_fixed(c, 2); break;
	case 0x03: v = pl_fixed(c, 4); break;
	case 0x09: v = (uint64_t)pl_sleb(c); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)pl_fixed(c, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)pl_fixed(c, 4); break;
	case 0x0c: v = pl_fixed(c, 8); break;
	default: c->bad = 1; return 0;
	}
	return base + v;
}

/* ------------------------------------------------------------------ FDE look-up */

/* Whether [P, P+N) lies inside [LO, HI). */
static inline int pl_inside(const uint8_t *p, uint64_t n, const uint8_t *lo, const uint8_t *hi)
{
	return p >= lo && p <= hi && n <= (uint64_t)(hi - p);
}

/* The FDE of PC in the .eh_frame_hdr at HDR, the module's mapping being [MLO, MHI): its
 * address (inside the mapping), or NULL. */
static inline const uint8_t *pl_fde_find(const uint8_t *hdr, const uint8_t *mlo,
					 const uint8_t *mhi, uint64_t pc)
{
	struct pl_cur c = { hdr, hdr + 16, 0 };
	uint8_t ver, ptr_enc, cnt_enc, tab_enc;
	const int32_t *tab;
	const uint8_t *fde;
	uint64_t count, lo, hi, base = (uint64_t)(uintptr_t)hdr;

	if (!hdr || !pl_inside(hdr, 4 + 16, mlo, mhi))
		return NULL;
	ver = hdr[0];
	ptr_enc = hdr[1];
	cnt_enc = hdr[2];
	tab_enc = hdr[3];
	c.p = hdr + 4;
	c.end = hdr + 4 + 16;
	if (ver != 1 || tab_enc != 0x3b)	/* datarel | sdata4: the sorted table */
		return NULL;
	(void)pl_encoded(&c, ptr_enc, base);
	count = pl_encoded(&c, cnt_enc, base);
	if (c.bad || !count)
		return NULL;
	tab = (const int32_t *)c.p;	/* pairs (initial location, FDE), relative to HDR */
	if (((uintptr_t)tab & 3) || count > (uint64_t)(mhi - c.p) / 8)
		return NULL;	/* the table would not fit in the module */
	if (pc < base + (uint64_t)(int64_t)tab[0])
		return NULL;
	lo = 0;
	hi = count;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (base + (uint64_t)(int64_t)tab[2 * mid] <= pc)
			lo = mid;
		else
			hi = mid;
	}
	fde = (const uint8_t *)(uintptr_t)(base + (uint64_t)(int64_t)tab[2 * lo + 1]);
	return pl_inside(fde, 8, mlo, mhi) ? fde : NULL;
}

/* DWARF registers of x86-64 this unwinder follows. */
#define PL_DW_RBP 6
#define PL_DW_RSP 7
#define PL_DW_RA 16

/* One entry's length and body: 0, or -1 (a terminator, a 64-bit length, or not inside
 * the module's mapping [MLO, MHI)). */
static inline int pl_cfi_entry(const uint8_t *at, const uint8_t *mlo, const uint8_t *mhi,
			       struct pl_cur *body)
{
	uint32_t len;

	if (!pl_inside(at, 4, mlo, mhi))
		return -1;
	memcpy(&len, at, 4);
	if (!len || len >= 0x40000000u || !pl_inside(at + 4, len, mlo, mhi))
		return -1;
	body->p = at + 4;
	body->end = at + 4 + len;
	body->bad = 0;
	return 0;
}

struct pl_cfi_state {
	int cfa_reg;		/* DWARF register of the CFA, or -1 (an expression) */
	int64_t cfa_off;
	int ra;			/* the return address: 0 unknown/other, 1 at offset, 2 undefined */
	int64_t ra_off;
	int rbp;		/* rbp: 0 unchanged, 1 at offset, 2 not understood */
	int64_t rbp_off;
};

#define PL_CFI_STACK 8		/* DW_CFA_remember_state depth */

/* Skip N bytes of C, or mark it bad when fewer are left. */
static inline void pl_skip(struct pl_cur *c, uint64_t n)
{
	if (n > (uint64_t)(c->end - c->p))
		c->bad = 1;
	else
		c->p += n;
}

/* Run the CFA program [P, END) up to PC (LOC the location it starts at). 0, or -1 on
 * anything not understood. INIT is the CIE's state, for DW_CFA_restore. */
static inline int pl_cfi_run(struct pl_cur *c, uint64_t loc, uint64_t pc, uint64_t caf,
			     int64_t daf, struct pl_cfi_state *s, const struct pl_cfi_state *init)
{
	struct pl_cfi_state stack[PL_CFI_STACK];
	int depth = 0;

	while (c->p < c->end && !c->bad) {
		uint8_t op = *c->p++;
		uint64_t reg, adv = 0;
		int64_t off;

		switch (op & 0xc0) {
		case 0x40:		/* advance_loc */
			adv = (op & 0x3f) * caf;
			goto advance;
		case 0x80:		/* offset */
			reg = op & 0x3f;
			off = (int64_t)pl_uleb(c) * daf;
			goto offset;
		case 0xc0:		/* restore */
			reg = op & 0x3f;
			goto restore;
		}
		switch (op) {
		case 0x00:		/* nop */
			continue;
		case 0x01:		/* set_loc */
			loc = pl_encoded(c, 0x00, 0);
			if (loc > pc)
				return 0;
			continue;
		case 0x02: adv = pl_fixed(c, 1) * caf; goto advance;
		case 0x03: adv = pl_fixed(c, 2) * caf; goto advance;
		case 0x04: adv = pl_fixed(c, 4) * caf; goto advance;
		case 0x05:		/* offset_extended */
			reg = pl_uleb(c);
			off = (int64_t)pl_uleb(c) * daf;
			goto offset;
		case 0x06:		/* restore_extended */
			reg = pl_uleb(c);
			goto restore;
		case 0x07:		/* undefined */
			reg = pl_uleb(c);
			if (reg == PL_DW_RA)
				s->ra = 2;
			else if (reg == PL_DW_RBP)
				s->rbp = 2;
			continue;
		case 0x08:		/* same_value */
			reg = pl_uleb(c);
			if (reg == PL_DW_RBP)
				s->rbp = 0;
			else if (reg == PL_DW_RA)
				s->ra = 0;
			continue;
		case 0x09:		/* register */
			reg = pl_uleb(c);
			(void)pl_uleb(c);
			if (reg == PL_DW_RBP)
				s->rbp = 2;
			else if (reg == PL_DW_RA)
				s->ra = 0;
			continue;
		case 0x0a:		/* remember_state */
			if (depth == PL_CFI_STACK)
				return -1;
			stack[depth++] = *s;
			continue;
		case 0x0b:		/* restore_state */
			if (!depth)
				return -1;
			*s = stack[--depth];
			continue;
		case 0x0c:		/* def_cfa */
			s->cfa_reg = (int)pl_uleb(c);
			s->cfa_off = (int64_t)pl_uleb(c);
			continue;
		case 0x0d:		/* def_cfa_register */
			s->cfa_reg = (int)pl_uleb(c);
			continue;
		case 0x0e:		/* def_cfa_offset */
			s->cfa_off = (int64_t)pl_uleb(c);
			continue;
		case 0x0f:		/* def_cfa_expression */
			s->cfa_reg = -1;
			pl_skip(c, pl_uleb(c));
			continue;
		case 0x10:		/* expression */
		case 0x16:		/* val_expression */
			reg = pl_uleb(c);
			pl_skip(c, pl_uleb(c));
			if (reg == PL_DW_RBP)
				s->rbp = 2;
			else if (reg == PL_DW_RA)
				s->ra = 0;
			continue;
		case 0x11:		/* offset_extended_sf */
			reg = pl_uleb(c);
			off = pl_sleb(c) * daf;
			goto offset;
		case 0x12:		/* def_cfa_sf */
			s->cfa_reg = (int)pl_uleb(c);
			s->cfa_off = pl_sleb(c) * daf;
			continue;
		case 0x13:		/* def_cfa_offset_sf */
			s->cfa_off = pl_sleb(c) * daf;
			continue;
		case 0x14:		/* val_offset */
			reg = pl_uleb(c);
			(void)pl_uleb(c);
			goto val;
		case 0x15:		/* val_offset_sf */
			reg = pl_uleb(c);
			(void)pl_sleb(c);
val:
			if (reg == PL_DW_RBP)
				s->rbp = 2;
			else if (reg == PL_DW_RA)
				s->ra = 0;
			continue;
		case 0x2e:		/* GNU_args_size */
			(void)pl_uleb(c);
			continue;
		case 0x2f:		/* GNU_negative_offset_extended */
			reg = pl_uleb(c);
			off = -(int64_t)pl_uleb(c) * daf;
			goto offset;
		default:
			return -1;
		}
advance:
		loc += adv;
		if (loc > pc)
			return 0;
		continue;
offset:
		if (reg == PL_DW_RBP) {
			s->rbp = 1;
			s->rbp_off = off;
		} else if (reg == PL_DW_RA) {
			s->ra = 1;
			s->ra_off = off;
		}
		continue;
restore:
		if (!init)
			return -1;
		if (reg == PL_DW_RBP) {
			s->rbp = init->rbp;
			s->rbp_off = init->rbp_off;
		} else if (reg == PL_DW_RA) {
			s->ra = init->ra;
			s->ra_off = init->ra_off;
		}
		continue;
	}
	return c->bad ? -1 : 0;
}

/* The rule at PC from the FDE at FDE (found by pl_fde_find), the module's mapping being
 * [MLO, MHI). *START and *END get the FDE's range when not NULL. Returns the rule;
 * PL_RULE_FP when PC is outside the FDE or its rule is not understood. */
static inline struct pl_rule pl_cfi_rule(const uint8_t *fde, const uint8_t *mlo,
					 const uint8_t *mhi, uint64_t pc, uint64_t *start,
					 uint64_t *end)
{
	struct pl_rule r = { PL_RULE_FP, 0, 0, 0, 0 };
	struct pl_cur f, c;
	struct pl_cfi_state s = { PL_DW_RSP, 8, 1, -8, 0, 0 }, init;
	const uint8_t *cie, *aug;
	uint32_t cie_off;
	uint8_t fde_enc = 0, ver;
	uint64_t caf, begin, range;
	int64_t daf;
	int has_z = 0, signal = 0;

	if (!fde || pl_cfi_entry(fde, mlo, mhi, &f))
		return r;
	cie_off = (uint32_t)pl_fixed(&f, 4);
	if (!cie_off || cie_off > (uint64_t)(fde + 4 - mlo))
		return r;	/* a CIE, not an FDE; or a CIE outside the module */
	cie = fde + 4 - cie_off;
	if (pl_cfi_entry(cie, mlo, mhi, &c) || pl_fixed(&c, 4) != 0)
		return r;
	ver = (uint8_t)pl_fixed(&c, 1);
	if (ver != 1 && ver != 3)
		return r;
	aug = c.p;
	while (c.p < c.end && *c.p)
		c.p++;
	if (c.p++ >= c.end)
		return r;
	caf = pl_uleb(&c);
	daf = pl_sleb(&c);
	if ((ver == 1 ? pl_fixed(&c, 1) : pl_uleb(&c)) != PL_DW_RA)
		return r;
	if (*aug == 'z') {
		uint64_t alen = pl_uleb(&c);
		const uint8_t *after;

		if (c.bad || alen > (uint64_t)(c.end - c.p))
			return r;
		after = c.p + alen;
		has_z = 1;
		for (aug++; *aug && !c.bad; aug++) {
			switch (*aug) {
			case 'R': fde_enc = (uint8_t)pl_fixed(&c, 1); break;
			case 'L': (void)pl_fixed(&c, 1); break;
			case 'P': {
				uint8_t e = (uint8_t)pl_fixed(&c, 1);

				(void)pl_encoded(&c, e & 0x7f, 0);
				break;
			}
			case 'S': signal = 1; break;	/* the signal trampoline */
			default: return r;
			}
		}
		if (c.bad)
			return r;
		c.p = after;
	} else if (*aug) {
		return r;
	}
	if (c.bad)
		return r;
	begin = pl_encoded(&f, fde_enc, 0);
	range = pl_encoded(&f, fde_enc & 0x0f, 0);
	if (f.bad)
		return r;
	if (start)
		*start = begin;
	if (end)
		*end = begin + range;
	if (pc < begin || pc >= begin + range)
		return r;
	if (signal) {
		/* x86-64 Linux: __restore_rt, entered by the handler's return; its rules are
		 * expressions on the ucontext the kernel pushed, which the walk reads itself */
		r.kind = PL_RULE_SIGNAL;
		return r;
	}
	if (has_z) {
		pl_skip(&f, pl_uleb(&f));
		if (f.bad)
			return r;
	}
	/* the CIE's initial instructions, then the FDE's up to PC */
	if (pl_cfi_run(&c, begin, UINT64_MAX, caf, daf, &s, NULL))
		return r;
	init = s;
	if (pl_cfi_run(&f, begin, pc, caf, daf, &s, &init))
		return r;
	if (s.ra == 2) {
		r.kind = PL_RULE_END;
		return r;
	}
	if (s.ra != 1 || s.rbp == 2 || (s.cfa_reg != PL_DW_RSP && s.cfa_reg != PL_DW_RBP))
		return r;
	if (s.rbp == 1 && !s.rbp_off)
		return r;
	r.kind = PL_RULE_CFA;
	r.cfa_rbp = s.cfa_reg == PL_DW_RBP;
	r.cfa_off = (int32_t)s.cfa_off;
	r.ra_off = (int32_t)s.ra_off;
	r.rbp_off = s.rbp == 1 ? (int32_t)s.rbp_off : 0;
	if (r.cfa_off != s.cfa_off || r.ra_off != s.ra_off || r.rbp_off != s.rbp_off)
		r.kind = PL_RULE_FP;
	return r;
}

/* ------------------------------------------------------------------ the walk */

/* The rule for a pc, from the caller (a cache in front of pl_fde_find + pl_cfi_rule;
 * PL_RULE_NOCODE when the pc lies in no loaded module). */
typedef uint64_t (*pl_rule_fn)(uint64_t pc);

/* Read the word at A if [A, A+8) lies in [LO, HI) and A is aligned. */
static inline int pl_stack_word(uintptr_t a, uintptr_t lo, uintptr_t hi, uint64_t *v)
{
	if (a < lo || hi < 8 || a > hi - 8 || (a & 7))
		return -1;
	*v = *(const uint64_t *)a;
	return 0;
}

/* Where the kernel's x86-64 signal frame keeps the interrupted registers: the ucontext
 * (at the CFA of the handler's frame, once its return popped the trampoline's address)
 * holds uc_flags, uc_link, uc_stack (40 bytes), then mcontext's gregs: r8..r15, rdi,
 * rsi, rbp, rbx, rdx, rax, rcx, rsp, rip (<sys/ucontext.h>, REG_*). */
#define PL_UC_GREG(i) (40 + 8 * (i))
#define PL_UC_RBP PL_UC_GREG(10)
#define PL_UC_RSP PL_UC_GREG(15)
#define PL_UC_RIP PL_UC_GREG(16)

/* The stack of an interposed function IP0 called with return address RET, where the
 * caller's rsp after the return is RSP and its rbp is RBP: IP0, RET, then each caller
 * found by the rule of the frame's pc (RULE, looked up at the return address minus one,
 * within the call; at the pc itself for a frame a signal interrupted), or by the
 * frame-pointer step where there is no usable rule. Every stack read lies in [LO, HI)
 * (the caller makes sure that RSP is on the thread's stack and HI its top); the stack
 * pointer only goes up; a return address the frame-pointer step found is kept only if
 * it lies in a module. Returns the number of ips written (at most MAX). */
static inline size_t pl_unwind(uint64_t *ips, size_t max, uint64_t ip0, uint64_t ret,
			       uintptr_t rsp, uintptr_t rbp, uintptr_t lo, uintptr_t hi,
			       pl_rule_fn rule)
{
	size_t n = 0;
	uint64_t pc = ret;
	int exact = 0;		/* pc is where a signal came, not a return address */
	int guessed = 0;	/* pc came from the frame-pointer step */

	if (max)
		ips[n++] = ip0;
	if (n >= max || !ret)
		return n;
	ips[n++] = ret;
	while (n <= max) {
		struct pl_rule r = pl_rule_unpack(rule(exact ? pc : pc - 1));
		uintptr_t cfa;
		uint64_t ra, nbp = rbp;

		if (r.kind == PL_RULE_NOCODE) {
			if (guessed)
				n--;	/* a guess that is not code: not a frame */
			break;
		}
		if (n == max || r.kind == PL_RULE_END)
			break;
		if (r.kind == PL_RULE_SIGNAL) {
			uint64_t nsp;

			if (pl_stack_word(rsp + PL_UC_RIP, lo, hi, &ra) ||
			    pl_stack_word(rsp + PL_UC_RSP, lo, hi, &nsp) ||
			    pl_stack_word(rsp + PL_UC_RBP, lo, hi, &nbp))
				break;
			cfa = (uintptr_t)nsp;
		} else if (r.kind == PL_RULE_CFA) {
			cfa = (r.cfa_rbp ? rbp : rsp) + (uintptr_t)(intptr_t)r.cfa_off;
			if (pl_stack_word(cfa + (uintptr_t)(intptr_t)r.ra_off, lo, hi, &ra))
				break;
			if (r.rbp_off &&
			    pl_stack_word(cfa + (uintptr_t)(intptr_t)r.rbp_off, lo, hi, &nbp))
				break;
		} else {
			uint64_t saved;

			if (pl_stack_word(rbp, lo, hi, &saved) ||
			    pl_stack_word(rbp + 8, lo, hi, &ra))
				break;
			nbp = saved;
			cfa = rbp + 16;
		}
		if (!ra || cfa <= rsp)
			break;
		ips[n++] = ra;
		pc = ra;
		exact = r.kind == PL_RULE_SIGNAL;
		guessed = r.kind != PL_RULE_SIGNAL && r.kind != PL_RULE_CFA;
		rsp = cfa;
		rbp = (uintptr_t)nbp;
	}
	return n;
}

#endif
