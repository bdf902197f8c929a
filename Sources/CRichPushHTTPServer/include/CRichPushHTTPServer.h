#ifndef CRICHPUSH_HTTP_SERVER_H
#define CRICHPUSH_HTTP_SERVER_H

#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <microhttpd.h>

// MHD_start_daemon takes its options as variadic arguments, which Swift cannot pass; this is the one call that
// needs C. Everything else (the access handler, responses, suspend and resume) is called from Swift directly.

/// Starts an epoll daemon with `threads` polling threads, suspend/resume allowed, listening on `address` (an IPv4
/// or IPv6 literal) and `port` (0 picks a free one; read it back with richpush_http_bound_port). Returns NULL when
/// the address does not parse or the socket cannot be bound; *error_number then holds errno.
struct MHD_Daemon *richpush_http_start(const char *address, uint16_t port, unsigned int threads,
                                       unsigned int connection_limit, unsigned int timeout_seconds,
                                       MHD_AccessHandlerCallback handler, void *handler_context,
                                       MHD_RequestCompletedCallback completed, void *completed_context,
                                       int *error_number);

/// The port the daemon listens on, or 0.
uint16_t richpush_http_bound_port(struct MHD_Daemon *daemon);

#endif
