/* tls.h — what the tls collector's kernel side (tls.bpf.c) and recorder (record.c) share. */
#ifndef PTOP_TLS_H
#define PTOP_TLS_H

#define TLS_BYTES_MAX 4096  /* --tls-bytes N: at most this many plaintext bytes per call */
#define TLS_CONN_MAX 4096   /* SSL objects followed at once */

/* the functions probed, as each probe's cookie */
enum tls_fn { TLS_FN_WRITE, TLS_FN_READ, TLS_FN_WRITE_EX, TLS_FN_READ_EX, TLS_FN_SET_FD, TLS_FN_N };

/* One SSL object's cumulative figures, [0] written (SSL_write*), [1] read (SSL_read*). */
struct tls_conn {
	__u64 calls[2];     /* calls returned */
	__u64 ok[2];        /* of them, that moved bytes */
	__u64 bytes[2];     /* plaintext bytes moved (the return value, *written, *readbytes) */
	__u64 lat_ns[2];    /* entry to return, summed */
	__u64 lat_max_ns[2];
	__s32 fd;           /* from SSL_set_fd; -1: not seen */
	__u32 pad;
};

/* One call's first plaintext bytes (only with --tls-bytes N > 0). */
struct tls_data {
	__u64 ssl;
	__u64 time_ns;      /* the return, CLOCK_MONOTONIC */
	__u32 dir;          /* 0 written, 1 read */
	__u32 len;          /* the bytes the call moved */
	__u32 n;            /* of them, here in data */
	__s32 fd;
	__u8 data[TLS_BYTES_MAX];
};

#endif
