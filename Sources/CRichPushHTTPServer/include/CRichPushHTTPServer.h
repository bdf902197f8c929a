#ifndef CRICHPUSH_HTTP_SERVER_H
#define CRICHPUSH_HTTP_SERVER_H

#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <microhttpd.h>

// MHD_start_daemon and MHD_get_connection_info take variadic arguments, which Swift cannot pass; these are the
// calls that need C. Everything else (the access handler, responses, suspend and resume) is called from Swift.

/// Starts an epoll daemon with `threads` polling threads, suspend/resume allowed, listening on `address` (an IPv4
/// or IPv6 literal) and `port` (0 picks a free one; read it back with richpush_http_bound_port). At most
/// `connection_limit` connections, `per_address_limit` of them from one client address. The port is bound
/// exclusively (no SO_REUSEPORT), so a second server on it fails. Returns NULL when the address does not parse or
/// the socket cannot be bound; *error_number then holds errno.
struct MHD_Daemon *richpush_http_start(const char *address, uint16_t port, unsigned int threads,
                                       unsigned int connection_limit, unsigned int per_address_limit,
                                       unsigned int timeout_seconds,
                                       MHD_AccessHandlerCallback handler, MHD_RequestCompletedCallback completed,
                                       MHD_NotifyConnectionCallback notify_connection, void *context,
                                       int *error_number);

/// The port the daemon listens on, or 0.
uint16_t richpush_http_bound_port(struct MHD_Daemon *daemon);

/// The connection's socket, or -1.
int richpush_http_connection_socket(struct MHD_Connection *connection);

#endif
