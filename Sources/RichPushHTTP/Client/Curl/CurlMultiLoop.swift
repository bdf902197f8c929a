import CCurl
import CRichPushCurl
import Dispatch
import Foundation
import Synchronization

/// libcurl's process-wide initialisation, run once before the first multi handle exists.
private let curlGlobalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

/// One libcurl multi handle driven by a dedicated thread blocked in `curl_multi_poll`.
///
/// Tasks hand transfers in (and ask for cancellations) through a `Mutex`-protected inbox and wake the thread
/// with `curl_multi_wakeup`; every libcurl call on the multi handle and its easy handles happens on that one
/// thread, which is what libcurl requires. The thread also enforces each transfer's absolute deadline and stall
/// timeout itself, so neither depends on libcurl's whole-second or internal timer granularity.
final class CurlMultiLoop: @unchecked Sendable {
    private struct Inbox {
        var additions: [CurlTransfer] = []
        var cancellations: [CurlTransfer] = []
        var isShuttingDown = false
        var isStopped = false
    }

    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())
    private let stopped = DispatchSemaphore(value: 0)
    /// Poll-thread only.
    private var active: [UInt: CurlTransfer] = [:]
    /// Poll-thread only: no deadline or stall expiry can happen before this, so the per-transfer scan is skipped
    /// until then. Activity only pushes stall expiries later, so a stale value is merely early, never late.
    private var earliestExpiry = ContinuousClock.Instant.now

    private let handles: EasyHandlePool
    private let maximumTransfersPerOwnerHost: Int
    /// Poll-thread only: transfers given to libcurl per owner and host, and those waiting for one of them to end.
    /// libcurl queues a host's transfers past its cap in one line, so without this one job's stalled sources
    /// could hold every connection while another job's images waited behind them until the stall timeout.
    private var attachedPerOwnerHost: [OwnerHostKey: Int] = [:]
    private var waitingPerOwnerHost: [OwnerHostKey: [CurlTransfer]] = [:]

    init(maximumConnectionsPerHost: Int, maximumTransfersPerOwnerHost: Int, handles: EasyHandlePool) throws(FetchError) {
        self.handles = handles
        self.maximumTransfersPerOwnerHost = max(1, maximumTransfersPerOwnerHost)
        guard curlGlobalInit == CURLE_OK, let multi = curl_multi_init() else {
            throw .invalidConfiguration(reason: "libcurl could not be initialised")
        }
        self.multi = multi
        _ = richpush_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, maximumConnectionsPerHost))
        _ = richpush_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        let thread = Thread { [self] in run() }
        thread.name = "richpush-fetch"
        thread.start()
    }

    /// Queues a transfer; false once the loop is shutting down (the caller then fails it itself).
    func submit(_ transfer: CurlTransfer) -> Bool {
        inbox.withLock { inbox in
            guard !inbox.isShuttingDown else { return false }
            // A non-empty inbox means a wake-up is already pending and the poll thread has not drained yet, so
            // one wake-up per batch is enough (saves a syscall and a poll round per transfer under load).
            let needsWakeUp = inbox.additions.isEmpty && inbox.cancellations.isEmpty
            inbox.additions.append(transfer)
            if needsWakeUp { curl_multi_wakeup(multi) }
            return true
        }
    }

    /// Asks the poll thread to abort `transfer`; safe from any thread, any number of times.
    func cancel(_ transfer: CurlTransfer) {
        transfer.cancelRequested.store(true, ordering: .sequentiallyConsistent)
        inbox.withLock { inbox in
            guard !inbox.isStopped else { return }
            inbox.cancellations.append(transfer)
            curl_multi_wakeup(multi)
        }
    }

    /// Fails every transfer with `cancelled`, stops the thread and frees the multi handle. Blocks until done.
    func shutdown() {
        let shouldWait = inbox.withLock { inbox in
            guard !inbox.isShuttingDown else { return false }
            inbox.isShuttingDown = true
            curl_multi_wakeup(multi)
            return true
        }
        if shouldWait { stopped.wait() }
    }

    // MARK: - Poll thread

    private func run() {
        var running: Int32 = 0
        while true {
            let (additions, cancellations, isShuttingDown) = inbox.withLock { inbox in
                defer { inbox.additions = []; inbox.cancellations = [] }
                return (inbox.additions, inbox.cancellations, inbox.isShuttingDown)
            }
            for transfer in additions { attach(transfer) }
            // A transfer not attached yet is caught by `attach` through its cancel flag; one already finished is left alone.
            for transfer in cancellations where transfer.isAttached || transfer.isWaiting {
                detach(transfer, with: .failure(TransferFailure(error: .cancelled(url: transfer.url))))
            }
            if isShuttingDown { break }

            curl_multi_perform(multi, &running)
            collectCompletions()
            let nextCheck = enforceDeadlines(now: .now)
            curl_multi_poll(multi, nil, 0, nextCheck, nil)
        }
        // Waiting transfers first, so that detaching an active one starts none of them.
        for transfer in waitingPerOwnerHost.values.joined() {
            transfer.isWaiting = false
            transfer.finish(.failure(TransferFailure(error: .cancelled(url: transfer.url))))
        }
        waitingPerOwnerHost = [:]
        for transfer in Array(active.values) {
            detach(transfer, with: .failure(TransferFailure(error: .cancelled(url: transfer.url))))
        }
        let leftovers = inbox.withLock { inbox in
            inbox.isStopped = true
            defer { inbox.additions = [] }
            return inbox.additions
        }
        for transfer in leftovers { transfer.finish(.failure(TransferFailure(error: .cancelled(url: transfer.url)))) }
        curl_multi_cleanup(multi)
        handles.close()
        stopped.signal()
    }

    private func attach(_ transfer: CurlTransfer) {
        if transfer.cancelRequested.load(ordering: .sequentiallyConsistent) {
            transfer.finish(.failure(TransferFailure(error: .cancelled(url: transfer.url))))
            return
        }
        if let key = transfer.ownerHostKey, attachedPerOwnerHost[key, default: 0] >= maximumTransfersPerOwnerHost {
            waitingPerOwnerHost[key, default: []].append(transfer)
            transfer.isWaiting = true
            earliestExpiry = min(earliestExpiry, transfer.deadline)
            return
        }
        guard let easy = transfer.easy, curl_multi_add_handle(multi, easy) == CURLM_OK else {
            transfer.finish(.failure(TransferFailure(error: .internalFailure(url: transfer.url, reason: "libcurl refused the transfer"))))
            return
        }
        transfer.isAttached = true
        if let key = transfer.ownerHostKey { attachedPerOwnerHost[key, default: 0] += 1 }
        active[transfer.key] = transfer
        earliestExpiry = min(earliestExpiry, transfer.deadline, ContinuousClock.now + transfer.policy.stallTimeout)
    }

    /// Removes a transfer from the multi handle (aborting it if still running) or from its wait, and completes it;
    /// a place it frees goes to its owner's next waiting transfer to the same host.
    private func detach(_ transfer: CurlTransfer, with outcome: TransferOutcome) {
        if transfer.isAttached, let easy = transfer.easy {
            active.removeValue(forKey: transfer.key)
            curl_multi_remove_handle(multi, easy)
            transfer.isAttached = false
            if let key = transfer.ownerHostKey {
                attachedPerOwnerHost[key, default: 1] -= 1
                if attachedPerOwnerHost[key] == 0 { attachedPerOwnerHost.removeValue(forKey: key) }
                startWaiting(for: key)
            }
        } else if transfer.isWaiting, let key = transfer.ownerHostKey {
            transfer.isWaiting = false
            waitingPerOwnerHost[key]?.removeAll { $0 === transfer }
            if waitingPerOwnerHost[key]?.isEmpty == true { waitingPerOwnerHost.removeValue(forKey: key) }
        }
        transfer.finish(outcome)
    }

    /// Gives the owner's waiting transfers to libcurl, in arrival order, while the owner has places on the host.
    private func startWaiting(for key: OwnerHostKey) {
        while attachedPerOwnerHost[key, default: 0] < maximumTransfersPerOwnerHost,
              let next = waitingPerOwnerHost[key]?.first {
            waitingPerOwnerHost[key]?.removeFirst()
            if waitingPerOwnerHost[key]?.isEmpty == true { waitingPerOwnerHost.removeValue(forKey: key) }
            next.isWaiting = false
            attach(next)
        }
    }

    private func collectCompletions() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            guard let transfer = active[UInt(bitPattern: easy)] else {
                curl_multi_remove_handle(multi, easy)
                continue
            }
            transfer.isCompletedByLibcurl = true
            detach(transfer, with: transfer.outcome(for: code, now: .now))
        }
    }

    /// Fails transfers past their deadline or quiet for longer than the stall timeout; returns how long the
    /// next poll may block (milliseconds) so the next expiry is not overslept.
    private func enforceDeadlines(now: ContinuousClock.Instant) -> Int32 {
        if now < earliestExpiry {
            return Int32(CurlTransfer.milliseconds(earliestExpiry - now + .microseconds(999), minimum: 0))
        }
        var next = now + .seconds(1)
        for transfer in Array(active.values) {
            if now >= transfer.deadline {
                detach(transfer, with: .failure(TransferFailure(error: .deadlineExceeded(url: transfer.url))))
                continue
            }
            next = min(next, transfer.deadline)
            if let quietSince = transfer.lastActivity {
                let stallAt = quietSince + transfer.policy.stallTimeout
                if now >= stallAt {
                    detach(transfer, with: .failure(TransferFailure(error: .stalled(url: transfer.url))))
                    continue
                }
                next = min(next, stallAt)
            } else {
                // Its stall clock starts when its connection opens, at the earliest now.
                next = min(next, now + transfer.policy.stallTimeout)
            }
        }
        // A waiting transfer has no connection to stall on, only its deadline.
        for transfer in Array(waitingPerOwnerHost.values.joined()) {
            if now >= transfer.deadline {
                detach(transfer, with: .failure(TransferFailure(error: .deadlineExceeded(url: transfer.url))))
            } else {
                next = min(next, transfer.deadline)
            }
        }
        earliestExpiry = next
        // Round up so the wake-up lands after the expiry, not a hair before it.
        let wait = next - now
        return Int32(CurlTransfer.milliseconds(wait + .microseconds(999), minimum: 0))
    }
}
