// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The CO-RE types cache. libbpf relocates the walker against the kernel's BTF: for each of the
 * walker's ~34 local types it searches all of the kernel's ~127,000 types for candidates by
 * name, about 25 ms of a one-shot run (docs/performance.md, "Start-up"). This file keeps, per
 * kernel, a small BTF holding only what those relocations can reach: the kernel's types whose
 * names the walker's types carry (their "___flavour" suffix dropped, as libbpf compares them),
 * everything embedded in them (members, arrays, typedefs), and, behind their pointers, nameless
 * stubs of the same kind and size. Relocating against it gives the same instructions as against
 * the whole BTF (tests/integration/btf_cache_test.cc, on every kernel of the VM matrix), with
 * two exceptions that the walker is written for:
 *   - a type id (bpf_core_type_id_kernel) would be the reduced BTF's: the kernel's ids that
 *     the walker needs (struct ms_kernel_ids: struct pt_regs's for bpf_rdonly_cast(), the
 *     kfunc bpf_rdonly_cast's own and the iterator's attach target's, which libbpf would
 *     otherwise look up in the kernel's whole BTF) are kept as the sizes of structs named
 *     memstat_id_*, which user space hands to the walker and to the loader (bpf_open.c);
 *     keeping ids in place would cost a stub for every type before them, and 7.x kernels sort
 *     their BTF by name, which puts pt_regs past 100,000 types;
 *   - a relocation whose local type has no candidate in the kernel would make libbpf search
 *     the modules' BTF too; none of the walker's types lives in a module.
 *
 * -a and allpages read struct page, struct folio and enum pageflags from the same file
 * (ms_kernel_btf()), which keeps them whole whatever the walker's types are.
 *
 * The cache is a file in /var/cache/memstat (a directory of root's, mode 0700), named by the
 * kernel's build id, its BTF object's id and size, and a hash of the embedded BPF object and
 * of the file's format: a new kernel or a new memstat never reads another's file, and every
 * other file there is removed when a new one is written. A directory or file not owned by root, or writable by
 * group or others, is never read; only root writes it, to a new file renamed into place.
 * MEMSTAT_NO_CACHE=1 turns it off; MEMSTAT_DEBUG=1 says what it did.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "memstat_int.h"
#include "testhooks.h"
#include "bpf_backend.h"

#define CACHE_DIR	"/var/cache/memstat"
#define CACHE_MAX	(64U << 20)	/* a cache file larger than this is not ours */
#define CACHE_FORMAT	2		/* what reduce() keeps and carries: in the file's name */

/* the structs whose sizes are the kernel's ids, and where each goes in struct ms_kernel_ids */
static const struct {
	const char *carrier, *name;
	int kind;
	size_t off;
	bool needed;		/* false: a kernel may lack it (the kfunc, before 6.2) */
} kernel_ids[] = {
	{ "memstat_id_pt_regs", "pt_regs", BTF_KIND_STRUCT,
	  offsetof(struct ms_kernel_ids, pt_regs), true },
	{ "memstat_id_rdonly_cast", "bpf_rdonly_cast", BTF_KIND_FUNC,
	  offsetof(struct ms_kernel_ids, rdonly_cast), false },
	{ "memstat_id_iter_task_vma", "bpf_iter_task_vma", BTF_KIND_FUNC,
	  offsetof(struct ms_kernel_ids, iter_task_vma), true },
};
#define NR_KERNEL_IDS	(sizeof(kernel_ids) / sizeof(kernel_ids[0]))

static __u32 *id_field(struct ms_kernel_ids *ids, size_t i)
{
	return (__u32 *)((char *)ids + kernel_ids[i].off);
}

/* The ids in the kernel's BTF b, or in the carriers of a reduced one; false if one is missing. */
static bool find_ids(const struct btf *b, bool carried, struct ms_kernel_ids *ids)
{
	size_t i;

	memset(ids, 0, sizeof(*ids));
	for (i = 0; i < NR_KERNEL_IDS; i++) {
		__s32 id = carried ? btf__find_by_name_kind(b, kernel_ids[i].carrier, BTF_KIND_STRUCT)
				   : btf__find_by_name_kind(b, kernel_ids[i].name, kernel_ids[i].kind);

		if (id > 0)
			*id_field(ids, i) = carried ? btf__type_by_id(b, (__u32)id)->size : (__u32)id;
		else if (carried || kernel_ids[i].needed)
			return false;
	}
	return true;
}

int ms_btf_kernel_ids(struct ms_kernel_ids *ids)
{
	struct btf *k = btf__load_vmlinux_btf();
	int err = k ? 0 : (errno ? -errno : -ENOENT);

	if (k && !find_ids(k, false, ids))
		err = -ENOENT;
	btf__free(k);
	return err;
}

static void debugf(const char *fmt, const char *a, const char *b)
{
	if (ms_debug_level())
		fprintf(stderr, fmt, a, b);
}

/* libbpf's flavour rule: "name___flavour" is compared as "name" */
static size_t essential_len(const char *name)
{
	size_t n = strlen(name);
	long i;

	for (i = (long)n - 5; i >= 0; i--)
		if (name[i] != '_' && name[i + 1] == '_' && name[i + 2] == '_' &&
		    name[i + 3] == '_' && name[i + 4] != '_')
			return (size_t)i + 1;
	return n;
}

static __u64 fnv1a(const void *p, size_t n, __u64 h)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

/* The running kernel's GNU build id, as hex, from /sys/kernel/notes; false if none. */
static bool kernel_build_id(char *hex, size_t hexlen)
{
	unsigned char notes[4096];
	ssize_t n;
	size_t off = 0;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, notes, sizeof(notes));
	close(fd);
	while (n > 0 && off + 12 <= (size_t)n) {
		__u32 namesz, descsz, type;
		size_t name_off = off + 12, desc_off, i;

		memcpy(&namesz, notes + off, 4);
		memcpy(&descsz, notes + off + 4, 4);
		memcpy(&type, notes + off + 8, 4);
		desc_off = name_off + ((namesz + 3) & ~3U);
		if (namesz > 256 || descsz > 256 || desc_off + descsz > (size_t)n)
			return false;
		if (type == 3 && namesz == 4 && !memcmp(notes + name_off, "GNU", 4) &&
		    descsz && 2 * descsz < hexlen) {
			for (i = 0; i < descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", notes[desc_off + i]);
			return true;
		}
		off = desc_off + ((descsz + 3) & ~3U);
	}
	return false;
}

/* The id and size of the kernel's own BTF object ("vmlinux"); false if not found. */
static bool vmlinux_btf_id(__u32 *id_out, __u32 *size_out)
{
	__u32 id = 0;

	while (!bpf_btf_get_next_id(id, &id)) {
		struct bpf_btf_info info;
		char name[16] = "";
		__u32 len = sizeof(info);
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		info.name = (__u64)(uintptr_t)name;
		info.name_len = sizeof(name);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.kernel_btf &&
		    !strcmp(name, "vmlinux")) {
			close(fd);
			*id_out = id;
			*size_out = info.btf_size;
			return true;
		}
		close(fd);
	}
	return false;
}

/* a directory or file fit to trust: root's, writable by nobody else */
static bool trusted(const struct stat *st, mode_t kind)
{
	return (st->st_mode & S_IFMT) == kind && st->st_uid == 0 && !(st->st_mode & 022);
}

/* Open (creating it, as root) the cache directory; -1 when there is none to trust. */
static int open_cache_dir(void)
{
	const char *dir = ms_test_hook(MS_TEST_CACHE_DIR);
	struct stat st;
	int fd;

	if (!dir)
		dir = CACHE_DIR;
	if (geteuid() == 0 && mkdir(dir, 0700) && errno != EEXIST) {
		debugf("memstat: no CO-RE types cache: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !trusted(&st, S_IFDIR)) {
		debugf("memstat: no CO-RE types cache: %s%s\n", dir,
		       " is not root's or is writable by others");
		close(fd);
		return -1;
	}
	return fd;
}

/* what reduce() keeps of the kernel's types */
struct keep_set {
	__u8 *mode;		/* per kernel type: 0 left out, 1 whole, 2 a stub */
	__u32 *todo;
	size_t ntodo;
};

static void want(struct keep_set *s, __u32 id, __u8 mode)
{
	if (!id || s->mode[id] == 1 || s->mode[id] == mode)
		return;
	s->mode[id] = mode;
	s->todo[s->ntodo++] = id;
}

/* what the type refers to, each with the mode it needs: embedded types whole, pointees stubs */
static void follow(const struct btf *k, struct keep_set *s, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(k, id);
	__u8 m = s->mode[id];
	__u16 i;

	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (m == 1)
			for (i = 0; i < btf_vlen(t); i++)
				want(s, btf_members(t)[i].type, 1);
		break;
	case BTF_KIND_ARRAY:
		want(s, btf_array(t)->type, m);
		want(s, btf_array(t)->index_type, m);
		break;
	case BTF_KIND_PTR:
		want(s, t->type, 2);
		break;
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		want(s, t->type, m);
		break;
	default:	/* enums, ints, floats, forwards: nothing; functions are always stubs */
		break;
	}
}

static bool is_stub_kind(const struct btf_type *t)
{
	return btf_is_composite(t) || btf_is_any_enum(t) || btf_is_func_proto(t) ||
	       btf_is_func(t) || btf_is_var(t) || btf_is_datasec(t) || btf_is_decl_tag(t);
}

/* Add kernel type `id` to `out` as its mode says, its type ids mapped through `map`. */
static int add_type(struct btf *out, const struct btf *k, __u32 id, __u8 mode, const __u32 *map)
{
	const struct btf_type *t = btf__type_by_id(k, id);
	struct btf_type *n;
	int nid;
	__u16 i;

	if ((mode == 2 && is_stub_kind(t)) || btf_is_func_proto(t) || btf_is_func(t) ||
	    btf_is_var(t) || btf_is_datasec(t) || btf_is_decl_tag(t)) {
		if (btf_is_struct(t))
			return btf__add_struct(out, NULL, t->size);
		if (btf_is_union(t))
			return btf__add_union(out, NULL, t->size);
		if (btf_is_any_enum(t))
			return btf__add_enum(out, NULL, t->size);
		return btf__add_func_proto(out, 0);
	}
	nid = btf__add_type(out, k, t);
	if (nid < 0)
		return nid;
	n = (struct btf_type *)btf__type_by_id(out, nid);
	switch (btf_kind(n)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (i = 0; i < btf_vlen(n); i++)
			btf_members(n)[i].type = map[btf_members(n)[i].type];
		break;
	case BTF_KIND_ARRAY:
		btf_array(n)->type = map[btf_array(n)->type];
		btf_array(n)->index_type = map[btf_array(n)->index_type];
		break;
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
		break;
	default:
		n->type = map[n->type];
		break;
	}
	return nid;
}

/* the types user space reads from the kernel's BTF (attrs.c, allpages.c), kept whole too */
static const char *const user_roots[] = { "page", "folio", "pageflags" };

/*
 * The reduced BTF (see the top of this file) of the kernel's BTF `k`, for the local types of
 * `local`, with the kernel's ids in their carriers; NULL on failure.
 */
static struct btf *reduce(const struct btf *k, const struct btf *local)
{
	__u32 nk = btf__type_cnt(k), nl = btf__type_cnt(local), id, next = 1, l, nn = 0;
	struct ms_kernel_ids ids;
	struct keep_set s = { calloc(nk, 1), calloc(2 * (size_t)nk, sizeof(__u32)), 0 };
	__u32 *map = calloc(nk, sizeof(__u32));
	struct { const char *name; size_t len; } *names = calloc(nl + 3, sizeof(*names));
	struct btf *out = NULL;
	size_t i;

	if (!s.mode || !s.todo || !map || !names)
		goto out;
	for (l = 1; l < nl; l++) {
		const struct btf_type *lt = btf__type_by_id(local, l);
		const char *ln = btf__name_by_offset(local, lt->name_off);

		if (ln && *ln) {
			names[nn].name = ln;
			names[nn++].len = essential_len(ln);
		}
	}
	/* and what -a and allpages read (ms_kernel_btf()): struct page, struct folio, page flags */
	for (l = 0; l < sizeof(user_roots) / sizeof(user_roots[0]); l++) {
		names[nn].name = user_roots[l];
		names[nn++].len = strlen(user_roots[l]);
	}
	/* roots: the kernel's named composites and enums whose essential name a local type has */
	for (id = 1; id < nk; id++) {
		const struct btf_type *t = btf__type_by_id(k, id);
		const char *name = btf__name_by_offset(k, t->name_off);
		size_t len;
		bool root = false;

		if (!name || !*name ||
		    !(btf_is_composite(t) || btf_is_any_enum(t) || btf_is_fwd(t) || btf_is_typedef(t)))
			continue;
		len = essential_len(name);
		for (l = 0; l < nn && !root; l++)
			root = names[l].len == len && !strncmp(names[l].name, name, len);
		if (root)
			want(&s, id, 1);
	}
	for (i = 0; i < s.ntodo; i++)
		follow(k, &s, s.todo[i]);
	/* new ids: the kernel's order, without gaps */
	for (id = 1; id < nk; id++)
		if (s.mode[id])
			map[id] = next++;
	out = btf__new_empty();
	if (!out || !find_ids(k, false, &ids))
		goto fail;
	for (id = 1; id < nk; id++)
		if (map[id] && add_type(out, k, id, s.mode[id], map) != (int)map[id])
			goto fail;
	for (i = 0; i < NR_KERNEL_IDS; i++)
		if (btf__add_struct(out, kernel_ids[i].carrier, *id_field(&ids, i)) < 0)
			goto fail;
	goto out;
fail:
	btf__free(out);
	out = NULL;
out:
	free(s.mode);
	free(s.todo);
	free(map);
	free(names);
	return out;
}

/*
 * Remove the cache files in dirfd but `keep`, and with `tmp` the temporary files a writer that
 * died left too, but `tmp` (NULL, NULL: every cache file).
 */
static void prune(int dirfd, const char *keep, const char *tmp)
{
	DIR *d = fdopendir(dup(dirfd));
	struct dirent *e;

	while (d && (e = readdir(d)))
		if ((!strncmp(e->d_name, "core-", 5) ||
		     (tmp && !strncmp(e->d_name, ".new-", 5))) &&
		    (!keep || strcmp(e->d_name, keep)) && (!tmp || strcmp(e->d_name, tmp)))
			unlinkat(dirfd, e->d_name, 0);
	if (d)
		closedir(d);
}

/* Write the reduced BTF as `name` in dirfd, by a rename; other cache files are removed. */
static void write_cache(int dirfd, const char *name, const struct btf *kernel)
{
	size_t elf_len;
	const void *elf = memstat_bpf__elf_bytes(&elf_len);
	struct bpf_object *obj = bpf_object__open_mem(elf, elf_len, NULL);
	struct btf *r = obj ? reduce(kernel, bpf_object__btf(obj)) : NULL;
	char tmp[256];
	const void *raw;
	__u32 size = 0;
	int fd;

	bpf_object__close(obj);
	raw = r ? btf__raw_data(r, &size) : NULL;
	if (!raw) {
		debugf("memstat: no CO-RE types cache: %s%s\n", "the kernel's BTF",
		       " could not be reduced");
		btf__free(r);
		return;
	}
	snprintf(tmp, sizeof(tmp), ".new-%d", (int)getpid());
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, raw, size) != (ssize_t)size || fsync(fd) || fchmod(fd, 0644)) {
		if (fd >= 0) {
			close(fd);
			unlinkat(dirfd, tmp, 0);
		}
		debugf("memstat: no CO-RE types cache: %s: %s\n", name, strerror(errno));
		btf__free(r);
		return;
	}
	close(fd);
	btf__free(r);
	prune(dirfd, name, tmp);	/* other kernels' files, and what a writer that died left */
	if (renameat(dirfd, tmp, dirfd, name))
		unlinkat(dirfd, tmp, 0);
	else
		debugf("memstat: CO-RE types cache written: %s%s\n", name, "");
}

/* The kernel's ids that the reduced BTF at path carries; false if it carries none. */
static bool carried_ids(const char *path, struct ms_kernel_ids *ids)
{
	struct btf *r = btf__parse_raw(path);
	bool ok = r && find_ids(r, true, ids) && ids->pt_regs && ids->iter_task_vma;

	btf__free(r);
	return ok;
}

/*
 * The cache file `name`, checked: its descriptor, its name for libbpf in path and the ids it
 * carries; -ENOENT when there is none (a root-owned file that is not a reduced BTF of ours, as a
 * write cut short would leave, is removed first: root writes it again), -1 when it is not to be
 * trusted.
 */
static int open_checked(int dirfd, const char *name, char *path, size_t pathlen,
			struct ms_kernel_ids *ids)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -1;
	if (fstat(fd, &st) || !trusted(&st, S_IFREG)) {
		debugf("memstat: CO-RE types cache not used: %s%s\n", name,
		       " is not root's or is writable by others");
		close(fd);
		return -1;
	}
	/* libbpf opens it by name: the descriptor's own name, so that it reads what was checked */
	snprintf(path, pathlen, "/proc/self/fd/%d", fd);
	if (st.st_size <= 0 || st.st_size > CACHE_MAX || !carried_ids(path, ids)) {
		debugf("memstat: CO-RE types cache not used: %s%s\n", name, " is not one of ours");
		close(fd);
		if (geteuid() == 0 && !unlinkat(dirfd, name, 0))
			return -ENOENT;
		return -1;
	}
	return fd;
}

int ms_btf_cache_open(char *path, size_t pathlen, struct ms_kernel_ids *ids)
{
	char build_id[129], name[256];
	size_t elf_len;
	const void *elf = memstat_bpf__elf_bytes(&elf_len);
	__u32 btf_id, btf_size;
	int dirfd, fd;

	if (getenv("MEMSTAT_NO_CACHE") && strcmp(getenv("MEMSTAT_NO_CACHE"), "0"))
		return -1;
	if (!kernel_build_id(build_id, sizeof(build_id)) || !vmlinux_btf_id(&btf_id, &btf_size)) {
		debugf("memstat: no CO-RE types cache: %s%s\n", "the kernel's build id or BTF",
		       " was not found");
		return -1;
	}
	snprintf(name, sizeof(name), "core-%s-%u-%u-%016llx.btf", build_id, btf_id, btf_size,
		 (unsigned long long)fnv1a(elf, elf_len, 0xcbf29ce484222325ULL ^ CACHE_FORMAT));
	dirfd = open_cache_dir();
	if (dirfd < 0)
		return -1;
	fd = open_checked(dirfd, name, path, pathlen, ids);
	if (fd == -ENOENT && geteuid() == 0) {
		struct btf *k = btf__load_vmlinux_btf();

		if (k)
			write_cache(dirfd, name, k);
		btf__free(k);
		fd = open_checked(dirfd, name, path, pathlen, ids);
	}
	close(dirfd);
	if (fd < 0)
		return -1;
	debugf("memstat: CO-RE types from the cache: %s%s\n", name, "");
	return fd;
}

/* set when libbpf refused the cache: this process reads the kernel's whole BTF from then on */
static bool dropped;

struct btf *ms_kernel_btf(void)
{
	char path[64];
	struct ms_kernel_ids ids;
	int fd = dropped ? -1 : ms_btf_cache_open(path, sizeof(path), &ids);
	struct btf *b = fd >= 0 ? btf__parse_raw(path) : NULL;

	if (fd >= 0)
		close(fd);
	return b ? b : btf__load_vmlinux_btf();
}

void ms_btf_cache_drop(void)
{
	int dirfd = open_cache_dir();

	dropped = true;
	if (dirfd >= 0) {
		prune(dirfd, NULL, NULL);
		close(dirfd);
	}
}
