/// Where live sessions list themselves and how one is asked, from outside, to lock or sign off:
/// the seam between the session (`SessionDriver`), `ward sessions`/`ward lock`, and where the
/// site keeps the list.
///
/// Two kinds: the home's files (`SessionRegistry`), which reach the sessions of one host through
/// SIGUSR1, and a site's shared database (in WardRecords), which reaches every host through the
/// session's own connection. WardCore knows only this protocol: the executable picks one from
/// the site's `[records]` table.
///
/// ```
/// session ──write (sign-on, lock, unlock)──► directory ◄──entries──── ward sessions
///         ◄──requestDescriptor readable────  directory ◄──requestLock── ward lock (any host)
///            (or SIGUSR1), then takeRequest
/// ```
public protocol SessionDirectory: Sendable {
    /// Checks, before anyone signs on, that this process can list its session here; throws a
    /// `WardError` naming the fix otherwise. A session `ward lock` cannot reach is not started.
    func checkWritable() throws

    /// Lists the session as `entry` says, in place of what it said before.
    func write(_ entry: SessionEntry) throws

    /// Takes the session off the list, and any request left for it.
    func remove(id: String)

    /// A descriptor the session's loop watches: readable when a request may have come for it.
    /// Nil where requests come as SIGUSR1 instead (the home's files).
    var requestDescriptor: Int32? { get }

    /// The request left for session `id`, taken once; nil when there is none.
    func takeRequest(id: String) -> SessionRegistry.Request?

    /// The live sessions, oldest first: a session whose process or connection is gone is not
    /// among them.
    func entries() throws -> [SessionEntry]

    /// Asks `entry`'s session to lock, naming `requester` on its lock screen.
    func requestLock(of entry: SessionEntry, by requester: String) throws(SessionRegistry.RequestFailure)

    /// Asks `entry`'s session to sign off (`ward user remove|disable`).
    func requestSignOff(of entry: SessionEntry, by requester: String) throws(SessionRegistry.RequestFailure)

    /// Whether a request asked of `id` by this process has not been acted on yet.
    func hasPendingRequest(id: String) -> Bool
}

extension SessionRegistry: SessionDirectory {
    /// The home's sessions are reached by SIGUSR1 (`UnixSignal.sigusr1`), not a descriptor.
    public var requestDescriptor: Int32? { nil }
}
