/* test_cgroupfs.c — the cgroup file parsers of record/cgroupfs.c on fixture texts of
 * cgroup v2 and v1 (taken from real files, plus malformed ones), the mountinfo
 * parser on hybrid and pure-v2 hosts, the --cgroup resolver and subtree walk on a
 * fake cgroup tree in a temporary directory, and the cgroup collector's v2 lane on a
 * fake cgroup v2 directory holding this process and a child.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/cgroupfs.h"
#include "record/procfs.h"
#include "record/record.h"
#include "tests/rec_double.h"

#define ID1 "abcd1111e3a2c1f09b8a7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928"
#define ID2 "abcd2222e3a2c1f09b8a7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928"
#define ID3 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* ---------------------------------------------------------------- mountinfo */

static const char hybrid_mountinfo[] =
	"23 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
	"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	"40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

static void test_01_mounts(void **state)
{
	struct cgroupfs_mounts *m = calloc(1, sizeof(*m));

	(void)state;
	assert_non_null(m);
	/* hybrid: v1 memory beside a controller-less cgroup2 */
	assert_int_equal(cgroupfs_parse_mounts(hybrid_mountinfo, m), 0);
	assert_string_equal(m->v2, "/sys/fs/cgroup/unified");
	assert_string_equal(m->v2_root, "/");
	assert_string_equal(m->v1_mem, "/sys/fs/cgroup/memory");
	assert_string_equal(m->v1_mem_root, "/");
	/* every v1 hierarchy, for the resolver's messages */
	assert_string_equal(m->v1_all, "/sys/fs/cgroup/cpu");
	assert_string_equal(m->v1_all + 19, "/sys/fs/cgroup/cpuset");
	assert_string_equal(m->v1_all + 41, "/sys/fs/cgroup/memory");
	assert_string_equal(m->v1_all + 63, "/sys/fs/cgroup/systemd");
	assert_string_equal(m->v1_all + 86, "");

	/* pure v2, in a cgroup namespace view, with optional fields and an escape */
	assert_int_equal(cgroupfs_parse_mounts("30 25 0:26 /ns\\040x /sys/fs/cgroup "
					       "rw,nosuid shared:4 - cgroup2 cgroup2 "
					       "rw,nsdelegate,memory_recursiveprot\n", m),
			 0);
	assert_string_equal(m->v2, "/sys/fs/cgroup");
	assert_string_equal(m->v2_root, "/ns x");
	assert_string_equal(m->v1_mem, "");

	/* a v1 hierarchy with memory among other controllers; "memory_x" is not it */
	assert_int_equal(cgroupfs_parse_mounts("1 0 0:1 / /a rw - cgroup c rw,memory_x\n"
					       "2 0 0:2 / /cg/mem rw - cgroup c rw,cpu,memory\n", m),
			 0);
	assert_string_equal(m->v1_mem, "/cg/mem");
	assert_string_equal(m->v2, "");

	/* neither */
	assert_int_equal(cgroupfs_parse_mounts("23 1 8:1 / / rw - ext4 /dev/sda1 rw\n", m),
			 -ENOENT);
	assert_int_equal(cgroupfs_parse_mounts("garbage\n\n", m), -ENOENT);
	free(m);
}

/* ---------------------------------------------------------------- numbers */

static void test_02_numbers_and_limits(void **state)
{
	uint64_t v = 7;
	bool unl = false;

	(void)state;
	assert_int_equal(cgroupfs_parse_u64("4096\n", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(cgroupfs_parse_u64("", &v), -EINVAL);
	assert_int_equal(cgroupfs_parse_u64("12 3\n", &v), -EINVAL);
	assert_int_equal(cgroupfs_parse_u64("-1\n", &v), -EINVAL);
	assert_int_equal(cgroupfs_parse_u64("18446744073709551616\n", &v), -EINVAL);

	/* v2 memory.max */
	assert_int_equal(cgroupfs_parse_max("max\n", &v, &unl), 0);
	assert_true(unl);
	assert_int_equal(v, 0);
	assert_int_equal(cgroupfs_parse_max("536870912\n", &v, &unl), 0);
	assert_false(unl);
	assert_int_equal(v, 536870912);
	assert_int_equal(cgroupfs_parse_max("maximum\n", &v, &unl), -EINVAL);

	/* v1 memory.limit_in_bytes: PAGE_COUNTER_MAX pages is "no limit" */
	assert_int_equal(cgroupfs_parse_v1_limit("9223372036854771712\n", 4096, &v, &unl), 0);
	assert_true(unl);
	assert_int_equal(v, 0);
	assert_int_equal(cgroupfs_parse_v1_limit("9223372036854710272\n", 65536, &v, &unl), 0);
	assert_true(unl);
	assert_int_equal(cgroupfs_parse_v1_limit("9223372036854710272\n", 4096, &v, &unl), 0);
	assert_false(unl); /* with 4 KiB pages this is a (huge) limit */
	assert_int_equal(cgroupfs_parse_v1_limit("268435456\n", 4096, &v, &unl), 0);
	assert_false(unl);
	assert_int_equal(v, 268435456);
	assert_int_equal(cgroupfs_parse_v1_limit("max\n", 4096, &v, &unl), -EINVAL);
	assert_int_equal(cgroupfs_parse_v1_limit("1\n", 0, &v, &unl), -EINVAL);
}

/* ---------------------------------------------------------------- key value files */

static const char v2_memory_stat[] =
	"anon 16912384\n"
	"file 1245184\n"
	"kernel 438272\n"
	"kernel_stack 32768\n"
	"pagetables 90112\n"
	"sock 0\n"
	"shmem 0\n"
	"file_mapped 774144\n"
	"file_dirty 0\n"
	"workingset_refault_anon 0\n"
	"pgfault 4620\n"
	"thp_fault_alloc 0\n";

static const char v2_memory_events[] = "low 0\nhigh 3\nmax 12\noom 2\noom_kill 1\noom_group_kill 0\n";

static const char v1_memory_stat[] =
	"cache 1245184\n"
	"rss 16912384\n"
	"rss_huge 0\n"
	"mapped_file 774144\n"
	"hierarchical_memory_limit 9223372036854771712\n"
	"total_rss 16912384\n"
	"total_inactive_anon 0\n";

static const char v1_oom_control[] = "oom_kill_disable 0\nunder_oom 1\noom_kill 4\n";

static void test_03_key_values(void **state)
{
	struct cgroupfs_kvs kv = { 0 };
	uint64_t v = 0;
	char longkey[100];

	(void)state;
	assert_int_equal(cgroupfs_parse_kv(v2_memory_stat, &kv), 0);
	assert_int_equal(kv.n, 12);
	assert_string_equal(kv.v[0].key, "anon");
	assert_int_equal(kv.v[0].value, 16912384);
	assert_true(cgroupfs_kv_get(&kv, "file_mapped", &v));
	assert_int_equal(v, 774144);
	assert_false(cgroupfs_kv_get(&kv, "anon_thp", &v));

	/* the array is reused: the second parse replaces the first */
	assert_int_equal(cgroupfs_parse_kv(v2_memory_events, &kv), 0);
	assert_int_equal(kv.n, 6);
	assert_true(cgroupfs_kv_get(&kv, "oom", &v));
	assert_int_equal(v, 2);
	assert_true(cgroupfs_kv_get(&kv, "oom_kill", &v));
	assert_int_equal(v, 1);
	assert_true(cgroupfs_kv_get(&kv, "max", &v));
	assert_int_equal(v, 12);

	assert_int_equal(cgroupfs_parse_kv(v1_memory_stat, &kv), 0);
	assert_int_equal(kv.n, 7);
	assert_true(cgroupfs_kv_get(&kv, "hierarchical_memory_limit", &v));
	assert_int_equal(v, 9223372036854771712ull);

	assert_int_equal(cgroupfs_parse_kv(v1_oom_control, &kv), 0);
	assert_true(cgroupfs_kv_get(&kv, "under_oom", &v));
	assert_int_equal(v, 1);
	assert_true(cgroupfs_kv_get(&kv, "oom_kill", &v));
	assert_int_equal(v, 4);

	/* no trailing newline, blank lines */
	assert_int_equal(cgroupfs_parse_kv("a 1\n\nb 2", &kv), 0);
	assert_int_equal(kv.n, 2);
	assert_int_equal(cgroupfs_parse_kv("", &kv), 0);
	assert_int_equal(kv.n, 0);

	/* malformed */
	assert_int_equal(cgroupfs_parse_kv("anon\n", &kv), -EINVAL);
	assert_int_equal(cgroupfs_parse_kv("anon x\n", &kv), -EINVAL);
	assert_int_equal(cgroupfs_parse_kv("anon 1 2\n", &kv), -EINVAL);
	assert_int_equal(cgroupfs_parse_kv(" 1\n", &kv), -EINVAL);
	memset(longkey, 'k', 64);
	snprintf(longkey + 64, sizeof(longkey) - 64, " 1\n");
	assert_int_equal(cgroupfs_parse_kv(longkey, &kv), -EINVAL);
	cgroupfs_kvs_free(&kv);
	cgroupfs_kvs_free(&kv);
	cgroupfs_kvs_free(NULL);
}

/* ---------------------------------------------------------------- PSI */

static void test_04_psi(void **state)
{
	struct cgroupfs_psi p;

	(void)state;
	assert_int_equal(cgroupfs_parse_psi("some avg10=1.50 avg60=0.25 avg300=0.00 total=35372\n"
					    "full avg10=0.75 avg60=0.10 avg300=0.01 total=1200\n",
					    &p),
			 0);
	assert_true(p.has_some);
	assert_true(p.has_full);
	assert_float_equal(p.some.avg10, 1.50, 1e-9);
	assert_float_equal(p.some.avg60, 0.25, 1e-9);
	assert_int_equal(p.some.total_us, 35372);
	assert_float_equal(p.full.avg300, 0.01, 1e-9);
	assert_int_equal(p.full.total_us, 1200);

	/* cpu.pressure at the system level before Linux 5.13: no "full" line */
	assert_int_equal(cgroupfs_parse_psi("some avg10=0.00 avg60=0.00 avg300=0.00 total=0", &p), 0);
	assert_true(p.has_some);
	assert_false(p.has_full);

	/* malformed */
	assert_int_equal(cgroupfs_parse_psi("", &p), -EINVAL);
	assert_int_equal(cgroupfs_parse_psi("full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", &p),
			 -EINVAL); /* no "some" */
	assert_int_equal(cgroupfs_parse_psi("some avg10=0.00 avg60=0.00 total=0\n", &p), -EINVAL);
	assert_int_equal(cgroupfs_parse_psi("some avg10=x avg60=0.00 avg300=0.00 total=0\n", &p),
			 -EINVAL);
	assert_int_equal(cgroupfs_parse_psi("some avg10=0.00 avg60=0.00 avg300=0.00 total=0 z\n",
					    &p),
			 -EINVAL);
	assert_int_equal(cgroupfs_parse_psi("some avg10=0.00 avg60=0.00 avg300=0.00 total=1\n"
					    "other\n", &p),
			 -EINVAL);
}

/* ---------------------------------------------------------------- procs, /proc/PID/cgroup */

static void test_05_procs(void **state)
{
	pid_t *pids = NULL;
	size_t n = 0, cap = 0;

	(void)state;
	assert_int_equal(cgroupfs_parse_procs("17297\n17298\n", &pids, &n, &cap), 0);
	assert_int_equal(n, 2);
	assert_int_equal(pids[0], 17297);
	assert_int_equal(pids[1], 17298);
	assert_int_equal(cgroupfs_parse_procs("", &pids, &n, &cap), 0); /* an empty cgroup */
	assert_int_equal(cgroupfs_parse_procs("1", &pids, &n, &cap), 0); /* appends */
	assert_int_equal(n, 3);
	assert_int_equal(pids[2], 1);
	assert_int_equal(cgroupfs_parse_procs("12x\n", &pids, &n, &cap), -EINVAL);
	assert_int_equal(cgroupfs_parse_procs("0\n", &pids, &n, &cap), -EINVAL);
	assert_int_equal(cgroupfs_parse_procs("4294967296\n", &pids, &n, &cap), -EINVAL);
	free(pids);
}

static const char hybrid_proc_cgroup[] =
	"9:name=systemd:/\n"
	"8:pids:/\n"
	"4:memory:/process_api/c9ac5000cc636ebfe63607d0d890366d\n"
	"3:cpu,cpuacct:/system.slice/x.service\n"
	"0::/user.slice/user-1000.slice/app-foo-12.scope\n";

static void test_06_proc_cgroup(void **state)
{
	char path[PATH_MAX];

	(void)state;
	assert_int_equal(cgroupfs_proc_path(hybrid_proc_cgroup, "", path, sizeof(path)), 0);
	assert_string_equal(path, "/user.slice/user-1000.slice/app-foo-12.scope");
	assert_int_equal(cgroupfs_proc_path(hybrid_proc_cgroup, "memory", path, sizeof(path)), 0);
	assert_string_equal(path, "/process_api/c9ac5000cc636ebfe63607d0d890366d");
	assert_int_equal(cgroupfs_proc_path(hybrid_proc_cgroup, "cpuacct", path, sizeof(path)), 0);
	assert_string_equal(path, "/system.slice/x.service");
	assert_int_equal(cgroupfs_proc_path(hybrid_proc_cgroup, "name=systemd", path, sizeof(path)),
			 0);
	assert_string_equal(path, "/");
	assert_int_equal(cgroupfs_proc_path(hybrid_proc_cgroup, "blkio", path, sizeof(path)),
			 -ENOENT);
	assert_int_equal(cgroupfs_proc_path(hybrid_proc_cgroup, "mem", path, sizeof(path)),
			 -ENOENT);

	/* pure v2; a path holding ':' */
	assert_int_equal(cgroupfs_proc_path("0::/kubepods.slice/a.slice:cri-containerd:" ID3 "\n",
					    "", path, sizeof(path)),
			 0);
	assert_string_equal(path, "/kubepods.slice/a.slice:cri-containerd:" ID3);
	assert_int_equal(cgroupfs_proc_path("0::/x\n", "memory", path, sizeof(path)), -ENOENT);

	/* too long, malformed */
	assert_int_equal(cgroupfs_proc_path("0::/abcdef\n", "", path, 4), -ENAMETOOLONG);
	assert_string_equal(path, "/ab");
	assert_int_equal(cgroupfs_proc_path("memory:/x\n", "memory", path, sizeof(path)), -EINVAL);
	assert_int_equal(cgroupfs_proc_path("a:memory:/x\n", "memory", path, sizeof(path)),
			 -EINVAL);
}

static void test_07_unit_and_container_id(void **state)
{
	char unit[256], id[72];

	(void)state;
	assert_true(cgroupfs_unit("/user.slice/user-1000.slice/app-foo-12.scope", unit,
				  sizeof(unit)));
	assert_string_equal(unit, "app-foo-12.scope");
	assert_true(cgroupfs_unit("/system.slice/nginx.service/worker", unit, sizeof(unit)));
	assert_string_equal(unit, "nginx.service");
	/* the nearest one wins */
	assert_true(cgroupfs_unit("/system.slice/docker.service/docker-" ID1 ".scope", unit,
				  sizeof(unit)));
	assert_string_equal(unit, "docker-" ID1 ".scope");
	assert_false(cgroupfs_unit("/user.slice", unit, sizeof(unit)));
	assert_string_equal(unit, "");
	assert_false(cgroupfs_unit("/", unit, sizeof(unit)));
	assert_false(cgroupfs_unit("/.scope", unit, sizeof(unit))); /* no name before it */

	/* container ids, as the resolver sees directory names and paths */
	assert_true(procfs_container_id("docker-" ID1 ".scope", id, sizeof(id)));
	assert_string_equal(id, ID1);
	assert_true(procfs_container_id("/kubepods/besteffort/pod12/" ID3, id, sizeof(id)));
	assert_string_equal(id, ID3);
	assert_true(procfs_container_id("/system.slice/crio-" ID2 ".scope/container", id,
					sizeof(id)));
	assert_string_equal(id, ID2);
	assert_false(procfs_container_id("/system.slice/docker-abcd.scope", id, sizeof(id)));
	assert_false(procfs_container_id("/user.slice", id, sizeof(id)));
}

/* ---------------------------------------------------------------- resolver */

static char tree[] = "/tmp/ptop-test-cgroupfs-XXXXXX";

static void mk(const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", tree, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static uint64_t ino(const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", tree, rel);
	assert_int_equal(stat(p, &st), 0);
	return (uint64_t)st.st_ino;
}

static int setup_tree(void **state)
{
	(void)state;
	if (!mkdtemp(tree))
		return -1;
	mk("a");
	mk("a/b");
	mk("system.slice");
	mk("system.slice/docker-" ID1 ".scope");
	mk("system.slice/docker-" ID1 ".scope/" ID1); /* the same id below: not another */
	mk("system.slice/docker-" ID2 ".scope");
	mk("kubepods");
	mk("kubepods/pod1");
	mk("kubepods/pod1/" ID3);
	return 0;
}

static int teardown_tree(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	return system(cmd) == 0 ? 0 : -1;
}

static struct cgroupfs_mounts *fake_mounts(const char *root)
{
	struct cgroupfs_mounts *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	snprintf(m->v2, sizeof(m->v2), "%s", tree);
	snprintf(m->v2_root, sizeof(m->v2_root), "%s", root);
	return m;
}

static void test_08_resolve_paths(void **state)
{
	struct cgroupfs_mounts *m = fake_mounts("/");
	struct cgroupfs_target *t = calloc(1, sizeof(*t));
	char spec[PATH_MAX], err[2048], dir[PATH_MAX];

	(void)state;
	assert_non_null(t);
	/* a file-system path under the mount */
	snprintf(spec, sizeof(spec), "%s/a/b", tree);
	assert_int_equal(cgroupfs_resolve(m, spec, t, err, sizeof(err)), 0);
	assert_string_equal(t->path, "/a/b");
	assert_string_equal(t->dir, spec);
	assert_int_equal(t->level, 2);
	assert_int_equal(t->id, ino("a/b"));
	assert_string_equal(t->container_id, "");

	/* as /proc/PID/cgroup prints it, with stray slashes */
	assert_int_equal(cgroupfs_resolve(m, "//a/b/", t, err, sizeof(err)), 0);
	assert_string_equal(t->path, "/a/b");
	assert_string_equal(t->dir, spec);
	assert_int_equal(t->id, ino("a/b"));

	/* the root itself */
	assert_int_equal(cgroupfs_resolve(m, tree, t, err, sizeof(err)), 0);
	assert_string_equal(t->path, "/");
	assert_int_equal(t->level, 0);
	assert_int_equal(cgroupfs_resolve(m, "/", t, err, sizeof(err)), 0);
	assert_string_equal(t->dir, tree);

	/* a container's cgroup by path: its id is taken from the path */
	assert_int_equal(cgroupfs_resolve(m, "/system.slice/docker-" ID2 ".scope", t, err,
					  sizeof(err)),
			 0);
	assert_string_equal(t->container_id, ID2);
	assert_int_equal(t->level, 2);

	/* missing, malformed */
	assert_int_equal(cgroupfs_resolve(m, "/a/nope", t, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/a/nope"));
	snprintf(spec, sizeof(spec), "%s/a/nope", tree);
	assert_int_equal(cgroupfs_resolve(m, spec, t, err, sizeof(err)), -ENOENT);
	assert_int_equal(cgroupfs_resolve(m, "/a/../a", t, err, sizeof(err)), -EINVAL);
	assert_int_equal(cgroupfs_resolve(m, "", t, err, sizeof(err)), -EINVAL);
	assert_int_equal(cgroupfs_resolve(m, "a/b", t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "neither a cgroup path"));

	/* a cgroup v1 directory is not taken for a v2 path */
	snprintf(m->v1_mem, sizeof(m->v1_mem), "/sys/fs/cgroup/memory");
	assert_int_equal(cgroupfs_resolve(m, "/sys/fs/cgroup/memory/a/b", t, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "cgroup v1"));
	assert_int_equal(cgroupfs_resolve(m, "/sys/fs/cgroup/memoryx", t, err, sizeof(err)),
			 -ENOENT);
	/* nor a path under any other v1 hierarchy (issue 10: it was looked up as
	 * MOUNT/sys/fs/cgroup/cpu and called "not a directory") */
	memcpy(m->v1_all, "/sys/fs/cgroup/cpu\0/sys/fs/cgroup/systemd\0", 42);
	assert_int_equal(cgroupfs_resolve(m, "/sys/fs/cgroup/cpu", t, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "cgroup v1 hierarchy mounted at /sys/fs/cgroup/cpu"));
	assert_non_null(strstr(err, tree)); /* the cgroup2 mount to use */
	assert_int_equal(cgroupfs_resolve(m, "/sys/fs/cgroup/systemd/user.slice/", t, err,
					  sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "mounted at /sys/fs/cgroup/systemd"));
	assert_int_equal(cgroupfs_resolve(m, "/sys/fs/cgroup/cpuacct", t, err, sizeof(err)),
			 -ENOENT);
	/* a directory that is no cgroup at all */
	assert_int_equal(cgroupfs_resolve(m, "/tmp", t, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/tmp is a directory outside the cgroup2 hierarchy"));

	/* a mount that shows a sub-tree (cgroup namespace): paths are under its root */
	free(m);
	m = fake_mounts("/ns");
	assert_int_equal(cgroupfs_resolve(m, "/ns/a/b", t, err, sizeof(err)), 0);
	assert_string_equal(t->path, "/ns/a/b");
	assert_int_equal(t->level, 3);
	snprintf(dir, sizeof(dir), "%s/a/b", tree);
	assert_string_equal(t->dir, dir);
	assert_int_equal(cgroupfs_resolve(m, dir, t, err, sizeof(err)), 0);
	assert_string_equal(t->path, "/ns/a/b");
	assert_int_equal(cgroupfs_resolve(m, "/a/b", t, err, sizeof(err)), -ENOENT);

	/* no cgroup2 mount */
	m->v2[0] = '\0';
	assert_int_equal(cgroupfs_resolve(m, "/a", t, err, sizeof(err)), -ENODEV);
	free(m);
	free(t);
}

static void test_09_resolve_container_ids(void **state)
{
	struct cgroupfs_mounts *m = fake_mounts("/");
	struct cgroupfs_target *t = calloc(1, sizeof(*t));
	char err[2048];

	(void)state;
	assert_non_null(t);
	/* a unique prefix, and the full id */
	assert_int_equal(cgroupfs_resolve(m, "abcd1", t, err, sizeof(err)), 0);
	assert_string_equal(t->path, "/system.slice/docker-" ID1 ".scope");
	assert_string_equal(t->container_id, ID1);
	assert_int_equal(t->id, ino("system.slice/docker-" ID1 ".scope"));
	assert_int_equal(t->level, 2);
	assert_int_equal(cgroupfs_resolve(m, ID3, t, err, sizeof(err)), 0);
	assert_string_equal(t->path, "/kubepods/pod1/" ID3);
	assert_int_equal(t->level, 3);

	/* ambiguous: both candidates listed */
	assert_int_equal(cgroupfs_resolve(m, "abcd", t, err, sizeof(err)), -ENOTUNIQ);
	assert_non_null(strstr(err, "ambiguous"));
	assert_non_null(strstr(err, ID1 "  /system.slice/docker-" ID1 ".scope"));
	assert_non_null(strstr(err, ID2 "  /system.slice/docker-" ID2 ".scope"));
	assert_int_equal(cgroupfs_resolve(m, "a", t, err, sizeof(err)), -ENOTUNIQ);

	/* missing; not hex; too long */
	assert_int_equal(cgroupfs_resolve(m, "ffff", t, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no container"));
	assert_int_equal(cgroupfs_resolve(m, "ABCD", t, err, sizeof(err)), -EINVAL);
	assert_int_equal(cgroupfs_resolve(m, ID3 "0", t, err, sizeof(err)), -EINVAL);
	free(m);
	free(t);
}

struct seen {
	char rels[16][PATH_MAX];
	int n;
	int stop_at;
};

static int note_dir(const char *dir, const char *rel, void *arg)
{
	struct seen *s = arg;

	(void)dir;
	if (s->n < 16)
		snprintf(s->rels[s->n], sizeof(s->rels[0]), "%s", rel);
	s->n++;
	return s->n == s->stop_at ? 42 : 0;
}

static bool saw(const struct seen *s, const char *rel)
{
	for (int i = 0; i < s->n && i < 16; i++)
		if (!strcmp(s->rels[i], rel))
			return true;
	return false;
}

static void test_10_walk_and_read(void **state)
{
	struct seen *s = calloc(1, sizeof(*s));
	char dir[PATH_MAX], *buf = NULL;
	size_t cap = 0, len = 0;
	FILE *f;

	(void)state;
	assert_non_null(s);
	snprintf(dir, sizeof(dir), "%s/kubepods/", tree);
	assert_int_equal(cgroupfs_walk(dir, note_dir, s), 0);
	assert_int_equal(s->n, 3);
	assert_string_equal(s->rels[0], ""); /* the root of the walk first */
	assert_string_equal(s->rels[1], "pod1");
	assert_string_equal(s->rels[2], "pod1/" ID3);

	memset(s, 0, sizeof(*s));
	assert_int_equal(cgroupfs_walk(tree, note_dir, s), 0);
	assert_int_equal(s->n, 10);
	assert_true(saw(s, "a/b"));
	assert_true(saw(s, "system.slice/docker-" ID1 ".scope/" ID1));

	memset(s, 0, sizeof(*s));
	s->stop_at = 2;
	assert_int_equal(cgroupfs_walk(tree, note_dir, s), 42);
	assert_int_equal(s->n, 2);

	snprintf(dir, sizeof(dir), "%s/nope", tree);
	assert_int_equal(cgroupfs_walk(dir, note_dir, s), -ENOENT);

	/* read a file of a cgroup directory */
	snprintf(dir, sizeof(dir), "%s/a/cgroup.procs", tree);
	f = fopen(dir, "w");
	assert_non_null(f);
	fputs("1\n2\n", f);
	fclose(f);
	snprintf(dir, sizeof(dir), "%s/a", tree);
	assert_int_equal(cgroupfs_read(dir, "cgroup.procs", &buf, &cap, &len), 0);
	assert_int_equal(len, 4);
	assert_string_equal(buf, "1\n2\n");
	assert_int_equal(cgroupfs_read(dir, "memory.current", &buf, &cap, &len), -ENOENT);
	free(buf);
	free(s);
}

/* ---------------------------------------------------------------- --cgroup option */

static int parse(struct record_opts *o, char *err, size_t len, int argc, ...)
{
	char *argv[16];
	va_list ap;
	int i, rc;

	va_start(ap, argc);
	for (i = 0; i < argc && i < 15; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	argv[i] = NULL;
	rc = record_opts__parse(o, argc, argv, collector_table, err, len);
	record_opts__free(o);
	return rc;
}

static void test_11_cgroup_option(void **state)
{
	struct record_opts o;
	char err[512];

	(void)state;
	assert_int_equal(parse(&o, err, sizeof(err), 3, "ptop-record", "--cgroup", "/a/b"), 0);
	assert_string_equal(o.cgroup, "/a/b");
	assert_int_equal(o.pid, 0);
	assert_null(o.cmd);
	assert_int_equal(parse(&o, err, sizeof(err), 3, "ptop-record", "--cgroup=abcd", "-q"), 0);
	assert_string_equal(o.cgroup, "abcd");

	/* one target only */
	assert_int_equal(parse(&o, err, sizeof(err), 5, "ptop-record", "--cgroup", "/a", "--pid",
			       "1"),
			 -EINVAL);
	assert_non_null(strstr(err, "--cgroup"));
	assert_int_equal(parse(&o, err, sizeof(err), 5, "ptop-record", "--cgroup", "/a", "--",
			       "true"),
			 -EINVAL);
	assert_int_equal(parse(&o, err, sizeof(err), 4, "ptop-record", "--caps", "--cgroup", "/a"),
			 -EINVAL);
	assert_int_equal(parse(&o, err, sizeof(err), 3, "ptop-record", "--cgroup", ""), -EINVAL);
	assert_int_equal(parse(&o, err, sizeof(err), 2, "ptop-record", "--cgroup"), -EINVAL);
	assert_int_equal(parse(&o, err, sizeof(err), 1, "ptop-record"), -EINVAL);
	assert_non_null(strstr(err, "--cgroup SPEC"));
}

/* ---------------------------------------------------------------- the collector, v2 lane */

extern const struct collector_ops cgroup_collector;

static void put(const char *rel, const char *text)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tree, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static Ptop__V1__ProcMem *proc_of(Ptop__V1__CgroupSample *s, pid_t pid)
{
	for (size_t i = 0; i < s->n_procs; i++)
		if (s->procs[i]->pid == pid)
			return s->procs[i];
	fail_msg("pid %d not in the sample (%zu processes)", (int)pid, s->n_procs);
	return NULL;
}

static void test_12_collector_v2_lane(void **state)
{
	struct rec_ctx ctx = { .interval_ns = 1000000000ull, .smaps_budget_ns = 10000000000ull };
	struct collector c = { .ops = &cgroup_collector, .ctx = &ctx };
	char dir[PATH_MAX], file[PATH_MAX + 32], procs[64];
	Ptop__V1__CgroupSample *s;
	Ptop__V1__Event *ev;
	pid_t kid, first, other, me = getpid();

	(void)state;
	rec_double_reset();
	/* not in cgroup mode: unsupported, saying why */
	assert_int_equal(cgroup_collector.check(&c),
			 PTOP__V1__PROBE_STATE__PROBE_STATE_UNSUPPORTED);
	assert_non_null(strstr(c.reason, "needs --cgroup"));

	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		pause();
		_exit(0);
	}
	mk("cg");
	mk("cg/sub");
	snprintf(procs, sizeof(procs), "%d\n", (int)me);
	put("cg/cgroup.procs", procs);
	snprintf(procs, sizeof(procs), "%d\n", (int)kid);
	put("cg/sub/cgroup.procs", procs);
	put("cg/sub/app-x-1.scope", ""); /* a file, not a cgroup: not walked */
	put("cg/memory.current", "1048576\n");
	put("cg/memory.max", "max\n");
	put("cg/memory.peak", "2097152\n");
	put("cg/memory.stat", v2_memory_stat);
	put("cg/memory.events", v2_memory_events);
	put("cg/memory.pressure", "some avg10=1.00 avg60=0.50 avg300=0.25 total=1000\n"
				  "full avg10=0.50 avg60=0.25 avg300=0.10 total=400\n");
	put("cg/cpu.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=7\n");
	put("cg/io.pressure", "garbage\n"); /* does not parse: not collected */
	snprintf(dir, sizeof(dir), "%s/cg", tree);
	ctx.mode = PTOP__V1__TARGET_MODE__TARGET_MODE_CGROUP;
	ctx.cgroup_dir = dir;
	ctx.cgroup_path = "/cg";
	ctx.cgroup_id = ino("cg");

	assert_int_equal(cgroup_collector.check(&c), PTOP__V1__PROBE_STATE__PROBE_STATE_ACTIVE);
	assert_int_equal(c.source, PTOP__V1__PROBE_SOURCE__PROBE_SOURCE_PROC);
	assert_non_null(strstr(c.detail, "v2 lane"));
	assert_int_equal(cgroup_collector.start(&c), 0);
	assert_int_equal(cgroup_collector.poll(&c, rec_now_ns(), POLL_FIRST), 0);
	assert_int_equal(rec_double.n_events, 1);
	assert_int_equal(rec_double.n_drops, 0);
	ev = rec_double_event(0, PTOP__V1__EVENT__PAYLOAD_CGROUP);
	assert_int_equal(ev->category, PTOP__V1__CATEGORY__CATEGORY_CGROUP);
	assert_int_equal(ev->pid, 0);
	s = ev->cgroup;
	assert_string_equal(s->path, "/cg");
	assert_non_null(s->v2);
	assert_null(s->v1);
	assert_int_equal(s->v2->current, 1048576);
	assert_true(s->v2->max_unlimited);
	assert_true(s->v2->has_peak);
	assert_int_equal(s->v2->peak, 2097152);
	assert_int_equal(s->v2->n_stat, 12);
	assert_string_equal(s->v2->stat[0]->key, "anon");
	assert_int_equal(s->v2->oom_total, 2);
	assert_int_equal(s->v2->oom_kill_total, 1);
	assert_int_equal(s->v2->oom_delta, 0); /* the first reading is the baseline */
	assert_int_equal(s->n_psi, 2);
	assert_string_equal(s->psi[0]->resource, "memory");
	assert_non_null(s->psi[0]->full);
	assert_int_equal(s->psi[0]->full->total_us, 400);
	assert_string_equal(s->psi[1]->resource, "cpu");
	assert_null(s->psi[1]->full);
	assert_int_equal(s->n_procs, 2);
	assert_int_equal(s->coverage->processes, 2);
	assert_int_equal(s->coverage->covered, 2);
	assert_int_equal(proc_of(s, me)->state, PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_COVERED);
	assert_true(proc_of(s, me)->pss > 0);
	assert_true(proc_of(s, me)->uss > 0);
	assert_string_equal(proc_of(s, me)->cgroup_path, "/cg");
	assert_string_equal(proc_of(s, kid)->cgroup_path, "/cg/sub");
	assert_true(proc_of(s, kid)->rss > 0);
	assert_non_null(strstr(proc_of(s, kid)->exe, "test_cgroupfs"));
	rec_double_free_event(ev);

	/* counters move: deltas over the interval */
	put("cg/memory.events", "low 0\nhigh 3\nmax 12\noom 5\noom_kill 2\noom_group_kill 0\n");
	put("cg/memory.pressure", "some avg10=1.00 avg60=0.50 avg300=0.25 total=1600\n"
				  "full avg10=0.50 avg60=0.25 avg300=0.10 total=450\n");
	/* a budget of 1 ns: one read per interval, the next starts with the one skipped */
	ctx.smaps_budget_ns = 1;
	assert_int_equal(cgroup_collector.poll(&c, rec_now_ns(), 0), 0);
	ev = rec_double_event(1, PTOP__V1__EVENT__PAYLOAD_CGROUP);
	s = ev->cgroup;
	assert_int_equal(s->v2->oom_delta, 3);
	assert_int_equal(s->v2->oom_kill_delta, 1);
	assert_int_equal(s->psi[0]->some->total_delta_us, 600);
	assert_int_equal(s->psi[0]->full->total_delta_us, 50);
	assert_int_equal(s->coverage->covered, 1);
	assert_int_equal(s->coverage->skipped, 1);
	assert_int_equal(s->coverage->budget_ns, 1);
	/* the rotation starts at the lowest pid */
	first = me < kid ? me : kid;
	other = me < kid ? kid : me;
	assert_int_equal(proc_of(s, first)->state,
			 PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_COVERED);
	assert_int_equal(proc_of(s, other)->state,
			 PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_SKIPPED);
	rec_double_free_event(ev);
	assert_int_equal(cgroup_collector.poll(&c, rec_now_ns(), 0), 0);
	ev = rec_double_event(2, PTOP__V1__EVENT__PAYLOAD_CGROUP);
	assert_int_equal(proc_of(ev->cgroup, other)->state,
			 PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_COVERED);
	assert_int_equal(proc_of(ev->cgroup, first)->state,
			 PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_SKIPPED);
	rec_double_free_event(ev);

	/* the child exits (still listed): gone; an unreadable memory.current: a drop */
	kill(kid, SIGKILL);
	assert_int_equal(waitpid(kid, NULL, 0), kid);
	ctx.smaps_budget_ns = 10000000000ull;
	snprintf(file, sizeof(file), "%s/cg/memory.current", tree);
	assert_int_equal(unlink(file), 0);
	assert_int_equal(cgroup_collector.poll(&c, rec_now_ns(), POLL_FINAL), 0);
	ev = rec_double_event(3, PTOP__V1__EVENT__PAYLOAD_CGROUP);
	assert_null(ev->cgroup->v2);
	assert_int_equal(rec_double_drops("cgroup_unreadable"), 1);
	assert_int_equal(proc_of(ev->cgroup, kid)->state,
			 PTOP__V1__PROC_MEM_STATE__PROC_MEM_STATE_GONE);
	assert_int_equal(ev->cgroup->coverage->gone, 1);
	assert_int_equal(ev->cgroup->coverage->covered, 1);
	rec_double_free_event(ev);
	cgroup_collector.stop(&c);
	cgroup_collector.stop(&c); /* twice: harmless */
	rec_double_reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_01_mounts),
		cmocka_unit_test(test_02_numbers_and_limits),
		cmocka_unit_test(test_03_key_values),
		cmocka_unit_test(test_04_psi),
		cmocka_unit_test(test_05_procs),
		cmocka_unit_test(test_06_proc_cgroup),
		cmocka_unit_test(test_07_unit_and_container_id),
		cmocka_unit_test(test_08_resolve_paths),
		cmocka_unit_test(test_09_resolve_container_ids),
		cmocka_unit_test(test_10_walk_and_read),
		cmocka_unit_test(test_11_cgroup_option),
		cmocka_unit_test(test_12_collector_v2_lane),
	};

	return cmocka_run_group_tests(tests, setup_tree, teardown_tree);
}
