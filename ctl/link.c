/*
 * link.c - quadctl's byte transports: a serial port through libserialport
 * (a robot on /dev/ttyUSB0), or a TCP connection "tcp:HOST:PORT" (quadsim,
 * or a real port exported by ser2net). Both give a descriptor to poll, a
 * non-blocking read and a write that finishes whole frames, so the
 * session's event loop does not care which it has.
 *
 * libserialport 0.1.1 cannot open a pseudo-terminal (it needs a sysfs
 * entry and TIOCMGET), which is why the simulator is reached over TCP.
 */
#define _GNU_SOURCE

#include "ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <ctype.h>
#include <errno.h>
#include <libserialport.h>
#include <stdlib.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int64_t ctl_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int open_tcp(ctl_link *l, const char *hostport, char *err,
                    size_t err_len)
{
    char host[200];
    const char *colon = strrchr(hostport, ':');
    if (!colon || colon == hostport || !colon[1] ||
        (size_t)(colon - hostport) >= sizeof host) {
        snprintf(err, err_len, "'tcp:%s' is not tcp:HOST:PORT", hostport);
        return CTL_ERR_USAGE;
    }
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    /* getaddrinfo takes "99999" modulo 65536; a port is 1..65535. */
    char *end;
    errno = 0;
    long port = strtol(colon + 1, &end, 10);
    if (*end || errno || port < 1 || port > 65535 ||
        !isdigit((unsigned char)colon[1])) {
        snprintf(err, err_len, "'tcp:%s': port '%s' is not in 1..65535",
                 hostport, colon + 1);
        return CTL_ERR_USAGE;
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(host, colon + 1, &hints, &res);
    if (rc != 0) {
        snprintf(err, err_len, "%s: %s", hostport, gai_strerror(rc));
        return CTL_ERR_IO;
    }
    int fd = -1, saved = 0;
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC,
                    a->ai_protocol);
        if (fd < 0) {
            saved = errno;
            continue;
        }
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
            break;
        saved = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(err, err_len, "cannot connect to %s: %s", hostport,
                 strerror(saved));
        return CTL_ERR_IO;
    }
    /* Frames are small and latency is what matters (one per step). */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    l->fd = fd;
    l->kind = CTL_LINK_TCP;
    return CTL_OK;
}

static int open_serial(ctl_link *l, const char *name, int baud, char *err,
                       size_t err_len)
{
    struct sp_port *p = NULL;
    if (sp_get_port_by_name(name, &p) != SP_OK) {
        snprintf(err, err_len, "%s: no such serial port (quadctl ports lists "
                               "them)", name);
        return CTL_ERR_IO;
    }
    if (sp_open(p, SP_MODE_READ_WRITE) != SP_OK) {
        char *m = sp_last_error_message();
        snprintf(err, err_len, "cannot open %s: %s", name, m ? m : "?");
        sp_free_error_message(m);
        sp_free_port(p);
        return CTL_ERR_IO;
    }
    /* 8N1 without flow control: the protocol does its own. */
    if (sp_set_baudrate(p, baud) != SP_OK || sp_set_bits(p, 8) != SP_OK ||
        sp_set_parity(p, SP_PARITY_NONE) != SP_OK ||
        sp_set_stopbits(p, 1) != SP_OK ||
        sp_set_flowcontrol(p, SP_FLOWCONTROL_NONE) != SP_OK) {
        char *m = sp_last_error_message();
        snprintf(err, err_len, "cannot configure %s at %d baud: %s", name,
                 baud, m ? m : "?");
        sp_free_error_message(m);
        sp_close(p);
        sp_free_port(p);
        return CTL_ERR_IO;
    }
    int fd = -1;
    if (sp_get_port_handle(p, &fd) != SP_OK || fd < 0) {
        snprintf(err, err_len, "%s: no descriptor to wait on", name);
        sp_close(p);
        sp_free_port(p);
        return CTL_ERR_IO;
    }
    l->port = p;
    l->fd = fd;
    l->kind = CTL_LINK_SERIAL;
    return CTL_OK;
}

int ctl_link_open(ctl_link *l, const char *spec, int baud, char *err,
                  size_t err_len)
{
    memset(l, 0, sizeof *l);
    l->fd = -1;
    if (!spec || !*spec) {
        snprintf(err, err_len, "no port given (--port)");
        return CTL_ERR_USAGE;
    }
    snprintf(l->spec, sizeof l->spec, "%s", spec);
    l->baud = baud;
    if (strncmp(spec, "tcp:", 4) == 0)
        return open_tcp(l, spec + 4, err, err_len);
    return open_serial(l, spec, baud, err, err_len);
}

void ctl_link_close(ctl_link *l)
{
    if (l->kind == CTL_LINK_SERIAL && l->port) {
        sp_close(l->port);
        sp_free_port(l->port);
    } else if (l->kind == CTL_LINK_TCP && l->fd >= 0) {
        close(l->fd);
    }
    l->port = NULL;
    l->fd = -1;
    l->kind = CTL_LINK_NONE;
}

int ctl_link_write(ctl_link *l, const uint8_t *b, size_t n)
{
    if (l->fd < 0)
        return -1;
    if (l->kind == CTL_LINK_SERIAL) {
        int k = sp_blocking_write(l->port, b, n, 1000);
        return k == (int)n ? 0 : -1;
    }
    int64_t end = ctl_now_us() + 1000000;
    while (n) {
        ssize_t k = send(l->fd, b, n, MSG_NOSIGNAL);
        if (k > 0) {
            b += k;
            n -= (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int left = (int)((end - ctl_now_us()) / 1000);
            struct pollfd p = {l->fd, POLLOUT, 0};
            if (left <= 0 || poll(&p, 1, left) <= 0)
                return -1;
            continue;
        }
        return -1;
    }
    return 0;
}

long ctl_link_read(ctl_link *l, uint8_t *b, size_t cap)
{
    if (l->fd < 0)
        return -1;
    if (l->kind == CTL_LINK_SERIAL) {
        int k = sp_nonblocking_read(l->port, b, cap);
        return k < 0 ? -1 : k;
    }
    for (;;) {
        ssize_t k = recv(l->fd, b, cap, 0);
        if (k > 0)
            return (long)k;
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        return -1; /* end of stream or a real error */
    }
}

int ctl_ports_list(FILE *out, char *err, size_t err_len)
{
    struct sp_port **list = NULL;
    if (sp_list_ports(&list) != SP_OK) {
        char *m = sp_last_error_message();
        snprintf(err, err_len, "cannot list serial ports: %s", m ? m : "?");
        sp_free_error_message(m);
        return CTL_ERR_IO;
    }
    int n = 0;
    for (; list[n]; n++) {
        const char *desc = sp_get_port_description(list[n]);
        fprintf(out, "%s\t%s\n", sp_get_port_name(list[n]),
                desc ? desc : "");
    }
    sp_free_port_list(list);
    return n;
}
