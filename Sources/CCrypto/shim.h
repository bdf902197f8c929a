// OpenSSL's libcrypto, for SHA-256 (libcurl already links it).
#include <openssl/evp.h>
