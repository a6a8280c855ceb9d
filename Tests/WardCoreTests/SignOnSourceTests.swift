import Testing
import WardCore

/// Where a sign-on came from, as the executable and the front ends tell the audit log.
@Suite struct SignOnSourceTests {
    @Test func aWellFormedSSHConnection_isAnSSHLogin_fromTheClientsAddressAndPort() {
        #expect(
            SignOnSource(tty: "/dev/pts/4", sshConnection: "203.0.113.9 50122 198.51.100.1 22")
                == .ssh(peer: "203.0.113.9", port: 50122, tty: "/dev/pts/4")
        )
        #expect(
            SignOnSource(tty: nil, sshConnection: "fe80::1%eth0 2222 fe80::2 22")
                == .ssh(peer: "fe80::1%eth0", port: 2222, tty: nil)
        )
    }

    @Test(arguments: [
        nil, "", "203.0.113.9", "203.0.113.9 x 198.51.100.1 22", "203.0.113.9 0 198.51.100.1 22",
        "203.0.113.9 70000 198.51.100.1 22", "\u{1B}[2J 50122 198.51.100.1 22", "host.example 22 a 22",
        "203.0.113.9 50122 198.51.100.1 22 extra",
    ])
    func anythingElse_isATerminal(sshConnection: String?) {
        #expect(SignOnSource(tty: "/dev/pts/4", sshConnection: sshConnection) == .terminal(tty: "/dev/pts/4"))
    }

    @Test func theNames_areTheRecordsViaValues() {
        #expect(SignOnSource.terminal(tty: nil).name == "terminal")
        #expect(SignOnSource.ssh(peer: "::1", port: 1, tty: nil).name == "ssh")
        #expect(SignOnSource.batch(script: "-").name == "batch")
    }
}
