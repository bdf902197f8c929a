#include "CRichPushHTTPServer.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

struct MHD_Daemon *richpush_http_start(const char *address, uint16_t port, unsigned int threads,
                                       unsigned int connection_limit, unsigned int per_address_limit,
                                       unsigned int timeout_seconds,
                                       MHD_AccessHandlerCallback handler, MHD_RequestCompletedCallback completed,
                                       MHD_NotifyConnectionCallback notify_connection, void *context,
                                       int *error_number) {
    struct sockaddr_in6 address6;
    struct sockaddr_in address4;
    const struct sockaddr *socket_address;
    // TURBO: read, write and accept optimistically before asking epoll, saving a system call per step.
    unsigned int flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_TURBO;
    memset(&address6, 0, sizeof address6);
    memset(&address4, 0, sizeof address4);
    if (inet_pton(AF_INET, address, &address4.sin_addr) == 1) {
        address4.sin_family = AF_INET;
        address4.sin_port = htons(port);
        socket_address = (const struct sockaddr *)&address4;
    } else if (inet_pton(AF_INET6, address, &address6.sin6_addr) == 1) {
        address6.sin6_family = AF_INET6;
        address6.sin6_port = htons(port);
        socket_address = (const struct sockaddr *)&address6;
        flags |= MHD_USE_IPv6;
    } else {
        *error_number = EINVAL;
        return NULL;
    }
    errno = 0;
    struct MHD_Daemon *daemon = MHD_start_daemon(
        flags, port, NULL, NULL, handler, context,
        MHD_OPTION_SOCK_ADDR, socket_address,
        MHD_OPTION_THREAD_POOL_SIZE, threads,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_NOTIFY_COMPLETED, completed, context,
        MHD_OPTION_NOTIFY_CONNECTION, notify_connection, context,
        MHD_OPTION_END);
    if (daemon == NULL) *error_number = errno != 0 ? errno : EADDRINUSE;
    return daemon;
}

uint16_t richpush_http_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

int richpush_http_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}
