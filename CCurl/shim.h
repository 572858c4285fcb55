// CCurl: the one place batchfetch touches libcurl's C API.
//
// Why this shim exists: curl_easy_setopt, curl_multi_setopt and curl_easy_getinfo are C variadic
// functions, which Swift cannot call. Each wrapper below fixes one argument kind, so the Swift side
// calls a typed function and the compiler checks what it passes. Everything is `static inline` and
// prefixed `ccurl_` so the header adds no symbols of its own to link.
#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

#include <curl/curl.h>
#include <signal.h>
#include <stddef.h>

#pragma clang assume_nonnull begin

// MARK: - easy options

static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// libcurl copies string options (except CURLOPT_POSTFIELDS), so `value` may be freed afterwards.
static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *_Nullable value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *_Nullable value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option,
                                               struct curl_slist *_Nullable value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*ccurl_data_callback)(char *_Nullable data, size_t size, size_t count, void *_Nullable userdata);

/// For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION, which share one signature.
static inline CURLcode ccurl_easy_setopt_data_callback(CURL *handle, CURLoption option,
                                                       ccurl_data_callback _Nullable callback) {
    return curl_easy_setopt(handle, option, callback);
}

typedef int (*ccurl_seek_callback)(void *_Nullable userdata, curl_off_t offset, int origin);

/// For CURLOPT_SEEKFUNCTION: libcurl rewinds a body read through CURLOPT_READFUNCTION when it must
/// send it again on the same transfer (a reused connection found closed, a 307 redirect).
static inline CURLcode ccurl_easy_setopt_seek_callback(CURL *handle, ccurl_seek_callback _Nullable callback) {
    return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, callback);
}

typedef int (*ccurl_debug_callback)(CURL *handle, curl_infotype type, char *data, size_t size,
                                    void *_Nullable userdata);

/// For CURLOPT_DEBUGFUNCTION: the one place libcurl hands over the request head and body as sent
/// (`--warc` keeps them; libcurl calls it only with CURLOPT_VERBOSE on).
static inline CURLcode ccurl_easy_setopt_debug_callback(CURL *handle, ccurl_debug_callback _Nullable callback) {
    return curl_easy_setopt(handle, CURLOPT_DEBUGFUNCTION, callback);
}

// MARK: - easy info

static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_string(CURL *handle, CURLINFO info, char *_Nullable *_Nonnull value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void *_Nullable *_Nonnull value) {
    return curl_easy_getinfo(handle, info, value);
}

/// The `SSL *` of the connection carrying the transfer, or NULL when it has no TLS or libcurl's
/// TLS library is not OpenSSL. Valid only while the transfer runs (in a callback): libcurl detaches
/// the connection from the handle when the transfer ends, and the pointer is NULL after.
static inline void *_Nullable ccurl_openssl_session(CURL *handle) {
    struct curl_tlssessioninfo *info = NULL;
    if (curl_easy_getinfo(handle, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || info == NULL) {
        return NULL;
    }
    return info->backend == CURLSSLBACKEND_OPENSSL ? info->internals : NULL;
}

// MARK: - multi options

static inline CURLMcode ccurl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

// MARK: - share options

/// For CURLSHOPT_SHARE and CURLSHOPT_UNSHARE, whose argument is a curl_lock_data.
static inline CURLSHcode ccurl_share_setopt_lock_data(CURLSH *handle, CURLSHoption option, curl_lock_data value) {
    return curl_share_setopt(handle, option, value);
}

// MARK: - multi messages

/// CURLMsg carries its result in a union that Swift imports awkwardly; read it here.
static inline CURLcode ccurl_msg_result(const CURLMsg *message) {
    return message->data.result;
}

// MARK: - process

/// libcurl with CURLOPT_NOSIGNAL still writes to sockets whose peer may have gone; the process must
/// not die of SIGPIPE for that.
static inline void ccurl_ignore_sigpipe(void) {
    signal(SIGPIPE, SIG_IGN);
}

#pragma clang assume_nonnull end

#endif
