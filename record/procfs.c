/* procfs.c — parsers and readers for the /proc files ptop-record reads
 * (stat, status, statm, smaps, smaps_rollup, cgroup, mountinfo), and the
 * container id and cgroup id derived from a cgroup path. See procfs.h.
 */
#include "record/procfs.h"
#include "record/cgroupfs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- reading */

int procfs_check_open(pid_t pid, const char *name, char *reason, size_t len)
{
	char path[64];
	int fd, e;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	e = errno;
	snprintf(reason, len, "cannot read %s: %s%s", path, strerror(e),
		 e == EACCES || e == EPERM
			 ? " (needs PTRACE_MODE_READ: run as root or as the target's uid)"
			 : "");
	return -e;
}

int procfs_read_file(pid_t pid, const char *name, char **buf, size_t *cap, size_t *len)
{
	char path[64 + PATH_MAX];
	size_t n = 0;
	int fd = -1, err = 0;

	if (!name || !buf || !cap || !len)
		return -EINVAL;
	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	else
		snprintf(path, sizeof(path), "/proc/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r;

		if (!*buf || *cap - n < 2) {
			size_t ncap = *cap ? *cap * 2 : 4096;
			char *nb;

			if (ncap < *cap) {
				err = -EOVERFLOW;
				goto cleanup;
			}
			nb = realloc(*buf, ncap);
			if (!nb) {
				err = -ENOMEM;
				goto cleanup;
			}
			*buf = nb;
			*cap = ncap;
		}
		r = read(fd, *buf + n, *cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto cleanup;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	(*buf)[n] = '\0';
	*len = n;
cleanup:
	close(fd);
	return err;
}

/* Read a small /proc file into a stack buffer. -EFBIG when it did not fit. */
static int read_small(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[64];
	size_t n = 0;
	int fd, err = 0;

	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	else
		snprintf(path, sizeof(path), "/proc/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (n < size - 1) {
		ssize_t r = read(fd, buf + n, size - 1 - n);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto cleanup;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n == size - 1) {
		char c;

		if (read(fd, &c, 1) > 0)
			err = -EFBIG;
	}
	buf[n] = '\0';
cleanup:
	close(fd);
	return err;
}

/* ---------------------------------------------------------------- numbers */

/* Skip blanks (spaces and tabs, not newlines). */
static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Parse an unsigned decimal at *P (after blanks); advance *P. -EINVAL if no
 * digit, -ERANGE on overflow. */
static int parse_u64(const char **pp, uint64_t *v)
{
	const char *p = skip_blanks(*pp);
	uint64_t x = 0;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -ERANGE;
		x = x * 10 + d;
	}
	*pp = p;
	*v = x;
	return 0;
}

/* Signed decimal, same rules. */
static int parse_i64(const char **pp, int64_t *v)
{
	const char *p = skip_blanks(*pp);
	bool neg = false;
	uint64_t x;
	int err;

	if (*p == '-') {
		neg = true;
		p++;
	}
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	err = parse_u64(&p, &x);
	if (err)
		return err;
	if (neg ? x > (uint64_t)INT64_MAX + 1 : x > (uint64_t)INT64_MAX)
		return -ERANGE;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	*pp = p;
	return 0;
}

/* Hexadecimal (no 0x), advance *P. */
static int parse_hex(const char **pp, uint64_t *v)
{
	const char *p = *pp;
	uint64_t x = 0;
	int n = 0;

	for (; isxdigit((unsigned char)*p); p++, n++) {
		unsigned d = isdigit((unsigned char)*p) ? (unsigned)(*p - '0')
							: (unsigned)(tolower((unsigned char)*p) - 'a' + 10);

		if (x >> 60)
			return -ERANGE;
		x = (x << 4) | d;
	}
	if (!n)
		return -EINVAL;
	*pp = p;
	*v = x;
	return 0;
}

/* ---------------------------------------------------------------- stat */

int procfs_parse_stat(const char *text, struct proc_stat *st)
{
	const char *open, *close, *p;
	int64_t ppid, threads, rss;
	uint64_t skip;
	size_t n;
	int field, err;

	if (!text || !st)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	/* "PID (COMM) S ...": COMM may hold anything, ')' included; the last
	 * ')' of the text ends it (the fields after it are all numbers). */
	open = strchr(text, '(');
	close = strrchr(text, ')');
	if (!open || !close || close < open)
		return -EINVAL;
	for (p = text; p < open; p++)
		if (!isdigit((unsigned char)*p) && *p != ' ')
			return -EINVAL;
	n = (size_t)(close - open - 1);
	if (n >= sizeof(st->comm))
		n = sizeof(st->comm) - 1;
	memcpy(st->comm, open + 1, n);
	st->comm[n] = '\0';

	p = skip_blanks(close + 1);
	if (!*p || *p == '\n' || !isalpha((unsigned char)*p))
		return -EINVAL;
	st->state = *p++;
	if (*p != ' ')
		return -EINVAL;
	/* Fields are numbered as in proc(5): state is 3. */
	for (field = 4; field <= 24; field++) {
		switch (field) {
		case 4:
			err = parse_i64(&p, &ppid);
			st->ppid = (pid_t)ppid;
			break;
		case 10:
			err = parse_u64(&p, &st->minflt);
			break;
		case 12:
			err = parse_u64(&p, &st->majflt);
			break;
		case 14:
			err = parse_u64(&p, &st->utime);
			break;
		case 15:
			err = parse_u64(&p, &st->stime);
			break;
		case 20:
			err = parse_i64(&p, &threads);
			st->num_threads = threads;
			break;
		case 22:
			err = parse_u64(&p, &st->starttime);
			break;
		case 23:
			err = parse_u64(&p, &st->vsize);
			break;
		case 24:
			err = parse_i64(&p, &rss);
			st->rss_pages = rss;
			break;
		default:
			err = parse_u64(&p, &skip);
			if (err == -EINVAL) { /* signed fields: tty, tpgid, prio, nice */
				int64_t s;

				err = parse_i64(&p, &s);
			}
			break;
		}
		if (err)
			return -EINVAL;
		if (*p != ' ' && *p != '\n' && *p != '\0')
			return -EINVAL;
	}
	return 0;
}

bool procfs_is_gone(pid_t pid, int err)
{
	struct proc_stat st;
	int rc;

	if (err != -ENOENT && err != -ESRCH)
		return false;
	rc = procfs_read_stat(pid, &st);
	if (rc == -ENOENT || rc == -ESRCH)
		return true;
	return rc == 0 && (st.state == 'Z' || st.state == 'X');
}

int procfs_read_stat(pid_t pid, struct proc_stat *st)
{
	char buf[4096];
	int err = read_small(pid, "stat", buf, sizeof(buf));

	if (err)
		return err == -EFBIG ? -EINVAL : err;
	if (!buf[0])
		return -ESRCH;
	return procfs_parse_stat(buf, st);
}

/* ---------------------------------------------------------------- status */

/* If LINE starts with KEY ("Uid:"), return the text after it, else NULL. */
static const char *after_key(const char *line, const char *key)
{
	size_t n = strlen(key);

	return strncmp(line, key, n) == 0 ? line + n : NULL;
}

static int parse_id4(const char *p, uint32_t out[4])
{
	for (int i = 0; i < 4; i++) {
		uint64_t v;

		if (parse_u64(&p, &v) || v > UINT32_MAX)
			return -EINVAL;
		out[i] = (uint32_t)v;
	}
	p = skip_blanks(p);
	return *p == '\n' || *p == '\0' ? 0 : -EINVAL;
}

int procfs_parse_status(const char *text, struct proc_status *st)
{
	bool have_uid = false, have_gid = false, have_vol = false, have_nvol = false;
	const char *line, *v;

	if (!text || !st)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->threads = -1;
	for (line = text; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
		if ((v = after_key(line, "Uid:"))) {
			if (parse_id4(v, st->uid))
				return -EINVAL;
			have_uid = true;
		} else if ((v = after_key(line, "Gid:"))) {
			if (parse_id4(v, st->gid))
				return -EINVAL;
			have_gid = true;
		} else if ((v = after_key(line, "Threads:"))) {
			if (parse_i64(&v, &st->threads))
				return -EINVAL;
			st->has_threads = true;
		} else if ((v = after_key(line, "voluntary_ctxt_switches:"))) {
			if (parse_u64(&v, &st->voluntary_ctxt_switches))
				return -EINVAL;
			have_vol = true;
		} else if ((v = after_key(line, "nonvoluntary_ctxt_switches:"))) {
			if (parse_u64(&v, &st->nonvoluntary_ctxt_switches))
				return -EINVAL;
			have_nvol = true;
		} else if ((v = after_key(line, "NSpid:"))) {
			st->n_nspid = 0;
			for (;;) {
				int64_t x;

				v = skip_blanks(v);
				if (*v == '\n' || *v == '\0')
					break;
				if (st->n_nspid == PROCFS_MAX_NSPID || parse_i64(&v, &x) ||
				    x < 0 || x > INT_MAX)
					return -EINVAL;
				st->nspid[st->n_nspid++] = (pid_t)x;
			}
		}
	}
	if (!have_uid || !have_gid)
		return -EINVAL;
	st->has_ctxt_switches = have_vol && have_nvol;
	if (!st->has_ctxt_switches)
		st->voluntary_ctxt_switches = st->nonvoluntary_ctxt_switches = 0;
	if (!st->has_threads)
		st->threads = -1;
	return 0;
}

int procfs_read_status(pid_t pid, struct proc_status *st)
{
	char *buf = NULL;
	size_t cap = 0, len = 0;
	int err;

	err = procfs_read_file(pid, "status", &buf, &cap, &len);
	if (err)
		goto cleanup;
	err = len ? procfs_parse_status(buf, st) : -ESRCH;
cleanup:
	free(buf);
	return err;
}

/* ---------------------------------------------------------------- statm */

int procfs_parse_statm(const char *text, struct proc_statm *st)
{
	uint64_t *f[7];
	const char *p = text;

	if (!text || !st)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	f[0] = &st->size;
	f[1] = &st->resident;
	f[2] = &st->shared;
	f[3] = &st->text;
	f[4] = &st->lib;
	f[5] = &st->data;
	f[6] = &st->dt;
	for (int i = 0; i < 7; i++) {
		if (parse_u64(&p, f[i]))
			goto bad;
		if (*p != ' ' && *p != '\n' && *p != '\0')
			goto bad;
	}
	p = skip_blanks(p);
	if (*p != '\n' && *p != '\0')
		goto bad;
	return 0;
bad:
	memset(st, 0, sizeof(*st));
	return -EINVAL;
}

int procfs_read_statm(pid_t pid, struct proc_statm *st)
{
	char buf[256];
	int err = read_small(pid, "statm", buf, sizeof(buf));

	if (err)
		return err == -EFBIG ? -EINVAL : err;
	if (!buf[0])
		return -ESRCH;
	return procfs_parse_statm(buf, st);
}

/* ---------------------------------------------------------------- smaps */

struct counter_key {
	const char *name;
	size_t len;
	size_t off;
	uint32_t bit;
};

#define CK(n, f, b) { n, sizeof(n) - 1, offsetof(struct proc_smaps_counters, f), b }
static const struct counter_key counter_keys[] = {
	CK("Size", size, PROCFS_SC_SIZE),
	CK("Rss", rss, PROCFS_SC_RSS),
	CK("Pss", pss, PROCFS_SC_PSS),
	CK("Pss_Anon", pss_anon, PROCFS_SC_PSS_ANON),
	CK("Pss_File", pss_file, PROCFS_SC_PSS_FILE),
	CK("Pss_Shmem", pss_shmem, PROCFS_SC_PSS_SHMEM),
	CK("Shared_Clean", shared_clean, PROCFS_SC_SHARED_CLEAN),
	CK("Shared_Dirty", shared_dirty, PROCFS_SC_SHARED_DIRTY),
	CK("Private_Clean", private_clean, PROCFS_SC_PRIVATE_CLEAN),
	CK("Private_Dirty", private_dirty, PROCFS_SC_PRIVATE_DIRTY),
	CK("Referenced", referenced, PROCFS_SC_REFERENCED),
	CK("Anonymous", anonymous, PROCFS_SC_ANONYMOUS),
	CK("LazyFree", lazyfree, PROCFS_SC_LAZYFREE),
	CK("AnonHugePages", anon_huge, PROCFS_SC_ANON_HUGE),
	CK("Swap", swap, PROCFS_SC_SWAP),
	CK("SwapPss", swap_pss, PROCFS_SC_SWAP_PSS),
	CK("Locked", locked, PROCFS_SC_LOCKED),
};
#undef CK

/* One "Key:   123 kB" line at LINE (ending at '\n' or NUL) into C. Keys ptop
 * does not use (KernelPageSize, THPeligible, VmFlags, ...) are skipped.
 * 0, or -EINVAL when a used key's value does not parse. */
static int parse_counter_line(const char *line, struct proc_smaps_counters *c)
{
	const char *colon = line, *p;
	size_t klen;
	uint64_t v;

	while (*colon && *colon != ':' && *colon != '\n' && *colon != ' ')
		colon++;
	if (*colon != ':')
		return -EINVAL;
	klen = (size_t)(colon - line);
	for (size_t i = 0; i < sizeof(counter_keys) / sizeof(counter_keys[0]); i++) {
		const struct counter_key *k = &counter_keys[i];

		if (k->len != klen || memcmp(k->name, line, klen) != 0)
			continue;
		p = colon + 1;
		if (parse_u64(&p, &v))
			return -EINVAL;
		p = skip_blanks(p);
		if (p[0] != 'k' || p[1] != 'B')
			return -EINVAL;
		p = skip_blanks(p + 2);
		if (*p != '\n' && *p != '\0')
			return -EINVAL;
		if (v > UINT64_MAX / 1024)
			return -EINVAL;
		*(uint64_t *)((char *)c + k->off) = v * 1024;
		c->present |= k->bit;
		return 0;
	}
	return 0;
}

int procfs_parse_smaps_rollup(const char *text, struct proc_smaps_counters *c)
{
	const char *line;

	if (!text || !c)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	for (line = text; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
		if (*line == '\n')
			continue;
		if (line == text && isxdigit((unsigned char)*line) && !isupper((unsigned char)*line))
			continue; /* "5647f1539000-7ffeeec2e000 ---p ... [rollup]" */
		if (parse_counter_line(line, c))
			goto bad;
	}
	if (!(c->present & PROCFS_SC_RSS) || !(c->present & PROCFS_SC_PSS))
		goto bad;
	return 0;
bad:
	memset(c, 0, sizeof(*c));
	return -EINVAL;
}

/* A VMA header line: "START-END PERMS OFFSET MAJ:MIN INODE [PATH]". Header
 * lines begin with a lowercase hex digit; counter lines with an uppercase key. */
static bool is_header(const char *line)
{
	return isdigit((unsigned char)*line) || (*line >= 'a' && *line <= 'f');
}

/* Parse the header LINE (NUL-terminated by the caller) into V. */
static int parse_vma_header(char *line, struct proc_vma *v)
{
	const char *p = line;
	char *path;
	size_t n;

	memset(v, 0, sizeof(*v));
	if (parse_hex(&p, &v->start) || *p++ != '-' || parse_hex(&p, &v->end) || *p != ' ')
		return -EINVAL;
	if (v->end < v->start)
		return -EINVAL;
	p = skip_blanks(p);
	for (n = 0; *p && *p != ' '; p++, n++) {
		if (n >= sizeof(v->perms) - 1)
			return -EINVAL;
		v->perms[n] = *p;
	}
	if (n != 4)
		return -EINVAL;
	p = skip_blanks(p);
	if (parse_hex(&p, &v->offset) || *p != ' ')
		return -EINVAL;
	p = skip_blanks(p);
	for (n = 0; *p && *p != ' '; p++, n++) {
		if (n >= sizeof(v->dev) - 1)
			return -EINVAL;
		v->dev[n] = *p;
	}
	if (!n || !strchr(v->dev, ':'))
		return -EINVAL;
	if (parse_u64(&p, &v->inode))
		return -EINVAL;
	if (*p != ' ' && *p != '\0')
		return -EINVAL;
	/* The kernel pads to a column before the path; the path is the rest
	 * of the line (it may hold spaces, and ends in " (deleted)" when the
	 * file was removed). */
	path = (char *)skip_blanks(p);
	v->path = path;
	v->path_len = strlen(path);
	return 0;
}

int procfs_parse_smaps(char *text, int (*fn)(const struct proc_vma *vma, void *arg), void *arg)
{
	struct proc_vma vma;
	bool have = false;
	char *line, *next;
	int count = 0, err;

	if (!text || !fn)
		return -EINVAL;
	for (line = text; *line; line = next) {
		char *nl = strchr(line, '\n');

		if (nl) {
			*nl = '\0';
			next = nl + 1;
		} else {
			next = line + strlen(line);
		}
		if (!*line)
			continue;
		if (is_header(line)) {
			if (have) {
				err = fn(&vma, arg);
				if (err)
					return err;
				if (count == INT_MAX)
					return -EOVERFLOW;
				count++;
			}
			if (parse_vma_header(line, &vma))
				return -EINVAL;
			have = true;
		} else {
			if (!have)
				return -EINVAL;
			if (parse_counter_line(line, &vma.c))
				return -EINVAL;
		}
	}
	if (have) {
		err = fn(&vma, arg);
		if (err)
			return err;
		if (count == INT_MAX)
			return -EOVERFLOW;
		count++;
	}
	return count;
}

/* ---------------------------------------------------------------- cgroup */

/* Copy N bytes of SRC into DST (size LEN), NUL-terminated. -ENAMETOOLONG
 * when it was cut. */
static int copy_str(char *dst, size_t len, const char *src, size_t n)
{
	int err = 0;

	if (!len)
		return -ENAMETOOLONG;
	if (n >= len) {
		n = len - 1;
		err = -ENAMETOOLONG;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
	return err;
}

/* One line of /proc/PID/cgroup: "ID:CONTROLLERS:PATH". */
struct cg_line {
	const char *ctrl, *path;
	size_t ctrl_len, path_len;
	bool v2;
};

static int parse_cg_line(const char *line, const char *end, struct cg_line *l)
{
	const char *p = line, *c1, *c2;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	while (p < end && isdigit((unsigned char)*p))
		p++;
	if (p >= end || *p != ':')
		return -EINVAL;
	c1 = p;
	c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1));
	if (!c2)
		return -EINVAL;
	l->ctrl = c1 + 1;
	l->ctrl_len = (size_t)(c2 - c1 - 1);
	l->path = c2 + 1;
	l->path_len = (size_t)(end - c2 - 1);
	if (!l->path_len || l->path[0] != '/')
		return -EINVAL;
	l->v2 = l->ctrl_len == 0 && c1 - line == 1 && line[0] == '0';
	return 0;
}

/* Call FN on each line of a /proc/PID/cgroup text; stop at a non-zero return.
 * -EINVAL if a line does not parse. */
static int each_cg_line(const char *text, int (*fn)(const struct cg_line *l, void *arg), void *arg)
{
	const char *line = text;
	int n = 0, err;

	while (*line) {
		const char *end = strchr(line, '\n');
		struct cg_line l;

		if (!end)
			end = line + strlen(line);
		if (end > line) {
			if (parse_cg_line(line, end, &l))
				return -EINVAL;
			n++;
			err = fn(&l, arg);
			if (err)
				return err;
		}
		line = *end ? end + 1 : end;
	}
	return n ? 0 : -EINVAL;
}

struct cg_pick {
	struct cg_line v2, first, systemd;
	bool have_v2, have_first, have_systemd;
};

static int pick_line(const struct cg_line *l, void *arg)
{
	struct cg_pick *pk = arg;

	if (l->v2 && !pk->have_v2) {
		pk->v2 = *l;
		pk->have_v2 = true;
	} else if (!l->v2) {
		if (!pk->have_first) {
			pk->first = *l;
			pk->have_first = true;
		}
		if (!pk->have_systemd && l->ctrl_len == 12 && !memcmp(l->ctrl, "name=systemd", 12)) {
			pk->systemd = *l;
			pk->have_systemd = true;
		}
	}
	return 0;
}

int procfs_parse_cgroup(const char *text, char *path, size_t len)
{
	struct cg_pick pk = { 0 };
	const struct cg_line *l;
	int err;

	if (!text || !path || !len)
		return -EINVAL;
	path[0] = '\0';
	err = each_cg_line(text, pick_line, &pk);
	if (err)
		return err;
	l = pk.have_v2 ? &pk.v2 : pk.have_systemd ? &pk.systemd : &pk.first;
	return copy_str(path, len, l->path, l->path_len);
}

static bool is_lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Is there a 64-hex id at S (component bytes up to END) that fills the rest
 * of the component, or is followed only by ".scope"? */
static bool id_at(const char *s, const char *end)
{
	size_t rest = (size_t)(end - s);

	if (rest < 64)
		return false;
	for (int i = 0; i < 64; i++)
		if (!is_lower_hex(s[i]))
			return false;
	return rest == 64 || (rest == 70 && !memcmp(s + 64, ".scope", 6));
}

/* The container id inside one path component [C, END), or NULL. */
static const char *component_id(const char *c, const char *end)
{
	static const char *const prefixes[] = {
		"docker-", "cri-containerd-", "crio-", "libpod-", "containerd-",
	};
	const char *colon;

	if (id_at(c, end) && (size_t)(end - c) == 64)
		return c; /* /docker/<id>, /kubepods/.../<id>, /default/<id> */
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);

		if ((size_t)(end - c) > n && !memcmp(c, prefixes[i], n) && id_at(c + n, end))
			return c + n;
	}
	/* systemd cgroup driver under containerd/docker as a service:
	 * "kubepods-...-pod<uid>.slice:cri-containerd:<id>" */
	colon = NULL;
	for (const char *p = c; p < end; p++)
		if (*p == ':')
			colon = p;
	if (colon && colon + 1 < end && id_at(colon + 1, end) && (size_t)(end - colon - 1) == 64)
		return colon + 1;
	return NULL;
}

static bool container_id_n(const char *path, size_t plen, char *id, size_t len)
{
	const char *end = path + plen;

	/* The innermost match wins (docker-in-docker nests them); a
	 * component after it ("/container" under podman) is allowed. */
	while (end > path) {
		const char *c = end;
		const char *found;

		while (c > path && c[-1] != '/')
			c--;
		found = component_id(c, end);
		if (found) {
			if (!id || len < 65)
				return false;
			memcpy(id, found, 64);
			id[64] = '\0';
			return true;
		}
		end = c > path ? c - 1 : path;
	}
	return false;
}

bool procfs_container_id(const char *cgroup_path, char *id, size_t len)
{
	if (!cgroup_path)
		return false;
	return container_id_n(cgroup_path, strlen(cgroup_path), id, len);
}

struct cg_id_find {
	char *id;
	size_t len;
	bool found;
	bool v2_pass;
};

static int find_id_line(const struct cg_line *l, void *arg)
{
	struct cg_id_find *f = arg;

	if (l->v2 != f->v2_pass)
		return 0;
	if (container_id_n(l->path, l->path_len, f->id, f->len)) {
		f->found = true;
		return 1;
	}
	return 0;
}

bool procfs_cgroup_text_container_id(const char *text, char *id, size_t len)
{
	struct cg_id_find f = { .id = id, .len = len };

	if (!text || !id || len < 65)
		return false;
	f.v2_pass = true;
	if (each_cg_line(text, find_id_line, &f) < 0)
		return false;
	if (f.found)
		return true;
	f.v2_pass = false;
	each_cg_line(text, find_id_line, &f);
	return f.found;
}

/* The cgroup2 mount of cgroupfs_parse_mounts(), in the caller's buffers. */
int procfs_parse_mountinfo_cgroup2(const char *text, char *mnt, size_t mnt_len, char *root,
				   size_t root_len)
{
	struct cgroupfs_mounts *m;
	int err;

	if (!text || !mnt || !root)
		return -EINVAL;
	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	err = cgroupfs_parse_mounts(text, m);
	if (!err && !m->v2[0])
		err = -ENOENT;
	err = err ?: copy_str(mnt, mnt_len, m->v2, strlen(m->v2));
	err = err ?: copy_str(root, root_len, m->v2_root, strlen(m->v2_root));
	free(m);
	return err;
}

int procfs_cgroup_id(const char *cgroup_path, uint64_t *id)
{
	char *buf = NULL, mnt[PATH_MAX], root[PATH_MAX], full[2 * PATH_MAX + 2];
	const char *rel = cgroup_path;
	size_t cap = 0, len = 0, rlen;
	struct stat sb;
	int err;

	if (!cgroup_path || cgroup_path[0] != '/' || !id)
		return -EINVAL;
	err = procfs_read_file(0, "self/mountinfo", &buf, &cap, &len);
	if (err)
		goto cleanup;
	err = procfs_parse_mountinfo_cgroup2(buf, mnt, sizeof(mnt), root, sizeof(root));
	if (err)
		goto cleanup;
	/* A mount of a sub-tree (ROOT != "/") holds only the paths under it. */
	rlen = strlen(root);
	if (strcmp(root, "/") != 0) {
		if (strncmp(cgroup_path, root, rlen) != 0 ||
		    (cgroup_path[rlen] != '/' && cgroup_path[rlen] != '\0')) {
			err = -ENOENT;
			goto cleanup;
		}
		rel = cgroup_path + rlen;
	}
	if ((size_t)snprintf(full, sizeof(full), "%s%s", mnt, rel) >= sizeof(full)) {
		err = -ENAMETOOLONG;
		goto cleanup;
	}
	if (stat(full, &sb) < 0) {
		err = -errno;
		goto cleanup;
	}
	if (!S_ISDIR(sb.st_mode)) {
		err = -ENOTDIR;
		goto cleanup;
	}
	*id = (uint64_t)sb.st_ino;
cleanup:
	free(buf);
	return err;
}

/* ---------------------------------------------------------------- smaps budget */

void smaps_budget__init(struct smaps_budget *b, uint64_t budget_ns, uint64_t interval_ns)
{
	memset(b, 0, sizeof(*b));
	b->budget_ns = budget_ns > INT64_MAX ? INT64_MAX : budget_ns;
	b->interval_ns = interval_ns ? interval_ns : 1000000000ull;
	b->credit_ns = (int64_t)b->budget_ns;
}

bool smaps_budget__allow(struct smaps_budget *b, uint64_t now_ns)
{
	if (!b->budget_ns) {
		b->reads++;
		return true;
	}
	if (b->started && now_ns > b->last_ns) {
		/* in floating point: (now - last) * budget overflows 64 bits after
		 * a few seconds of a large budget */
		double add = (double)(now_ns - b->last_ns) * (double)b->budget_ns /
			     (double)b->interval_ns;
		double c = (double)b->credit_ns + add;

		b->credit_ns = c >= (double)b->budget_ns ? (int64_t)b->budget_ns : (int64_t)c;
	}
	if (!b->started || now_ns > b->last_ns) {
		b->last_ns = now_ns;
		b->started = true;
	}
	if (b->credit_ns > 0) {
		b->reads++;
		return true;
	}
	b->skipped++;
	return false;
}

void smaps_budget__spend(struct smaps_budget *b, uint64_t ns)
{
	b->spent_ns += ns;
	if (!b->budget_ns)
		return;
	if (ns > (uint64_t)INT64_MAX / 2)
		ns = (uint64_t)INT64_MAX / 2;
	b->credit_ns = b->credit_ns < INT64_MIN / 2 ? INT64_MIN / 2 : b->credit_ns - (int64_t)ns;
}

static struct smaps_budget shared_budget;

struct smaps_budget *smaps_budget__get(uint64_t budget_ns, uint64_t interval_ns)
{
	if (!shared_budget.users)
		smaps_budget__init(&shared_budget, budget_ns, interval_ns);
	shared_budget.users++;
	return &shared_budget;
}

void smaps_budget__put(struct smaps_budget *b)
{
	if (!b || !b->users)
		return;
	if (!--b->users)
		smaps_budget__init(b, 0, 0);
}
