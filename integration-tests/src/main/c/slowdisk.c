/*
 * libslowdisk.so: an LD_PRELOAD shim that makes the local disk behave like a slow one for chosen
 * paths, so storage stalls can be reproduced on any machine. It only adds latency: every call still
 * does the real work.
 *
 *   SLOWDISK_FSYNC_PATHS   extended regex on the fd's path: fsync/fdatasync on matching files
 *   SLOWDISK_FSYNC_MS      ... sleep this long first (a spinning disk's flush)
 *   SLOWDISK_READ_PATHS    extended regex: pread/sendfile from matching files
 *   SLOWDISK_READ_MS       ... a call that read pages not in the page cache waits this long once
 *   SLOWDISK_READ_SEEK_MS  ... plus this long per cold extent (run of adjacent non-resident pages): a seek
 *   SLOWDISK_READ_MS_PER_MIB  ... plus this much per MiB not resident (the disk's transfer rate;
 *                          decimals allowed: 8.4 is a 125 MB/s disk)
 *   SLOWDISK_LOG           optional file: one line per call that matched a pattern
 *   SLOWDISK_FAIL_PATHS    extended regex on the fd's path: fsync/fdatasync on matching files fail with EIO
 *   SLOWDISK_FAIL_TRIGGER  ... from the moment this file exists (switchable at run time), without syncing:
 *                          a disk whose writeback failed (simulated: the data is still in the page cache)
 *
 * What a cold read simulates (a spinning disk, no device cache, nothing queued behind it):
 * - Residency is asked of the kernel with mincore(2) on a temporary read-only mapping of the range,
 *   just before the real call.
 * - Readahead is off for matching files (posix_fadvise POSIX_FADV_RANDOM on the fd before each call),
 *   so each call loads exactly the pages it reads and a cold range stays cold until it is read:
 *   without this the kernel's readahead brings in the next reads' pages for free (no simulated cost).
 * - The delay is charged after the real call, for the cold pages within the bytes the call actually
 *   returned or sent (a partial sendfile to a full socket pays only for what it sent); the calling
 *   thread is blocked for it exactly as it would be on the disk.
 * In a profiler's recording a delayed thread shows this shim's frames (__nanosleep <- sleep_ms <- before_fsync
 * <- fsync ...) where a real slow disk shows the kernel's wait below the same call.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int fsync_on, read_on;
static regex_t fsync_re, read_re;
static long fsync_ms, read_ms, read_seek_ms;
static double read_ms_per_mib;
static int log_fd = -1;

static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static ssize_t (*real_pread64)(int, void *, size_t, off_t);
static ssize_t (*real_sendfile64)(int, int, off_t *, size_t);

static long env_long(const char *name) {
    const char *v = getenv(name);
    return v == NULL ? 0 : atol(v);
}

static int env_regex(const char *name, regex_t *re) {
    const char *v = getenv(name);
    if (v == NULL || *v == '\0') return 0;
    if (regcomp(re, v, REG_EXTENDED | REG_NOSUB) != 0) {
        fprintf(stderr, "slowdisk: bad regex in %s: %s\n", name, v);
        return 0;
    }
    return 1;
}

static void init(void) {
    real_fsync = (int (*)(int)) dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = (int (*)(int)) dlsym(RTLD_NEXT, "fdatasync");
    real_pread64 = (ssize_t (*)(int, void *, size_t, off_t)) dlsym(RTLD_NEXT, "pread64");
    real_sendfile64 = (ssize_t (*)(int, int, off_t *, size_t)) dlsym(RTLD_NEXT, "sendfile64");
    fsync_on = env_regex("SLOWDISK_FSYNC_PATHS", &fsync_re);
    read_on = env_regex("SLOWDISK_READ_PATHS", &read_re);
    fsync_ms = env_long("SLOWDISK_FSYNC_MS");
    read_ms = env_long("SLOWDISK_READ_MS");
    read_seek_ms = env_long("SLOWDISK_READ_SEEK_MS");
    const char *per_mib = getenv("SLOWDISK_READ_MS_PER_MIB");
    read_ms_per_mib = per_mib == NULL ? 0 : atof(per_mib);
    const char *log = getenv("SLOWDISK_LOG");
    if (log != NULL && *log != '\0') {
        log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    }
}

/* The fd's path, or 0 when it has none (socket, pipe). */
static int fd_path(int fd, char *buf, size_t size) {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, buf, size - 1);
    if (n <= 0) return 0;
    buf[n] = '\0';
    return buf[0] == '/';
}

static void sleep_ms(double ms) {
    if (ms <= 0) return;
    struct timespec ts;
    ts.tv_sec = (time_t) (ms / 1000);
    ts.tv_nsec = (long) ((ms - ts.tv_sec * 1000.0) * 1e6);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* One line per matched call: "<call> <delay_ms> <cold_bytes> <tid> <thread name> <path>". */
static void log_call(const char *call, double delay, long long cold, const char *path) {
    if (log_fd < 0) return;
    char name[32] = "?";
    pthread_getname_np(pthread_self(), name, sizeof name);
    char line[4352];
    int n = snprintf(line, sizeof line, "%s %.3f %lld %ld %s %s\n", call, delay, cold,
                     (long) syscall(SYS_gettid), name, path);
    if (n > 0) {
        ssize_t ignored = write(log_fd, line, n < (int) sizeof line ? (size_t) n : sizeof line - 1);
        (void) ignored;
    }
}

/* ---- read path: cold pread/sendfile ---- */

/* The residency of [offset, offset+count) just before a read, page by page. */
struct residency {
    off_t first_page;      /* file offset of vec[0] */
    size_t pages;
    unsigned char *vec;    /* bit 0: resident; NULL when unknown (then no delay) */
    unsigned char stack_vec[256];
};

static void residency_of(int fd, off_t offset, size_t count, struct residency *r) {
    r->vec = NULL;
    r->pages = 0;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || offset < 0 || offset >= st.st_size || count == 0) return;
    if ((off_t) count > st.st_size - offset) count = (size_t) (st.st_size - offset);
    long page = sysconf(_SC_PAGESIZE);
    off_t start = offset - offset % page;
    size_t len = (size_t) (offset + (off_t) count - start);
    void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, start);
    if (map == MAP_FAILED) return;
    size_t pages = (len + page - 1) / page;
    unsigned char *vec = pages <= sizeof r->stack_vec ? r->stack_vec : malloc(pages);
    if (vec != NULL && mincore(map, len, vec) == 0) {
        r->vec = vec;
        r->pages = pages;
        r->first_page = start;
    } else if (vec != NULL && vec != r->stack_vec) {
        free(vec);
    }
    munmap(map, len);
}

static void residency_free(struct residency *r) {
    if (r->vec != NULL && r->vec != r->stack_vec) free(r->vec);
    r->vec = NULL;
}

/* Cold bytes and cold extents among the pages of [offset, offset+done) as they were before the call. */
static void cold_in(const struct residency *r, off_t offset, long long done, long long *cold, long *extents) {
    *cold = 0;
    *extents = 0;
    if (r->vec == NULL || done <= 0) return;
    long page = sysconf(_SC_PAGESIZE);
    size_t from = (size_t) ((offset - r->first_page) / page);
    size_t to = (size_t) ((offset + done - 1 - r->first_page) / page) + 1;
    if (to > r->pages) to = r->pages;
    int in_cold = 0;
    for (size_t i = from; i < to; i++) {
        int is_cold = !(r->vec[i] & 1);
        if (is_cold) {
            *cold += page;
            if (!in_cold) (*extents)++;
        }
        in_cold = is_cold;
    }
}

/* Returns 1 (and fills the residency) when the call is to be charged. */
static int before_read(int fd, off_t offset, size_t count, struct residency *r, char *path, size_t size) {
    if (!read_on || !fd_path(fd, path, size) || regexec(&read_re, path, 0, NULL, 0) != 0) return 0;
    /* readahead off: the call loads only what it reads, so later reads meet their own cold pages */
    posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
    residency_of(fd, offset, count, r);
    return 1;
}

static void after_read(const char *call, const struct residency *r, off_t offset, ssize_t done, const char *path) {
    long long cold;
    long extents;
    cold_in(r, offset, done, &cold, &extents);
    double delay = cold > 0
        ? read_ms + read_seek_ms * (double) extents + read_ms_per_mib * (double) cold / (1024.0 * 1024.0) : 0;
    log_call(call, delay, cold, path);
    sleep_ms(delay);
}

static void before_fsync(const char *call, int fd) {
    char path[4096];
    if (!fsync_on || !fd_path(fd, path, sizeof path) || regexec(&fsync_re, path, 0, NULL, 0) != 0) return;
    log_call(call, (double) fsync_ms, 0, path);
    sleep_ms((double) fsync_ms);
}

static int fail_on;
static regex_t fail_re;
static const char *fail_trigger;

static void fail_init(void) {
    fail_trigger = getenv("SLOWDISK_FAIL_TRIGGER");
    fail_on = fail_trigger != NULL && *fail_trigger != '\0' && env_regex("SLOWDISK_FAIL_PATHS", &fail_re);
}

/* 1 when this fsync is to fail with EIO: a matching path while the trigger file exists. */
static int fails(const char *call, int fd) {
    if (!fail_on || access(fail_trigger, F_OK) != 0) return 0;
    char path[4096];
    if (!fd_path(fd, path, sizeof path) || regexec(&fail_re, path, 0, NULL, 0) != 0) return 0;
    log_call(call, -1.0, 0, path);
    return 1;
}

static pthread_once_t fail_once = PTHREAD_ONCE_INIT;
static void before_gate(int fd); /* the rename window's gate, below */

int fsync(int fd) {
    pthread_once(&once, init);
    pthread_once(&fail_once, fail_init);
    before_gate(fd);
    before_fsync("fsync", fd);
    if (fails("fsync_eio", fd)) {
        errno = EIO;
        return -1;
    }
    return real_fsync(fd);
}

int fdatasync(int fd) {
    pthread_once(&once, init);
    pthread_once(&fail_once, fail_init);
    before_gate(fd);
    before_fsync("fdatasync", fd);
    if (fails("fdatasync_eio", fd)) {
        errno = EIO;
        return -1;
    }
    return real_fdatasync(fd);
}

ssize_t pread64(int fd, void *buf, size_t count, off_t offset) {
    pthread_once(&once, init);
    char path[4096];
    struct residency r;
    if (!before_read(fd, offset, count, &r, path, sizeof path)) return real_pread64(fd, buf, count, offset);
    ssize_t done = real_pread64(fd, buf, count, offset);
    int saved = errno;
    after_read("pread", &r, offset, done, path);
    residency_free(&r);
    errno = saved;
    return done;
}

ssize_t pread(int fd, void *buf, size_t count, off_t offset) {
    return pread64(fd, buf, count, offset);
}

ssize_t sendfile64(int out_fd, int in_fd, off_t *offset, size_t count) {
    pthread_once(&once, init);
    off_t from = offset != NULL ? *offset : lseek(in_fd, 0, SEEK_CUR);
    char path[4096];
    struct residency r;
    if (from < 0 || !before_read(in_fd, from, count, &r, path, sizeof path)) {
        return real_sendfile64(out_fd, in_fd, offset, count);
    }
    ssize_t done = real_sendfile64(out_fd, in_fd, offset, count);
    int saved = errno;
    after_read("sendfile", &r, from, done, path);
    residency_free(&r);
    errno = saved;
    return done;
}

ssize_t sendfile(int out_fd, int in_fd, off_t *offset, size_t count) {
    return sendfile64(out_fd, in_fd, offset, count);
}

/* ---- write path (capture tests): one-shot delay of a write to a matching file -------------------
 *   SLOWDISK_WRITE_PATHS    extended regex on the fd's path: write/pwrite/writev to matching files
 *   SLOWDISK_WRITE_MS       ... sleep this long first, but only once per trigger:
 *   SLOWDISK_WRITE_TRIGGER  a file; while it exists, the next matching write removes it and is delayed
 * The trigger keeps the common path to one access(2) per write to any fd while armed and nothing
 * otherwise, and lets a test place a single stall exactly when its producers are busy.
 */
static pthread_once_t write_once = PTHREAD_ONCE_INIT;
static int write_on;
static regex_t write_re;
static long write_ms;
static const char *write_trigger;
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);

static void write_init(void) {
    pthread_once(&once, init); /* log_fd */
    real_write = (ssize_t (*)(int, const void *, size_t)) dlsym(RTLD_NEXT, "write");
    real_pwrite64 = (ssize_t (*)(int, const void *, size_t, off_t)) dlsym(RTLD_NEXT, "pwrite64");
    real_writev = (ssize_t (*)(int, const struct iovec *, int)) dlsym(RTLD_NEXT, "writev");
    write_trigger = getenv("SLOWDISK_WRITE_TRIGGER");
    write_on = write_trigger != NULL && *write_trigger != '\0' && env_regex("SLOWDISK_WRITE_PATHS", &write_re);
    write_ms = env_long("SLOWDISK_WRITE_MS");
}

static void before_write(const char *call, int fd) {
    if (!write_on || fd == log_fd || fd <= 2) return;
    if (access(write_trigger, F_OK) != 0) return;
    char path[4096];
    if (!fd_path(fd, path, sizeof path) || regexec(&write_re, path, 0, NULL, 0) != 0) return;
    if (unlink(write_trigger) != 0) return; /* another thread took this trigger */
    log_call(call, (double) write_ms, 0, path);
    sleep_ms((double) write_ms);
}

ssize_t write(int fd, const void *buf, size_t count) {
    pthread_once(&write_once, write_init);
    before_write("write", fd);
    return real_write(fd, buf, count);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) {
    pthread_once(&write_once, write_init);
    before_write("pwrite", fd);
    return real_pwrite64(fd, buf, count, offset);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
    return pwrite64(fd, buf, count, offset);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
    pthread_once(&write_once, write_init);
    before_write("writev", fd);
    return real_writev(fd, iov, iovcnt);
}

/* ---- rename window (log-dir move tests): widen what follows a directory rename -----------------------
 *   SLOWDISK_RENAME_PATHS   extended regex on the NEW path of a successful rename(2)
 *   SLOWDISK_RENAME_MS      ... the renaming thread sleeps this long after the real rename returns: what the
 *                           caller does next (Kafka's renameDir: the parent-dir fsync, then dir() updated)
 *                           comes that much later. Logged "rename" before the sleep, "rename_end" after it.
 *   SLOWDISK_GATE_PATHS     extended regex on the fd's path: fsync/fdatasync of matching files wait until a
 *                           rename matching SLOWDISK_RENAME_PATHS has happened (at most SLOWDISK_GATE_MAX_MS,
 *                           default 30000), so that work queued behind them starts inside the rename's window.
 *                           Logged "gate_hold" when one starts to wait, then "gate" (released by the rename)
 *                           or "gate_timeout", with the ms waited.
 *   SLOWDISK_ENOENT_PATHS   extended regex: an open64(2) of a matching path that fails with ENOENT is logged
 *                           "open_enoent" (nothing else changes): who looked for a file that was not there.
 */
static pthread_once_t rename_once = PTHREAD_ONCE_INIT;
static int rename_on, gate_on, enoent_on;
static regex_t rename_re, gate_re, enoent_re;
static long rename_ms, gate_max_ms;
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_open;
static int (*real_rename)(const char *, const char *);
static int (*real_open64)(const char *, int, ...);

static void rename_init(void) {
    pthread_once(&once, init); /* log_fd */
    real_rename = (int (*)(const char *, const char *)) dlsym(RTLD_NEXT, "rename");
    real_open64 = (int (*)(const char *, int, ...)) dlsym(RTLD_NEXT, "open64");
    rename_on = env_regex("SLOWDISK_RENAME_PATHS", &rename_re);
    gate_on = rename_on && env_regex("SLOWDISK_GATE_PATHS", &gate_re);
    enoent_on = env_regex("SLOWDISK_ENOENT_PATHS", &enoent_re);
    rename_ms = env_long("SLOWDISK_RENAME_MS");
    gate_max_ms = getenv("SLOWDISK_GATE_MAX_MS") == NULL ? 30000 : env_long("SLOWDISK_GATE_MAX_MS");
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/* Called before every fsync/fdatasync: a matching one waits for the gate (a matching rename). */
static void before_gate(int fd) {
    pthread_once(&rename_once, rename_init);
    if (!gate_on) return;
    char path[4096];
    if (!fd_path(fd, path, sizeof path) || regexec(&gate_re, path, 0, NULL, 0) != 0) return;
    double start = now_ms();
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += gate_max_ms / 1000;
    until.tv_nsec += (gate_max_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    int timed_out = 0;
    pthread_mutex_lock(&gate_lock);
    if (!gate_open) log_call("gate_hold", 0, 0, path);
    while (!gate_open && !timed_out) {
        timed_out = pthread_cond_timedwait(&gate_cond, &gate_lock, &until) == ETIMEDOUT;
    }
    timed_out = !gate_open;
    pthread_mutex_unlock(&gate_lock);
    log_call(timed_out ? "gate_timeout" : "gate", now_ms() - start, 0, path);
}

int rename(const char *oldpath, const char *newpath) {
    pthread_once(&rename_once, rename_init);
    int rc = real_rename(oldpath, newpath);
    if (rc != 0 || !rename_on || newpath == NULL || regexec(&rename_re, newpath, 0, NULL, 0) != 0) return rc;
    int saved = errno;
    log_call("rename", (double) rename_ms, 0, newpath);
    pthread_mutex_lock(&gate_lock);
    gate_open = 1;
    pthread_cond_broadcast(&gate_cond);
    pthread_mutex_unlock(&gate_lock);
    sleep_ms((double) rename_ms);
    log_call("rename_end", (double) rename_ms, 0, newpath);
    errno = saved;
    return rc;
}

int open64(const char *path, int flags, ...) {
    pthread_once(&rename_once, rename_init);
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t) va_arg(ap, int);
        va_end(ap);
    }
    int fd = real_open64(path, flags, mode);
    if (fd < 0 && errno == ENOENT && enoent_on && regexec(&enoent_re, path, 0, NULL, 0) == 0) {
        int saved = errno;
        log_call("open_enoent", 0, 0, path);
        errno = saved;
    }
    return fd;
}
