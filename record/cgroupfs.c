/* cgroupfs.c — cgroup file parsers, the subtree walk and the --cgroup resolver (see
 * cgroupfs.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/cgroupfs.h"
#include "record/procfs.h"

#define MAX_DEPTH 64          /* cgroup trees are shallow; a deeper one is not walked */
#define MAX_LISTED 8          /* ambiguous-id candidates named in the message */

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int copy_n(char *dst, size_t len, const char *s, size_t n)
{
	if (!len)
		return -ENAMETOOLONG;
	if (n >= len) {
		memcpy(dst, s, len - 1);
		dst[len - 1] = '\0';
		return -ENAMETOOLONG;
	}
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

/* ------------------------------------------------------------------ mounts */

/* Undo mountinfo's octal escapes (\040 space...) of [S, END) into DST. */
static int unescape(const char *s, const char *end, char *dst, size_t len)
{
	size_t n = 0;

	while (s < end) {
		char ch = *s++;

		if (ch == '\\' && end - s >= 3 && s[0] >= '0' && s[0] <= '3' && s[1] >= '0' &&
		    s[1] <= '7' && s[2] >= '0' && s[2] <= '7') {
			ch = (char)((s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0'));
			s += 3;
		}
		if (n + 1 >= len)
			return -ENAMETOOLONG;
		dst[n++] = ch;
	}
	if (!len)
		return -ENAMETOOLONG;
	dst[n] = '\0';
	return 0;
}

/* Is WORD one of the comma-separated items of [S, END)? */
static bool in_csv(const char *s, const char *end, const char *word)
{
	size_t wl = strlen(word);

	while (s < end) {
		const char *c = memchr(s, ',', (size_t)(end - s));

		if (!c)
			c = end;
		if ((size_t)(c - s) == wl && !memcmp(s, word, wl))
			return true;
		s = c + 1;
	}
	return false;
}

/* Add the mount point [S, END) to M->v1_all, when it fits. */
static void add_v1(struct cgroupfs_mounts *m, const char *s, const char *end)
{
	size_t used = 0;

	while (m->v1_all[used])
		used += strlen(m->v1_all + used) + 1;
	/* room for the path, its NUL and the list's closing empty string */
	if (used + 1 < sizeof(m->v1_all) &&
	    !unescape(s, end, m->v1_all + used, sizeof(m->v1_all) - used - 1))
		m->v1_all[used + strlen(m->v1_all + used) + 1] = '\0';
	else
		m->v1_all[used] = '\0';
}

/* The cgroup v1 mount of M that PATH (clean: no "//", no trailing '/') is under, or
 * NULL. */
static const char *v1_mount_of(const struct cgroupfs_mounts *m, const char *path)
{
	const char *v;

	for (v = m->v1_all; *v; v += strlen(v) + 1) {
		size_t n = strlen(v);

		while (n > 1 && v[n - 1] == '/')
			n--;
		if (!strncmp(path, v, n) && (path[n] == '/' || !path[n]))
			return v;
	}
	return NULL;
}

int cgroupfs_parse_mounts(const char *text, struct cgroupfs_mounts *m)
{
	const char *line = text;
	int err;

	if (!text || !m)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	while (*line) {
		const char *end = strchr(line, '\n'), *f[5], *fe[5], *p = line, *sep = NULL;
		const char *fs, *fse, *so, *soe;
		int i;

		if (!end)
			end = line + strlen(line);
		/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPER" */
		for (i = 0; i < 5; i++) {
			while (p < end && *p == ' ')
				p++;
			f[i] = p;
			while (p < end && *p != ' ')
				p++;
			fe[i] = p;
			if (f[i] == fe[i])
				break;
		}
		if (i == 5)
			for (const char *q = p; q + 2 < end; q++)
				if (q[0] == ' ' && q[1] == '-' && q[2] == ' ') {
					sep = q + 3;
					break;
				}
		if (!sep)
			goto next;
		fs = sep;
		fse = memchr(fs, ' ', (size_t)(end - fs));
		if (!fse)
			goto next;
		so = memchr(fse + 1, ' ', (size_t)(end - fse - 1)); /* skip SOURCE */
		so = so ? so + 1 : end;
		soe = end;
		if (fse - fs == 7 && !memcmp(fs, "cgroup2", 7) && !m->v2[0]) {
			err = unescape(f[4], fe[4], m->v2, sizeof(m->v2));
			if (!err)
				err = unescape(f[3], fe[3], m->v2_root, sizeof(m->v2_root));
			if (err)
				return err;
		} else if (fse - fs == 6 && !memcmp(fs, "cgroup", 6)) {
			add_v1(m, f[4], fe[4]);
			if (m->v1_mem[0] || !in_csv(so, soe, "memory"))
				goto next;
			err = unescape(f[4], fe[4], m->v1_mem, sizeof(m->v1_mem));
			if (!err)
				err = unescape(f[3], fe[3], m->v1_mem_root, sizeof(m->v1_mem_root));
			if (err)
				return err;
		}
next:
		line = *end ? end + 1 : end;
	}
	return m->v2[0] || m->v1_mem[0] ? 0 : -ENOENT;
}

int cgroupfs_read_mounts(struct cgroupfs_mounts *m)
{
	char *buf = NULL;
	size_t cap = 0, len = 0;
	int err;

	err = procfs_read_file(0, "self/mountinfo", &buf, &cap, &len);
	if (!err)
		err = cgroupfs_parse_mounts(buf, m);
	free(buf);
	return err;
}

/* ------------------------------------------------------------------ reading */

int cgroupfs_read(const char *dir, const char *name, char **buf, size_t *cap, size_t *len)
{
	char path[PATH_MAX];
	size_t n = 0;
	int fd, err = 0;

	if (!dir || !name || !buf || !cap || !len)
		return -EINVAL;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r;

		if (!*buf || *cap - n < 2) {
			size_t ncap = *cap ? *cap * 2 : 4096;
			char *nb = realloc(*buf, ncap);

			if (!nb) {
				err = -ENOMEM;
				break;
			}
			*buf = nb;
			*cap = ncap;
		}
		r = read(fd, *buf + n, *cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (!err) {
		(*buf)[n] = '\0';
		*len = n;
	}
	return err;
}

struct walk {
	int (*fn)(const char *dir, const char *rel, void *arg);
	void *arg;
	char path[PATH_MAX];
	size_t base;                 /* strlen of the walk's root in path */
};

static int walk_dir(struct walk *w, size_t len, int depth)
{
	struct dirent *de;
	DIR *d;
	int err;

	err = w->fn(w->path, len > w->base ? w->path + w->base + 1 : "", w->arg);
	if (err || depth >= MAX_DEPTH)
		return err;
	d = opendir(w->path);
	if (!d)
		return depth ? 0 : -errno;
	while ((de = readdir(d))) {
		size_t nl = strlen(de->d_name);
		struct stat st;

		if (de->d_name[0] == '.' && (!de->d_name[1] || !strcmp(de->d_name, "..")))
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (len + 1 + nl >= sizeof(w->path))
			continue;
		w->path[len] = '/';
		memcpy(w->path + len + 1, de->d_name, nl + 1);
		if (de->d_type == DT_UNKNOWN && (lstat(w->path, &st) || !S_ISDIR(st.st_mode))) {
			w->path[len] = '\0';
			continue;
		}
		err = walk_dir(w, len + 1 + nl, depth + 1);
		w->path[len] = '\0';
		if (err)
			break;
	}
	closedir(d);
	return err;
}

int cgroupfs_walk(const char *dir, int (*fn)(const char *dir, const char *rel, void *arg),
		  void *arg)
{
	struct walk w = { .fn = fn, .arg = arg };
	size_t len;

	if (!dir || !fn)
		return -EINVAL;
	len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len >= sizeof(w.path))
		return -ENAMETOOLONG;
	memcpy(w.path, dir, len);
	w.path[len] = '\0';
	w.base = len;
	return walk_dir(&w, len, 0);
}

/* ------------------------------------------------------------------ parsers */

/* A decimal u64 at *P (advanced past it). 0 or -EINVAL. */
static int parse_num(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++)
		if (__builtin_mul_overflow(x, 10, &x) ||
		    __builtin_add_overflow(x, (uint64_t)(*s - '0'), &x))
			return -EINVAL;
	*p = s;
	*v = x;
	return 0;
}

/* Nothing but white space left at P? */
static bool only_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return !*p;
}

int cgroupfs_parse_u64(const char *text, uint64_t *v)
{
	const char *p = text;

	if (!text || !v || parse_num(&p, v) || !only_space(p))
		return -EINVAL;
	return 0;
}

int cgroupfs_parse_max(const char *text, uint64_t *v, bool *unlimited)
{
	if (!text || !v || !unlimited)
		return -EINVAL;
	if (!strncmp(text, "max", 3) && only_space(text + 3)) {
		*v = 0;
		*unlimited = true;
		return 0;
	}
	*unlimited = false;
	return cgroupfs_parse_u64(text, v);
}

int cgroupfs_parse_v1_limit(const char *text, long page_size, uint64_t *v, bool *unlimited)
{
	uint64_t x, nolimit;
	int err;

	if (!unlimited || page_size <= 0)
		return -EINVAL;
	err = cgroupfs_parse_u64(text, &x);
	if (err)
		return err;
	nolimit = (uint64_t)INT64_MAX / (uint64_t)page_size * (uint64_t)page_size;
	*unlimited = x >= nolimit;
	*v = *unlimited ? 0 : x;
	return 0;
}

int cgroupfs_parse_kv(const char *text, struct cgroupfs_kvs *kv)
{
	const char *line = text;

	if (!text || !kv)
		return -EINVAL;
	kv->n = 0;
	while (*line) {
		const char *end = strchr(line, '\n'), *sp, *p;
		struct cgroupfs_kv *e;

		if (!end)
			end = line + strlen(line);
		if (end == line) {
			line = *end ? end + 1 : end;
			continue;
		}
		sp = memchr(line, ' ', (size_t)(end - line));
		if (!sp || sp == line || (size_t)(sp - line) >= sizeof(e->key))
			return -EINVAL;
		if (kv->n == kv->cap) {
			size_t ncap = kv->cap ? kv->cap * 2 : 64;
			struct cgroupfs_kv *nv = realloc(kv->v, ncap * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			kv->v = nv;
			kv->cap = ncap;
		}
		e = &kv->v[kv->n];
		p = sp + 1;
		if (parse_num(&p, &e->value) || p != end)
			return -EINVAL;
		memcpy(e->key, line, (size_t)(sp - line));
		e->key[sp - line] = '\0';
		kv->n++;
		line = *end ? end + 1 : end;
	}
	return 0;
}

bool cgroupfs_kv_get(const struct cgroupfs_kvs *kv, const char *key, uint64_t *v)
{
	for (size_t i = 0; kv && i < kv->n; i++)
		if (!strcmp(kv->v[i].key, key)) {
			if (v)
				*v = kv->v[i].value;
			return true;
		}
	return false;
}

void cgroupfs_kvs_free(struct cgroupfs_kvs *kv)
{
	if (!kv)
		return;
	free(kv->v);
	kv->v = NULL;
	kv->n = kv->cap = 0;
}

/* "avg10=0.12 avg60=0.05 avg300=0.01 total=12345" from P to END. */
static int parse_psi_fields(const char *p, const char *end, struct cgroupfs_psi_line *l)
{
	static const char *const names[] = { "avg10=", "avg60=", "avg300=", "total=" };
	double *avgs[] = { &l->avg10, &l->avg60, &l->avg300 };
	char *q;

	for (int i = 0; i < 4; i++) {
		size_t nl = strlen(names[i]);

		while (p < end && *p == ' ')
			p++;
		if ((size_t)(end - p) < nl || memcmp(p, names[i], nl))
			return -EINVAL;
		p += nl;
		if (i < 3) {
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			errno = 0;
			*avgs[i] = strtod(p, &q);
			if (errno || q > end)
				return -EINVAL;
			p = q;
		} else if (parse_num(&p, &l->total_us)) {
			return -EINVAL;
		}
		if (p < end && *p != ' ')
			return -EINVAL;
	}
	while (p < end && *p == ' ')
		p++;
	return p == end ? 0 : -EINVAL;
}

int cgroupfs_parse_psi(const char *text, struct cgroupfs_psi *psi)
{
	const char *line = text;

	if (!text || !psi)
		return -EINVAL;
	memset(psi, 0, sizeof(*psi));
	while (*line) {
		const char *end = strchr(line, '\n');

		if (!end)
			end = line + strlen(line);
		if (end - line > 5 && !memcmp(line, "some ", 5)) {
			if (parse_psi_fields(line + 5, end, &psi->some))
				return -EINVAL;
			psi->has_some = true;
		} else if (end - line > 5 && !memcmp(line, "full ", 5)) {
			if (parse_psi_fields(line + 5, end, &psi->full))
				return -EINVAL;
			psi->has_full = true;
		} else if (end != line) {
			return -EINVAL;
		}
		line = *end ? end + 1 : end;
	}
	return psi->has_some ? 0 : -EINVAL;
}

int cgroupfs_parse_procs(const char *text, pid_t **pids, size_t *n, size_t *cap)
{
	const char *p = text;
	uint64_t v;

	if (!text || !pids || !n || !cap)
		return -EINVAL;
	while (*p) {
		if (*p == '\n') {
			p++;
			continue;
		}
		if (parse_num(&p, &v) || v == 0 || v > INT32_MAX || (*p && *p != '\n'))
			return -EINVAL;
		if (*n == *cap) {
			size_t ncap = *cap ? *cap * 2 : 64;
			pid_t *np = realloc(*pids, ncap * sizeof(*np));

			if (!np)
				return -ENOMEM;
			*pids = np;
			*cap = ncap;
		}
		(*pids)[(*n)++] = (pid_t)v;
	}
	return 0;
}

int cgroupfs_proc_path(const char *text, const char *controller, char *path, size_t len)
{
	const char *line = text;

	if (!text || !controller || !path || !len)
		return -EINVAL;
	path[0] = '\0';
	while (*line) {
		const char *end = strchr(line, '\n'), *c1, *c2;

		if (!end)
			end = line + strlen(line);
		if (end == line) {
			line = *end ? end + 1 : end;
			continue;
		}
		/* "HIERARCHY-ID:CONTROLLER,LIST:PATH"; the path may hold ':' */
		c1 = memchr(line, ':', (size_t)(end - line));
		c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
		if (!c1 || !c2 || c1 == line)
			return -EINVAL;
		for (const char *d = line; d < c1; d++)
			if (!isdigit((unsigned char)*d))
				return -EINVAL;
		if (*controller ? in_csv(c1 + 1, c2, controller) :
				  (c2 == c1 + 1 && c1 - line == 1 && line[0] == '0'))
			return copy_n(path, len, c2 + 1, (size_t)(end - c2 - 1));
		line = *end ? end + 1 : end;
	}
	return -ENOENT;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t sl = strlen(suffix);

	return n > sl && !memcmp(s + n - sl, suffix, sl);
}

bool cgroupfs_unit(const char *path, char *unit, size_t len)
{
	const char *end;

	if (!path || !unit || !len)
		return false;
	unit[0] = '\0';
	end = path + strlen(path);
	while (end > path) {
		const char *c = end;

		while (c > path && c[-1] != '/')
			c--;
		if (ends_with(c, (size_t)(end - c), ".scope") ||
		    ends_with(c, (size_t)(end - c), ".service")) {
			copy_n(unit, len, c, (size_t)(end - c));
			return true;
		}
		end = c > path ? c - 1 : path;
	}
	return false;
}

/* ------------------------------------------------------------------ resolver */

/* Depth of a root-relative path: "/" 0, "/a" 1, "/a/b" 2. */
static unsigned path_level(const char *p)
{
	unsigned n = 0;

	for (; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			n++;
	return n;
}

/* Fill T from the directory DIR whose root-relative path is PATH. */
static int fill_target(struct cgroupfs_target *t, const char *dir, const char *path, char *err,
		       size_t errlen)
{
	struct stat st;

	if (stat(dir, &st)) {
		int e = -errno;

		set_err(err, errlen, "no cgroup %s (%s: %s): check the path (it is listed in "
			"/proc/PID/cgroup of a process inside, on the 0:: line)", path, dir,
			strerror(-e));
		return e == -ENOTDIR ? -ENOENT : e;
	}
	if (!S_ISDIR(st.st_mode)) {
		set_err(err, errlen, "%s is not a cgroup directory", dir);
		return -ENOENT;
	}
	if (copy_n(t->dir, sizeof(t->dir), dir, strlen(dir)) ||
	    copy_n(t->path, sizeof(t->path), path, strlen(path))) {
		set_err(err, errlen, "cgroup path too long: %s", path);
		return -ENAMETOOLONG;
	}
	t->id = (uint64_t)st.st_ino;
	t->level = path_level(path);
	if (!procfs_container_id(path, t->container_id, sizeof(t->container_id)))
		t->container_id[0] = '\0';
	return 0;
}

/* Normalize a path: no "//", no trailing '/', no "." or ".." components (refused). */
static int clean_path(const char *in, char *out, size_t len)
{
	size_t n = 0;
	const char *p = in;

	while (*p) {
		const char *c;
		size_t cl;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		c = p;
		while (*p && *p != '/')
			p++;
		cl = (size_t)(p - c);
		if ((cl == 1 && c[0] == '.') || (cl == 2 && c[0] == '.' && c[1] == '.'))
			return -EINVAL;
		if (n + 1 + cl + 1 > len)
			return -ENAMETOOLONG;
		out[n++] = '/';
		memcpy(out + n, c, cl);
		n += cl;
	}
	if (!n) {
		if (len < 2)
			return -ENAMETOOLONG;
		out[n++] = '/';
	}
	out[n] = '\0';
	return 0;
}

static int resolve_path(const struct cgroupfs_mounts *m, const char *spec,
			struct cgroupfs_target *t, char *err, size_t errlen)
{
	char clean[PATH_MAX], path[PATH_MAX], dir[2 * PATH_MAX];
	struct stat st;
	const char *rel, *v1, *root = m->v2_root[0] ? m->v2_root : "/";
	size_t ml = strlen(m->v2), rl = strlen(root);
	int e;

	e = clean_path(spec, clean, sizeof(clean));
	if (e) {
		set_err(err, errlen, e == -EINVAL ?
			"--cgroup '%s': a path with '.' or '..' components: give it plainly" :
			"--cgroup '%s': path too long", spec);
		return e;
	}
	while (ml > 1 && m->v2[ml - 1] == '/')
		ml--;
	if (!strncmp(clean, m->v2, ml) && (clean[ml] == '/' || !clean[ml])) {
		/* a file-system path under the mount: its cgroup path is root + the rest */
		rel = clean + ml;
		if (!strcmp(root, "/"))
			snprintf(path, sizeof(path), "%s", *rel ? rel : "/");
		else if ((size_t)snprintf(path, sizeof(path), "%s%s", root, rel) >= sizeof(path)) {
			set_err(err, errlen, "--cgroup %s: path too long", spec);
			return -ENAMETOOLONG;
		}
	} else if (m->v1_mem[0] && !strncmp(clean, m->v1_mem, strlen(m->v1_mem)) &&
		   (clean[strlen(m->v1_mem)] == '/' || !clean[strlen(m->v1_mem)])) {
		set_err(err, errlen,
			"--cgroup %s is a cgroup v1 memory directory: ptop records cgroup v2 "
			"subtrees; give the same path under %s (the v1 memory cgroup at that path "
			"is read too)", clean, m->v2);
		return -EINVAL;
	} else if ((v1 = v1_mount_of(m, clean))) {
		set_err(err, errlen,
			"--cgroup %s is in the cgroup v1 hierarchy mounted at %s, which ptop does "
			"not record: give the cgroup's path under the cgroup2 mount (%s/...), or "
			"as /proc/PID/cgroup prints it on its 0:: line",
			clean, v1, m->v2);
		return -EINVAL;
	} else {
		/* as /proc/PID/cgroup prints it: under the mount's root */
		if (strcmp(root, "/") &&
		    (strncmp(clean, root, rl) || (clean[rl] != '/' && clean[rl] != '\0'))) {
			set_err(err, errlen,
				"--cgroup %s: not under %s, the part of the cgroup tree mounted at "
				"%s here (a cgroup namespace?)", clean, root, m->v2);
			return -ENOENT;
		}
		snprintf(path, sizeof(path), "%s", clean);
		rel = strcmp(root, "/") ? clean + rl : clean;
	}
	if ((size_t)snprintf(dir, sizeof(dir), "%.*s%s", (int)ml, m->v2,
			     strcmp(rel, "/") ? rel : "") >= sizeof(dir) ||
	    strlen(dir) >= PATH_MAX) {
		set_err(err, errlen, "--cgroup %s: path too long", spec);
		return -ENAMETOOLONG;
	}
	e = fill_target(t, dir, path, err, errlen);
	if (e == -ENOENT && !stat(clean, &st) && S_ISDIR(st.st_mode) && strcmp(clean, "/"))
		set_err(err, errlen,
			"--cgroup %s is a directory outside the cgroup2 hierarchy (mounted at "
			"%s): give the cgroup's path under %s, or as /proc/PID/cgroup prints it "
			"on its 0:: line",
			clean, m->v2, m->v2);
	else if (e == -ENOENT)
		set_err(err, errlen,
			"no cgroup %s: %s is not a directory; give a directory under the cgroup2 "
			"mount (%s) or the path as /proc/PID/cgroup prints it on its 0:: line",
			path, dir, m->v2);
	return e;
}

struct id_search {
	const char *prefix;
	size_t plen;
	size_t n;                    /* distinct ids found */
	char ids[MAX_LISTED][65];
	char paths[MAX_LISTED][PATH_MAX];
	size_t base;                 /* length of the mount in the walked paths */
};

static int find_id(const char *dir, const char *rel, void *arg)
{
	struct id_search *s = arg;
	const char *name = strrchr(rel, '/');
	char id[72];
	size_t i;

	(void)dir;
	name = name ? name + 1 : rel;
	if (!*name || !procfs_container_id(name, id, sizeof(id)) || strncmp(id, s->prefix, s->plen))
		return 0;
	for (i = 0; i < s->n && i < MAX_LISTED; i++)
		if (!strcmp(s->ids[i], id))
			return 0; /* a cgroup below the container's own: the first one stays */
	if (s->n < MAX_LISTED) {
		memcpy(s->ids[s->n], id, 65);
		snprintf(s->paths[s->n], sizeof(s->paths[s->n]), "/%s", rel);
	}
	s->n++;
	return 0;
}

static int resolve_id(const struct cgroupfs_mounts *m, const char *spec,
		      struct cgroupfs_target *t, char *err, size_t errlen)
{
	struct id_search *s;
	char path[PATH_MAX], dir[2 * PATH_MAX];
	const char *root = m->v2_root[0] ? m->v2_root : "/";
	size_t len, i;
	int e;

	s = calloc(1, sizeof(*s));
	if (!s) {
		set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->prefix = spec;
	s->plen = strlen(spec);
	e = cgroupfs_walk(m->v2, find_id, s);
	if (e) {
		set_err(err, errlen, "cannot search the cgroup tree at %s: %s", m->v2,
			strerror(-e));
		goto cleanup;
	}
	if (s->n == 0) {
		set_err(err, errlen,
			"no container with an id starting '%s' in the cgroup v2 tree at %s: check "
			"the id (docker ps --no-trunc), or give the cgroup path", spec, m->v2);
		e = -ENOENT;
		goto cleanup;
	}
	if (s->n > 1) {
		len = (size_t)snprintf(err, errlen,
				       "container id '%s' is ambiguous: %zu containers match; give "
				       "more digits or the cgroup path:", spec, s->n);
		for (i = 0; i < s->n && i < MAX_LISTED && len < errlen; i++)
			len += (size_t)snprintf(err + len, errlen - len, "\n  %s  %s", s->ids[i],
						s->paths[i]);
		if (s->n > MAX_LISTED && len < errlen)
			snprintf(err + len, errlen - len, "\n  ... and %zu more",
				 s->n - MAX_LISTED);
		e = -ENOTUNIQ;
		goto cleanup;
	}
	if ((size_t)snprintf(dir, sizeof(dir), "%s%s", m->v2, s->paths[0]) >= PATH_MAX ||
	    (size_t)snprintf(path, sizeof(path), "%s%s", strcmp(root, "/") ? root : "",
			     s->paths[0]) >= sizeof(path)) {
		set_err(err, errlen, "cgroup path too long: %s", s->paths[0]);
		e = -ENAMETOOLONG;
		goto cleanup;
	}
	e = fill_target(t, dir, path, err, errlen);
	if (!e)
		memcpy(t->container_id, s->ids[0], 65);
cleanup:
	free(s);
	return e;
}

int cgroupfs_resolve(const struct cgroupfs_mounts *m, const char *spec, struct cgroupfs_target *t,
		     char *err, size_t errlen)
{
	size_t i, n;

	if (!m || !spec || !t)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	if (!m->v2[0]) {
		set_err(err, errlen,
			"--cgroup needs the cgroup v2 hierarchy, and none is mounted (see "
			"/proc/self/mountinfo): mount cgroup2 "
			"(mount -t cgroup2 none /sys/fs/cgroup/unified)");
		return -ENODEV;
	}
	if (!*spec) {
		set_err(err, errlen, "--cgroup needs a cgroup path or a container id");
		return -EINVAL;
	}
	if (spec[0] == '/')
		return resolve_path(m, spec, t, err, errlen);
	n = strlen(spec);
	for (i = 0; i < n; i++)
		if (!((spec[i] >= '0' && spec[i] <= '9') || (spec[i] >= 'a' && spec[i] <= 'f')))
			break;
	if (i < n || n > 64) {
		set_err(err, errlen,
			"--cgroup '%s' is neither a cgroup path (it starts with '/') nor a "
			"container id (1 to 64 lowercase hex digits)", spec);
		return -EINVAL;
	}
	return resolve_id(m, spec, t, err, errlen);
}
