/*
 * qtab.h - public interface of the quadsolve tables library.
 *
 * The solver (solver/quadsolve.h) can generate its large pruning tables
 * ("blobs") but does not store them. This library persists each blob as one
 * checksummed file (format in docs/tables.md), finds the cache directory,
 * maps ready files read-only, regenerates missing or damaged ones, and hands
 * back a qs_tables set. It also offers the pieces the CLI's `tables
 * verify|info|generate` subcommands and the tests need: the raw file layer,
 * per-blob reports and a small thread-safe progress bar.
 *
 * Conventions: every public name starts with qtab_ / QTAB_; functions return
 * 0 (QTAB_OK) or a negative qtab_error; buffers are owned by the caller; the
 * library keeps no mutable global state.
 */
#ifndef QTAB_H
#define QTAB_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "quadsolve.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------- errors */

typedef enum {
    QTAB_OK = 0,
    QTAB_ERR_IO = -1,              /* a system call failed; errno tells why */
    QTAB_ERR_NOT_FOUND = -2,       /* the table file does not exist */
    QTAB_ERR_TRUNCATED = -3,       /* file shorter than its header says */
    QTAB_ERR_MAGIC = -4,           /* not a quadsolve table file */
    QTAB_ERR_VERSION = -5,         /* unsupported format version */
    QTAB_ERR_ENDIAN = -6,          /* written on a machine of other byte order */
    QTAB_ERR_HEADER_CHECKSUM = -7, /* header damaged */
    QTAB_ERR_KIND = -8,            /* a different table kind than expected */
    QTAB_ERR_METRIC = -9,          /* a table for another metric */
    QTAB_ERR_SIZE = -10,           /* entry count or byte size not as expected */
    QTAB_ERR_CHECKSUM = -11,       /* payload damaged */
    QTAB_ERR_NOMEM = -12,          /* memory allocation or mapping failed */
    QTAB_ERR_GENERATE = -13,       /* the solver's generator failed */
    QTAB_ERR_CACHE_DIR = -14,      /* no usable cache directory */
    QTAB_ERR_ARGUMENT = -15,       /* an argument out of range, buffer too small */
    QTAB_ERR_NOT_REGULAR = -16,    /* the path is a directory, FIFO, socket or
                                      device, not a table file */
} qtab_error;

/* A human-readable message for an error code (never NULL). */
const char *qtab_strerror(int err);
/* A short stable identifier for an error code, e.g. "CHECKSUM". */
const char *qtab_errcode(int err);

/* ------------------------------------------------------------- file layer */

/* What a table file holds, as recorded in its header. */
typedef struct {
    uint32_t kind;    /* qs_blob_info.kind */
    uint32_t metric;  /* qs_metric */
    uint64_t entries; /* number of table entries */
    uint64_t bytes;   /* payload size in bytes */
} qtab_file_desc;

/* A parsed header plus facts about the file it came from. */
typedef struct {
    int parsed;                /* the magic matched and the fields below
                                  were decoded (they may still be wrong) */
    qtab_file_desc desc;
    uint32_t version;          /* format version (1) */
    uint64_t checksum;         /* payload checksum stored in the header */
    uint64_t header_checksum;  /* header checksum stored in the header */
    uint64_t file_bytes;       /* size of the file on disk */
} qtab_file_header;

/* The verified payload of a table file, in memory. */
typedef struct {
    const void *payload;     /* header.desc.bytes bytes */
    qtab_file_header header;
    void *base;              /* the allocation or the file's mapping (for
                                qtab_file_unmap) */
    size_t length;
    int shared;              /* 1: base maps the file itself, shared with
                                the page cache; 0: a copy of the payload */
} qtab_mapping;

/* The size of the fixed file header in bytes. */
#define QTAB_HEADER_BYTES 64
/* The payload checksum hashes chunks of this size independently. */
#define QTAB_CHUNK_BYTES ((uint64_t)64 << 20)

/* Computes the payload checksum of docs/tables.md over data[0..bytes) with
 * up to `threads` threads (<= 0: number of online CPUs). Returns QTAB_OK,
 * QTAB_ERR_NOMEM or QTAB_ERR_ARGUMENT (NULL data with bytes > 0, NULL out). */
int qtab_checksum(const void *data, uint64_t bytes, int threads,
                  uint64_t *out);

/* Writes a table file atomically: header and payload (desc->bytes bytes)
 * go to "<path>.tmp.<pid>", which is fsync'ed and renamed onto path. The
 * temporary file is removed on any failure, and path is then untouched.
 * Not safe for two threads of one process writing the same path at once.
 * Returns QTAB_OK, QTAB_ERR_IO (errno set), QTAB_ERR_NOMEM or
 * QTAB_ERR_ARGUMENT. */
int qtab_file_write(const char *path, const qtab_file_desc *desc,
                    const void *payload, int threads);

/* Reads and checks the header of a table file without reading the payload:
 * existence, size >= 64, magic, version, byte order, header checksum, then,
 * when expect is not NULL, kind, metric, entries and bytes against
 * *expect, then that the file size is 64 + payload size (the order of
 * docs/tables.md). Returns QTAB_OK or the first failure (QTAB_ERR_NOT_FOUND,
 * _NOT_REGULAR (a directory, FIFO or device: refused without waiting for
 * a writer), _IO, _TRUNCATED, _MAGIC, _VERSION, _ENDIAN, _HEADER_CHECKSUM, _KIND,
 * _METRIC, _SIZE). *out, when not NULL,
 * is filled with what could be read: file_bytes whenever the file could be
 * opened, the other fields (and parsed = 1) once the magic matched. */
int qtab_file_info(const char *path, const qtab_file_desc *expect,
                   qtab_file_header *out);

/* Does every check of qtab_file_info, then brings the payload into memory
 * in 2 MiB pages where the kernel allows (the search reads it at random):
 * the file mapped read-only from the page cache where the kernel keeps it
 * there in 2 MiB pages (no copy, shared by every process; the file must
 * not be truncated while mapped, which qtab_file_write never does), else
 * read into huge-page memory of its own; then verifies the payload
 * checksum with up to `threads` threads (<= 0: online CPUs), failing with
 * QTAB_ERR_CHECKSUM. On success *out holds the mapping, to be released
 * with qtab_file_unmap; on failure *out is zeroed except out->header,
 * filled as by qtab_file_info. */
int qtab_file_map(const char *path, const qtab_file_desc *expect, int threads,
                  qtab_mapping *out);
/* Releases a mapping from qtab_file_map; zeroes *m. Safe on a zeroed m. */
void qtab_file_unmap(qtab_mapping *m);
/* Bytes of this process's file mapping that begins at `start` (a shared
 * qtab_mapping's base, say) that the kernel maps with 2 MiB pages of the
 * page cache (FilePmdMapped in /proc/self/smaps); -1 when that cannot be
 * told. A table's reads that fall elsewhere miss the TLB far more. */
long long qtab_file_huge_bytes(const void *start);

/* ---------------------------------------------------------- cache directory */

/* Writes the table directory into buf: $QUADSOLVE_TABLES, else
 * $XDG_CACHE_HOME/quadsolve (absolute XDG_CACHE_HOME only, per the XDG
 * spec), else $HOME/.cache/quadsolve; empty variables count as unset. The
 * directory is created with its parents (mode 0755) if missing. Returns
 * QTAB_OK, QTAB_ERR_CACHE_DIR (no variable set, or the directory cannot be
 * created; errno set) or QTAB_ERR_ARGUMENT (buf too small). */
int qtab_cache_dir(char *buf, size_t len);

/* Writes "<dir>/<metric name>-<blob name>.qst", the file of blob i of
 * metric m, into buf. dir NULL means qtab_cache_dir. Returns QTAB_OK,
 * QTAB_ERR_ARGUMENT (bad metric or index, buf too small) or
 * QTAB_ERR_CACHE_DIR. */
int qtab_blob_path(qs_metric m, int i, const char *dir, char *buf,
                   size_t len);

/* ------------------------------------------------------------ progress bar */

/* Draws "[#####.....]  45% htm-phase1 12.3 s" on one terminal line with \r,
 * redrawn at most every 100 ms. All functions are thread safe. */
typedef struct qtab_progress qtab_progress;

/* Starts a bar on out (normally stderr) labelled label (copied, at most 63
 * bytes kept) and draws it at 0%. Returns NULL when out of memory. */
qtab_progress *qtab_progress_start(FILE *out, const char *label);
/* Records progress (fraction clamped to [0,1]) and redraws when the last
 * drawing is at least 100 ms old. */
void qtab_progress_update(qtab_progress *p, double fraction);
/* A qs_progress_fn: ctx is a qtab_progress *. */
void qtab_progress_callback(void *ctx, double fraction);
/* Seconds since qtab_progress_start. */
double qtab_progress_elapsed(const qtab_progress *p);
/* Ends the bar: clear nonzero erases the line, otherwise it is drawn at its
 * last state followed by a newline. Frees p; p may be NULL. */
void qtab_progress_finish(qtab_progress *p, int clear);

/* --------------------------------------------------------------- table sets */

typedef enum {
    QTAB_LOG_INFO = 0,  /* progress notes ("generating htm-phase1 ...") */
    QTAB_LOG_WARN = 1,  /* recovered problems (a corrupt file rebuilt) */
    QTAB_LOG_ERROR = 2, /* the reason for a failure being returned */
} qtab_log_level;

/* Receives one message without a trailing newline. */
typedef void (*qtab_log_fn)(void *ctx, qtab_log_level level, const char *msg);

/* Which tables the optimal solver gets (HTM and QTM sets only). */
typedef enum {
    QTAB_OPTIMAL_SMALL = 0, /* only the two-phase tables and the 3 MB corner
                               table: no extra memory, slow optimal solves */
    QTAB_OPTIMAL_LARGE = 1, /* also the optional large table (845 MB per
                               metric, minutes to generate once) */
    QTAB_OPTIMAL_H48 = 2,   /* instead, the H48 table (HTM only, 173 MB,
                               about a minute to generate once; the QTM set
                               is then the small one) */
    QTAB_OPTIMAL_LARGE_H48 = 3, /* both (a bit per optional blob) */
    QTAB_OPTIMAL_COMPACT = 6, /* the least memory (HTM only, 211 MB): the
                                 H48 table and a 2-bit phase-1 table (35
                                 MB) instead of the two-phase tables, so
                                 the set serves optimal solves only; in
                                 QTM it is the small set */
    QTAB_OPTIMAL_XL = 8, /* the fastest (HTM only, 2.47 GB, about five
                            minutes to generate once): the extra-large table
                            instead of the large one; in QTM it is the
                            large set */
    QTAB_OPTIMAL_H48H7 = 20, /* the fastest (HTM only, 3.84 GB in all,
                                minutes to generate once): the exact H48
                                table with 7 bits of edge orientation
                                (3.76 GB; bit 16) and, as in the compact
                                set (bit 4), the 2-bit phase-1 table
                                instead of the two-phase tables, so the
                                set serves optimal solves only; in QTM
                                it is the large set */
    /* What solve --optimal uses when no size is given: at most 4 GB in
     * memory (issue 16's bound for the default). */
    QTAB_OPTIMAL_DEFAULT = QTAB_OPTIMAL_H48H7,
} qtab_optimal_size;

/* Nonzero when the set of metric m at size s holds the two-phase tables,
 * so that it serves two-phase solves as well as optimal ones; zero for
 * the sizes that replace them by the 2-bit phase-1 table (compact and
 * h48h7 in HTM) and for a value that is no size. */
int qtab_optimal_size_two_phase(qs_metric m, qtab_optimal_size s);

/* Nonzero for the sizes chosen to save memory (small, h48 and compact):
 * those whose QTM set is the small one, without the large table; zero
 * for the others and for a value that is no size. */
int qtab_optimal_size_saving(qtab_optimal_size s);

/* The size called `name` on command lines ("small", "large", "h48",
 * "large+h48", "compact", "xl" or "h48h7"), or -1 when `name` is none of them (or
 * NULL). */
int qtab_optimal_size_parse(const char *name);

/* The name of size s, as qtab_optimal_size_parse reads it; "?" for a value
 * that is no size. */
const char *qtab_optimal_size_name(qtab_optimal_size s);

/* Which tables the robot search gets (robot set only). */
typedef enum {
    QTAB_ROBOT_LARGE = 0, /* also the optional move and corner-path
                             tables (2.25 GB and 128 MB, 3.12 GB for the
                             set; the robot search is several times faster
                             with them) */
    QTAB_ROBOT_SMALL = 1, /* only the distance tables (734 MB): for small
                             robot computers */
    QTAB_ROBOT_MEDIUM = 2, /* the small set and the corner-path table (862
                              MB in all): shorter solutions than small in
                              the same time, for robot computers of 2 GB */
} qtab_robot_size;

/* QTAB_ROBOT_* by name ("large", "small", "medium"); -1 for any other
 * string or NULL. */
int qtab_robot_size_parse(const char *name);

/* The name of size s, as qtab_robot_size_parse reads it; "?" for a value
 * that is no size. */
const char *qtab_robot_size_name(qtab_robot_size s);

typedef struct {
    int threads;            /* generation and checksum threads; <= 0: online
                               CPUs */
    const char *dir;        /* table directory; NULL: qtab_cache_dir */
    int rebuild_corrupt;    /* regenerate damaged or mismatched files instead
                               of failing */
    int progress;           /* progress bar on stderr while generating, when
                               stderr is a terminal; otherwise (or when 0) one
                               INFO line per generated blob */
    int quiet;              /* no INFO messages and no progress bar */
    qtab_log_fn log;        /* NULL: messages go to stderr, one per line */
    void *log_ctx;
    const atomic_int *cancel; /* caller-owned; nonzero stops generation */
    qtab_optimal_size optimal; /* the HTM and QTM sets' optional blobs are
                                  opened (and generated when missing) only
                                  when asked for: the large table with
                                  QTAB_OPTIMAL_LARGE, the H48 table with
                                  QTAB_OPTIMAL_H48, both with
                                  QTAB_OPTIMAL_LARGE_H48; the compact
                                  phase-1 table, and no two-phase tables
                                  in HTM, with QTAB_OPTIMAL_COMPACT and
                                  QTAB_OPTIMAL_H48H7 */
    qtab_robot_size robot;     /* the robot set's: the move table with
                                  QTAB_ROBOT_LARGE, the corner-path table
                                  with QTAB_ROBOT_LARGE or
                                  QTAB_ROBOT_MEDIUM */
    int keep_warm_ms;          /* > 0: while the set is open, a thread reads
                                  one byte of each 2 MiB page of every blob
                                  this often, so that a solve after a pause
                                  finds the pages as fast as a solve in a
                                  run (see docs/tables.md); 0: no thread;
                                  at most QTAB_KEEP_WARM_MAX_MS */
} qtab_options;

/* The longest keep_warm_ms period accepted (a minute). */
#define QTAB_KEEP_WARM_MAX_MS 60000
/* The period the CLI and the daemon use unless told otherwise: well
 * under the tens of milliseconds after which a page goes cold where it
 * does, and a sweep over warm pages costs about 0.1 ms. */
#define QTAB_KEEP_WARM_DEFAULT_MS 50

/* Defaults: online CPUs, cache directory, rebuild_corrupt 1, progress 1,
 * quiet 0, log to stderr, no cancel flag, QTAB_OPTIMAL_SMALL,
 * QTAB_ROBOT_LARGE, keep_warm_ms 0 (a library starts no thread unasked;
 * the CLI and the daemon ask for QTAB_KEEP_WARM_DEFAULT_MS). */
void qtab_options_default(qtab_options *o);

typedef struct {
    int blobs;               /* blobs in the set */
    int loaded;              /* blobs mapped from valid files */
    int generated;           /* blobs generated (missing or rebuilt) */
    uint64_t bytes;          /* total payload bytes of all blobs */
    double load_seconds;     /* mapping and checksum verification */
    double generate_seconds; /* generation and writing */
    uint64_t warm_sweeps;    /* keep_warm_ms: sweeps over the blobs so far */
    double warm_seconds;     /* and the time they took */
    int warm_threads;        /* 1 while a thread keeps the set warm, 0 if
                                none was asked for or it could not start */
} qtab_stats;

typedef struct qtab_set qtab_set;

/* Opens the table set of metric m: each blob is mapped from its file in
 * o->dir; a missing file, or a damaged or mismatched one when
 * o->rebuild_corrupt is set, is generated with qs_blob_generate, written
 * atomically (a failed write is only a warning) and used from memory. o
 * may be NULL for defaults. With o->keep_warm_ms, a thread then keeps the
 * blobs' pages warm until qtab_close (one that cannot be started is only
 * a warning). Returns QTAB_OK and *out, or QTAB_ERR_ARGUMENT (bad metric,
 * keep_warm_ms out of range), _CACHE_DIR, _NOMEM, _IO, _GENERATE (generator failed or was
 * cancelled, or the solver rejected the blobs) or, with rebuild off, the
 * file's error; the reason is also logged at QTAB_LOG_ERROR. */
int qtab_open(qs_metric m, const qtab_options *o, qtab_set **out);
/* The solver table set; valid until qtab_close. */
const qs_tables *qtab_set_tables(const qtab_set *s);
/* Copies the statistics of qtab_open, and those of the thread keeping the
 * set warm so far, into *stats. */
void qtab_set_stats(const qtab_set *s, qtab_stats *stats);
/* Stops the thread keeping the set warm, if any (it waits at most for the
 * sweep under way), then frees the table set and unmaps or frees every
 * blob; s may be NULL. */
void qtab_close(qtab_set *s);

/* Generates every blob of metric m again, whatever is on disk, and writes
 * the files atomically (creating the directory). o may be NULL; stats may
 * be NULL. Returns QTAB_OK, QTAB_ERR_ARGUMENT, _CACHE_DIR, _NOMEM, _IO (a
 * file could not be written) or _GENERATE. */
int qtab_generate(qs_metric m, const qtab_options *o, qtab_stats *stats);

/* What qtab_info / qtab_verify found about one blob. */
typedef struct {
    qs_metric metric;
    int index;               /* blob index within the metric */
    char name[64];           /* "<metric name>-<blob name>", e.g. "htm-phase1" */
    const char *path;        /* the file; valid during the callback only */
    qs_blob_info expected;   /* what the solver needs */
    int present;             /* the file exists */
    int wanted;              /* the sizes inspected use the blob (every
                                required blob but those the optimal size
                                leaves out; the optional blobs of the
                                sizes) */
    qtab_file_header header; /* as read from the file (see .parsed) */
    int payload_checked;     /* the payload checksum was computed */
    int status;              /* QTAB_OK (valid) or the first problem found */
    double seconds;          /* time spent checking this blob */
} qtab_blob_report;

typedef void (*qtab_report_fn)(void *ctx, const qtab_blob_report *r);

/* Reports every blob of metric m in o->dir (NULL o or dir: the cache
 * directory) for the table sizes o->optimal and o->robot (NULL o: the
 * defaults, QTAB_OPTIMAL_SMALL and QTAB_ROBOT_LARGE), checking headers
 * only (qtab_file_info against the solver's expectations); does not read
 * payloads and logs nothing. report may be NULL. Returns QTAB_OK when every
 * blob those sizes use is present with a valid header and every other
 * file present is valid too, otherwise the first blob's failure
 * (QTAB_ERR_NOT_FOUND for a blob the sizes use and nobody generated), or
 * QTAB_ERR_ARGUMENT (a metric or size that is none) / QTAB_ERR_CACHE_DIR. */
int qtab_info(qs_metric m, const qtab_options *o, qtab_report_fn report,
              void *ctx);
/* As qtab_info, but also maps each file present and verifies its payload
 * checksum on o->threads threads (<= 0: online CPUs). */
int qtab_verify(qs_metric m, const qtab_options *o, qtab_report_fn report,
                void *ctx);

#ifdef __cplusplus
}
#endif
#endif
