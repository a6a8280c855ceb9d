import Glibc

/// What a successful sign-on tells the user about their own account, as VistA does: when they
/// last signed on, from where, and how many failed attempts there were since.
///
/// Why show it: the account's owner is the one person who can tell that "3 unsuccessful attempts"
/// or "last signed on from /dev/pts/9 at 03:12" was not them.
public struct SignOnSummary: Sendable, Equatable {
    /// Who signed on.
    public var user: String
    /// Their role.
    public var role: Role
    /// The sign-on before this one; nil on the first.
    public var previous: SignOnRecord?
    /// Failed attempts between `previous` and now.
    public var failedAttempts: Int

    public init(
        user: String,
        role: Role,
        previous: SignOnRecord?,
        failedAttempts: Int
    ) {
        self.user = user
        self.role = role
        self.previous = previous
        self.failedAttempts = failedAttempts
    }

    /// The lines to print after sign-on, in the site's zone with its offset:
    /// `You last signed on Nov 22, 2025 at 09:14 (UTC-08:00) from /dev/pts/3.` and
    /// `There were 2 unsuccessful attempts since you last signed on.`
    public var lines: [String] {
        var lines: [String] = []
        if let previous {
            let from = previous.tty.map { " from \($0)" } ?? ""
            lines.append("You last signed on \(Self.localTime(previous.time))\(from).")
        } else {
            lines.append("This is your first sign-on.")
        }
        switch failedAttempts {
        case 0: break
        case 1: lines.append("There was 1 unsuccessful attempt since you last signed on.")
        default: lines.append("There were \(failedAttempts) unsuccessful attempts since you last signed on.")
        }
        return lines
    }

    /// `Nov 22, 2025 at 09:14 (UTC-08:00)`, in the site's zone (`LocalTime`).
    public static func localTime(_ seconds: Int64) -> String {
        LocalTime.sentence(seconds)
    }

    /// Wall-clock seconds since 1970, for `SignOnRecord.time`.
    public static func currentTime() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }
}
