/* load.c — the proccontext collector's loader (analyze/load.h): each ProcContext is
 * a proc_context row (ids, cgroup, container, pid in each namespace) and a namespace
 * row per namespace it names.
 */
#include <stddef.h>

#include "analyze/load.h"

enum { ST_CONTEXT, ST_NAMESPACE, ST_N };

static const char context_sql[] =
	"INSERT INTO proc_context (cap, time_ns, pid, ppid, comm, uid, euid, gid, egid, "
	"cgroup_path, cgroup_id, container_id, nspid)";

static const char namespace_sql[] =
	"INSERT INTO namespace (cap, time_ns, pid, type, inode)";

static int load_context(struct load_ctx *l, const Ptop__V1__Event *ev)
{
	const Ptop__V1__ProcContext *c = ev->context;
	sqlite3_stmt *s = l->st[ST_CONTEXT];
	int err;

	if (!c)
		return 0;
	bind_envelope(l, s, ev, false);
	bind_pid(s, 4, c->ppid);
	bind_opt_text(s, 5, c->comm);
	bind_u64(s, 6, c->uid);
	bind_u64(s, 7, c->euid);
	bind_u64(s, 8, c->gid);
	bind_u64(s, 9, c->egid);
	bind_opt_text(s, 10, c->cgroup_path);
	bind_nz(s, 11, c->cgroup_id);
	bind_opt_text(s, 12, c->container_id);
	err = load__bind_json_ints(s, 13, c->nspid, c->n_nspid);
	if (err)
		return err;
	err = load__step(l, ST_CONTEXT);
	if (err)
		return err;

	s = l->st[ST_NAMESPACE];
	for (size_t k = 0; k < c->n_namespaces; k++) {
		const Ptop__V1__Namespace *ns = c->namespaces[k];

		if (!ns)
			continue;
		bind_envelope(l, s, ev, false);
		bind_text(s, 4, ns->type);
		bind_u64(s, 5, ns->inode);
		err = load__step(l, ST_NAMESPACE);
		if (err)
			return err;
	}
	return 0;
}

const struct an_load proccontext_load = {
	AN_LOAD_PAYLOADS({ PTOP__V1__EVENT__PAYLOAD_CONTEXT, "event:context", load_context }),
	AN_LOAD_STMTS([ST_CONTEXT] = context_sql, [ST_NAMESPACE] = namespace_sql),
};
