// CSSL: what a record's `tls` field says of a connection libcurl (OpenSSL flavour) made, read from
// libssl, the library libcurl already loads for it.
//
// Why this shim exists: libcurl tells the protocol version and cipher only through its verbose log
// and the certificate's expiry only through CURLOPT_CERTINFO, which formats every certificate of
// the chain as text at each handshake and says nothing on a reused connection. The SSL object
// behind CURLINFO_TLS_SSL_PTR has all three, read in one call. `static inline`, prefixed `cssl_`.
#ifndef CSSL_SHIM_H
#define CSSL_SHIM_H

#include <openssl/asn1.h>
#include <openssl/crypto.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <time.h>

#pragma clang assume_nonnull begin

/// A TLS session's protocol version and cipher (static strings of libssl's, never freed) and its
/// peer certificate's notAfter in seconds since 1970 (`has_not_after` 0 when there is none).
typedef struct {
    const char *_Nullable version;
    const char *_Nullable cipher;
    long long not_after;
    int has_not_after;
} cssl_session_facts;

/// The facts of the session of `ssl`, an `SSL *` (CURLINFO_TLS_SSL_PTR's `internals`).
static inline cssl_session_facts cssl_session_facts_of(void *ssl) {
    const SSL *session = (const SSL *)ssl;
    cssl_session_facts facts = {SSL_get_version(session), NULL, 0, 0};
    const SSL_CIPHER *cipher = SSL_get_current_cipher(session);
    if (cipher != NULL) {
        facts.cipher = SSL_CIPHER_get_name(cipher);
    }
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
    // No reference taken: the certificate lives as long as the session, past this call.
    X509 *certificate = SSL_get0_peer_certificate(session);
#else
    X509 *certificate = SSL_get_peer_certificate(session);
#endif
    if (certificate != NULL) {
        struct tm expiry;
        const ASN1_TIME *notAfter = X509_get0_notAfter(certificate);
        if (notAfter != NULL && ASN1_TIME_to_tm(notAfter, &expiry) == 1) {
            facts.not_after = (long long)timegm(&expiry);
            facts.has_not_after = 1;
        }
#if OPENSSL_VERSION_NUMBER < 0x30000000L
        X509_free(certificate);
#endif
    }
    return facts;
}

/// The major version of the libssl this process runs (3 for OpenSSL 3.x): an SSL object of
/// libcurl's may be read here only when libcurl names the same library.
static inline unsigned long cssl_major_version(void) {
    return OpenSSL_version_num() >> 28;
}

#pragma clang assume_nonnull end

#endif
