/*
 * pagecache: the test's view of the page cache, without any Java.
 *   pagecache evict FILE...     write back dirty pages (fdatasync), then drop the file's pages
 *                               (posix_fadvise POSIX_FADV_DONTNEED): the next read goes to the disk
 *   pagecache resident FILE...  prints "<resident pages> <total pages> FILE" per file (mincore)
 *   pagecache pin FILE...       loads the files and locks them in memory (mmap, mlock), prints
 *                               "pinned", and holds them until its stdin closes: the kernel may
 *                               not reclaim them meanwhile (this VM's proactive reclaim, DAMON
 *                               pageout, drops page-cache pages untouched for seconds)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int evict(const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); return 1; }
    fdatasync(fd);
    int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    if (rc != 0) { fprintf(stderr, "%s: posix_fadvise failed (%d)\n", path, rc); return 1; }
    return 0;
}

static int resident(const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) { perror(path); return 1; }
    struct stat st;
    if (fstat(fd, &st) != 0) { perror(path); close(fd); return 1; }
    long page = sysconf(_SC_PAGESIZE);
    size_t pages = (size_t) ((st.st_size + page - 1) / page);
    size_t in = 0;
    if (pages > 0) {
        void *map = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_SHARED, fd, 0);
        unsigned char *vec = malloc(pages);
        if (map == MAP_FAILED || vec == NULL || mincore(map, (size_t) st.st_size, vec) != 0) {
            perror(path); close(fd); return 1;
        }
        for (size_t i = 0; i < pages; i++) in += vec[i] & 1;
        free(vec);
        munmap(map, (size_t) st.st_size);
    }
    close(fd);
    printf("%zu %zu %s\n", in, pages, path);
    return 0;
}

static int pin(int n, char **paths) {
    for (int i = 0; i < n; i++) {
        int fd = open(paths[i], O_RDONLY);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0) { perror(paths[i]); return 1; }
        if (st.st_size > 0) {
            void *map = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_SHARED, fd, 0);
            if (map == MAP_FAILED || mlock(map, (size_t) st.st_size) != 0) { perror(paths[i]); return 1; }
        }
        close(fd); /* the mapping keeps the file */
    }
    printf("pinned\n");
    fflush(stdout);
    char buf[256];
    while (read(0, buf, sizeof buf) > 0) {
    }
    return 0; /* exit unmaps and unlocks */
}

int main(int argc, char **argv) {
    if (argc < 3 || (strcmp(argv[1], "evict") != 0 && strcmp(argv[1], "resident") != 0 && strcmp(argv[1], "pin") != 0)) {
        fprintf(stderr, "usage: pagecache evict|resident|pin FILE...\n");
        return 2;
    }
    if (strcmp(argv[1], "pin") == 0) {
        return pin(argc - 2, argv + 2);
    }
    int failed = 0;
    for (int i = 2; i < argc; i++) {
        failed |= strcmp(argv[1], "evict") == 0 ? evict(argv[i]) : resident(argv[i]);
    }
    return failed;
}
