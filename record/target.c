/* target.c — the process ptop-record records: an existing --pid, or a command it launches held
 * at the door until the recording has started.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record/cgroupfs.h"
#include "record/procfs.h"
#include "record/record.h"
#include "symbol/buildid.h"

#define TASK_COMM_LEN 16

/* PIDFD_GET_INFO (Linux 6.13; the exit status since 6.15), not in Debian 12's
 * headers. The first 64 bytes of struct pidfd_info, which the kernel accepts as
 * PIDFD_INFO_SIZE_VER0. */
struct ptop_pidfd_info {
	uint64_t mask;
	uint64_t cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t exit_code;
};
#define PTOP_PIDFD_GET_INFO _IOWR(0xFF, 11, struct ptop_pidfd_info)
#define PTOP_PIDFD_INFO_EXIT (1ull << 3)

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

static int sys_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

static void target_init(struct record_target *t)
{
	memset(t, 0, sizeof(*t));
	t->pidfd = -1;
	t->go_fd = -1;
	t->err_fd = -1;
}

static int add_cmdline(struct record_target *t, const char *arg)
{
	char **v = realloc(t->cmdline, (t->n_cmdline + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	t->cmdline = v;
	t->cmdline[t->n_cmdline] = strdup(arg);
	if (!t->cmdline[t->n_cmdline])
		return -ENOMEM;
	t->n_cmdline++;
	return 0;
}

/* Cgroup path, id and container id from /proc/PID/cgroup. Missing pieces stay
 * empty/0: a host without cgroup v2 is not an error. */
static void describe_cgroup(struct record_target *t)
{
	char *buf = NULL;
	size_t cap = 0, len = 0;

	if (procfs_read_file(t->pid, "cgroup", &buf, &cap, &len) == 0 &&
	    procfs_parse_cgroup(buf, t->cgroup_path, sizeof(t->cgroup_path)) == 0) {
		if (procfs_cgroup_id(t->cgroup_path, &t->cgroup_id) != 0)
			t->cgroup_id = 0;
		if (!procfs_container_id(t->cgroup_path, t->container_id,
					 sizeof(t->container_id)))
			t->container_id[0] = '\0';
	} else {
		t->cgroup_path[0] = '\0';
	}
	free(buf);
}

/* The Tgid: line of /proc/PID/status, or -errno. */
static int read_tgid(pid_t pid, pid_t *tgid)
{
	char *buf = NULL, *p;
	size_t cap = 0, len = 0;
	int err;

	err = procfs_read_file(pid, "status", &buf, &cap, &len);
	if (err)
		goto cleanup;
	p = strstr(buf, "\nTgid:");
	if (!p) {
		err = -EINVAL;
		goto cleanup;
	}
	*tgid = (pid_t)strtol(p + 6, NULL, 10);
cleanup:
	free(buf);
	return err;
}

/* The hex number after KEY ("\nCapPrm:") in a /proc/PID/status text. 0 or -EINVAL. */
static int status_hex(const char *text, const char *key, uint64_t *v)
{
	const char *p = strstr(text, key);
	char *end;

	if (!p)
		return -EINVAL;
	p += strlen(key);
	errno = 0;
	*v = strtoull(p, &end, 16);
	return errno || end == p ? -EINVAL : 0;
}

/* The filesystem uid (the 4th number of "Uid:"), which ptrace read checks use. */
static int status_fsuid(const char *text, unsigned long *uid)
{
	const char *p = strstr(text, "\nUid:");
	unsigned long r, e, sv;

	if (!p || sscanf(p + 5, "%lu %lu %lu %lu", &r, &e, &sv, uid) != 4)
		return -EINVAL;
	return 0;
}

/* The name of capability NR ("CAP_SYS_PTRACE"), or NULL past the table. */
static const char *cap_name(unsigned nr)
{
	static const char *const names[] = {
		"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER",
		"CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP",
		"CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST",
		"CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
		"CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
		"CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
		"CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD",
		"CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP",
		"CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM",
		"CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
		"CAP_CHECKPOINT_RESTORE",
	};

	return nr < sizeof(names) / sizeof(names[0]) ? names[nr] : NULL;
}

#define CAP_SYS_PTRACE_BIT 19

/* Why the kernel refused ptrace read access to PID (/proc/PID/exe gave ERRNO_TEXT),
 * into ERR: the rules of ptrace_may_access(), in the kernel's order. Without
 * CAP_SYS_PTRACE, a target of another uid, or one holding capabilities ptop-record
 * lacks (or not dumpable: a set-id program), is refused. With CAP_SYS_PTRACE those
 * rules pass, so what refused it is a security module (a Landlock domain ptop-record
 * runs in and the target is outside of, SELinux, AppArmor, a BPF LSM). */
static void explain_denied(pid_t pid, const char *comm, const char *errno_text, char *err,
			   size_t errlen)
{
	char *self = NULL, *tgt = NULL, missing[160] = "", lsm[128] = "";
	size_t scap = 0, slen = 0, tcap = 0, tlen = 0, off = 0;
	uint64_t eff = 0, prm = 0, lack;
	unsigned long suid = 0, tuid = 0;
	bool known;
	int fd;

	known = !procfs_read_file(0, "self/status", &self, &scap, &slen) &&
		!status_hex(self, "\nCapEff:", &eff) && !status_fsuid(self, &suid);
	if (known && (eff >> CAP_SYS_PTRACE_BIT) & 1) {
		fd = open("/sys/kernel/security/lsm", O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ssize_t n = read(fd, lsm + 2, sizeof(lsm) - 4);

			if (n > 0) {
				memcpy(lsm, " (", 2);
				strcpy(lsm + 2 + n, ")");
			} else {
				lsm[0] = '\0';
			}
			close(fd);
		}
		set_err(err, errlen,
			"may not trace pid %d (%s): the kernel refuses access to /proc/%d/exe "
			"(%s) although ptop-record has CAP_SYS_PTRACE, so a security module "
			"refuses it%s: ptop-record runs confined (a Landlock sandbox, an "
			"SELinux or AppArmor domain, a BPF LSM) and pid %d is outside that "
			"confinement; run ptop-record unconfined, or record a process started "
			"inside it",
			pid, comm, pid, errno_text, lsm, pid);
		goto cleanup;
	}
	if (known && !procfs_read_file(pid, "status", &tgt, &tcap, &tlen) &&
	    !status_fsuid(tgt, &tuid) && tuid != suid) {
		set_err(err, errlen,
			"may not trace pid %d (%s): it runs as uid %lu and ptop-record as uid "
			"%lu, without CAP_SYS_PTRACE; run ptop-record as root or as uid %lu",
			pid, comm, tuid, suid, tuid);
		goto cleanup;
	}
	if (known && tgt && !status_hex(tgt, "\nCapPrm:", &prm) && (lack = prm & ~eff)) {
		for (unsigned nr = 0; nr < 64 && off < sizeof(missing) - 1; nr++) {
			const char *name = (lack >> nr) & 1 ? cap_name(nr) : NULL;

			if ((lack >> nr) & 1)
				off += (size_t)snprintf(missing + off, sizeof(missing) - off,
							"%s%s", off ? "," : "",
							name ? name : "?");
		}
		set_err(err, errlen,
			"may not trace pid %d (%s): it holds capabilities ptop-record lacks (%s) "
			"and ptop-record has no CAP_SYS_PTRACE; run ptop-record with "
			"CAP_SYS_PTRACE (as root, with the capabilities not dropped)",
			pid, comm, missing);
		goto cleanup;
	}
	set_err(err, errlen,
		"may not trace pid %d (%s): permission denied (/proc/%d/exe: %s): the "
		"process is not dumpable (a set-id program) or more privileged; run "
		"ptop-record as root with CAP_SYS_PTRACE",
		pid, comm, pid, errno_text);
cleanup:
	free(self);
	free(tgt);
}

int target__open_pid(struct record_target *t, pid_t pid, char *err, size_t errlen)
{
	char path[64], *buf = NULL;
	size_t cap = 0, len = 0, off;
	pid_t tgid = 0;
	ssize_t n;
	int fd, rc;

	target_init(t);
	t->mode = PTOP__V1__TARGET_MODE__TARGET_MODE_PID;
	t->pid = pid;

	if (pid == getpid()) {
		set_err(err, errlen, "pid %d is ptop-record itself: give another pid", pid);
		return -EINVAL;
	}
	rc = read_tgid(pid, &tgid);
	if (rc == -ENOENT || rc == -ESRCH) {
		set_err(err, errlen, "no process with pid %d: check the pid (ps -p %d)", pid, pid);
		return -ESRCH;
	}
	if (rc) {
		set_err(err, errlen, "cannot read /proc/%d/status: %s", pid, strerror(-rc));
		return rc;
	}
	if (tgid != pid) {
		set_err(err, errlen, "pid %d is a thread of process %d: use --pid %d", pid, tgid,
			tgid);
		return -EINVAL;
	}

	/* comm (a short name) before anything that may fail, for the messages */
	if (procfs_read_file(pid, "comm", &buf, &cap, &len) == 0) {
		while (len && (buf[len - 1] == '\n'))
			buf[--len] = '\0';
		snprintf(t->comm, sizeof(t->comm), "%s", buf);
	}

	/* /proc/PID/exe needs the same ptrace read access as smaps: if it may not
	 * be read, no /proc lane could read the process either. */
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, t->exe, sizeof(t->exe) - 1);
	if (n < 0) {
		rc = -errno;
		if (rc == -EACCES || rc == -EPERM) {
			explain_denied(pid, t->comm, strerror(-rc), err, errlen);
			rc = -EPERM;
		} else if (rc == -ENOENT) {
			/* /proc/PID is still there, but has no executable */
			if (access(path, F_OK) && errno == ENOENT && kill(pid, 0) &&
			    errno == ESRCH) {
				set_err(err, errlen, "no process with pid %d: it exited", pid);
				rc = -ESRCH;
			} else {
				set_err(err, errlen,
					"pid %d (%s) has no executable (a kernel thread or a "
					"zombie): nothing to record",
					pid, t->comm);
				rc = -EINVAL;
			}
		} else {
			set_err(err, errlen, "cannot read %s: %s", path, strerror(-rc));
		}
		goto cleanup;
	}
	t->exe[n] = '\0';

	/* The build-id of the mapped file itself (works when the path was deleted
	 * or lives in another mount namespace). */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (buildid_read_fd_ident(fd, t->build_id, sizeof(t->build_id), &t->build_id_len,
					  &t->build_id_kind))
			t->build_id_len = 0;
		close(fd);
	}

	if (procfs_read_file(pid, "cmdline", &buf, &cap, &len) == 0) {
		for (off = 0; off < len; off += strlen(buf + off) + 1) {
			rc = add_cmdline(t, buf + off);
			if (rc) {
				set_err(err, errlen, "out of memory");
				goto cleanup;
			}
		}
	}
	describe_cgroup(t);

	t->pidfd = sys_pidfd_open(pid);
	if (t->pidfd < 0 && errno == ESRCH) {
		set_err(err, errlen, "no process with pid %d: it exited", pid);
		rc = -ESRCH;
		goto cleanup;
	}
	rc = 0;
cleanup:
	free(buf);
	return rc;
}

int target__open_cgroup(struct record_target *t, const char *spec, char *err, size_t errlen)
{
	struct cgroupfs_mounts *m;
	struct cgroupfs_target *cg;
	const char *base;
	int rc;

	target_init(t);
	t->mode = PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP;
	m = calloc(1, sizeof(*m));
	cg = calloc(1, sizeof(*cg));
	if (!m || !cg) {
		set_err(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto cleanup;
	}
	rc = cgroupfs_read_mounts(m);
	if (rc && rc != -ENOENT) {
		set_err(err, errlen, "cannot read /proc/self/mountinfo: %s", strerror(-rc));
		goto cleanup;
	}
	rc = cgroupfs_resolve(m, spec, cg, err, errlen);
	if (rc)
		goto cleanup;
	if (strlen(cg->path) >= sizeof(t->cgroup_path)) {
		set_err(err, errlen, "cgroup path too long (%zu bytes): %.200s...",
			strlen(cg->path), cg->path);
		rc = -ENAMETOOLONG;
		goto cleanup;
	}
	memcpy(t->cgroup_path, cg->path, strlen(cg->path) + 1);
	snprintf(t->cgroup_dir, sizeof(t->cgroup_dir), "%s", cg->dir);
	snprintf(t->container_id, sizeof(t->container_id), "%s", cg->container_id);
	t->cgroup_id = cg->id;
	t->cgroup_level = cg->level;
	base = strrchr(cg->path, '/');
	snprintf(t->comm, sizeof(t->comm), "%s", base && base[1] ? base + 1 : "root");
cleanup:
	free(m);
	free(cg);
	return rc;
}

/* Is PATH a regular file we may execute? 0 or -errno. */
static int check_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode) || access(path, X_OK))
		return -EACCES;
	return 0;
}

/* Find NAME the way execvp does: as is when it holds a '/', else in $PATH.
 * 0 with the path in OUT, or -ENOENT / -EACCES / -EISDIR. */
static int find_command(const char *name, char *out, size_t outlen)
{
	const char *path, *p, *end;
	int rc, best = -ENOENT;

	if (strchr(name, '/')) {
		if (strlen(name) >= outlen)
			return -ENAMETOOLONG;
		snprintf(out, outlen, "%s", name);
		return check_exec(name);
	}
	if (!*name)
		return -ENOENT;
	path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin"; /* glibc execvp's default */
	for (p = path;; p = end + 1) {
		int w;

		end = strchrnul(p, ':');
		/* an empty entry means the current directory */
		if (end == p)
			w = snprintf(out, outlen, "%s", name);
		else
			w = snprintf(out, outlen, "%.*s/%s", (int)(end - p), p, name);
		if (w > 0 && (size_t)w < outlen) {
			rc = check_exec(out);
			if (rc == 0)
				return 0;
			if (rc == -EACCES)
				best = -EACCES;
		}
		if (!*end)
			break;
	}
	out[0] = '\0';
	return best;
}

static void reap(struct record_target *t);

/* SIG_DFL for SIG through the system call itself, for the signals glibc keeps for its
 * own use and will not let signal() touch. Async-signal-safe. */
static void dfl_raw(int sig)
{
	struct { /* the kernel's struct sigaction on x86-64 and most others */
		void (*handler)(int);
		unsigned long flags;
		void (*restorer)(void);
		uint64_t mask;
	} sa = {.handler = SIG_DFL};

	syscall(SYS_rt_sigaction, sig, &sa, NULL, sizeof(sa.mask));
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static void child_main(const char *file, char **argv, char *const *envp, int go_fd, int err_fd)
{
	sigset_t none;
	char c;
	ssize_t n;
	int sig, e;

	/* Ignored dispositions and the blocked mask survive execve: the command
	 * starts with the defaults, whatever the recorder inherited or set. */
	for (sig = 1; sig < NSIG; sig++)
		if (signal(sig, SIG_DFL) == SIG_ERR && sig != SIGKILL && sig != SIGSTOP)
			dfl_raw(sig); /* glibc's own (32, 33): refused by signal(), yet an ignored
					 one the recorder inherited would cripple the command's
					 thread cancellation and setuid across threads */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Ready: the recorder attaches its probes only now, so that these calls of ptop's
	 * own (some 64 rt_sigaction) are never counted as the command's, as they were when
	 * the probes happened to attach first */
	e = 0;
	if (write(err_fd, &e, sizeof(e)) != (ssize_t)sizeof(e))
		_exit(126);

	/* Wait to be released. EOF means the recorder gave up (or died). */
	do
		n = read(go_fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);
	if (envp)
		execve(file, argv, envp);
	else
		execv(file, argv);
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0)
		_exit(126);
	_exit(127);
}

int target__launch(struct record_target *t, char **argv, char *err, size_t errlen)
{
	return target__launch_env(t, argv, NULL, err, errlen);
}

int target__launch_env(struct record_target *t, char **argv, char *const *envp, char *err,
		       size_t errlen)
{
	char file[PATH_MAX], *base;
	int go[2] = { -1, -1 }, ep[2] = { -1, -1 };
	struct stat st;
	pid_t pid;
	size_t i;
	ssize_t n;
	int rc, fd, ready = -1;

	target_init(t);
	t->mode = PTOP__V1__TARGET_MODE__TARGET_MODE_COMMAND;
	t->is_child = true;

	rc = find_command(argv[0], file, sizeof(file));
	if (rc == -ENOENT) {
		set_err(err, errlen, "command not found: '%s'%s", argv[0],
			strchr(argv[0], '/') ? "" : " is not in PATH");
		return rc;
	}
	if (rc) {
		set_err(err, errlen, "cannot run '%s': %s", argv[0],
			rc == -EACCES ? "not an executable file (check its permissions)" :
					strerror(-rc));
		return rc;
	}
	if (!realpath(file, t->exe))
		snprintf(t->exe, sizeof(t->exe), "%s", file);
	/* exec names the process after the basename of the path it was given,
	 * cut to 15 bytes */
	base = strrchr(file, '/');
	snprintf(t->comm, TASK_COMM_LEN, "%s", base ? base + 1 : file);
	fd = open(t->exe, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || buildid_read_fd_ident(fd, t->build_id, sizeof(t->build_id),
					    &t->build_id_len, &t->build_id_kind))
		t->build_id_len = 0;
	if (fd >= 0)
		close(fd);
	for (i = 0; argv[i]; i++) {
		rc = add_cmdline(t, argv[i]);
		if (rc) {
			set_err(err, errlen, "out of memory");
			return rc;
		}
	}

	if (pipe2(go, O_CLOEXEC) || pipe2(ep, O_CLOEXEC)) {
		rc = -errno;
		set_err(err, errlen, "cannot create a pipe: %s", strerror(-rc));
		goto fail;
	}
	if (!fstat(go[0], &st))
		t->go_ino = (uint64_t)st.st_ino;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		set_err(err, errlen, "cannot start '%s': fork: %s", argv[0], strerror(-rc));
		goto fail;
	}
	if (pid == 0) {
		close(go[1]);
		close(ep[0]);
		child_main(file, argv, envp, go[0], ep[1]);
	}
	close(go[0]);
	close(ep[1]);
	t->pid = pid;
	t->go_fd = go[1];
	t->err_fd = ep[0];
	/* the child says it is ready (its signal dispositions reset) with a 0 */
	do
		n = read(t->err_fd, &ready, sizeof(ready));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(ready) || ready != 0) {
		set_err(err, errlen, "cannot start '%s': its process ended before it was ready",
			argv[0]);
		close(t->go_fd);
		close(t->err_fd);
		t->go_fd = t->err_fd = -1;
		reap(t);
		return -ECHILD;
	}
	t->pidfd = sys_pidfd_open(pid);
	describe_cgroup(t);
	return 0;
fail:
	for (i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (ep[i] >= 0)
			close(ep[i]);
	}
	return rc;
}

static void reap(struct record_target *t)
{
	pid_t r;

	if (!t->is_child || t->reaped || t->pid <= 0)
		return;
	do
		r = waitpid(t->pid, &t->wstatus, 0);
	while (r < 0 && errno == EINTR);
	t->reaped = true;
	t->exited = true;
	t->status_known = r == t->pid;
}

int target__release(struct record_target *t, char *err, size_t errlen)
{
	char c = 'g';
	ssize_t n;
	int e = 0;

	if (!t->is_child || t->go_fd < 0)
		return 0;
	do
		n = write(t->go_fd, &c, 1);
	while (n < 0 && errno == EINTR);
	close(t->go_fd);
	t->go_fd = -1;
	if (n != 1) {
		/* the child died before it was released (killed from outside) */
		reap(t);
		set_err(err, errlen, "the command died before it started");
		return -ECHILD;
	}
	/* EOF: exec succeeded (the CLOEXEC end closed); an int: its errno */
	do
		n = read(t->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(t->err_fd);
	t->err_fd = -1;
	if (n == 0)
		return 0;
	reap(t);
	if (n != (ssize_t)sizeof(e) || e <= 0)
		e = ECHILD;
	set_err(err, errlen, "cannot run '%s': %s", t->n_cmdline ? t->cmdline[0] : "command",
		strerror(e));
	return -e;
}

bool target__has_exited(struct record_target *t)
{
	struct pollfd pfd;
	siginfo_t si;

	if (t->exited)
		return true;
	if (t->mode == PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP) {
		struct stat st;

		/* the cgroup was removed (an empty cgroup is still recorded: processes
		 * may be moved in later) */
		if (stat(t->cgroup_dir, &st))
			t->exited = errno == ENOENT;
		else
			t->exited = (uint64_t)st.st_ino != t->cgroup_id;
		return t->exited;
	}
	if (t->pidfd >= 0) {
		pfd.fd = t->pidfd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLIN | POLLHUP | POLLERR)))
			t->exited = true;
	} else if (t->is_child) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)t->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == t->pid)
			t->exited = true;
	} else if (kill(t->pid, 0) && errno == ESRCH) {
		t->exited = true;
	}
	return t->exited;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

bool target__wait_exit(struct record_target *t, int timeout_ms, int stop_fd)
{
	uint64_t end = mono_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	struct pollfd pfd[2];

	while (!target__has_exited(t)) {
		uint64_t now = mono_ms();
		int n = 0, wait;

		if (now >= end)
			return false;
		wait = (int)(end - now);
		if (t->pidfd >= 0) {
			pfd[n].fd = t->pidfd;
			pfd[n].events = POLLIN;
			pfd[n++].revents = 0;
		} else if (wait > 20) {
			wait = 20; /* no pidfd: look again soon */
		}
		if (stop_fd >= 0) {
			pfd[n].fd = stop_fd;
			pfd[n].events = POLLIN;
			pfd[n++].revents = 0;
		}
		if (poll(pfd, (nfds_t)n, wait) > 0 && stop_fd >= 0 && (pfd[n - 1].revents & POLLIN))
			return target__has_exited(t);
	}
	return true;
}

void target__collect_status(struct record_target *t)
{
	struct ptop_pidfd_info info;
	int i;

	if (t->is_child) {
		reap(t);
		return;
	}
	if (t->pidfd < 0 || t->status_known)
		return;
	/* The kernel keeps the exit status once the parent has reaped the
	 * process; give the parent a moment to do so. */
	for (i = 0; i < 20; i++) {
		memset(&info, 0, sizeof(info));
		info.mask = PTOP_PIDFD_INFO_EXIT;
		if (ioctl(t->pidfd, PTOP_PIDFD_GET_INFO, &info) == 0 &&
		    (info.mask & PTOP_PIDFD_INFO_EXIT)) {
			t->wstatus = info.exit_code;
			t->status_known = true;
			return;
		}
		if (errno == ENOTTY || errno == EINVAL || errno == EOPNOTSUPP)
			return; /* an older kernel: the status is unknown */
		usleep(10000);
	}
}

void target__kill(struct record_target *t)
{
	if (!t->is_child || t->reaped || t->pid <= 0)
		return;
	kill(t->pid, SIGKILL);
	reap(t);
}

void target__free(struct record_target *t)
{
	size_t i;

	if (!t)
		return;
	if (t->pidfd >= 0)
		close(t->pidfd);
	if (t->go_fd >= 0)
		close(t->go_fd);
	if (t->err_fd >= 0)
		close(t->err_fd);
	t->pidfd = t->go_fd = t->err_fd = -1;
	for (i = 0; i < t->n_cmdline; i++)
		free(t->cmdline[i]);
	free(t->cmdline);
	t->cmdline = NULL;
	t->n_cmdline = 0;
}
