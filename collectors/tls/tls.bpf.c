// SPDX-License-Identifier: GPL-2.0
/* tls.bpf.c — the tls collector's kernel side: one uprobe program (tls_enter) at the entry
 * of libssl's SSL_write, SSL_read, SSL_write_ex, SSL_read_ex and SSL_set_fd, and one
 * uretprobe program (tls_exit) at the return of the first four; each attach point's cookie
 * says which function it is (enum tls_fn). record.c attaches them to the target process only.
 *
 * Per SSL object (the SSL * pointer, the first argument), per direction: calls, calls that
 * moved bytes, bytes (the return value of SSL_write/SSL_read; *written, *readbytes of the
 * _ex forms when they return 1), and the time from entry to return, in tls_conns, which
 * the recorder reads each poll. SSL_set_fd(ssl, fd) gives the connection's fd.
 *
 * Plaintext: only when the recorder set tls_bytes (--tls-bytes N) before the load. With
 * tls_bytes 0 the branch that reads the caller's buffer is dead code the verifier removes:
 * not one payload byte is read. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "collectors/tls/tls.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 tls_bytes = 0; /* --tls-bytes N, at most TLS_BYTES_MAX */

__u64 tls_conn_full;  /* calls not counted: tls_conns was full */
__u64 tls_data_lost;  /* plaintext records the ring buffer had no room for */
__u64 tls_unmatched;  /* returns without their entry (attached mid-call) */

struct tls_call {
	__u64 ssl;
	__u64 buf;          /* the caller's buffer */
	__u64 out;          /* the _ex forms' size_t *written, *readbytes */
	__u64 start_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TLS_CONN_MAX);
	__type(key, __u64);
	__type(value, struct tls_conn);
} tls_conns SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);  /* pid_tgid: the thread in the call */
	__type(value, struct tls_call);
} tls_calls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} tls_data_rb SEC(".maps");

static struct tls_conn *conn_of(__u64 ssl)
{
	struct tls_conn *c = bpf_map_lookup_elem(&tls_conns, &ssl);
	struct tls_conn z = { .fd = -1 };

	if (c)
		return c;
	bpf_map_update_elem(&tls_conns, &ssl, &z, BPF_NOEXIST); /* a racing insert wins */
	c = bpf_map_lookup_elem(&tls_conns, &ssl);
	if (!c)
		__sync_fetch_and_add(&tls_conn_full, 1);
	return c;
}

SEC("uprobe")
int tls_enter(struct pt_regs *ctx)
{
	__u64 fn = bpf_get_attach_cookie(ctx);
	__u64 id = bpf_get_current_pid_tgid();
	struct tls_call call = {};

	call.ssl = PT_REGS_PARM1(ctx);
	if (fn == TLS_FN_SET_FD) {
		struct tls_conn *c = conn_of(call.ssl);

		if (c)
			c->fd = (__s32)PT_REGS_PARM2(ctx);
		return 0;
	}
	call.buf = PT_REGS_PARM2(ctx);
	if (fn == TLS_FN_WRITE_EX || fn == TLS_FN_READ_EX)
		call.out = PT_REGS_PARM4(ctx);
	call.start_ns = bpf_ktime_get_ns();
	bpf_map_update_elem(&tls_calls, &id, &call, BPF_ANY);
	return 0;
}

SEC("uretprobe")
int tls_exit(struct pt_regs *ctx)
{
	__u64 fn = bpf_get_attach_cookie(ctx);
	__u64 id = bpf_get_current_pid_tgid();
	__u64 now = bpf_ktime_get_ns(), lat, moved = 0;
	struct tls_call *call = bpf_map_lookup_elem(&tls_calls, &id);
	struct tls_conn *c;
	__u32 dir = (fn == TLS_FN_READ || fn == TLS_FN_READ_EX) ? 1 : 0;
	long ret = (long)PT_REGS_RC(ctx);

	if (!call) {
		__sync_fetch_and_add(&tls_unmatched, 1);
		return 0;
	}
	if (fn == TLS_FN_WRITE || fn == TLS_FN_READ) {
		if ((int)ret > 0)
			moved = (__u64)(int)ret;
	} else if ((int)ret == 1 && call->out) {
		__u64 v = 0;

		if (!bpf_probe_read_user(&v, sizeof(v), (void *)call->out))
			moved = v;
	}
	lat = now > call->start_ns ? now - call->start_ns : 0;
	c = conn_of(call->ssl);
	if (c) {
		__sync_fetch_and_add(&c->calls[dir], 1);
		if (moved) {
			__sync_fetch_and_add(&c->ok[dir], 1);
			__sync_fetch_and_add(&c->bytes[dir], moved);
		}
		__sync_fetch_and_add(&c->lat_ns[dir], lat);
		if (lat > c->lat_max_ns[dir])
			c->lat_max_ns[dir] = lat;
	}
	if (tls_bytes && moved) { /* dead code without --tls-bytes: no buffer is read */
		struct tls_data *d = bpf_ringbuf_reserve(&tls_data_rb, sizeof(*d), 0);
		__u32 n = tls_bytes;

		if (!d) {
			__sync_fetch_and_add(&tls_data_lost, 1);
		} else {
			if (n > moved)
				n = (__u32)moved;
			if (n > TLS_BYTES_MAX)
				n = TLS_BYTES_MAX;
			d->ssl = call->ssl;
			d->time_ns = now;
			d->dir = dir;
			d->len = moved > 0xffffffffull ? 0xffffffffu : (__u32)moved;
			d->n = n;
			d->fd = c ? c->fd : -1;
			if (bpf_probe_read_user(d->data, n, (void *)call->buf))
				d->n = 0;
			bpf_ringbuf_submit(d, 0);
		}
	}
	bpf_map_delete_elem(&tls_calls, &id);
	return 0;
}
