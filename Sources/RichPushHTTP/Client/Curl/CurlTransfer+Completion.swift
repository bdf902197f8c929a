import CCurl
import CRichPushCurl
import Foundation

/// Turning libcurl's verdict into a `TransferOutcome`, on the poll thread.
extension CurlTransfer {
    /// Resumes the waiting task. Later calls are ignored, so every path may call it.
    func finish(_ outcome: TransferOutcome) {
        guard !isFinished else { return }
        isFinished = true
        body.reset()
        release()
        continuation?.resume(returning: outcome)
        continuation = nil
    }

    /// Translates libcurl's verdict into an outcome. Call before `release()`.
    func outcome(for code: CURLcode, now: ContinuousClock.Instant) -> TransferOutcome {
        if let recordedFailure { return .failure(TransferFailure(error: recordedFailure)) }
        guard let easy else { return .failure(TransferFailure(error: .cancelled(url: url))) }
        let reason = errorMessage.isEmpty ? String(cString: curl_easy_strerror(code)) : errorMessage
        switch code {
        case CURLE_OK:
            return .success(response(easy))
        case CURLE_OPERATION_TIMEDOUT:
            if now >= deadline - .milliseconds(20) { return .failure(TransferFailure(error: .deadlineExceeded(url: url))) }
            var connectTime: curl_off_t = 0
            _ = richpush_easy_getinfo_off_t(easy, CURLINFO_CONNECT_TIME_T, &connectTime)
            if connectTime == 0 { return .failure(TransferFailure(error: .connection(url: url, reason: "connect timed out"))) }
            return .failure(TransferFailure(error: .stalled(url: url)))
        case CURLE_TOO_MANY_REDIRECTS:
            return .failure(TransferFailure(error: .tooManyRedirects(url: url)))
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .failure(TransferFailure(error: .unsupportedScheme(url: currentURL)))
        case CURLE_URL_MALFORMAT:
            return .failure(TransferFailure(error: .invalidURL(url: url)))
        case CURLE_COULDNT_RESOLVE_HOST:
            return .failure(TransferFailure(error: .dns(url: url, reason: reason)))
        case CURLE_FILESIZE_EXCEEDED:
            return .failure(TransferFailure(error: .tooLarge(url: url, limit: byteCap?.ceiling ?? policy.maximumBytes)))
        case CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR:
            return .failure(TransferFailure(error: .connection(url: url, reason: reason), isRetryable: true))
        case CURLE_PARTIAL_FILE:
            return .failure(TransferFailure(error: .connection(url: url, reason: "body truncated: \(reason)")))
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT:
            return .failure(TransferFailure(error: .tls(url: url, reason: reason)))
        default:
            return .failure(TransferFailure(error: .connection(url: url, reason: reason)))
        }
    }

    private func response(_ easy: UnsafeMutableRawPointer) -> TransferResponse {
        var code = 0
        _ = richpush_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
        var redirects = 0
        _ = richpush_easy_getinfo_long(easy, CURLINFO_REDIRECT_COUNT, &redirects)
        func time(_ info: CURLINFO) -> Duration {
            var value: curl_off_t = 0
            _ = richpush_easy_getinfo_off_t(easy, info, &value)
            return .microseconds(value)
        }
        let timings = FetchTimings(
            nameLookup: time(CURLINFO_NAMELOOKUP_TIME_T), connect: time(CURLINFO_CONNECT_TIME_T),
            tlsHandshake: time(CURLINFO_APPCONNECT_TIME_T), firstByte: time(CURLINFO_STARTTRANSFER_TIME_T),
            total: time(CURLINFO_TOTAL_TIME_T))
        return TransferResponse(status: code, body: body.take(), format: byteCap?.finish(), headers: headers, finalURL: currentURL,
                                redirectCount: redirects, timings: timings)
    }
}
