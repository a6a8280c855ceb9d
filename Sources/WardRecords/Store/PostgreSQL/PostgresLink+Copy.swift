import Dispatch
import PostgresNIO
import Synchronization

extension PostgresLink {
    /// How many chunks the producer may be ahead of the network.
    private static let copyCredits = 4

    /// Streams rows into `table` with `COPY … FROM STDIN` in text format: `produce` is called on
    /// the calling thread and hands chunks of COPY text (whole rows) to `send`.
    ///
    /// COPY because a bulk load of tens of millions of rows is mostly per-statement cost
    /// otherwise: one COPY parses rows as a stream with no plan, no bind and no round trip per
    /// batch. PostgresNIO's `copyFrom` is async and Ward's caller is a plain thread, so the
    /// chunks cross over through an `AsyncThrowingStream` gated by a few credits (a
    /// semaphore): the producer is never more than `copyCredits` chunks ahead of the server,
    /// and memory stays bounded whatever the table's size. A chunk the server does not take
    /// within `statement-timeout` drops the connection, as a query's answer does.
    ///
    /// `finishing` bounds the wait for the server to take a chunk and, after the last one, to
    /// check what it deferred to the statement's end (foreign keys, by default): a bulk load
    /// passes more than the site's `statement-timeout`, which is for a session's commands, so
    /// that a busy server slows it down rather than failing it.
    ///
    /// - Important: the caller runs it inside a transaction: a failure part way leaves rows
    ///   that only the ROLLBACK removes.
    /// - Throws: what `produce` throws (the copy is failed first), else `StoreError.database`
    ///   with the SQLSTATE only, never the server's text (it may quote a value).
    func copy(
        into table: String,
        columns: [String],
        finishing: Duration? = nil,
        _ produce: (_ send: (ByteBuffer) throws -> Void) throws -> Void
    ) throws {
        let connected = try liveConnection()
        let connection = connected.connection
        let (chunks, feed) = AsyncThrowingStream<ByteBuffer, any Error>.makeStream()
        let credits = DispatchSemaphore(value: Self.copyCredits)
        let ended = Atomic(false)
        let promise = connection.eventLoop.makePromise(of: Void.self)
        let logger = self.logger
        Task(executorPreference: EventLoopTaskExecutor(loop: connection.eventLoop)) {
            do {
                try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
                    for try await chunk in chunks {
                        try await writer.write(chunk)
                        credits.signal()
                    }
                }
                promise.succeed(())
            } catch {
                promise.fail(error)
            }
        }
        promise.futureResult.whenComplete { _ in
            ended.store(true, ordering: .sequentiallyConsistent)
            credits.signal()
        }
        let limit = settings.statementTimeout
        let nanoseconds = Int(min((finishing ?? limit).seconds, 3600) * 1e9)
        do {
            try produce { chunk in
                guard credits.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else {
                    throw Timeout(limit: finishing ?? limit)
                }
                // The server ended the copy early (an error): its reason is the future's.
                guard !ended.load(ordering: .sequentiallyConsistent) else { throw CopyEnded() }
                feed.yield(chunk)
            }
            feed.finish()
        } catch is CopyEnded {
            feed.finish()
        } catch let error as Timeout {
            feed.finish(throwing: error)
            drop(connection)
            throw StoreError.database(reason: "the records server did not take the rows \(error.text)")
        } catch {
            feed.finish(throwing: error)
            _ = try? Self.wait(for: promise.futureResult, upTo: limit)
            throw error
        }
        do {
            try Self.wait(for: promise.futureResult, upTo: finishing ?? limit)
        } catch {
            throw failure(error, on: connected)
        }
    }

    /// The server ended a copy before the producer did.
    private struct CopyEnded: Error {}
}
