import Foundation
import PostgresTestSupport
import Testing

/// The site's users on PostgreSQL through the real binary: two homes over one database stand for
/// two hosts, and share one user directory, one lockout count, one unlock.
@Suite(.serialized) struct SiteUsersEndToEndTests {
    /// Two homes whose site files name the same fresh database, migrated; the database's name.
    private static func twoHosts(_ server: PostgresServer) throws -> (BatchHome, BatchHome, String) {
        let database = try server.createDatabase("users")
        let socket = server.socketDirectory.replacingOccurrences(of: "/", with: "%2F")
        let site =
            "[session]\nmax-failed-attempts = 5\nlockout = \"15m\"\n\n[[plugin]]\nname = \"audit-log\"\n\n"
            + "[records]\nbackend = \"postgresql\"\nurl = \"postgresql://\(server.user)@\(socket):\(server.port)/\(database)\"\n"
            + TerminalHarness.unguarded
        let a = try BatchHome(patients: 5)
        let b = try BatchHome(patients: 5)
        for h in [a, b] { try site.write(toFile: h.site, atomically: true, encoding: .utf8) }
        #expect(try ward(["db", "migrate"], a).status == 0)
        return (a, b, database)
    }

    private static func ward(
        _ arguments: [String],
        input: String = "",
        _ h: BatchHome
    ) throws -> (status: Int32, out: String, err: String) {
        let p = try h.start(arguments)
        if !input.isEmpty { p.sendRaw(input) }
        p.closeInput()
        let status = try p.waitForExit(timeout: .seconds(30))
        return (status, p.standardOutput, p.standardError)
    }

    /// One batch sign-on as `user` with `password`: exit status and standard error.
    private static func signOn(_ h: BatchHome, _ user: String, _ password: String) throws -> (Int32, String) {
        try h.writeSecret(password + "\n", to: h.passwordFile)
        let run = try ward(["--batch", try h.script(["whoami"]), "--user", user, "--password-file", h.passwordFile], h)
        return (run.status, run.err)
    }

    @Test func aUserAddedOnHostA_signsOnAtB_isLockedAtBByGuessesAtA_andUnlockedFromB() throws {
        let server = try PostgresServer.shared()
        let (a, b, database) = try Self.twoHosts(server)
        let added = try Self.ward(
            ["user", "add", "alice", "--role", "clinician", "--password-stdin"],
            input: "correct horse\n",
            a
        )
        #expect(added.status == 0, "\(added.err)")
        #expect(try server.psql("SELECT name, role FROM ward_user", database: database) == "alice|clinician\n")
        // Not in either home's own file: the site's directory only.
        let homeFile = (try? String(contentsOfFile: a.home + "/credentials", encoding: .utf8)) ?? ""
        #expect(!homeFile.contains("alice"))

        let first = try Self.signOn(b, "alice", "correct horse")
        #expect(first.0 == 0, "\(first.1)")

        for attempt in 1...5 {
            let (status, error) = try Self.signOn(a, "alice", "wrong guess")
            #expect(status == 77, "attempt \(attempt)")
            #expect(error.contains("Wrong user name or password."), "attempt \(attempt): \(error)")
        }
        let (status, error) = try Self.signOn(b, "alice", "correct horse")
        #expect(status == 77)
        #expect(error.contains("The account 'alice' is locked until "), "\(error)")
        #expect(error.contains("have it unlocked with 'ward user unlock alice'"), "\(error)")

        let list = try Self.ward(["user", "list"], b)
        let row = list.out.split(separator: "\n").first { $0.hasPrefix("alice ") } ?? ""
        #expect(row.contains(" 5 ") && !row.hasSuffix(" -"), "\(list.out)")

        let unlock = try Self.ward(["user", "unlock", "alice"], b)
        #expect(unlock.status == 0 && unlock.out.contains("Unlocked alice."), "\(unlock.err)")
        let after = try Self.signOn(a, "alice", "correct horse")
        #expect(after.0 == 0, "\(after.1)")

        let removed = try Self.ward(["user", "remove", "alice"], a)
        #expect(removed.status == 0, "\(removed.err)")
        #expect(try Self.signOn(b, "alice", "correct horse").0 == 77)
    }
}

extension BatchHome {
    /// Copies the users `ward demo` made in this home's file into the site's database on
    /// `server`, hashes and all: a home made before its site file named PostgreSQL, whose users
    /// then live in the database (USERS AND LOCKOUT in ward(1)).
    func shareUsers(_ server: PostgresServer, _ database: String) throws {
        let lines = try String(contentsOfFile: home + "/credentials", encoding: .utf8).split(separator: "\n")
        for line in lines where !line.hasPrefix("#") && !line.hasPrefix("ward-credentials") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count > 2 else { continue }
            let hash = fields[2] == "pam" ? "NULL" : "'\(fields[2])'"
            try server.psql(
                "INSERT INTO ward_user (name, role, password_hash) VALUES ('\(fields[0])', '\(fields[1])', \(hash))",
                database: database
            )
        }
    }
}
