/// The credential store's text form: a header line, then one user a line, eight tab-separated
/// fields: name, role, hash, last sign-on time (or `-`), its tty (or `-`), failed attempts,
/// consecutive failures toward a lock, and the time the account is locked until (or `-`, or
/// `disabled` for an account `ward user disable` closed).
/// A store written before lockouts existed has six fields; it reads as not locked. The hash field
/// of a user whose password is the system's (`ward user add --pam`) is `pam`.
///
/// Text rather than JSON so that WardCore needs no Foundation and a damaged store can be read
/// (and its error pointed to, by line) with `less`. The tty is the only free-form field; it is
/// %-escaped so it can hold no tab, newline or terminal escape.
enum CredentialFile {
    /// The hash field of a user whose password is the system's, checked by PAM.
    static let systemPassword = "pam"
    /// The lock field of an account that is disabled.
    static let disabled = "disabled"

    static func render(_ users: [UserRecord]) -> String {
        var text = "\(CredentialStore.header)\n"
        text += "# Ward's users. Change with 'ward user'; the hashes are scrypt. Do not edit by hand.\n"
        for user in users {
            let time = user.lastSignOn.map { String($0.time) } ?? "-"
            let tty = user.lastSignOn?.tty.map(escape) ?? "-"
            let lockedUntil = user.isDisabled ? disabled : user.lockedUntil.map { String($0) } ?? "-"
            text +=
                [
                    user.name, user.role.rawValue, user.passwordHash?.encoded ?? systemPassword, time, tty,
                    String(user.failedAttempts),
                    String(user.consecutiveFailures), lockedUntil,
                ]
                .joined(separator: "\t") + "\n"
        }
        return text
    }

    static func parse(_ text: String, path: String) throws(AuthError) -> [UserRecord] {
        var users: [UserRecord] = []
        var sawHeader = false
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            func bad(_ reason: String) -> AuthError { .corruptStore(path: path, line: number, reason: reason) }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if !sawHeader {
                guard line == CredentialStore.header else {
                    throw bad("expected '\(CredentialStore.header)', the first line of a Ward credential store")
                }
                sawHeader = true
                continue
            }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 8 || fields.count == 6 else { throw bad("\(fields.count) fields where 8 belong") }
            let name = String(fields[0])
            guard UserRecord.isValidName(name) else { throw bad("not a valid user name") }
            guard !users.contains(where: { $0.name == name }) else { throw bad("user '\(name)' appears twice") }
            guard let role = Role(rawValue: String(fields[1])) else {
                throw bad("'\(fields[1])' is not a role (\(Role.choices))")
            }
            var hash: PasswordHash?
            if fields[2] != systemPassword {
                guard let scrypt = PasswordHash(encoded: fields[2]) else {
                    throw bad("the password hash of '\(name)' is not an scrypt hash Ward can check")
                }
                hash = scrypt
            }
            var lastSignOn: SignOnRecord?
            if fields[3] != "-" {
                guard let time = Int64(fields[3]) else { throw bad("the sign-on time of '\(name)' is not a number") }
                var tty: String?
                if fields[4] != "-" {
                    guard let text = unescape(fields[4]) else { throw bad("the terminal of '\(name)' is garbled") }
                    tty = text
                }
                lastSignOn = SignOnRecord(time: time, tty: tty)
            }
            guard let failures = Int(fields[5]), failures >= 0 else {
                throw bad("the failed-attempt count of '\(name)' is not a number")
            }
            var consecutive = 0
            var lockedUntil: Int64?
            var isDisabled = false
            if fields.count == 8 {
                guard let count = Int(fields[6]), count >= 0 else {
                    throw bad("the consecutive-failure count of '\(name)' is not a number")
                }
                consecutive = count
                if fields[7] == disabled {
                    isDisabled = true
                } else if fields[7] != "-" {
                    guard let time = Int64(fields[7]) else { throw bad("the lock time of '\(name)' is not a number") }
                    lockedUntil = time
                }
            }
            users.append(
                UserRecord(
                    name: name,
                    role: role,
                    passwordHash: hash,
                    lastSignOn: lastSignOn,
                    failedAttempts: failures,
                    consecutiveFailures: consecutive,
                    lockedUntil: lockedUntil,
                    isDisabled: isDisabled
                )
            )
        }
        if !sawHeader && !text.isEmpty {
            throw .corruptStore(path: path, line: 1, reason: "not a Ward credential store")
        }
        return users
    }

    /// Printable ASCII other than `%` stays; everything else becomes `%XX`. `-` alone would
    /// read as "no tty", so it is escaped too.
    static func escape(_ text: String) -> String {
        if text == "-" { return "%2D" }
        var out = ""
        for byte in text.utf8 {
            if byte > 0x20 && byte < 0x7f && byte != UInt8(ascii: "%") {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + Hex.encode([byte]).uppercased()
            }
        }
        return out
    }

    static func unescape(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var chars = text.utf8.makeIterator()
        while let c = chars.next() {
            if c == UInt8(ascii: "%") {
                guard let high = chars.next(), let low = chars.next(),
                    let decoded = Hex.decode(Substring(String(decoding: [high, low], as: UTF8.self).lowercased())),
                    decoded.count == 1
                else { return nil }
                bytes.append(decoded[0])
            } else {
                bytes.append(c)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
