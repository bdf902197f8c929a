// libmicrohttpd: the HTTP/1.1 server behind `richpush serve` (its own epoll threads, no hand-written parser).
#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <microhttpd.h>
