/// What an interceptor decided about an event.
public enum Disposition: Equatable, Sendable {
    /// Hand the event, unchanged, to the next interceptor.
    case pass
    /// Swallow it: nobody after this interceptor sees it, and neither does the shell.
    case consume
    /// Hand a different event to the next interceptor instead.
    ///
    /// `indirect`: rare, and boxing it keeps a disposition two words wide, returned in
    /// registers by every plugin for every key, instead of an event's width in memory.
    indirect case replace(Event)
    /// Refuse the event with this message for the user; nobody after this interceptor sees it.
    case deny(String)
}
