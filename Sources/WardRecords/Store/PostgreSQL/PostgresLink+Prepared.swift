import PostgresNIO

/// One statement of a flight run by name (`PostgresLink.prepared`): the server parses and plans
/// its text once per connection, then only binds and executes it.
///
/// Type-erased so that a flight can mix statements: each `PostgresPreparedStatement` is a type
/// of its own (its name and text are static).
struct PreparedStep: Sendable {
    fileprivate let run: @Sendable (PostgresConnection, Logger) async throws -> [PostgresRow]

    init<Statement: PostgresPreparedStatement>(_ statement: Statement) where Statement.Row == PostgresRow {
        run = { connection, logger in
            var rows: [PostgresRow] = []
            for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
            return rows
        }
    }
}

extension PostgresLink {
    /// Runs prepared statements one after another and returns each one's rows, waiting once, up
    /// to `statement-timeout`, as `queries` does.
    ///
    /// Why prepared: PostgresNIO sends `PostgresQuery` as an unnamed statement, which the server
    /// parses and plans every time. For a chart's thirteen statements (before the chart became
    /// one, `PostgresChartStatements.Chart`) that was most of an `open` on a million patients:
    /// the same statements, one client on the socket, took 4.7 ms a chart unnamed and 1.4 ms
    /// prepared. PostgresNIO prepares a
    /// `PostgresPreparedStatement` on its first use on a connection (a reconnect prepares again)
    /// but offers it to async callers only; the statements run in one task on the connection's
    /// own event-loop thread (`EventLoopTaskExecutor`), and Ward's thread waits for the task as
    /// it waits for a future.
    ///
    /// - Throws: as `queries`; the first statement that fails decides, and the connection is
    ///   dropped.
    func prepared(_ steps: [PreparedStep]) throws -> [[PostgresRow]] {
        let connected = try liveConnection()
        let connection = connected.connection
        let promise = connection.eventLoop.makePromise(of: [[PostgresRow]].self)
        let logger = self.logger
        Task(executorPreference: EventLoopTaskExecutor(loop: connection.eventLoop)) {
            do {
                var results: [[PostgresRow]] = []
                results.reserveCapacity(steps.count)
                for step in steps { results.append(try await step.run(connection, logger)) }
                promise.succeed(results)
            } catch {
                promise.fail(error)
            }
        }
        do {
            return try Self.wait(for: promise.futureResult, upTo: settings.statementTimeout)
        } catch {
            // Any failure drops the connection, which the next command opens again. PostgresNIO
            // remembers a statement whose preparation failed and fails it on that connection
            // from then on (a table renamed for a moment, a lock that timed out, would break
            // `open` for the rest of the session); and a flight that began a transaction must
            // not leave it open or aborted: the server rolls it back when the connection goes.
            let reason = failure(error, on: connected)
            drop(connection)
            throw reason
        }
    }
}
