#ifndef CRICHPUSH_CURL_H
#define CRICHPUSH_CURL_H

#include <curl/curl.h>

// curl_easy_setopt and curl_multi_setopt are variadic, which Swift cannot call.
// These typed wrappers are the only reason this target exists.

CURLcode richpush_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode richpush_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode richpush_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode richpush_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode richpush_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode richpush_easy_setopt_write_function(CURL *handle, size_t (*function)(char *, size_t, size_t, void *));
CURLcode richpush_easy_setopt_header_function(CURL *handle, size_t (*function)(char *, size_t, size_t, void *));
CURLcode richpush_easy_setopt_opensocket_function(CURL *handle, curl_socket_t (*function)(void *, curlsocktype, struct curl_sockaddr *));
CURLcode richpush_easy_setopt_prereq_function(CURL *handle, int (*function)(void *, char *, char *, int, int));
CURLcode richpush_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode richpush_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode richpush_easy_getinfo_string(CURL *handle, CURLINFO info, char **value);
CURLMcode richpush_multi_setopt_long(CURLM *handle, CURLMoption option, long value);

#endif
