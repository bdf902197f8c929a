// OpenSSL's libssl (libssl-dev), for rediss://: the TLS client the Redis layer runs over its own socket.
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
