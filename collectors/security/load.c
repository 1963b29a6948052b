/* load.c — the security collector's loader (analyze/load.h): each SecExecMem becomes one
 * sec_exec_mem row, each SecPtrace one sec_ptrace row, each SecSetidExec one sec_setid_exec
 * row, each SecCapDenied one sec_cap_denied row per capability (schema.sql).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "analyze/load.h"
#include "collectors/security/security.pb-c.h"
#include "proto/capture.h"

enum { ST_MEM, ST_PTRACE, ST_SETID, ST_CAPS };

static const char mem_sql[] =
    "INSERT INTO sec_exec_mem (cap, time_ns, pid, tid, call, addr, len, prot, wx, flags, fd, "
    "ret, ok, vm_start, vm_end, backing, name_only, inode, stack_id, comm)";
static const char ptrace_sql[] =
    "INSERT INTO sec_ptrace (cap, time_ns, pid, tracer_pid, tracer_tid, tracer_comm, tracee, "
    "request, ret, by_target, stack_id)";
static const char setid_sql[] =
    "INSERT INTO sec_setid_exec (cap, time_ns, pid, tid, path, comm, uid, euid, gid, egid, "
    "cap_permitted, cap_effective, secureexec)";
static const char caps_sql[] =
    "INSERT INTO sec_cap_denied (cap, time_ns, interval_ns, pid, capability, name, failed)";

static int corrupt(struct load_ctx *l, const char *what)
{
	snprintf(l->run->err, l->run->errlen,
		 "loading %s: %s does not unpack: the capture is corrupt", l->run->path, what);
	return -EBADMSG;
}

static void bind_id(sqlite3_stmt *s, int i, uint64_t id)
{
	if (id)
		bind_u64(s, i, id);
	else
		sqlite3_bind_null(s, i);
}

static int load_mem(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_MEM];
	Ptop__V1__SecExecMem *m;
	bool mmap;
	int err;

	m = (Ptop__V1__SecExecMem *)capture_payload__unpack(ev, "security",
							    &ptop__v1__sec_exec_mem__descriptor);
	if (!m && errno == ENOENT)
		return 0;
	if (!m)
		return corrupt(l, "a SecExecMem");
	mmap = !strcmp(m->call, "mmap");
	bind_envelope(l, s, ev, false); /* :cap, :time_ns, :pid */
	sqlite3_bind_int64(s, 3, m->pid); /* the caller's (cgroup mode: the envelope has none) */
	bind_u64(s, 4, m->tid);
	bind_text(s, 5, m->call);
	bind_u64(s, 6, m->addr);
	bind_u64(s, 7, m->len);
	bind_u64(s, 8, m->prot);
	bind_i64(s, 9, (m->prot & 2) && (m->prot & 4));
	if (mmap)
		bind_u64(s, 10, m->flags);
	else
		sqlite3_bind_null(s, 10);
	if (mmap && m->fd >= 0)
		bind_i64(s, 11, m->fd);
	else
		sqlite3_bind_null(s, 11);
	bind_i64(s, 12, m->ret);
	bind_i64(s, 13, !(m->ret < 0 && m->ret >= -4095));
	if (m->has_vma) {
		bind_u64(s, 14, m->vm_start);
		bind_u64(s, 15, m->vm_end);
		bind_text(s, 16, m->backing);
	} else {
		sqlite3_bind_null(s, 14);
		sqlite3_bind_null(s, 15);
		sqlite3_bind_null(s, 16);
	}
	bind_i64(s, 17, m->name_only);
	bind_id(s, 18, m->inode);
	bind_id(s, 19, m->stack_id);
	bind_text(s, 20, m->comm);
	err = load__step(l, ST_MEM);
	protobuf_c_message_free_unpacked(&m->base, NULL);
	return err;
}

static int load_ptrace(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_PTRACE];
	Ptop__V1__SecPtrace *m;
	int err;

	m = (Ptop__V1__SecPtrace *)capture_payload__unpack(ev, "security",
							   &ptop__v1__sec_ptrace__descriptor);
	if (!m && errno == ENOENT)
		return 0;
	if (!m)
		return corrupt(l, "a SecPtrace");
	bind_envelope(l, s, ev, false);
	bind_u64(s, 4, m->tracer_pid);
	bind_u64(s, 5, m->tracer_tid);
	bind_text(s, 6, m->tracer_comm);
	bind_u64(s, 7, m->tracee);
	bind_text(s, 8, m->request);
	bind_i64(s, 9, m->ret);
	bind_i64(s, 10, m->by_target);
	bind_id(s, 11, m->stack_id);
	err = load__step(l, ST_PTRACE);
	protobuf_c_message_free_unpacked(&m->base, NULL);
	return err;
}

static int load_setid(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_SETID];
	Ptop__V1__SecSetidExec *m;
	int err;

	m = (Ptop__V1__SecSetidExec *)capture_payload__unpack(
	    ev, "security", &ptop__v1__sec_setid_exec__descriptor);
	if (!m && errno == ENOENT)
		return 0;
	if (!m)
		return corrupt(l, "a SecSetidExec");
	bind_envelope(l, s, ev, false);
	sqlite3_bind_int64(s, 3, m->pid);
	bind_u64(s, 4, m->tid);
	bind_text(s, 5, m->path);
	bind_text(s, 6, m->comm);
	bind_u64(s, 7, m->uid);
	bind_u64(s, 8, m->euid);
	bind_u64(s, 9, m->gid);
	bind_u64(s, 10, m->egid);
	bind_i64(s, 11, (int64_t)m->cap_permitted);
	bind_i64(s, 12, (int64_t)m->cap_effective);
	bind_i64(s, 13, m->secureexec);
	err = load__step(l, ST_SETID);
	protobuf_c_message_free_unpacked(&m->base, NULL);
	return err;
}

static int load_caps(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	sqlite3_stmt *s = l->st[ST_CAPS];
	Ptop__V1__SecCapDenied *m;
	int err = 0;

	m = (Ptop__V1__SecCapDenied *)capture_payload__unpack(
	    ev, "security", &ptop__v1__sec_cap_denied__descriptor);
	if (!m && errno == ENOENT)
		return 0;
	if (!m)
		return corrupt(l, "a SecCapDenied");
	for (size_t i = 0; !err && i < m->n_caps; i++) {
		bind_envelope(l, s, ev, true); /* :cap, :time_ns, :interval_ns, :pid */
		bind_u64(s, 5, m->caps[i]->cap);
		bind_text(s, 6, m->caps[i]->name);
		bind_u64(s, 7, m->caps[i]->failed);
		err = load__step(l, ST_CAPS);
	}
	protobuf_c_message_free_unpacked(&m->base, NULL);
	return err;
}

const struct an_load security_load = {
    AN_LOAD_PAYLOADS(
	{
	    .payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
	    .kind = "event:sec_exec_mem",
	    .load = load_mem,
	    .type = "ptop.v1.SecExecMem",
	    .desc = &ptop__v1__sec_exec_mem__descriptor,
	},
	{
	    .payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
	    .kind = "event:sec_ptrace",
	    .load = load_ptrace,
	    .type = "ptop.v1.SecPtrace",
	    .desc = &ptop__v1__sec_ptrace__descriptor,
	},
	{
	    .payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
	    .kind = "event:sec_setid_exec",
	    .load = load_setid,
	    .type = "ptop.v1.SecSetidExec",
	    .desc = &ptop__v1__sec_setid_exec__descriptor,
	},
	{
	    .payload = PTOP__V1__EVENT__PAYLOAD_COLLECTOR_PAYLOAD,
	    .kind = "event:sec_cap_denied",
	    .load = load_caps,
	    .type = "ptop.v1.SecCapDenied",
	    .desc = &ptop__v1__sec_cap_denied__descriptor,
	}),
    AN_LOAD_STMTS([ST_MEM] = mem_sql, [ST_PTRACE] = ptrace_sql, [ST_SETID] = setid_sql,
		  [ST_CAPS] = caps_sql),
    AN_LOAD_CHECKS({"sec_exec_mem", false, false, "rowid", "pid", "len"},
		   {"sec_cap_denied", true, true, "rowid", "pid,capability", "failed"}),
};
