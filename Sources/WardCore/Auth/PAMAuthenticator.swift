import CPAM
import Glibc

/// Checks a password as the system does, through PAM: `[auth] source = "pam"`, with the site's
/// service (`/etc/pam.d/ward` by default; contrib/pam.d/ward is an example).
///
/// One transaction per check: `pam_start(service, name)`, the terminal as `PAM_TTY`,
/// `pam_authenticate` (the password, handed over by `PAMConversation`), then `pam_acct_mgmt`
/// (an expired or locked system account is refused even with the right password, with PAM's own
/// words), then `pam_end`. No credentials are set and no PAM session is opened: Ward does not
/// become the user, it only learns that the password is theirs.
///
/// A name Ward has no user for is not passed to PAM at all: a name field often receives a
/// password, and PAM modules log the names they are given (pam_unix: "authentication failure;
/// user=..."). The price is timing: such a name is refused without PAM's failure delay.
///
/// With pam_unix, a process that is not root can check only its own user's password (through
/// unix_chkpwd): run Ward as the user who signs on (a login shell, sshd's ForceCommand), or use a
/// module that checks others' (sssd, Kerberos). ward(1), PAM.
public struct PAMAuthenticator: Authenticator {
    /// The PAM service: a file in /etc/pam.d.
    public let service: String

    public init(service: String) {
        self.service = service
    }

    public var source: AuthSource { .pam(service: service) }

    /// A PAM check can take seconds (pam_unix's failure delay, a directory server): it runs
    /// outside the store's lock.
    public var checksUnderStoreLock: Bool { false }

    public func check(
        _ password: borrowing Password,
        name: String,
        user: UserRecord?,
        tty: String?
    ) throws(AuthError) -> PasswordVerdict {
        guard Self.serviceFile(service) != nil else {
            throw .pamServiceMissing(service: service, path: Self.serviceDirectories()[0] + "/" + service)
        }
        guard user != nil else { return .rejected }
        // A C string ends at the first NUL: "abc\0xyz" would be checked as "abc".
        guard !password.withBytes({ $0.contains(0) }) else { return .rejected }
        let result = password.withBytes { bytes in
            bytes.withUnsafeBufferPointer { buffer in transaction(name: name, password: buffer, tty: tty) }
        }
        return try result.get()
    }

    /// The file libpam reads for `service`, nil when there is none.
    ///
    /// Without one, libpam quietly uses its `other` service (pam_deny on Debian): every password
    /// would be refused as wrong and counted toward the lockout, so Ward asks first, at sign-on
    /// and in `ward config check`. Where libpam looks: /etc/pam.d, then the distribution's
    /// /usr/lib/pam.d; under pam_wrapper (`PAM_WRAPPER=1`, the tests), its
    /// `PAM_WRAPPER_SERVICE_DIR`, which it reads in their place.
    public static func serviceFile(
        _ service: String,
        environment: [String: String] = ConfigEnvironment.current
    ) -> String? {
        for directory in serviceDirectories(environment: environment) {
            let path = directory + "/" + service
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG { return path }
        }
        return nil
    }

    /// The directories `serviceFile` searches, in order; the first is where a service belongs.
    public static func serviceDirectories(
        environment: [String: String] = ConfigEnvironment.current
    ) -> [String] {
        if environment["PAM_WRAPPER"] == "1", let directory = environment["PAM_WRAPPER_SERVICE_DIR"],
            !directory.isEmpty
        {
            return [directory]
        }
        return ["/etc/pam.d", "/usr/lib/pam.d"]
    }

    /// One PAM transaction, start to end.
    private func transaction(
        name: String,
        password: UnsafeBufferPointer<UInt8>,
        tty: String?
    ) -> Result<
        PasswordVerdict, AuthError
    > {
        if let problem = ward_pam_load() {
            return .failure(
                .authenticationUnavailable(
                    service: service,
                    reason: "libpam cannot be loaded: \(String(cString: problem))"
                )
            )
        }
        let conversation = PAMConversation(password: password)
        var conv = conversation.makeConv()
        var handle: OpaquePointer?
        let started = ward_pam_start(service, name, &conv, &handle)
        guard started == PAM_SUCCESS, let handle else {
            return .failure(.authenticationUnavailable(service: service, reason: "pam_start failed (\(started))"))
        }
        var status = started
        defer {
            ward_pam_end(handle, status)
            withExtendedLifetime(conversation) {}
        }
        if let tty {
            status = ward_pam_set_item(handle, PAM_TTY, tty)
            guard status == PAM_SUCCESS else { return .failure(unavailable(handle, status)) }
        }
        status = ward_pam_authenticate(handle, Int32(PAM_DISALLOW_NULL_AUTHTOK))
        if let prompt = conversation.unanswered {
            return .failure(.unanswerablePrompt(service: service, prompt: prompt))
        }
        switch status {
        case PAM_SUCCESS:
            break
        case PAM_AUTH_ERR, PAM_USER_UNKNOWN, PAM_MAXTRIES, PAM_CRED_INSUFFICIENT:
            return .success(PasswordVerdict(isAccepted: false, messages: conversation.messages))
        default:
            return .failure(unavailable(handle, status))
        }
        let saidBefore = conversation.messages.count
        status = ward_pam_acct_mgmt(handle, Int32(PAM_DISALLOW_NULL_AUTHTOK))
        if let prompt = conversation.unanswered {
            return .failure(.unanswerablePrompt(service: service, prompt: prompt))
        }
        switch status {
        case PAM_SUCCESS:
            return .success(PasswordVerdict(isAccepted: true, messages: conversation.messages))
        case PAM_ACCT_EXPIRED, PAM_NEW_AUTHTOK_REQD, PAM_PERM_DENIED, PAM_AUTH_ERR, PAM_USER_UNKNOWN:
            // The account stage's own words when it gave any ("Your account has expired; please
            // contact your system administrator."), else PAM's name for the status.
            let said = conversation.messages[saidBefore...].joined(separator: " ")
            return .failure(.accountRefused(user: name, reason: said.isEmpty ? describe(handle, status) : said))
        default:
            return .failure(unavailable(handle, status))
        }
    }

    private func unavailable(_ handle: OpaquePointer, _ status: Int32) -> AuthError {
        .authenticationUnavailable(service: service, reason: describe(handle, status))
    }

    /// `pam_strerror`'s text: "Authentication token is no longer valid; new one required".
    private func describe(_ handle: OpaquePointer, _ status: Int32) -> String {
        ward_pam_strerror(handle, status).map { String(cString: $0) } ?? "PAM error \(status)"
    }
}
