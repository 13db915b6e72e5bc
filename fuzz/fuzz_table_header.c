/*
 * fuzz_table_header.c - libFuzzer harness for table files
 * (tables/tablefile.c): the bytes become a file in memory (memfd) and
 * qtab_file_info reads it as a table of a fixed description; whatever the
 * header says (sizes, counts, offsets), the answer is OK or one of the
 * documented errors, never a crash or a read past the file.
 */
#define _GNU_SOURCE
#include "qtab.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("table", 0);
    if (fd < 0)
        return 0;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    uint64_t payload = size > QTAB_HEADER_BYTES ? size - QTAB_HEADER_BYTES : 0;
    qtab_file_desc d = {1, 0, payload, payload};
    qtab_file_header h;
    (void)qtab_file_info(path, &d, &h);
    (void)qtab_file_info(path, NULL, &h);
    /* The whole path a table takes when opened: header, size, payload
     * read and checksummed. */
    qtab_mapping m;
    if (qtab_file_map(path, &d, 1, &m) == QTAB_OK)
        qtab_file_unmap(&m);
    close(fd);
    return 0;
}
