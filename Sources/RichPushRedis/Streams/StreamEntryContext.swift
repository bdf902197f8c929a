/// The stream entry whose job the current task runs, so a handler's log lines can name it although the handler
/// receives only the job document. Set by `RedisStreamConsumer` around each handler call; nil elsewhere.
package enum StreamEntryContext {
    @TaskLocal package static var entryID: String?
}
