/*
 * pthread_files.c — a pthread program's files: one file system per run.
 *
 * A fuzzer runs the program thousands of times in one process.  Were its
 * files the real ones, each run would read what the runs before it wrote,
 * a replay would differ from the run it replays, and a campaign could fill
 * the disk.  So every run starts from the same files: the real ones, read
 * on first use, copied into the run's memory (the arena) when the run first
 * reads or changes them, and forgotten when it ends.  Nothing the program
 * does reaches the real disk.
 *
 * The program's open, read, write, stat, rename, unlink, mkdir, opendir,
 * fopen, ... are renamed to hfp_open, hfp_read, ... (pthread.syms).  Paths
 * map to inodes (an open descriptor keeps its inode when the path is
 * renamed or unlinked, as POSIX says); descriptors are the lowest free from
 * 3, as the kernel's would be in a fresh process.  0, 1 and 2 are the
 * layer's stdin and output (pthread_libc.c).  A stream from fopen or
 * fdopen is a stdio stream over a descriptor (fopencookie), so fprintf,
 * fgets, fread, ... work unchanged.
 *
 * What a run could take from the real world it takes from the run:
 * inode numbers count the inodes in the order the run touched them,
 * every time a file reports is the logical clock (a real file's is the
 * run's start), and a directory lists its names sorted.  A real file is
 * read when the run first reads, writes or sizes it, not when it opens it.
 *
 * Pipes connect the run's threads: a read waits on the scheduler while
 * the pipe is empty and a writer is left.
 *
 * Every call is a preemption point: the file system is state the threads
 * share.  The streams' own callbacks are not (fread calls them under the
 * stream's lock, which belongs to the one OS thread every task runs on).
 *
 * A call on descriptors the layer does not cover (dup, ioctl, fcntl's
 * locks, mmap of a file, ...) fails the run, naming the call, rather than
 * act on the fuzzer's own descriptors of the same numbers.
 *
 * With file faults on (`-- --file-faults`: hf_program_set_file_faults),
 * every write to a file and every sync of one is also a fault decision,
 * default none, of the kinds a world's simulated disk decides (disk.c):
 *   - a write fails (EIO) having written nothing, or, a second decision
 *     says, having written a prefix of what it was given, and returns that
 *     count: a short write, which POSIX allows at any time and a full disk
 *     makes;
 *   - an fsync or fdatasync fails (EIO).
 * Pipes and the standard streams never fail.  A program that meets such a
 * fault may refuse to go on: after one, an exit with a non-zero status is
 * not a failure (hfp_file_fault_struck); a crash, a failed assertion, a
 * deadlock or a sanitizer's report still are, so a program that goes on
 * as if the write had worked is found where its checks see the damage.
 *
 * With crashes on (`-- --crashes`: hf_program_set_crashes), the files are
 * a disk that keeps only what was synced, as a world's disk is (disk.c).
 * A file's bytes and size as they were synced (or as the run found them)
 * are its durable image; every write and truncation since is unsynced,
 * kept in order; a successful fsync makes them durable, a failed one
 * forgets them (they stay readable but never reach the media, as on Linux
 * after EIO).  Before every write, sync, truncation, rename and unlink of
 * a file, and at an exit that leaves writes unsynced, a machine crash may
 * strike: a decision (hfp_crash_decided).  At one, every file loses its
 * unsynced changes, or after a torn-write decision keeps the oldest few,
 * the last of them cut short; then the program starts again on what is
 * left (hfp_machine_crash, pthread_thread.c).  Making, renaming and
 * removing a name are atomic and durable at once, as if each synced its
 * directory: so a program that renames a file into place without syncing
 * it first finds it empty after a crash, as on ext4 without auto_da_alloc.
 */
#define _GNU_SOURCE   /* fopencookie */
#include "pthread_layer.h"
#include "sim.h"   /* the fault kinds a disk has */

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { HFP_FDS = 256, PATH_SLOTS = 256, HFP_PATH_MAX = 4096 };

typedef struct hfp_inode {
    bool directory;
    bool pipe;                /* a pipe: data[pipe_start, size) not read yet */
    bool loaded;              /* data holds the file (else the real file `real` does, of `size`) */
    bool changed;             /* written, truncated or made by this run */
    const char *real;         /* the real file it copies, or NULL */
    unsigned char *data;
    size_t size, capacity;
    uint64_t number;          /* st_ino */
    struct timespec modified; /* st_mtime, st_ctime */
    size_t pipe_start;
    int readers, writers;     /* a pipe's open ends */
    hf_waitq pipe_waiters;    /* threads reading it while it is empty */
    /* With crashes on: what survives a crash, and the changes since. */
    bool tracked;             /* durable holds the file (else it is data, unchanged) */
    unsigned char *durable;
    size_t durable_size, durable_capacity;
    struct hfp_change *unsynced, **unsynced_end;
    unsigned unsynced_count;
    struct hfp_inode *next_tracked;
} hfp_inode;

/* An unsynced change: `size` bytes at `offset`, or (data NULL) a
 * truncation to `offset`. */
typedef struct hfp_change {
    size_t offset, size;
    const unsigned char *data;
    struct hfp_change *next;
} hfp_change;

typedef struct hfp_path {
    const char *path;         /* absolute, normalised */
    hfp_inode *inode;         /* NULL: removed in this run */
    struct hfp_path *next;
} hfp_path;

typedef struct hfp_fd {
    hfp_inode *inode;         /* NULL: free */
    size_t offset;
    bool readable, writable, append, nonblocking;
} hfp_fd;

/* A stream over a descriptor: malloc'd, since libc keeps the FILE past the
 * run's arena; `run` tells a stream a run left open from the run's own. */
typedef struct hfp_stream {
    FILE *file;
    int fd;
    uint32_t run;
    struct hfp_stream *next;
} hfp_stream;

static struct {
    uint32_t run;             /* the run the tables below belong to */
    hfp_path *slot[PATH_SLOTS];
    hfp_fd fd[HFP_FDS];
    uint64_t inodes;
    char cwd[HFP_PATH_MAX];
    hfp_stream *streams;      /* this run's and those runs left open */
    uint32_t temporaries;     /* mkstemp's names */
    bool fault_struck;        /* a file fault happened in this run */
    hfp_inode *tracked, **tracked_end;   /* crashes on: the files changed, by first change */
} fs;

/* Whether writes and syncs are fault decisions, and whether a machine may
 * crash (for every run from now). */
static bool file_faults, crashes;

void hf_program_set_file_faults(bool on) { file_faults = on; }
void hf_program_set_crashes(bool on) { crashes = on; }

bool hfp_file_fault_struck(void) { return fs.fault_struck; }

static void unsupported(const char *call) __attribute__((noreturn));
static void unsupported(const char *call) {
    hf_fail(HF_FAIL_CONFIG, NULL, "%s in %s: not supported by the pthread layer's files", call,
            hf_task_name(hf_self()));
}

/* Every call's preemption point; a call before main (a constructor's) has
 * no run to belong to. */
static void point(void) {
    assert(hf_w.current && fs.run == hfp.run && "a file call outside a run (a constructor's?): not supported by the "
                                               "pthread layer's files");
    hfp_point();
}

/* ---- The run's tables ------------------------------------------------------ */

/* Removes the files HEISENFUZZ_PROGRAM_FILES got from the last run. */
static void forget_kept(void);

/* Streams an earlier run or a crashed program left open: closed, their
 * callbacks told that the descriptors they name are gone (what they still
 * buffer is lost, as a crash loses it). */
static void close_streams(void) {
    for (hfp_stream *s = fs.streams, *next; s; s = next) {
        next = s->next;
        s->run = 0;
        fclose(s->file);   /* frees s */
    }
    fs.streams = NULL;
}

void hfp_files_restart(void) {
    close_streams();
    memset(fs.fd, 0, sizeof fs.fd);   /* pipes go with the process */
    fs.fault_struck = false;
    fs.run = hfp.run;
}

/* A run's start is a program's start on files no run has changed. */
void hfp_files_run_starts(void) {
    hfp_files_restart();
    memset(fs.slot, 0, sizeof fs.slot);
    fs.inodes = 0;
    fs.temporaries = 0;
    fs.tracked = NULL;
    fs.tracked_end = &fs.tracked;
    forget_kept();
    if (!fs.cwd[0] && !getcwd(fs.cwd, sizeof fs.cwd)) strcpy(fs.cwd, "/");
}

/* ---- The run's files, for a look (HEISENFUZZ_PROGRAM_FILES=DIR) ------------- */

/* Nothing a run writes reaches the disk.  So that what a program wrote can
 * be checked (a compressor's output file), with HEISENFUZZ_PROGRAM_FILES=DIR
 * every file the run made or changed under the directory the fuzzer started
 * in is written, when the program exits, to the same relative path under
 * DIR, over what is there; files elsewhere are left out.  The next run
 * removes them first, so DIR holds the last run's alone (a replay's, not
 * the calm run's made before it), and nothing when that run failed before
 * the exit.  Meant for --replay: a campaign would write every run's.  Read
 * at start-up, as HEISENFUZZ_PROGRAM_OUTPUT is, never in a run. */
static const char *keep_dir;
static char **kept;          /* the paths the last run wrote (malloc'd) */
static size_t kept_count, kept_capacity;

__attribute__((constructor)) static void note_keep_dir(void) {
    keep_dir = getenv("HEISENFUZZ_PROGRAM_FILES");
    if (keep_dir && !*keep_dir) keep_dir = NULL;
}

/* `path` (absolute, normalised) relative to the directory the fuzzer
 * started in, or NULL when it is not under it. */
static const char *under_start(const char *path) {
    size_t n = strlen(fs.cwd);
    return !strncmp(path, fs.cwd, n) && path[n] == '/' ? path + n + 1 : NULL;
}

/* Makes the directories above `path` (a writable copy). */
static void make_parents(char *path) {
    for (char *c = path + 1; *c; c++) {
        if (*c != '/') continue;
        *c = '\0';
        (void)mkdir(path, 0755);   /* one that is there already is fine */
        *c = '/';
    }
}

static void forget_kept(void) {
    for (size_t k = 0; k < kept_count; k++) {
        unlink(kept[k]);
        free(kept[k]);
    }
    kept_count = 0;
}

static void note_kept(const char *path) {
    if (kept_count == kept_capacity) {
        size_t capacity = kept_capacity ? 2 * kept_capacity : 16;
        char **grown = realloc(kept, capacity * sizeof *grown);
        if (!grown) return;
        kept = grown;
        kept_capacity = capacity;
    }
    char *copy = strdup(path);
    if (copy) kept[kept_count++] = copy;
}

void hfp_files_keep(void) {
    if (!keep_dir) return;
    for (size_t h = 0; h < PATH_SLOTS; h++)
        for (const hfp_path *p = fs.slot[h]; p; p = p->next) {
            const hfp_inode *i = p->inode;
            const char *relative = under_start(p->path);
            if (!i || !i->changed || i->pipe || i->directory || !relative) continue;
            char out[2 * HFP_PATH_MAX];
            snprintf(out, sizeof out, "%s/%s", keep_dir, relative);
            make_parents(out);
            FILE *f = fopen(out, "wb");
            bool written = f && (i->size == 0 || fwrite(i->data, 1, i->size, f) == i->size);
            if (f && fclose(f) != 0) written = false;
            if (written) note_kept(out);
            else fprintf(stderr, "heisenfuzz: HEISENFUZZ_PROGRAM_FILES: cannot write %s\n", out);
        }
}

static struct timespec now(void) {
    struct timespec ts;
    hfp_clock_now(CLOCK_REALTIME, &ts);
    return ts;
}

/* `path` made absolute (against the directory the fuzzer started in) with
 * ".", ".." and repeated slashes taken out, into out[HFP_PATH_MAX]; false
 * when too long. */
static bool normalise(const char *path, char *out) {
    char joined[2 * HFP_PATH_MAX];
    if (snprintf(joined, sizeof joined, "%s/%s", path[0] == '/' ? "" : fs.cwd, path) >= HFP_PATH_MAX) return false;
    size_t n = 0;
    char *rest;   /* strtok_r: the program may be in the middle of its own strtok */
    for (char *part = strtok_r(joined, "/", &rest); part; part = strtok_r(NULL, "/", &rest)) {
        if (!strcmp(part, ".")) continue;
        if (!strcmp(part, "..")) {
            while (n > 0 && out[--n] != '/') {}
            continue;
        }
        out[n++] = '/';
        size_t k = strlen(part);
        memcpy(out + n, part, k);
        n += k;
    }
    if (n == 0) out[n++] = '/';
    out[n] = '\0';
    return true;
}

/* The slot of a path in the table: FNV-1a, mixed. */
static size_t slot_of(const char *path) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *c = (const unsigned char *)path; *c; c++) h = (h ^ *c) * 0x100000001b3ull;
    return (size_t)(hf_mix64(h) % PATH_SLOTS);
}

static hfp_inode *new_inode(bool directory, const char *real) {
    hfp_inode *i = hf_alloc(sizeof *i);
    i->directory = directory;
    i->real = real;
    i->loaded = !real || directory;
    i->changed = !real && !directory;
    i->number = ++fs.inodes;
    i->modified = now();
    return i;
}

/* Whether the real file system's `path` is the run's too: its directory
 * is the real one still (not removed by the run, nor made by it). */
static bool real_parent(const char *path);

/* The entry of an absolute, normalised path: looked up in this run's
 * table, else taken from the real file system (NULL when the real path
 * does not exist either, or the run removed its directory; a real file
 * that is neither a regular file nor a directory fails the run). */
static hfp_path *entry(const char *path) {
    assert(fs.run == hfp.run && "file call before the run's start");
    size_t h = slot_of(path);
    for (hfp_path *p = fs.slot[h]; p; p = p->next)
        if (!strcmp(p->path, path)) return p;
    struct stat st;
    if (!real_parent(path) || stat(path, &st) != 0) return NULL;
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        hf_fail(HF_FAIL_CONFIG, NULL, "%s: neither a file nor a directory: not supported by the pthread layer's files",
                path);
    hfp_path *p = hf_alloc(sizeof *p);
    p->path = hf_strdup(path);
    p->inode = new_inode(S_ISDIR(st.st_mode), p->path);
    if (!p->inode->directory) p->inode->size = (size_t)st.st_size;   /* until it is read */
    p->next = fs.slot[h];
    fs.slot[h] = p;
    return p;
}

static bool real_parent(const char *path) {
    const char *slash = strrchr(path, '/');
    if (slash == path) return true;   /* in "/" */
    char parent[HFP_PATH_MAX];
    snprintf(parent, sizeof parent, "%.*s", (int)(slash - path), path);
    hfp_path *p = entry(parent);
    return p && p->inode && p->inode->directory && p->inode->real && !strcmp(p->inode->real, parent);
}

/* The path's entry, made (removed) when it has none. */
static hfp_path *entry_made(const char *path) {
    hfp_path *p = entry(path);
    if (p) return p;
    size_t h = slot_of(path);
    p = hf_alloc(sizeof *p);
    p->path = hf_strdup(path);
    p->next = fs.slot[h];
    fs.slot[h] = p;
    return p;
}

/* The inode at `path`, or NULL with errno set. */
static hfp_inode *lookup(const char *path, char *absolute) {
    if (!path) { errno = EFAULT; return NULL; }
    if (!*path) { errno = ENOENT; return NULL; }
    if (!normalise(path, absolute)) { errno = ENAMETOOLONG; return NULL; }
    hfp_path *p = entry(absolute);
    if (!p || !p->inode) { errno = ENOENT; return NULL; }
    return p->inode;
}

/* Whether the directory that would hold `absolute` exists (else errno). */
static bool parent_exists(const char *absolute) {
    char parent[HFP_PATH_MAX];
    snprintf(parent, sizeof parent, "%s", absolute);
    char *slash = strrchr(parent, '/');
    if (slash == parent) return true;
    *slash = '\0';
    hfp_path *p = entry(parent);
    if (!p || !p->inode) { errno = ENOENT; return false; }
    if (!p->inode->directory) { errno = ENOTDIR; return false; }
    return true;
}

/* Makes room in an image of bytes (`*data`, `used` of them kept, in
 * `*capacity`) for `size`. */
static void reserve(unsigned char **data, size_t *capacity, size_t used, size_t size) {
    if (size <= *capacity) return;
    size_t grown = *capacity ? *capacity : 256;
    while (grown < size) grown *= 2;
    unsigned char *bytes = hf_alloc(grown);
    if (used) memcpy(bytes, *data, used);
    *data = bytes;
    *capacity = grown;
}

/* Sets an image's size (`*size`): zeros past the old end. */
static void resize_image(unsigned char **data, size_t *capacity, size_t *size, size_t to) {
    reserve(data, capacity, *size, to);
    if (to > *size) memset(*data + *size, 0, to - *size);
    *size = to;
}

/* Makes an image a copy of the `count` bytes at `from`. */
static void copy_image(unsigned char **data, size_t *capacity, size_t *size, const unsigned char *from, size_t count) {
    reserve(data, capacity, 0, count);
    if (count) memcpy(*data, from, count);
    *size = count;
}

/* Reads the real file an inode copies into the arena, the first time. */
static void load(hfp_inode *i) {
    if (i->loaded) return;
    i->loaded = true;
    i->size = 0;
    FILE *f = fopen(i->real, "rb");
    if (!f) hf_fail(HF_FAIL_CONFIG, NULL, "%s: cannot be read: %s", i->real, strerror(errno));
    unsigned char buffer[1 << 16];
    for (size_t n; (n = fread(buffer, 1, sizeof buffer, f)) > 0;) {
        reserve(&i->data, &i->capacity, i->size, i->size + n);
        memcpy(i->data + i->size, buffer, n);
        i->size += n;
    }
    fclose(f);
}

/* Sets the file's size: zeros past the old end. */
static void resize(hfp_inode *i, size_t size) {
    load(i);
    resize_image(&i->data, &i->capacity, &i->size, size);
    i->changed = true;
    i->modified = now();
}

static void changing(hfp_inode *i, size_t offset, const void *data, size_t size);
static void crash_point(const char *before, const hfp_inode *i);

/* A truncation (or extension) the program asked for: a change a crash may lose. */
static void truncate_file(hfp_inode *i, size_t size) {
    crash_point("a truncation of", i);
    changing(i, size, NULL, 0);
    resize(i, size);
}

/* The descriptor's entry, or NULL with errno EBADF. */
static hfp_fd *descriptor(int fd) {
    if (fd < 3 || fd >= HFP_FDS || !fs.fd[fd].inode) { errno = EBADF; return NULL; }
    return &fs.fd[fd];
}

static bool is_standard(int fd) { return fd >= 0 && fd < 3; }

/* The lowest free descriptor, or -1 (EMFILE). */
static int free_descriptor(int from) {
    for (int fd = from; fd < HFP_FDS; fd++)
        if (!fs.fd[fd].inode) return fd;
    errno = EMFILE;
    return -1;
}

/* Frees a descriptor; a pipe's readers see the end of its data when its
 * last writer goes. */
static void release(hfp_fd *d) {
    hfp_inode *i = d->inode;
    d->inode = NULL;
    if (!i->pipe) return;
    i->readers -= d->readable;
    i->writers -= d->writable;
    hfp_wake_all(&i->pipe_waiters);
}


/* ---- Descriptors ------------------------------------------------------------- */

int hfp_open(const char *path, int flags, ...);
int hfp_open(const char *path, int flags, ...) {
    point();
    char absolute[HFP_PATH_MAX];
    hfp_inode *i = lookup(path, absolute);
    int access_mode = flags & O_ACCMODE;
    if (i && (flags & O_CREAT) && (flags & O_EXCL)) { errno = EEXIST; return -1; }
    if (!i) {
        if (!(flags & O_CREAT) || errno != ENOENT || !parent_exists(absolute)) return -1;
        i = entry_made(absolute)->inode = new_inode(false, NULL);
    }
    if (i->directory && access_mode != O_RDONLY) { errno = EISDIR; return -1; }
    if ((flags & O_DIRECTORY) && !i->directory) { errno = ENOTDIR; return -1; }
    if ((flags & O_TRUNC) && access_mode != O_RDONLY) truncate_file(i, 0);
    int fd = free_descriptor(3);
    if (fd < 0) return -1;
    fs.fd[fd] = (hfp_fd){.inode = i, .readable = access_mode != O_WRONLY, .writable = access_mode != O_RDONLY,
                         .append = (flags & O_APPEND) != 0, .nonblocking = (flags & O_NONBLOCK) != 0};
    return fd;
}

int hfp_openat(int dirfd, const char *path, int flags, ...);
int hfp_openat(int dirfd, const char *path, int flags, ...) {
    if (dirfd != AT_FDCWD && path && path[0] != '/') unsupported("openat with a directory descriptor");
    va_list ap;
    va_start(ap, flags);
    int mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, int) : 0;
    va_end(ap);
    return hfp_open(path, flags, mode);
}

int hfp_creat(const char *path, mode_t mode);
int hfp_creat(const char *path, mode_t mode) { return hfp_open(path, O_WRONLY | O_CREAT | O_TRUNC, mode); }

int hfp_close(int fd);
int hfp_close(int fd) {
    point();
    if (is_standard(fd)) return 0;   /* the layer's streams stay */
    hfp_fd *d = descriptor(fd);
    if (!d) return -1;
    release(d);
    return 0;
}

/* A pipe's read: waits while it is empty and a writer is left (or says
 * EAGAIN, not blocking). */
static ssize_t read_pipe(hfp_fd *d, void *buffer, size_t count) {
    hfp_inode *p = d->inode;
    while (p->pipe_start == p->size) {
        if (!p->writers) return 0;
        if (d->nonblocking) { errno = EAGAIN; return -1; }
        hfp_block(&p->pipe_waiters, "pipe", 0);
    }
    size_t n = p->size - p->pipe_start < count ? p->size - p->pipe_start : count;
    memcpy(buffer, p->data + p->pipe_start, n);
    p->pipe_start += n;
    if (p->pipe_start == p->size) p->pipe_start = p->size = 0;
    return (ssize_t)n;
}

/* A pipe's write never waits: a pipe holds what is written to it.  With
 * no reader left it fails (EPIPE; the layer raises no SIGPIPE). */
static ssize_t write_pipe(hfp_fd *d, const void *buffer, size_t count) {
    hfp_inode *p = d->inode;
    if (!p->readers) { errno = EPIPE; return -1; }
    size_t at = p->size;
    resize(p, at + count);
    memcpy(p->data + at, buffer, count);
    hfp_wake_all(&p->pipe_waiters);
    return (ssize_t)count;
}

/* Reads from the file at `offset`; the streams' callbacks come here too. */
static ssize_t read_at(hfp_fd *d, void *buffer, size_t count, size_t offset) {
    if (!d->readable) { errno = EBADF; return -1; }
    if (d->inode->directory) { errno = EISDIR; return -1; }
    load(d->inode);
    if (offset >= d->inode->size) return 0;
    size_t n = d->inode->size - offset < count ? d->inode->size - offset : count;
    memcpy(buffer, d->inode->data + offset, n);
    return (ssize_t)n;
}

/* ---- File faults ------------------------------------------------------------ */

/* A path of this run's table that leads to the inode, or NULL when none
 * does (it was removed, or another file was renamed over it). */
static const char *path_of(const hfp_inode *inode) {
    for (size_t h = 0; h < PATH_SLOTS; h++)
        for (const hfp_path *p = fs.slot[h]; p; p = p->next)
            if (p->inode == inode) return p->path;
    return NULL;
}

/* A name of the inode for the timeline: its path, relative to the
 * directory the fuzzer started in when under it (so that the trace does
 * not depend on where the fuzzer runs). */
static const char *name_of(const hfp_inode *inode) {
    const char *path = path_of(inode);
    if (!path) return "a removed file";
    const char *relative = under_start(path);
    return relative ? relative : path;
}

static void file_fault(hf_fault_kind kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void file_fault(hf_fault_kind kind, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *text = hf_vprintf(fmt, ap);
    va_end(ap);
    fs.fault_struck = true;
    hfp_fault(kind, text);
}

/* How many of `count` bytes a write at `offset` gets to write: all of
 * them, unless a write error is decided (0, or a prefix: a short write). */
static size_t write_fault(hfp_fd *d, size_t count, size_t offset) {
    if (!file_faults || !hf_decide_bool(&hf_w.decider, HF_DECISION_FAULT | HF_FAULT_DISK_WRITE_ERROR, false))
        return count;
    size_t written = (size_t)hf_decide_range(&hf_w.decider, HF_DECISION_DETAIL, 0, count - 1, 0);
    if (written)
        file_fault(HF_FAULT_DISK_WRITE_ERROR, "short write: %zu of %zu bytes at %zu in %s", written, count, offset,
                   name_of(d->inode));
    else
        file_fault(HF_FAULT_DISK_WRITE_ERROR, "write error (EIO): %zu bytes at %zu in %s, none written", count,
                   offset, name_of(d->inode));
    return written;
}

static bool sync_fault(hfp_fd *d) {
    if (!file_faults || d->inode->pipe || d->inode->directory ||
        !hf_decide_bool(&hf_w.decider, HF_DECISION_FAULT | HF_FAULT_DISK_FSYNC_ERROR, false))
        return false;
    file_fault(HF_FAULT_DISK_FSYNC_ERROR, "fsync error (EIO) on %s", name_of(d->inode));
    return true;
}

/* ---- Crashes (--crashes) ------------------------------------------------------ */

/* Sets the size of the file's durable image. */
static void resize_durable(hfp_inode *i, size_t size) {
    resize_image(&i->durable, &i->durable_capacity, &i->durable_size, size);
}

/* Puts a change on the durable image: `bytes` of a write's data (a prefix
 * when torn), or a truncation, which is whole. */
static void make_durable(hfp_inode *i, const hfp_change *c, size_t bytes) {
    if (!c->data) {
        resize_durable(i, c->offset);
        return;
    }
    if (!bytes) return;
    if (c->offset + bytes > i->durable_size) resize_durable(i, c->offset + bytes);
    memcpy(i->durable + c->offset, c->data, bytes);
}

static void forget_changes(hfp_inode *i) {
    i->unsynced = NULL;
    i->unsynced_end = &i->unsynced;
    i->unsynced_count = 0;
}

/* Before a change of a file's bytes (`size` of `data` at `offset`) or
 * size (data NULL: to `offset`): the first time, what the file holds now
 * is what a crash leaves of it; the change is unsynced. */
static void changing(hfp_inode *i, size_t offset, const void *data, size_t size) {
    if (!crashes || i->pipe || i->directory) return;
    if (!i->tracked) {
        load(i);
        i->tracked = true;
        copy_image(&i->durable, &i->durable_capacity, &i->durable_size, i->data, i->size);
        forget_changes(i);
        *fs.tracked_end = i;
        fs.tracked_end = &i->next_tracked;
    }
    hfp_change *c = hf_alloc(sizeof *c);
    *c = (hfp_change){.offset = offset, .size = size};
    if (data) {
        unsigned char *copy = hf_alloc(size);
        memcpy(copy, data, size);
        c->data = copy;
    }
    *i->unsynced_end = c;
    i->unsynced_end = &c->next;
    i->unsynced_count++;
}

/* An fsync's end: the unsynced changes reach the disk, or (it failed) never will. */
static void synced(hfp_inode *i, bool ok) {
    if (!i->tracked) return;
    if (ok)
        for (const hfp_change *c = i->unsynced; c; c = c->next) make_durable(i, c, c->size);
    forget_changes(i);
}

static bool same_as_durable(const hfp_inode *i) {
    return i->size == i->durable_size && (!i->size || !memcmp(i->data, i->durable, i->size));
}

/* A machine crash, for one file: it keeps its durable image, and after a
 * torn-write decision the oldest few unsynced changes too, the last of
 * them cut short (a truncation is not cut: it is kept whole or lost). */
static void crash_file(hfp_inode *i) {
    unsigned count = i->unsynced_count, keep = 0;
    const hfp_change *cut = NULL;
    size_t torn = 0;
    if (count && hf_decide_bool(&hf_w.decider, HF_DECISION_FAULT | HF_FAULT_DISK_TORN_WRITE, false)) {
        keep = (unsigned)hf_decide_range(&hf_w.decider, HF_DECISION_DETAIL, 0, count - 1, count - 1);
        cut = i->unsynced;
        for (unsigned k = 0; k < keep; k++) cut = cut->next;
        if (cut->data && cut->size > 1)
            torn = (size_t)hf_decide_range(&hf_w.decider, HF_DECISION_DETAIL, 0, cut->size - 1, cut->size / 2);
        if (cut->data)
            file_fault(HF_FAULT_DISK_TORN_WRITE, "torn write: %zu of %zu bytes at %zu reach %s (unsynced change %u of %u)",
                       torn, cut->size, cut->offset, name_of(i), keep + 1, count);
        else
            file_fault(HF_FAULT_DISK_TORN_WRITE, "torn write: %u of %u unsynced changes reach %s", keep, count,
                       name_of(i));
    }
    size_t lost = 0;
    unsigned k = 0;
    for (const hfp_change *c = i->unsynced; c; c = c->next, k++) {
        size_t kept = k < keep ? c->size : c == cut ? torn : 0;
        make_durable(i, c, kept);
        if (c->data) lost += c->size - kept;
    }
    /* Writes a failed fsync forgot are lost too, though none is unsynced. */
    if (count > keep || !same_as_durable(i))
        file_fault(HF_FAULT_DISK_LOST_WRITES, "lost writes: %u of %u unsynced changes to %s (%zu bytes)", count - keep,
                   count, name_of(i), lost);
    copy_image(&i->data, &i->capacity, &i->size, i->durable, i->durable_size);
    forget_changes(i);
}

void hfp_files_crash(void) {
    /* In the order the files were first changed: the same in every run.
     * A file without a name is gone with its name already. */
    for (hfp_inode *i = fs.tracked; i; i = i->next_tracked)
        if (path_of(i)) crash_file(i);
}

/* A machine crash may strike before a call that changes file `i` (a
 * pipe or a directory is not a file's contents). */
static void crash_point(const char *before, const hfp_inode *i) {
    if (crashes && !i->pipe && !i->directory && hfp_crash_decided())
        hfp_machine_crash(hf_printf("before %s %s", before, name_of(i)));
}

void hfp_files_exit_crash_point(void) {
    if (!crashes) return;
    bool unsynced = false;
    for (hfp_inode *i = fs.tracked; i && !unsynced; i = i->next_tracked)
        unsynced = path_of(i) && (i->unsynced_count || !same_as_durable(i));
    if (unsynced && hfp_crash_decided()) hfp_machine_crash("as the program exits, its writes not all synced");
}

/* ---- Reads and writes ------------------------------------------------------- */

static ssize_t write_at(hfp_fd *d, const void *buffer, size_t count, size_t offset) {
    if (!d->writable) { errno = EBADF; return -1; }
    if (count == 0) return 0;
    crash_point("a write to", d->inode);
    count = write_fault(d, count, offset);
    if (count == 0) { errno = EIO; return -1; }
    changing(d->inode, offset, buffer, count);
    load(d->inode);
    if (offset + count > d->inode->size) resize(d->inode, offset + count);
    memcpy(d->inode->data + offset, buffer, count);
    d->inode->changed = true;
    d->inode->modified = now();
    return (ssize_t)count;
}

static ssize_t read_on(hfp_fd *d, void *buffer, size_t count) {
    if (d->inode->pipe) return d->readable ? read_pipe(d, buffer, count) : (errno = EBADF, -1);
    ssize_t n = read_at(d, buffer, count, d->offset);
    if (n > 0) d->offset += (size_t)n;
    return n;
}

static ssize_t write_on(hfp_fd *d, const void *buffer, size_t count) {
    if (d->inode->pipe) return d->writable ? write_pipe(d, buffer, count) : (errno = EBADF, -1);
    if (d->append) d->offset = d->inode->size;
    ssize_t n = write_at(d, buffer, count, d->offset);
    if (n > 0) d->offset += (size_t)n;
    return n;
}

ssize_t hfp_read(int fd, void *buffer, size_t count);
ssize_t hfp_read(int fd, void *buffer, size_t count) {
    point();
    if (fd == 0) {
        size_t n = fread(buffer, 1, count, hfp_stdin);
        return (ssize_t)n;
    }
    if (is_standard(fd)) { errno = EBADF; return -1; }
    hfp_fd *d = descriptor(fd);
    return d ? read_on(d, buffer, count) : -1;
}

ssize_t hfp_write(int fd, const void *buffer, size_t count);
ssize_t hfp_write(int fd, const void *buffer, size_t count) {
    point();
    if (fd == 1 || fd == 2) {
        FILE *out = fd == 1 ? hfp_stdout : hfp_stderr;
        size_t n = fwrite(buffer, 1, count, out);
        fflush(out);
        return (ssize_t)n;
    }
    if (is_standard(fd)) { errno = EBADF; return -1; }
    hfp_fd *d = descriptor(fd);
    return d ? write_on(d, buffer, count) : -1;
}

/* The descriptor of a pread or pwrite at `offset`, or NULL with errno set:
 * the standard streams and pipes have no offsets. */
static hfp_fd *positioned(int fd, off_t offset) {
    point();
    hfp_fd *d = is_standard(fd) ? NULL : descriptor(fd);
    if (is_standard(fd) || (d && d->inode->pipe)) { errno = ESPIPE; return NULL; }
    if (d && offset < 0) { errno = EINVAL; return NULL; }
    return d;
}

ssize_t hfp_pread(int fd, void *buffer, size_t count, off_t offset);
ssize_t hfp_pread(int fd, void *buffer, size_t count, off_t offset) {
    hfp_fd *d = positioned(fd, offset);
    return d ? read_at(d, buffer, count, (size_t)offset) : -1;
}

ssize_t hfp_pwrite(int fd, const void *buffer, size_t count, off_t offset);
ssize_t hfp_pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    hfp_fd *d = positioned(fd, offset);
    return d ? write_at(d, buffer, count, (size_t)offset) : -1;
}

static off_t seek_on(hfp_fd *d, off_t offset, int whence) {
    if (d->inode->pipe) { errno = ESPIPE; return -1; }
    off_t base = 0;
    if (whence == SEEK_CUR) base = (off_t)d->offset;
    else if (whence == SEEK_END) base = (off_t)d->inode->size;
    else if (whence != SEEK_SET) { errno = EINVAL; return -1; }
    if (base + offset < 0) { errno = EINVAL; return -1; }
    d->offset = (size_t)(base + offset);
    return (off_t)d->offset;
}

off_t hfp_lseek(int fd, off_t offset, int whence);
off_t hfp_lseek(int fd, off_t offset, int whence) {
    point();
    if (is_standard(fd)) { errno = ESPIPE; return -1; }
    hfp_fd *d = descriptor(fd);
    return d ? seek_on(d, offset, whence) : -1;
}

/* The run's files are its memory: synced as soon as written, unless a
 * file fault says the sync failed. */
int hfp_fsync(int fd);
int hfp_fsync(int fd) {
    point();
    if (is_standard(fd)) return 0;
    hfp_fd *d = descriptor(fd);
    if (!d) return -1;
    crash_point("an fsync of", d->inode);
    bool failed = sync_fault(d);
    synced(d->inode, !failed);
    if (failed) { errno = EIO; return -1; }
    return 0;
}

int hfp_fdatasync(int fd);
int hfp_fdatasync(int fd) { return hfp_fsync(fd); }

int hfp_ftruncate(int fd, off_t length);
int hfp_ftruncate(int fd, off_t length) {
    point();
    hfp_fd *d = descriptor(fd);
    if (!d) return -1;
    if (!d->writable || d->inode->pipe || length < 0) { errno = EINVAL; return -1; }
    truncate_file(d->inode, (size_t)length);
    return 0;
}

int hfp_truncate(const char *path, off_t length);
int hfp_truncate(const char *path, off_t length) {
    point();
    char absolute[HFP_PATH_MAX];
    hfp_inode *i = lookup(path, absolute);
    if (!i) return -1;
    if (i->directory) { errno = EISDIR; return -1; }
    if (length < 0) { errno = EINVAL; return -1; }
    truncate_file(i, (size_t)length);
    return 0;
}

/* ---- Names -------------------------------------------------------------------- */

static void fill_stat(const hfp_inode *i, struct stat *st) {
    memset(st, 0, sizeof *st);
    st->st_dev = 1;
    st->st_ino = i->number;
    st->st_mode = i->directory ? S_IFDIR | 0755 : i->pipe ? S_IFIFO | 0600 : S_IFREG | 0644;
    st->st_nlink = i->directory ? 2 : 1;
    if (!i->directory) st->st_size = (off_t)(i->size - i->pipe_start);
    st->st_blksize = 4096;
    st->st_blocks = (st->st_size + 511) / 512;
    st->st_atim = st->st_mtim = st->st_ctim = i->modified;
}

int hfp_stat(const char *path, struct stat *st);
int hfp_stat(const char *path, struct stat *st) {
    point();
    char absolute[HFP_PATH_MAX];
    hfp_inode *i = lookup(path, absolute);
    if (!i) return -1;
    fill_stat(i, st);
    return 0;
}

/* The run's files have no symbolic links. */
int hfp_lstat(const char *path, struct stat *st);
int hfp_lstat(const char *path, struct stat *st) { return hfp_stat(path, st); }

int hfp_fstat(int fd, struct stat *st);
int hfp_fstat(int fd, struct stat *st) {
    point();
    if (is_standard(fd)) {
        memset(st, 0, sizeof *st);
        st->st_mode = S_IFCHR | 0620;
        st->st_blksize = 4096;
        return 0;
    }
    hfp_fd *d = descriptor(fd);
    if (!d) return -1;
    fill_stat(d->inode, st);
    return 0;
}

int hfp_access(const char *path, int mode);
int hfp_access(const char *path, int mode) {
    (void)mode;   /* the run may read and write every file it has */
    point();
    char absolute[HFP_PATH_MAX];
    return lookup(path, absolute) ? 0 : -1;
}

int hfp_unlink(const char *path);
int hfp_unlink(const char *path) {
    point();
    char absolute[HFP_PATH_MAX];
    hfp_inode *i = lookup(path, absolute);
    if (!i) return -1;
    if (i->directory) { errno = EISDIR; return -1; }
    crash_point("removing", i);
    entry(absolute)->inode = NULL;   /* open descriptors keep the inode */
    return 0;
}

int hfp_rename(const char *from, const char *to);
int hfp_rename(const char *from, const char *to) {
    point();
    char source[HFP_PATH_MAX], target[HFP_PATH_MAX];
    hfp_inode *i = lookup(from, source);
    if (!i) return -1;
    if (i->directory) unsupported("rename of a directory");
    hfp_inode *old = lookup(to, target);
    if (!old && (errno != ENOENT || !parent_exists(target))) return -1;
    if (old && old->directory) { errno = EISDIR; return -1; }
    if (!strcmp(source, target)) return 0;
    crash_point("renaming", i);
    entry_made(target)->inode = i;
    entry(source)->inode = NULL;
    return 0;
}

int hfp_mkdir(const char *path, mode_t mode);
int hfp_mkdir(const char *path, mode_t mode) {
    (void)mode;
    point();
    char absolute[HFP_PATH_MAX];
    if (lookup(path, absolute)) { errno = EEXIST; return -1; }
    if (errno != ENOENT || !parent_exists(absolute)) return -1;
    entry_made(absolute)->inode = new_inode(true, NULL);
    return 0;
}

/* The directory's names, sorted, without "." and ".." (an arena array of
 * *count arena strings). */
static char **names_in(const char *absolute, const hfp_inode *dir, size_t *count);

int hfp_rmdir(const char *path);
int hfp_rmdir(const char *path) {
    point();
    char absolute[HFP_PATH_MAX];
    hfp_inode *i = lookup(path, absolute);
    if (!i) return -1;
    if (!i->directory) { errno = ENOTDIR; return -1; }
    size_t count;
    names_in(absolute, i, &count);
    if (count) { errno = ENOTEMPTY; return -1; }
    entry(absolute)->inode = NULL;
    return 0;
}

int hfp_remove(const char *path);
int hfp_remove(const char *path) {
    char absolute[HFP_PATH_MAX];
    hfp_inode *i = lookup(path, absolute);
    if (!i) return -1;
    return i->directory ? hfp_rmdir(path) : hfp_unlink(path);
}

/* A name nobody else has, the same in every run: TEMPLATE's XXXXXX
 * replaced by a count. */
int hfp_mkstemp(char *template);
int hfp_mkstemp(char *template) {
    size_t n = template ? strlen(template) : 0;
    if (n < 6 || strcmp(template + n - 6, "XXXXXX")) { errno = EINVAL; return -1; }
    for (;;) {
        snprintf(template + n - 6, 7, "%06u", ++fs.temporaries % 1000000);
        int fd = hfp_open(template, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
}

/* Attributes are not kept: a file the run has may be changed so. */
static int keep_attributes(const char *path) {
    point();
    char absolute[HFP_PATH_MAX];
    return lookup(path, absolute) ? 0 : -1;
}

int hfp_chmod(const char *path, mode_t mode);
int hfp_chmod(const char *path, mode_t mode) { (void)mode; return keep_attributes(path); }

int hfp_chown(const char *path, uid_t owner, gid_t group);
int hfp_chown(const char *path, uid_t owner, gid_t group) {
    (void)owner;
    (void)group;
    return keep_attributes(path);
}

int hfp_utimes(const char *path, const void *times);
int hfp_utimes(const char *path, const void *times) { (void)times; return keep_attributes(path); }

int hfp_utime(const char *path, const void *times);
int hfp_utime(const char *path, const void *times) { (void)times; return keep_attributes(path); }

int hfp_fchmod(int fd, mode_t mode);
int hfp_fchmod(int fd, mode_t mode) {
    (void)mode;
    point();
    return descriptor(fd) ? 0 : -1;
}

int hfp_fchown(int fd, uid_t owner, gid_t group);
int hfp_fchown(int fd, uid_t owner, gid_t group) {
    (void)owner;
    (void)group;
    point();
    return descriptor(fd) ? 0 : -1;
}

/* ---- Directories ------------------------------------------------------------ */

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A growing list of names, in the arena. */
typedef struct name_list { char **names; size_t count, capacity; } name_list;

static void add_name(name_list *l, const char *name) {
    for (size_t k = 0; k < l->count; k++)
        if (!strcmp(l->names[k], name)) return;
    if (l->count == l->capacity) {
        l->capacity = l->capacity ? 2 * l->capacity : 16;
        char **grown = hf_alloc(l->capacity * sizeof *grown);
        if (l->count) memcpy(grown, l->names, l->count * sizeof *grown);
        l->names = grown;
    }
    l->names[l->count++] = hf_strdup(name);
}

static char **names_in(const char *absolute, const hfp_inode *dir, size_t *count) {
    name_list l = {0};
    size_t prefix = strcmp(absolute, "/") ? strlen(absolute) : 0;
    char path[HFP_PATH_MAX];
    /* A real name is listed unless the run removed it... */
    DIR *d = dir->real ? opendir(dir->real) : NULL;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (snprintf(path, sizeof path, "%.*s/%s", (int)prefix, absolute, e->d_name) >= (int)sizeof path) continue;
        hfp_path *p = entry(path);
        if (p && p->inode) add_name(&l, e->d_name);
    }
    if (d) closedir(d);
    /* ...and so is every name the run made or renamed there. */
    for (size_t s = 0; s < PATH_SLOTS; s++)
        for (hfp_path *p = fs.slot[s]; p; p = p->next) {
            const char *name = p->path + prefix + 1;
            if (p->inode && !strncmp(p->path, absolute, prefix) && p->path[prefix] == '/' && *name &&
                !strchr(name, '/'))
                add_name(&l, name);
        }
    if (l.count) qsort(l.names, l.count, sizeof *l.names, by_name);
    *count = l.count;
    return l.names;
}

/* What opendir hands the program: its own, never a real DIR. */
typedef struct hfp_dir {
    uint32_t magic;
    char **names;
    size_t count, next;
    struct dirent entry;
} hfp_dir;

enum { DIR_MAGIC = 0x68666469 };

DIR *hfp_opendir(const char *path);
DIR *hfp_opendir(const char *path) {
    point();
    char absolute[HFP_PATH_MAX];
    hfp_inode *i = lookup(path, absolute);
    if (!i) return NULL;
    if (!i->directory) { errno = ENOTDIR; return NULL; }
    hfp_dir *d = hf_alloc(sizeof *d);
    d->magic = DIR_MAGIC;
    d->names = names_in(absolute, i, &d->count);
    return (DIR *)d;
}

static hfp_dir *dir_of(DIR *dir) {
    hfp_dir *d = (hfp_dir *)dir;
    assert(d && d->magic == DIR_MAGIC && "a DIR the pthread layer did not open");
    return d;
}

struct dirent *hfp_readdir(DIR *dir);
struct dirent *hfp_readdir(DIR *dir) {
    point();
    hfp_dir *d = dir_of(dir);
    if (d->next == d->count) return NULL;
    memset(&d->entry, 0, sizeof d->entry);
    snprintf(d->entry.d_name, sizeof d->entry.d_name, "%s", d->names[d->next++]);
    d->entry.d_ino = d->next;
    d->entry.d_type = DT_UNKNOWN;
    return &d->entry;
}

int hfp_closedir(DIR *dir);
int hfp_closedir(DIR *dir) {
    point();
    dir_of(dir)->magic = 0;   /* the arena takes it back at the run's end */
    return 0;
}

void hfp_rewinddir(DIR *dir);
void hfp_rewinddir(DIR *dir) { dir_of(dir)->next = 0; }

/* ---- Streams -------------------------------------------------------------------- */

/* The stream's descriptor, when it is of this run. */
static hfp_fd *stream_fd(hfp_stream *s) { return s->run == hfp.run ? descriptor(s->fd) : NULL; }

static ssize_t stream_read(void *cookie, char *buffer, size_t size) {
    hfp_fd *d = stream_fd(cookie);
    return d ? read_on(d, buffer, size) : -1;
}

static ssize_t stream_write(void *cookie, const char *buffer, size_t size) {
    hfp_fd *d = stream_fd(cookie);
    return d ? write_on(d, buffer, size) : -1;   /* 0 would tell stdio nothing was written */
}

static int stream_seek(void *cookie, off64_t *offset, int whence) {
    hfp_fd *d = stream_fd(cookie);
    off_t at = d ? seek_on(d, (off_t)*offset, whence) : -1;
    if (at < 0) return -1;
    *offset = at;
    return 0;
}

static int stream_close(void *cookie) {
    hfp_stream *s = cookie;
    hfp_fd *d = stream_fd(s);
    if (d) release(d);
    for (hfp_stream **p = &fs.streams; *p; p = &(*p)->next)
        if (*p == s) { *p = s->next; break; }
    free(s);
    return 0;
}

static const cookie_io_functions_t stream_functions = {stream_read, stream_write, stream_seek, stream_close};

FILE *hfp_fdopen(int fd, const char *mode);
FILE *hfp_fdopen(int fd, const char *mode) {
    point();
    if (fd == 0) return hfp_stdin;
    if (fd == 1) return hfp_stdout;
    if (fd == 2) return hfp_stderr;
    if (!descriptor(fd)) return NULL;
    hfp_stream *s = malloc(sizeof *s);
    if (!s) { errno = ENOMEM; return NULL; }
    *s = (hfp_stream){.fd = fd, .run = hfp.run};
    s->file = fopencookie(s, mode, stream_functions);
    if (!s->file) { free(s); return NULL; }
    s->next = fs.streams;
    fs.streams = s;
    return s->file;
}

/* fopen's MODE as open's flags; -1 for a mode C does not define. */
static int mode_flags(const char *mode) {
    int flags;
    switch (mode[0]) {
    case 'r': flags = 0; break;
    case 'w': flags = O_CREAT | O_TRUNC; break;
    case 'a': flags = O_CREAT | O_APPEND; break;
    default: return -1;
    }
    bool plus = strchr(mode, '+') != NULL;
    flags |= plus ? O_RDWR : mode[0] == 'r' ? O_RDONLY : O_WRONLY;
    if (strchr(mode, 'x')) flags |= O_EXCL;
    return flags;
}

FILE *hfp_fopen(const char *path, const char *mode);
FILE *hfp_fopen(const char *path, const char *mode) {
    int flags = mode ? mode_flags(mode) : -1;
    if (flags < 0) { errno = EINVAL; return NULL; }
    int fd = hfp_open(path, flags, 0666);
    if (fd < 0) return NULL;
    FILE *f = hfp_fdopen(fd, mode);
    if (!f) fs.fd[fd].inode = NULL;
    return f;
}

/* The layer's stdin and output belong to the process, not to one run:
 * closing them (zstd closes its output, stdout) flushes them, and the next
 * run has them again. */
int hfp_fclose(FILE *f);
int hfp_fclose(FILE *f) {
    if (f == hfp_stdin) return 0;
    if (f == hfp_stdout || f == hfp_stderr) return fflush(f);
    return fclose(f);
}

int hfp_fileno(FILE *f);
int hfp_fileno(FILE *f) {
    if (f == hfp_stdin) return 0;
    if (f == hfp_stdout) return 1;
    if (f == hfp_stderr) return 2;
    for (hfp_stream *s = fs.streams; s; s = s->next)
        if (s->file == f) return s->fd;
    errno = EBADF;
    return -1;
}

/* A pipe between the run's threads (xz's own, which its signal handler
 * would write to). */
int hfp_pipe2(int fds[2], int flags);
int hfp_pipe2(int fds[2], int flags) {
    point();
    if (flags & ~(O_NONBLOCK | O_CLOEXEC)) unsupported("pipe2 with flags other than O_NONBLOCK and O_CLOEXEC");
    int in = free_descriptor(3), out = in < 0 ? -1 : free_descriptor(in + 1);
    if (out < 0) return -1;
    hfp_inode *p = new_inode(false, NULL);
    p->pipe = true;
    p->readers = p->writers = 1;
    bool nonblocking = (flags & O_NONBLOCK) != 0;
    fs.fd[in] = (hfp_fd){.inode = p, .readable = true, .nonblocking = nonblocking};
    fs.fd[out] = (hfp_fd){.inode = p, .writable = true, .nonblocking = nonblocking};
    fds[0] = in;
    fds[1] = out;
    return 0;
}

int hfp_pipe(int fds[2]);
int hfp_pipe(int fds[2]) { return hfp_pipe2(fds, 0); }

/* A descriptor's flags, which programs read to see that 0, 1 and 2 are
 * open (xz does) and set to append or not block; what else fcntl does
 * (duplicating, locks, leases) is not covered. */
int hfp_fcntl(int fd, int command, ...);
int hfp_fcntl(int fd, int command, ...) {
    point();
    hfp_fd *d = is_standard(fd) ? NULL : descriptor(fd);
    if (!is_standard(fd) && !d) return -1;
    va_list ap;
    va_start(ap, command);
    int value = command == F_SETFD || command == F_SETFL ? va_arg(ap, int) : 0;
    va_end(ap);
    switch (command) {
    case F_GETFD: return 0;
    case F_SETFD: return 0;   /* close-on-exec: no run executes anything */
    case F_GETFL:
        if (!d) return fd == 0 ? O_RDONLY : O_WRONLY;
        return (d->readable && d->writable ? O_RDWR : d->writable ? O_WRONLY : O_RDONLY) | (d->append ? O_APPEND : 0) |
               (d->nonblocking ? O_NONBLOCK : 0);
    case F_SETFL:
        if (d) {
            d->append = (value & O_APPEND) != 0;
            d->nonblocking = (value & O_NONBLOCK) != 0;   /* a file never blocks; a pipe may */
        }
        return 0;
    default: unsupported("fcntl of a command other than F_GETFD, F_SETFD, F_GETFL, F_SETFL");
    }
}

/* No descriptor of a run is a terminal: the fuzzer's own stdin may be one,
 * or not, from one machine to the next. */
int hfp_isatty(int fd);
int hfp_isatty(int fd) {
    point();
    errno = is_standard(fd) || descriptor(fd) ? ENOTTY : EBADF;
    return 0;
}

/* ---- Calls on descriptors the layer does not cover ------------------------- */

/* Anonymous memory is the program's own; a file's is not covered. */
void *hfp_mmap(void *address, size_t length, int protection, int flags, int fd, off_t offset);
void *hfp_mmap(void *address, size_t length, int protection, int flags, int fd, off_t offset) {
    if (!(flags & MAP_ANONYMOUS)) unsupported("mmap of a file");
    return mmap(address, length, protection, flags, fd, offset);
}

int hfp_dup(int fd);
int hfp_dup(int fd) { (void)fd; unsupported("dup"); }

int hfp_dup2(int fd, int to);
int hfp_dup2(int fd, int to) { (void)fd; (void)to; unsupported("dup2"); }


int hfp_ioctl(int fd, unsigned long request, ...);
int hfp_ioctl(int fd, unsigned long request, ...) { (void)fd; (void)request; unsupported("ioctl"); }


ssize_t hfp_readv(int fd, const void *iov, int count);
ssize_t hfp_readv(int fd, const void *iov, int count) { (void)fd; (void)iov; (void)count; unsupported("readv"); }

ssize_t hfp_writev(int fd, const void *iov, int count);
ssize_t hfp_writev(int fd, const void *iov, int count) { (void)fd; (void)iov; (void)count; unsupported("writev"); }

int hfp_socket(int domain, int type, int protocol);
int hfp_socket(int domain, int type, int protocol) {
    (void)domain;
    (void)type;
    (void)protocol;
    unsupported("socket");
}

int hfp_chdir(const char *path);
int hfp_chdir(const char *path) { (void)path; unsupported("chdir"); }

int hfp_link(const char *from, const char *to);
int hfp_link(const char *from, const char *to) { (void)from; (void)to; unsupported("link"); }

int hfp_symlink(const char *from, const char *to);
int hfp_symlink(const char *from, const char *to) { (void)from; (void)to; unsupported("symlink"); }

/* ---- The 64-bit names ------------------------------------------------------------ */

/* With _FILE_OFFSET_BITS=64 a program calls open64, stat64, ...: on a
 * 64-bit machine the same calls (off_t is 64 bits, struct stat64 is struct
 * stat), under names of their own, since a renaming maps one name to one. */
extern __typeof__(hfp_open) hfp_open64 __attribute__((alias("hfp_open")));
extern __typeof__(hfp_openat) hfp_openat64 __attribute__((alias("hfp_openat")));
extern __typeof__(hfp_creat) hfp_creat64 __attribute__((alias("hfp_creat")));
extern __typeof__(hfp_pread) hfp_pread64 __attribute__((alias("hfp_pread")));
extern __typeof__(hfp_pwrite) hfp_pwrite64 __attribute__((alias("hfp_pwrite")));
extern __typeof__(hfp_lseek) hfp_lseek64 __attribute__((alias("hfp_lseek")));
extern __typeof__(hfp_ftruncate) hfp_ftruncate64 __attribute__((alias("hfp_ftruncate")));
extern __typeof__(hfp_truncate) hfp_truncate64 __attribute__((alias("hfp_truncate")));
extern __typeof__(hfp_stat) hfp_stat64 __attribute__((alias("hfp_stat")));
extern __typeof__(hfp_lstat) hfp_lstat64 __attribute__((alias("hfp_lstat")));
extern __typeof__(hfp_fstat) hfp_fstat64 __attribute__((alias("hfp_fstat")));
extern __typeof__(hfp_mkstemp) hfp_mkstemp64 __attribute__((alias("hfp_mkstemp")));
extern __typeof__(hfp_readdir) hfp_readdir64 __attribute__((alias("hfp_readdir")));
extern __typeof__(hfp_fopen) hfp_fopen64 __attribute__((alias("hfp_fopen")));
extern __typeof__(hfp_mmap) hfp_mmap64 __attribute__((alias("hfp_mmap")));
extern __typeof__(hfp_fcntl) hfp_fcntl64 __attribute__((alias("hfp_fcntl")));
