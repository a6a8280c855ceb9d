import Glibc
import Synchronization

/// Days and times as the clinician knows them: in the site's time zone (`[records] time-zone`),
/// else the system's (`TZ`, else `/etc/localtime`), through the C library's zone functions.
///
/// Not Foundation's `TimeZone`, `Calendar` or `DateFormatter`: they load ICU's zone and calendar
/// data, megabytes of resident memory for what `localtime_r` gives from one file under
/// `/usr/share/zoneinfo`. The C library keeps one zone per process, named by `TZ`; this type is
/// the one place that sets it, under a lock, so that a conversion in one zone never reads
/// another's rules half set (tests convert in several zones at once).
///
/// A time is written with its offset wherever it is shown (`2020-05-13T21:20-07:00`), a day
/// without one (`2020-05-13`): a reader on another host, or a script, knows which instant it is.
public enum LocalTime {
    /// Which zone's rules a conversion uses.
    public enum Zone: Equatable, Sendable {
        /// The system's: `TZ` as the process started with it, else `/etc/localtime`.
        case system
        /// A zone of the tz database by name (`America/Los_Angeles`), read from
        /// `/usr/share/zoneinfo`.
        case named(String)
    }

    /// An instant as the zone's wall clock reads it.
    public struct Fields: Equatable, Sendable {
        /// The day, counted from 1970-01-01 (`CivilDate`).
        public var days: Int
        public var secondOfDay: Int
        /// Seconds east of UTC (`-25_200` for -07:00).
        public var offset: Int
    }

    private struct State {
        /// The zone `TZ` holds now; nil before the first conversion.
        var applied: Zone?
        /// The zone times are shown in when the caller names none.
        var site: Zone = .system
        /// `TZ` as the process started, restored for `.system`.
        let startingTZ: String? = getenv("TZ").map { String(cString: $0) }
    }

    private static let state = Mutex(State())

    /// The directory the zone names are files of.
    public static let zoneDirectory = "/usr/share/zoneinfo"

    /// Makes `zone` the one times are shown in from now on: the site's, once at start.
    public static func show(in zone: Zone) {
        state.withLock { $0.site = zone }
    }

    /// The zone times are shown in now.
    public static var shownZone: Zone { state.withLock { $0.site } }

    /// The wall clock of `seconds` (since 1970-01-01T00:00Z) in `zone`, the site's by default.
    public static func fields(_ seconds: Int64, in zone: Zone? = nil) -> Fields {
        var parts = tm()
        var time = time_t(seconds)
        let converted = state.withLock { state -> Bool in
            let wanted = zone ?? state.site
            if state.applied != wanted {
                switch wanted {
                case .named(let name): setenv("TZ", name, 1)
                case .system:
                    if let tz = state.startingTZ { setenv("TZ", tz, 1) } else { unsetenv("TZ") }
                }
                tzset()
                state.applied = wanted
            }
            return localtime_r(&time, &parts) != nil
        }
        guard converted else {
            // Past what the C library's `tm` holds: shown in UTC rather than not at all.
            let (days, secondOfDay) = CivilDate.split(seconds: seconds)
            return Fields(days: days, secondOfDay: secondOfDay, offset: 0)
        }
        return Fields(
            days: CivilDate.days(
                year: Int(parts.tm_year) + 1900,
                month: Int(parts.tm_mon) + 1,
                day: Int(parts.tm_mday)
            ),
            secondOfDay: Int(parts.tm_hour) * 3600 + Int(parts.tm_min) * 60 + Int(parts.tm_sec),
            offset: parts.tm_gmtoff
        )
    }

    /// `2020-05-13`: the day of `seconds` in `zone`.
    public static func day(_ seconds: Int64, in zone: Zone? = nil) -> String {
        CivilDate.string(days: fields(seconds, in: zone).days)
    }

    /// `2020-05-13T21:20-07:00`: to the minute, with the offset (`Z` at UTC).
    public static func minute(_ seconds: Int64, in zone: Zone? = nil) -> String {
        iso8601(fields(seconds, in: zone), withSeconds: false)
    }

    /// `2020-05-13T21:20:05-07:00`: to the second, with the offset, as RFC 3339 writes it.
    public static func second(_ seconds: Int64, in zone: Zone? = nil) -> String {
        iso8601(fields(seconds, in: zone), withSeconds: true)
    }

    /// `Nov 22, 2025 at 09:14 (UTC-08:00)`: a time in a sentence (sign-on, lockout).
    public static func sentence(_ seconds: Int64, in zone: Zone? = nil) -> String {
        let local = fields(seconds, in: zone)
        let (year, month, day) = CivilDate.fields(days: local.days)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        var clock: [UInt8] = []
        CivilDate.appendDigits(local.secondOfDay / 3600, width: 2, to: &clock)
        clock.append(UInt8(ascii: ":"))
        CivilDate.appendDigits(local.secondOfDay / 60 % 60, width: 2, to: &clock)
        var zone: [UInt8] = Array("UTC".utf8)
        if local.offset != 0 { appendOffset(local.offset, to: &zone) }
        return "\(months[month - 1]) \(day), \(year) at \(String(decoding: clock, as: UTF8.self))"
            + " (\(String(decoding: zone, as: UTF8.self)))"
    }

    private static func iso8601(_ local: Fields, withSeconds: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(25)
        CivilDate.append(days: local.days, to: &out)
        out.append(UInt8(ascii: "T"))
        CivilDate.appendDigits(local.secondOfDay / 3600, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        CivilDate.appendDigits(local.secondOfDay / 60 % 60, width: 2, to: &out)
        if withSeconds {
            out.append(UInt8(ascii: ":"))
            CivilDate.appendDigits(local.secondOfDay % 60, width: 2, to: &out)
        }
        if local.offset == 0 { out.append(UInt8(ascii: "Z")) } else { appendOffset(local.offset, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// `+09:00`, `-07:00`, `+05:45`: an offset to the minute, as every zone of the database has
    /// had one since 1972.
    private static func appendOffset(_ offset: Int, to out: inout [UInt8]) {
        out.append(UInt8(ascii: offset < 0 ? "-" : "+"))
        let minutes = abs(offset) / 60
        CivilDate.appendDigits(minutes / 60, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        CivilDate.appendDigits(minutes % 60, width: 2, to: &out)
    }

    /// Why `name` is not a zone Ward can show times in, or nil when it is: a name of the tz
    /// database (`America/Los_Angeles`, `UTC`), a file under `zoneDirectory` in the format the
    /// C library reads (`TZif`). The C library takes any other text as UTC without a word, so a
    /// misspelt zone would show every time an offset away.
    public static func zoneProblem(_ name: String) -> String? {
        let allowed = name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "_"), UInt8(ascii: "-"),
                UInt8(ascii: "+"):
                true
            default: false
            }
        }
        guard !name.isEmpty, allowed, !name.hasPrefix("/"),
            !name.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty)
        else { return "a zone name such as \"America/Los_Angeles\" or \"UTC\"" }
        let path = zoneDirectory + "/" + name
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return "a zone of the tz database (no file \(path))" }
        defer { close(fd) }
        var magic = [UInt8](repeating: 0, count: 4)
        guard read(fd, &magic, 4) == 4, magic == Array("TZif".utf8) else {
            return "a zone of the tz database (\(path) is not a zone file)"
        }
        return nil
    }
}
