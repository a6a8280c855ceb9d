import Glibc

/// The site's use notice (`[session] banner`) could not be shown, so nobody was asked to sign on.
///
/// NIST AC-8 asks that the notice be shown before access is granted; a terminal that cannot be
/// written to cannot have shown it, and a sign-on after it would be one without the notice.
public enum BannerError: WardError, Equatable {
    /// Writing the notice to the terminal failed (`errno`).
    case notShown(errno: Int32)

    public var description: String {
        switch self {
        case .notShown(let code):
            "the site's use notice ([session] banner) could not be shown (\(String(cString: strerror(code)))); "
                + "nobody signs on without it."
        }
    }

    public var exitStatus: ExitStatus { .ioError }
}
