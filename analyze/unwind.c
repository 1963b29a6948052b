/* unwind.c — stack copies unwound with libdwfl's frame API (analyze/unwind.h): one Dwfl
 * per process, its modules reported at their load addresses from the capture's
 * executable mappings, attached to a "process" whose only memory is the copy being
 * unwound and whose thread's registers are the copy's (ip, sp, and rbp when known). */
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elf.h>
#include <strings.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "common/array.h"
#include "analyze/unwind.h"
#include "symbol/buildid.h"

#define UW_MAX_FRAMES 127	/* as deep as a frame-pointer walk is kept */

/* The copy being unwound: what the callbacks read. */
struct uw_copy {
	pid_t tid;
	uint64_t ip, sp, bp;
	const uint8_t *stack;
	size_t len;
	bool given;		/* next_thread handed the thread out */
	bool read_failed;	/* the unwinder asked for a word outside the copy */
	bool zero_pc;		/* a frame's pc was 0 */
	uint64_t pcs[UW_MAX_FRAMES];
	size_t n;
};

/* One executable mapping of a process, as the capture has it. */
struct uw_map {
	int32_t pid;
	int64_t time_ns;
	uint64_t start, end, offset;
	char *path, *build_id;
	bool has_vaddr, gone, go;
	uint64_t vaddr;
};

static int fail(sqlite3 *db, char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, sqlite3_errmsg(db));
	return -EIO;
}

bool unwind__pending(sqlite3 *db, int64_t cap)
{
	sqlite3_stmt *s = NULL;
	bool any = false;

	if (sqlite3_prepare_v2(db,
			       "SELECT 1 FROM stack_copy WHERE cap = ?1 AND unwound IS NULL LIMIT 1",
			       -1, &s, NULL) != SQLITE_OK)
		return false;	/* a DB from before the table */
	sqlite3_bind_int64(s, 1, cap);
	any = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return any;
}

static pid_t uw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct uw_copy *c = arg;

	(void)dwfl;
	if (c->given)
		return 0;
	c->given = true;
	*thread_argp = c;
	return c->tid;
}

static bool uw_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct uw_copy *c = arg;

	(void)dwfl;
	if (tid != c->tid)
		return false;
	*thread_argp = c;
	return true;
}

static bool uw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct uw_copy *c = arg;

	(void)dwfl;
	if (addr < c->sp || addr - c->sp > c->len || c->len - (addr - c->sp) < sizeof(*result)) {
		c->read_failed = true;
		return false;	/* outside the copy: the walk ends */
	}
	memcpy(result, c->stack + (addr - c->sp), sizeof(*result));
	return true;
}

/* x86-64 DWARF registers: 6 rbp, 7 rsp, 16 the return address column, which libdwfl
 * keeps apart from the pc. The ip is also given as register 16: the CFI of a lazy
 * .plt reads it (its CFA is DW_OP_breg7 8; DW_OP_breg16 0; lit15; and; lit11; ge;
 * lit3; shl; plus: rsp + 8, + 8 once the entry has pushed its index), and libdw's
 * expression evaluator takes DW_OP_breg16 from register 16, not from the pc: without
 * it, a sample in a PLT stub had no caller. */
static bool uw_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct uw_copy *c = arg;
	Dwarf_Word regs[2] = { c->bp, c->sp }, ip = c->ip;

	if (c->bp) {
		if (!dwfl_thread_state_registers(thread, 6, 2, regs))
			return false;
	} else if (!dwfl_thread_state_registers(thread, 7, 1, &regs[1])) {
		return false;
	}
	if (!dwfl_thread_state_registers(thread, 16, 1, &ip))
		return false;
	dwfl_thread_state_register_pc(thread, c->ip);
	return true;
}

static const Dwfl_Thread_Callbacks uw_thread_cb = {
	.next_thread = uw_next_thread,
	.get_thread = uw_get_thread,
	.memory_read = uw_memory_read,
	.set_initial_registers = uw_set_initial_registers,
};

static char *debuginfo_path;
static const Dwfl_Callbacks uw_cb = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static int uw_frame(Dwfl_Frame *frame, void *arg)
{
	struct uw_copy *c = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	if (!pc) {
		c->zero_pc = true;
		return DWARF_CB_ABORT;
	}
	if (c->n == UW_MAX_FRAMES)
		return DWARF_CB_ABORT;
	c->pcs[c->n++] = pc;
	return DWARF_CB_OK;
}

/* Does the CFI say that the frame at PC has no caller (its return address column is
 * undefined, as at _start)? */
static bool ra_undefined(Dwfl *dwfl, Dwarf_Addr pc)
{
	Dwfl_Module *m = dwfl_addrmodule(dwfl, pc);
	Dwarf_Op mem[3], *ops = NULL;
	Dwarf_Frame *fr = NULL;
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi;
	size_t nops = 0;
	bool undefined = false;

	if (!m)
		return false;
	cfi = dwfl_module_eh_cfi(m, &bias);
	if (!cfi)
		cfi = dwfl_module_dwarf_cfi(m, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr) != 0)
		return false;
	if (dwarf_frame_register(fr, 16, mem, &ops, &nops) == 0)	/* x86-64: the RA column */
		undefined = nops == 0 && ops == mem;	/* "undefined" (NULL: same value) */
	free(fr);
	return undefined;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static size_t hex_bytes(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;

	while (hex && hex[0] && hex[1] && n < cap) {
		int a = hexval(hex[0]), b = hexval(hex[1]);

		if (a < 0 || b < 0)
			return 0;
		out[n++] = (uint8_t)(a << 4 | b);
		hex += 2;
	}
	return n;
}

/* The ELF address of file offset M->offset, from the file's program headers, when the
 * capture did not record it. */
static bool vaddr_from_file(const char *file, uint64_t offset, uint64_t *vaddr)
{
	Elf *e;
	size_t n, i;
	bool ok = false;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && !elf_getphdrnum(e, &n)) {
		for (i = 0; i < n && !ok; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    offset >= ph.p_offset && offset < ph.p_offset + ph.p_filesz) {
				*vaddr = ph.p_vaddr + (offset - ph.p_offset);
				ok = true;
			}
		}
	}
	elf_end(e);
	close(fd);
	return ok;
}

/* Report the [vdso] mapping M from this process's own vDSO when their build-ids match
 * (a capture of this kernel): its image in a memfd, whose fd libdwfl takes. True
 * when reported. */
static bool report_vdso(Dwfl *dwfl, const struct uw_map *m)
{
	const unsigned char *img = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	uint8_t id[SYM_MAX_BUILD_ID];
	char hex[2 * SYM_MAX_BUILD_ID + 1];
	size_t size = 0, len = 0;
	uint64_t vaddr = 0;
	int fd;

	if (!img || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return false;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(img + eh->e_phoff) + i;

		if (ph->p_offset + ph->p_filesz > size)
			size = ph->p_offset + ph->p_filesz;
		if (ph->p_type == PT_LOAD && ph->p_offset == 0)
			vaddr = ph->p_vaddr;
	}
	if (!size || size > (1u << 20) ||
	    buildid_read_memory(img, size, id, sizeof(id), &len) || !len ||
	    buildid_to_hex(id, len, hex, sizeof(hex)) || strcasecmp(hex, m->build_id))
		return false;
	if (m->has_vaddr)
		vaddr = m->vaddr;
	fd = memfd_create("ptop-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return false;
	if (write(fd, img, size) != (ssize_t)size) {
		close(fd);
		return false;
	}
	if (!dwfl_report_elf(dwfl, "[vdso]", "[vdso]", fd, m->start - m->offset - vaddr, true)) {
		close(fd);
		return false;
	}
	return true;
}

/* A Dwfl for process PID at time T: the capture's executable file mappings of PID (the
 * latest record of each at or before T, else the earliest), each module reported once
 * at its load bias, from the file the symbolizer finds for its build-id. NULL when not
 * one module could be reported; *MISSING counts the modules without a file. */
static Dwfl *process_dwfl(const struct uw_map *maps, size_t n, int32_t pid, int64_t t,
			  struct symbolizer *sz, struct uw_copy *c, unsigned *missing)
{
	Dwfl *dwfl = dwfl_begin(&uw_cb);
	unsigned reported = 0;

	if (!dwfl)
		return NULL;
	dwfl_report_begin(dwfl);
	for (size_t i = 0; i < n; i++) {
		const struct uw_map *m = &maps[i], *use = m;
		struct sym_module_key key = { 0 };
		struct sym_module_info info;
		uint8_t id[SYM_MAX_BUILD_ID];
		uint64_t vaddr;
		bool later = false;

		if (m->pid != pid || m->gone || (m->path[0] != '/' && strcmp(m->path, "[vdso]")))
			continue;
		/* the record of this mapping to use: the latest at or before T */
		for (size_t j = 0; j < n; j++) {
			const struct uw_map *o = &maps[j];

			if (j == i || o->pid != pid || o->start != m->start)
				continue;
			if ((o->time_ns <= t && (use->time_ns > t || o->time_ns > use->time_ns)) ||
			    (use->time_ns > t && o->time_ns < use->time_ns))
				use = o;
		}
		if (use != m || m->gone)
			continue;
		for (size_t j = 0; j < i; j++)	/* a module reported once */
			if (maps[j].pid == pid && !strcmp(maps[j].path, m->path) &&
			    maps[j].start - maps[j].offset == m->start - m->offset)
				later = true;
		if (later)
			continue;
		if (!m->build_id) {
			(*missing)++;
			continue;
		}
		if (m->path[0] == '[') {	/* [vdso]: this machine's, if it is the same */
			if (report_vdso(dwfl, m))
				reported++;
			else
				(*missing)++;
			continue;
		}
		key.build_id = id;
		key.build_id_len = m->go ? strlen(m->build_id) : hex_bytes(m->build_id, id, sizeof(id));
		if (m->go) {
			size_t l = strlen(m->build_id);

			if (l > sizeof(id))
				l = sizeof(id);
			memcpy(id, m->build_id, l);
			key.build_id_len = l;
			key.kind = SYM_BUILD_ID_GO;
		}
		key.path = m->path;
		if (symbolizer__module_info(sz, &key, &info) || !info.file || info.file[0] != '/') {
			(*missing)++;
			continue;
		}
		if (m->has_vaddr)
			vaddr = m->vaddr;
		else if (!vaddr_from_file(info.file, m->offset, &vaddr)) {
			(*missing)++;
			continue;
		}
		if (dwfl_report_elf(dwfl, m->path, info.file, -1, m->start - vaddr, true))
			reported++;
		else
			(*missing)++;
	}
	dwfl_report_end(dwfl, NULL, NULL);
	if (!reported || !dwfl_attach_state(dwfl, NULL, pid, &uw_thread_cb, c)) {
		dwfl_end(dwfl);
		return NULL;
	}
	return dwfl;
}

static void maps_free(struct uw_map *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(m[i].path);
		free(m[i].build_id);
	}
	free(m);
}

static int load_maps(sqlite3 *db, int64_t cap, struct uw_map **out, size_t *nout, char *err,
		     size_t errlen)
{
	sqlite3_stmt *s = NULL;
	struct uw_map *m = NULL;
	size_t n = 0, capm = 0;
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(db,
				"SELECT pid, time_ns, start, end, offset, path, build_id, elf_vaddr, "
				"event, build_id_kind FROM mapping WHERE cap = ?1 AND "
				"substr(perms, 3, 1) = 'x' ORDER BY pid, start, time_ns",
				-1, &s, NULL);
	if (rc != SQLITE_OK)
		return fail(db, err, errlen, "reading mappings");
	sqlite3_bind_int64(s, 1, cap);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct uw_map *e;
		const char *ev = (const char *)sqlite3_column_text(s, 8);
		const char *kind = (const char *)sqlite3_column_text(s, 9);

		if (array__grow((void **)&m, &capm, n, sizeof(*m))) {
			ret = -ENOMEM;
			goto cleanup;
		}
		e = &m[n++];
		memset(e, 0, sizeof(*e));
		e->pid = sqlite3_column_int(s, 0);
		e->time_ns = sqlite3_column_int64(s, 1);
		e->start = (uint64_t)sqlite3_column_int64(s, 2);
		e->end = (uint64_t)sqlite3_column_int64(s, 3);
		e->offset = (uint64_t)sqlite3_column_int64(s, 4);
		e->path = strdup(sqlite3_column_text(s, 5) ? (const char *)sqlite3_column_text(s, 5)
							   : "");
		e->build_id = sqlite3_column_text(s, 6) ?
				      strdup((const char *)sqlite3_column_text(s, 6)) : NULL;
		e->has_vaddr = sqlite3_column_type(s, 7) != SQLITE_NULL;
		e->vaddr = (uint64_t)sqlite3_column_int64(s, 7);
		e->gone = ev && !strcmp(ev, "gone");
		e->go = kind && !strcmp(kind, "go");
		if (!e->path || (sqlite3_column_text(s, 6) && !e->build_id)) {
			ret = -ENOMEM;
			goto cleanup;
		}
	}
	if (rc != SQLITE_DONE)
		ret = fail(db, err, errlen, "reading mappings");
cleanup:
	sqlite3_finalize(s);
	if (ret) {
		maps_free(m, n);
		return ret;
	}
	*out = m;
	*nout = n;
	return 0;
}

/* Store copy C's frames in stack STACK_ID and say how the walk ended. */
static int store(sqlite3 *db, sqlite3_stmt *up, sqlite3_stmt *mark, int64_t cap, int64_t sid,
		 const struct uw_copy *c, const char *end, char *err, size_t errlen)
{
	char *json = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&json, &len);
	int rc;

	if (!f)
		return -ENOMEM;
	fputc('[', f);
	for (size_t i = 0; i < c->n; i++)
		fprintf(f, "%s%" PRId64, i ? "," : "", (int64_t)c->pcs[i]);
	fputc(']', f);
	if (fclose(f))
		return -ENOMEM;
	sqlite3_bind_int(up, 1, (int)c->n);
	if (c->n)
		sqlite3_bind_text(up, 2, json, (int)len, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(up, 2);
	sqlite3_bind_int64(up, 3, cap);
	sqlite3_bind_int64(up, 4, sid);
	rc = sqlite3_step(up);
	sqlite3_reset(up);
	free(json);
	if (rc != SQLITE_DONE)
		return fail(db, err, errlen, "storing unwound frames");
	sqlite3_bind_int(mark, 1, (int)c->n);
	sqlite3_bind_text(mark, 2, end, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(mark, 3, cap);
	sqlite3_bind_int64(mark, 4, sid);
	rc = sqlite3_step(mark);
	sqlite3_reset(mark);
	if (rc != SQLITE_DONE)
		return fail(db, err, errlen, "storing unwound frames");
	return 0;
}

int unwind__copies(sqlite3 *db, int64_t cap, struct symbolizer *sz, uint64_t *done, char *err,
		   size_t errlen)
{
	sqlite3_stmt *q = NULL, *up = NULL, *mark = NULL;
	struct uw_map *maps = NULL;
	size_t nmaps = 0;
	struct uw_copy c, *cur = NULL;
	Dwfl *dwfl = NULL;
	int32_t dwfl_pid = -1;
	unsigned missing = 0;
	uint64_t count = 0;
	int rc, ret;

	if (done)
		*done = 0;
	if (!unwind__pending(db, cap))
		return 0;
	cur = calloc(1, sizeof(*cur));	/* what the Dwfl's callbacks read */
	if (!cur)
		return -ENOMEM;
	ret = load_maps(db, cap, &maps, &nmaps, err, errlen);
	if (ret) {
		free(cur);
		return ret;
	}
	rc = sqlite3_prepare_v2(db,
				"SELECT stack_id, pid, tid, time_ns, ip, sp, bp, stack FROM stack_copy "
				"WHERE cap = ?1 AND unwound IS NULL ORDER BY pid, time_ns, stack_id",
				-1, &q, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db,
					"UPDATE stack SET depth = ?1, ips = ?2 WHERE cap = ?3 AND "
					"stack_id = ?4 AND kernel = 0",
					-1, &up, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db,
					"UPDATE stack_copy SET unwound = ?1, unwind_end = ?2 WHERE "
					"cap = ?3 AND stack_id = ?4",
					-1, &mark, NULL);
	if (rc != SQLITE_OK) {
		ret = fail(db, err, errlen, "reading stack copies");
		goto cleanup;
	}
	sqlite3_bind_int64(q, 1, cap);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t sid = sqlite3_column_int64(q, 0);
		int32_t pid = sqlite3_column_int(q, 1);
		const char *end;
		char why[160];
		int r, e;

		memset(&c, 0, sizeof(c));
		c.tid = sqlite3_column_int(q, 2);
		c.ip = (uint64_t)sqlite3_column_int64(q, 4);
		c.sp = (uint64_t)sqlite3_column_int64(q, 5);
		c.bp = (uint64_t)sqlite3_column_int64(q, 6);
		c.stack = sqlite3_column_blob(q, 7);
		c.len = (size_t)sqlite3_column_bytes(q, 7);
		if (!c.tid)
			c.tid = pid ? pid : 1;
		if (pid != dwfl_pid) {	/* a Dwfl per process, from its first copy's time */
			dwfl_end(dwfl);
			missing = 0;
			dwfl = process_dwfl(maps, nmaps, pid, sqlite3_column_int64(q, 3), sz, cur,
					    &missing);
			dwfl_pid = pid;
		}
		if (!dwfl) {
			end = "no module of the process could be opened";
			ret = store(db, up, mark, cap, sid, &c, end, err, errlen);
			if (ret)
				goto cleanup;
			count++;
			continue;
		}
		*cur = c;	/* the Dwfl's callbacks read this copy */
		(void)dwfl_errno();	/* clears it */
		r = dwfl_getthread_frames(dwfl, c.tid, uw_frame, cur);
		c = *cur;
		e = dwfl_errno();
		if (c.n == UW_MAX_FRAMES) {
			end = "frame limit";
		} else if (c.zero_pc) {
			end = "a return address of 0 (a thread's first frame, or a word the "
			      "recorder zeroed)";
		} else if (r == 0 && !e && !cur->read_failed) {
			end = c.n && ra_undefined(dwfl, c.pcs[c.n - 1] - (c.n > 1)) ?
				      "outermost frame" :
				      "no caller from the CFI: a register it needs (rbp) is not "
				      "in the copy";
		} else if (cur->read_failed) {
			snprintf(why, sizeof(why), "end of the stack copy (%s)",
				 e ? dwfl_errmsg(e) : "a read beyond it");
			end = why;
		} else {
			snprintf(why, sizeof(why), "libdw: %s", dwfl_errmsg(e ? e : -1));
			end = why;
		}
		ret = store(db, up, mark, cap, sid, &c, end, err, errlen);
		if (ret)
			goto cleanup;
		count++;
	}
	if (rc != SQLITE_DONE)
		ret = fail(db, err, errlen, "reading stack copies");
cleanup:
	dwfl_end(dwfl);
	sqlite3_finalize(q);
	sqlite3_finalize(up);
	sqlite3_finalize(mark);
	maps_free(maps, nmaps);
	free(cur);
	if (done)
		*done = count;
	return ret;
}
