/*
 * tablefile.c - the table file format: a 64-byte checksummed header followed
 * by an opaque payload (byte-exact description in docs/tables.md).
 *
 * Writing goes through a temporary file and rename() so a reader never sees
 * a half-written table, and a file is never changed in place once written
 * (readers may map it). Reading checks the header from a 64-byte pread,
 * then maps the whole file from the page cache (or, where the kernel cannot
 * give it 2 MiB pages there, reads it into huge-page memory) and verifies
 * the payload checksum with several threads.
 * Nothing here knows about the solver: kind, metric and sizes are numbers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "internal.h"
#include "qtab.h"

#ifndef MAP_POPULATE
#define MAP_POPULATE 0 /* only a prefetch hint; correctness does not need it */
#endif

#define FORMAT_VERSION 1u
#define ENDIAN_MARK 0x01020304u
#define ENDIAN_MARK_SWAPPED 0x04030201u

/* Byte offsets of the header fields. */
enum {
    OFF_MAGIC = 0,
    OFF_VERSION = 8,
    OFF_ENDIAN = 12,
    OFF_KIND = 16,
    OFF_METRIC = 20,
    OFF_ENTRIES = 24,
    OFF_BYTES = 32,
    OFF_CHECKSUM = 40,
    OFF_HEADER_CHECKSUM = 48,
    OFF_PADDING = 56,
};

static const unsigned char magic[8] = {'Q', 'S', 'T', 'A', 'B', 'L', 'E', 0};

/* Header fields are little-endian on every host so the header itself is
 * portable; only the endianness marker is stored in host order. */
static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)p[i] << (8 * i);
    return v;
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* ---------------------------------------------------------------- checksum */

typedef struct {
    const unsigned char *data;
    uint64_t bytes;
    uint64_t chunks;
    atomic_uint_fast64_t next; /* next chunk to hash; workers share it so an
                                  uneven thread start does not idle anyone */
    uint64_t *hashes;
} hash_job;

static void hash_chunks(hash_job *j)
{
    for (;;) {
        uint64_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->chunks)
            return;
        uint64_t off = i * QTAB_CHUNK_BYTES;
        uint64_t len = j->bytes - off;
        if (len > QTAB_CHUNK_BYTES)
            len = QTAB_CHUNK_BYTES;
        j->hashes[i] = XXH3_64bits(j->data + off, (size_t)len);
    }
}

static void *hash_worker(void *arg)
{
    hash_chunks(arg);
    return NULL;
}

int qtab_checksum(const void *data, uint64_t bytes, int threads,
                  uint64_t *out)
{
    if (out == NULL || (data == NULL && bytes > 0) || bytes > SIZE_MAX)
        return QTAB_ERR_ARGUMENT;
    uint64_t chunks = (bytes + QTAB_CHUNK_BYTES - 1) / QTAB_CHUNK_BYTES;
    hash_job job = {.data = data, .bytes = bytes, .chunks = chunks};
    atomic_init(&job.next, 0);
    /* One spare slot so malloc never sees 0; the second half of the buffer
     * holds the little-endian encoding that is hashed at the end. */
    job.hashes = malloc((size_t)(chunks + 1) * 16);
    if (job.hashes == NULL)
        return QTAB_ERR_NOMEM;

    int n = qtab_threads(threads);
    if ((uint64_t)n > chunks)
        n = chunks > 0 ? (int)chunks : 1;
    pthread_t *tids = NULL;
    int started = 0;
    if (n > 1 && (tids = malloc(sizeof *tids * (size_t)(n - 1))) != NULL) {
        /* A helper that fails to start is no error: the calling thread
         * takes whatever chunks are left. */
        for (int t = 0; t < n - 1; t++) {
            if (pthread_create(&tids[started], NULL, hash_worker, &job) != 0)
                break;
            started++;
        }
    }
    hash_chunks(&job);
    for (int t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
    free(tids);

    unsigned char *le = (unsigned char *)(job.hashes + chunks + 1);
    for (uint64_t i = 0; i < chunks; i++)
        put64(le + 8 * i, job.hashes[i]);
    *out = XXH3_64bits(le, (size_t)(chunks * 8));
    free(job.hashes);
    return QTAB_OK;
}

/* ------------------------------------------------------------------ header */

static void encode_header(unsigned char h[QTAB_HEADER_BYTES],
                          const qtab_file_desc *d, uint64_t checksum)
{
    uint32_t mark = ENDIAN_MARK;
    memset(h, 0, QTAB_HEADER_BYTES);
    memcpy(h + OFF_MAGIC, magic, sizeof magic);
    put32(h + OFF_VERSION, FORMAT_VERSION);
    memcpy(h + OFF_ENDIAN, &mark, 4);
    put32(h + OFF_KIND, d->kind);
    put32(h + OFF_METRIC, d->metric);
    put64(h + OFF_ENTRIES, d->entries);
    put64(h + OFF_BYTES, d->bytes);
    put64(h + OFF_CHECKSUM, checksum);
    put64(h + OFF_HEADER_CHECKSUM, XXH3_64bits(h, OFF_HEADER_CHECKSUM));
}

/* Checks a header in the order docs/tables.md gives and fills *out as far
 * as the magic allows. */
static int check_header(const unsigned char h[QTAB_HEADER_BYTES],
                        const qtab_file_desc *expect, qtab_file_header *out)
{
    if (memcmp(h + OFF_MAGIC, magic, sizeof magic) != 0)
        return QTAB_ERR_MAGIC;
    out->parsed = 1;
    out->version = get32(h + OFF_VERSION);
    out->desc.kind = get32(h + OFF_KIND);
    out->desc.metric = get32(h + OFF_METRIC);
    out->desc.entries = get64(h + OFF_ENTRIES);
    out->desc.bytes = get64(h + OFF_BYTES);
    out->checksum = get64(h + OFF_CHECKSUM);
    out->header_checksum = get64(h + OFF_HEADER_CHECKSUM);

    if (out->version != FORMAT_VERSION)
        return QTAB_ERR_VERSION;
    uint32_t mark;
    memcpy(&mark, h + OFF_ENDIAN, 4);
    if (mark == ENDIAN_MARK_SWAPPED)
        return QTAB_ERR_ENDIAN;
    if (out->header_checksum != XXH3_64bits(h, OFF_HEADER_CHECKSUM))
        return QTAB_ERR_HEADER_CHECKSUM;
    /* The padding is outside the checksum, so check it separately. */
    for (int i = OFF_PADDING; i < QTAB_HEADER_BYTES; i++)
        if (h[i] != 0)
            return QTAB_ERR_HEADER_CHECKSUM;
    /* A checksummed marker that is neither order: some other byte order
     * (or a writer bug); in any case not data we can read. */
    if (mark != ENDIAN_MARK)
        return QTAB_ERR_ENDIAN;

    if (expect != NULL) {
        if (out->desc.kind != expect->kind)
            return QTAB_ERR_KIND;
        if (out->desc.metric != expect->metric)
            return QTAB_ERR_METRIC;
        if (out->desc.entries != expect->entries ||
            out->desc.bytes != expect->bytes)
            return QTAB_ERR_SIZE;
    }
    if (out->desc.bytes > UINT64_MAX - QTAB_HEADER_BYTES)
        return QTAB_ERR_SIZE;
    uint64_t want = QTAB_HEADER_BYTES + out->desc.bytes;
    if (out->file_bytes < want)
        return QTAB_ERR_TRUNCATED;
    if (out->file_bytes > want)
        return QTAB_ERR_SIZE;
    return QTAB_OK;
}

/* Opens path and checks its header; on QTAB_OK *fd_out is the open file.
 * errno is meaningful after QTAB_ERR_IO. */
static int open_checked(const char *path, const qtab_file_desc *expect,
                        qtab_file_header *h, int *fd_out)
{
    *fd_out = -1;
    /* O_NONBLOCK: opening a FIFO (or a device) would otherwise wait for a
     * writer forever; whatever is not a regular file is refused below,
     * and on a regular file the flag changes nothing. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return errno == ENOENT ? QTAB_ERR_NOT_FOUND : QTAB_ERR_IO;
    struct stat st;
    if (fstat(fd, &st) != 0)
        goto io_error;
    if (!S_ISREG(st.st_mode)) {
        /* Its own error, not an I/O one: errno would only say "Invalid
         * argument" about a FIFO. */
        close(fd);
        return QTAB_ERR_NOT_REGULAR;
    }
    h->file_bytes = (uint64_t)st.st_size;
    if (h->file_bytes < QTAB_HEADER_BYTES) {
        close(fd);
        return QTAB_ERR_TRUNCATED;
    }
    unsigned char buf[QTAB_HEADER_BYTES];
    size_t got = 0;
    while (got < sizeof buf) {
        ssize_t r = pread(fd, buf + got, sizeof buf - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            goto io_error;
        if (r == 0) { /* shrank since fstat */
            close(fd);
            return QTAB_ERR_TRUNCATED;
        }
        got += (size_t)r;
    }
    int rc = check_header(buf, expect, h);
    if (rc != QTAB_OK) {
        close(fd);
        return rc;
    }
    *fd_out = fd;
    return QTAB_OK;

io_error:;
    int saved = errno;
    close(fd);
    errno = saved;
    return QTAB_ERR_IO;
}

int qtab_file_info(const char *path, const qtab_file_desc *expect,
                   qtab_file_header *out)
{
    qtab_file_header scratch;
    if (out == NULL)
        out = &scratch;
    memset(out, 0, sizeof *out);
    if (path == NULL)
        return QTAB_ERR_ARGUMENT;
    int fd;
    int rc = open_checked(path, expect, out, &fd);
    if (rc == QTAB_OK)
        close(fd);
    return rc;
}

/* Reads the payload (bytes long) of the open table file fd into
 * huge-page memory of its own, which *m then holds. QTAB_OK, or
 * QTAB_ERR_NOMEM, _IO (errno set) or _TRUNCATED with nothing held. */
static int read_payload(int fd, size_t bytes, qtab_mapping *m)
{
    unsigned char *payload = qtab_huge_alloc(bytes);
    if (payload == NULL)
        return QTAB_ERR_NOMEM;
    for (size_t done = 0; done < bytes;) {
        size_t want = bytes - done > (1u << 30) ? (1u << 30) : bytes - done;
        ssize_t got = pread(fd, payload + done, want,
                            (off_t)(QTAB_HEADER_BYTES + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            int saved = errno;
            qtab_huge_free(payload, bytes);
            errno = saved;
            return got == 0 ? QTAB_ERR_TRUNCATED : QTAB_ERR_IO;
        }
        done += (size_t)got;
    }
    m->base = payload;
    m->length = bytes;
    m->payload = payload;
    return QTAB_OK;
}

int qtab_file_map(const char *path, const qtab_file_desc *expect, int threads,
                  qtab_mapping *out)
{
    if (out == NULL)
        return QTAB_ERR_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (path == NULL)
        return QTAB_ERR_ARGUMENT;
    int fd;
    int rc = open_checked(path, expect, &out->header, &fd);
    if (rc != QTAB_OK)
        return rc;
    if (out->header.file_bytes > SIZE_MAX) {
        close(fd);
        return QTAB_ERR_NOMEM;
    }
    size_t bytes = (size_t)out->header.desc.bytes;
    /* Tables are read at random, so they must sit in 2 MiB pages (with
     * 4 KiB pages most reads would also miss the TLB). Where the kernel
     * keeps the file in the page cache in 2 MiB pages, the file itself is
     * mapped: nothing is copied or zeroed, start-up takes a fraction of a
     * second, and every process shares one copy. Elsewhere the payload is
     * read into huge-page memory of its own. */
    qtab_mapping m = {.header = out->header};
    const void *file = qtab_file_pages_map(fd, (size_t)out->header.file_bytes);
    if (file != NULL) {
        m.base = (void *)(uintptr_t)file;
        m.length = (size_t)out->header.file_bytes;
        m.shared = 1;
        m.payload = (const unsigned char *)file + QTAB_HEADER_BYTES;
    } else {
        rc = read_payload(fd, bytes, &m);
        if (rc != QTAB_OK) {
            int saved = errno;
            close(fd);
            errno = saved;
            return rc;
        }
    }
    close(fd);
    uint64_t sum;
    rc = qtab_checksum(m.payload, out->header.desc.bytes, threads, &sum);
    if (rc == QTAB_OK && sum != out->header.checksum)
        rc = QTAB_ERR_CHECKSUM;
    if (rc != QTAB_OK) {
        qtab_file_unmap(&m); /* *out keeps only its header */
        return rc;
    }
    *out = m;
    return QTAB_OK;
}

void qtab_file_unmap(qtab_mapping *m)
{
    if (m == NULL)
        return;
    if (m->base != NULL && m->shared)
        qtab_file_pages_unmap(m->base, m->length);
    else if (m->base != NULL)
        qtab_huge_free(m->base, m->length);
    memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------------- write */

static int write_all(int fd, const void *data, uint64_t bytes)
{
    const unsigned char *p = data;
    while (bytes > 0) {
        /* Linux writes at most about 2 GiB per call anyway. */
        size_t n = bytes > (1u << 30) ? (1u << 30) : (size_t)bytes;
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        bytes -= (uint64_t)w;
    }
    return 0;
}

/* Makes the rename itself durable. Best effort: some file systems refuse
 * fsync on directories, and the data is already safe in the file. */
static void sync_parent(const char *path)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (slash == NULL) {
        strcpy(dir, ".");
    } else if (slash == path) {
        strcpy(dir, "/");
    } else {
        size_t n = (size_t)(slash - path);
        if (n >= sizeof dir)
            return;
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

int qtab_file_write(const char *path, const qtab_file_desc *desc,
                    const void *payload, int threads)
{
    if (path == NULL || desc == NULL || (payload == NULL && desc->bytes > 0))
        return QTAB_ERR_ARGUMENT;
    uint64_t sum;
    int rc = qtab_checksum(payload, desc->bytes, threads, &sum);
    if (rc != QTAB_OK)
        return rc;
    unsigned char header[QTAB_HEADER_BYTES];
    encode_header(header, desc, sum);

    char tmp[PATH_MAX];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof tmp) {
        errno = ENAMETOOLONG;
        return QTAB_ERR_ARGUMENT;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return QTAB_ERR_IO;
    if (write_all(fd, header, sizeof header) != 0 ||
        write_all(fd, payload, desc->bytes) != 0 || fsync(fd) != 0)
        goto fail;
    int closed = close(fd);
    fd = -1;
    if (closed != 0 || rename(tmp, path) != 0)
        goto fail;
    sync_parent(path);
    return QTAB_OK;

fail:;
    int saved = errno;
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    errno = saved;
    return QTAB_ERR_IO;
}
