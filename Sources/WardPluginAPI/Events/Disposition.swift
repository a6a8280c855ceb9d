/// What an interceptor decided about an event.
public enum Disposition: Equatable, Sendable {
    /// Hand the event, unchanged, to the next interceptor.
    case pass
    /// Swallow it: nobody after this interceptor sees it, and neither does the shell.
    case consume
    /// Hand a different event to the next interceptor instead.
    case replace(Event)
    /// Refuse the event with this message for the user; nobody after this interceptor sees it.
    case deny(String)
}
