import Foundation
import Synchronization
import RichPushCore

/// One resolution per key at a time within this process: the first caller starts it, callers that arrive while it
/// runs wait for the same outcome. Each caller waits only until its own deadline or cancellation; the resolution
/// itself runs detached and finishes for the others (bounded by the first caller's deadline and the work itself).
///
/// A `Mutex`, not an actor, guards the table, so a store can ask `isIdle` on its fast path without a hop.
final class SingleFlight: Sendable {
    private enum WaitResult: Sendable {
        case completed(Result<CacheOutcome, CacheError>)
        case timedOut
        case cancelled
    }

    private struct Waiter {
        let continuation: CheckedContinuation<WaitResult, Never>
        let timer: Task<Void, Never>
    }

    private struct Flight {
        var waiters: [UInt64: Waiter] = [:]
    }

    private struct State {
        var flights: [CacheKey: Flight] = [:]
        var nextWaiter: UInt64 = 0
        var started = 0
    }

    private let state = Mutex(State())
    /// Deadlines are compared with it and waited for on it.
    private let clock: any CacheClock

    init(clock: any CacheClock) {
        self.clock = clock
    }

    /// Resolutions started (callers that joined one in flight do not count): `richpush_cache_resolutions_total`.
    var flightsStarted: Int { state.withLock { $0.started } }

    /// Callers waiting for a resolution, leaders included: `richpush_cache_resolution_waiters`.
    var callersWaiting: Int { state.withLock { $0.flights.values.reduce(0) { $0 + $1.waiters.count } } }

    /// True when no resolution of `key` is running in this process.
    func isIdle(_ key: CacheKey) -> Bool { state.withLock { $0.flights[key] == nil } }

    /// The outcome of `work` for `key`, run once however many callers ask at the same time. `isLeader` is true for
    /// the caller whose call started the work. A joiner whose leader gave up (its shorter deadline passed, or it was
    /// cancelled) tries again, at most three times, while its own deadline allows.
    func outcome(
        for key: CacheKey, deadline: ContinuousClock.Instant,
        work: @escaping @Sendable () async throws(CacheError) -> CacheOutcome
    ) async throws(CacheError) -> (outcome: CacheOutcome, isLeader: Bool) {
        var attempts = 0
        while true {
            if Task.isCancelled { throw CacheError.cancelled }
            if clock.instant >= deadline { throw CacheError.deadlineExceeded }
            attempts += 1
            let (result, isLeader) = await wait(for: key, deadline: deadline, work: work)
            switch result {
            case .timedOut:
                throw CacheError.deadlineExceeded
            case .cancelled:
                throw CacheError.cancelled
            case .completed(.failure(let error)):
                let retriable = error == .deadlineExceeded || error == .cancelled
                if !isLeader && retriable && attempts < 3 && clock.instant < deadline { continue }
                throw error
            case .completed(.success(let outcome)):
                return (outcome, isLeader)
            }
        }
    }

    /// `outcome(for:deadline:work:)` as a store answers it, shared by both stores. A caller that joined another's
    /// flight raises the object's retention to its own `retainUntil` when the leader's did not reach it (`resolve`
    /// raised it only to the leader's), and the outcome is remembered in `memory` for the next caller.
    func storeOutcome(
        for key: CacheKey, retainUntil: Date?, deadline: ContinuousClock.Instant, rules: CacheFreshnessRules,
        memory: OutcomeMemory,
        resolve: @escaping @Sendable () async throws(CacheError) -> CacheOutcome,
        raiseRetention: (Date) async throws(CacheError) -> CachedObject?
    ) async throws(CacheError) -> CacheOutcome {
        var (outcome, isLeader) = try await outcome(for: key, deadline: deadline, work: resolve)
        if !isLeader, let object = outcome.object, rules.needsRetention(object, until: retainUntil), let retainUntil {
            if let raised = try await raiseRetention(retainUntil) {
                outcome = outcome.replacingObject(with: raised)
            }
        }
        memory.remember(outcome)
        return outcome
    }

    /// Joins the running flight of `key`, or starts one; registration and start happen under one lock, so no
    /// completion can slip in between.
    private func wait(
        for key: CacheKey, deadline: ContinuousClock.Instant,
        work: @escaping @Sendable () async throws(CacheError) -> CacheOutcome
    ) async -> (WaitResult, isLeader: Bool) {
        let waiter = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let leadership = Mutex(false)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<WaitResult, Never>) in
                let clock = self.clock
                let timer = Task {
                    try? await clock.sleep(until: deadline)
                    if !Task.isCancelled { self.endWait(key: key, waiter: waiter, with: .timedOut) }
                }
                let isLeader = state.withLock { state -> Bool in
                    let isLeader = state.flights[key] == nil
                    if isLeader { state.started += 1 }
                    state.flights[key, default: Flight()].waiters[waiter] = Waiter(continuation: continuation, timer: timer)
                    return isLeader
                }
                leadership.withLock { $0 = isLeader }
                if isLeader {
                    Task.detached {
                        let result: Result<CacheOutcome, CacheError>
                        do throws(CacheError) {
                            result = .success(try await work())
                        } catch {
                            result = .failure(error)
                        }
                        self.complete(key: key, with: result)
                    }
                }
                // Cancelled before registering: the cancellation handler found nothing to end.
                if Task.isCancelled { endWait(key: key, waiter: waiter, with: .cancelled) }
            }
        } onCancel: {
            endWait(key: key, waiter: waiter, with: .cancelled)
        }
        return (result, leadership.withLock { $0 })
    }

    private func complete(key: CacheKey, with result: Result<CacheOutcome, CacheError>) {
        let waiters = state.withLock { $0.flights.removeValue(forKey: key)?.waiters.values.map { $0 } ?? [] }
        for waiter in waiters {
            waiter.timer.cancel()
            waiter.continuation.resume(returning: .completed(result))
        }
    }

    private func endWait(key: CacheKey, waiter: UInt64, with result: WaitResult) {
        guard let ended = state.withLock({ $0.flights[key]?.waiters.removeValue(forKey: waiter) }) else { return }
        ended.timer.cancel()
        ended.continuation.resume(returning: result)
    }
}
