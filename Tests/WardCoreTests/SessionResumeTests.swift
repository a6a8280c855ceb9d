import Glibc
import Logging
import SessionTestSupport
import Testing

@testable import WardCore

/// The seal of the open charts' list (`ResumeKey`, `SealedContext`), what a session keeps of it
/// across a lock (`SessionResume`), and the driver handing it back to the shell after an unlock.
@Suite struct SealedContextTests {
    static let salt = [UInt8](repeating: 7, count: ResumeKey.saltByteCount)

    static func key(_ password: StaticString = "correct horse", salt: [UInt8] = salt) throws -> ResumeKey {
        try ResumeKey(password: Password(password), salt: salt, cost: .testing)
    }

    @Test func aSealedList_opensWithTheKeyFromTheSamePasswordAndSalt() throws {
        var plaintext = Array("M1\nM2".utf8)
        let sealed = try SealedContext.seal(&plaintext, for: "alice", with: try Self.key())
        #expect(!sealed.box.isEmpty)
        #expect(try sealed.open(for: "alice", with: try Self.key()) == Array("M1\nM2".utf8))
    }

    @Test func sealing_zeroesThePlaintext_andWipesTheKey() throws {
        var plaintext = Array("M1\nM2".utf8)
        let key = try Self.key()
        #expect(!key.isWiped)
        _ = try SealedContext.seal(&plaintext, for: "alice", with: key)
        #expect(key.isWiped)
        #expect(plaintext.allSatisfy { $0 == 0 } && plaintext.count == 5)
    }

    @Test func theBox_holdsNoneOfThePlaintext() throws {
        var plaintext = Array("MRN-0000-PLAINTEXT".utf8)
        let sealed = try SealedContext.seal(&plaintext, for: "alice", with: try Self.key())
        let needle = Array("PLAINTEXT".utf8)
        #expect(
            !sealed.box.indices.dropLast(needle.count).contains { Array(sealed.box[$0..<$0 + needle.count]) == needle }
        )
    }

    @Test func anotherPassword_anotherSalt_orAnotherUser_doesNotOpenIt() throws {
        var plaintext = Array("M1".utf8)
        let sealed = try SealedContext.seal(&plaintext, for: "alice", with: try Self.key())
        #expect(throws: SealedContext.Failure.opening) { try sealed.open(for: "alice", with: try Self.key("guess")) }
        let otherSalt = [UInt8](repeating: 8, count: ResumeKey.saltByteCount)
        #expect(throws: SealedContext.Failure.opening) {
            try sealed.open(for: "alice", with: try Self.key(salt: otherSalt))
        }
        #expect(throws: SealedContext.Failure.opening) { try sealed.open(for: "bob", with: try Self.key()) }
    }

    @Test func aChangedByte_anywhereInTheBox_isRefused() throws {
        var plaintext = Array("M1\nM2".utf8)
        let sealed = try SealedContext.seal(&plaintext, for: "alice", with: try Self.key())
        for i in sealed.box.indices {
            var box = sealed.box
            box[i] ^= 0x01
            #expect(throws: SealedContext.Failure.opening) {
                try SealedContext(box: box).open(for: "alice", with: try Self.key())
            }
        }
        #expect(throws: SealedContext.Failure.opening) {
            try SealedContext(box: Array(sealed.box.dropLast())).open(for: "alice", with: try Self.key())
        }
    }

    @Test func twoSeals_ofTheSameList_differ() throws {
        var a = Array("M1".utf8)
        var b = Array("M1".utf8)
        let first = try SealedContext.seal(&a, for: "alice", with: try Self.key())
        let second = try SealedContext.seal(&b, for: "alice", with: try Self.key())
        #expect(first.box != second.box, "a fresh nonce each time")
    }
}

@Suite struct SessionResumeTests {
    func resume(on: Bool = true) -> SessionResume {
        SessionResume(cost: .testing, logger: Logger(label: "test")) { _, _ in on }
    }

    @Test func lockThenUnlock_givesTheContextBack_andKeepsNoKeyWhileLocked() {
        let r = resume()
        r.signedOn(user: "alice", role: .clinician, password: Password("correct horse"))
        #expect(r.holdsKey)
        var context: [UInt8]? = Array("M1".utf8)
        r.lock(sealing: &context)
        #expect(context == nil && !r.holdsKey && r.isSealed)
        r.unlocked(password: Password("correct horse"))
        #expect(r.holdsKey)
        #expect(r.open() == .context(Array("M1".utf8)))
        #expect(!r.isSealed && r.open() == .nothing, "brought back once")
    }

    /// A password Ward's hash checked makes its key from that check's scrypt, at sign-on and at
    /// every unlock; one it did not (PAM's) costs a scrypt at the standard given at start.
    @Test func aCheckedPassword_makesItsKeyFromTheCheck_andAnUncheckedOneByScrypt() throws {
        // A cost no build computes makes no key by scrypt: a key held came from the check.
        let unsupported = ScryptParameters(logN: 40, r: 8, p: 1)
        let r = SessionResume(cost: unsupported, logger: Logger(label: "test")) { _, _ in true }
        let hash = try PasswordHash(password: Password("correct horse"), parameters: .testing)
        let signOn = Password("correct horse")
        let signOnMatched = try hash.matches(signOn)
        r.signedOn(user: "alice", role: .clinician, password: signOn)
        #expect(signOnMatched && r.holdsKey)
        var context: [UInt8]? = Array("M1".utf8)
        r.lock(sealing: &context)
        let unlock = Password("correct horse")
        let unlockMatched = try hash.matches(unlock)
        r.unlocked(password: unlock)
        #expect(unlockMatched && r.open() == .context(Array("M1".utf8)), "the unlock's check makes the same key")

        r.signedOn(user: "bob", role: .clinician, password: Password("bob's"))
        #expect(!r.holdsKey, "a PAM user's key costs the standard given at start")
    }

    /// The same password under a new hash (reset while the session was locked) gives another
    /// secret: the seal is forgotten, the unlock is not refused.
    @Test func theSamePassword_underANewHash_leavesTheSealUnreadable() throws {
        let r = resume()
        let before = try PasswordHash(password: Password("correct horse"), parameters: .testing)
        let after = try PasswordHash(password: Password("correct horse"), parameters: .testing)
        let signOn = Password("correct horse")
        _ = try before.matches(signOn)
        r.signedOn(user: "alice", role: .clinician, password: signOn)
        var context: [UInt8]? = Array("M1".utf8)
        r.lock(sealing: &context)
        let unlock = Password("correct horse")
        let matched = try after.matches(unlock)
        r.unlocked(password: unlock)
        #expect(matched && r.open() == .unreadable)
    }

    @Test func resumeOff_keepsNothing() {
        let r = resume(on: false)
        r.signedOn(user: "alice", role: .clinician, password: Password("correct horse"))
        var context: [UInt8]? = Array("M1".utf8)
        r.lock(sealing: &context)
        #expect(context == nil && !r.holdsKey && !r.isSealed)
        r.unlocked(password: Password("correct horse"))
        #expect(r.open() == .nothing)
    }

    @Test func aPasswordChangedWhileLocked_leavesTheSealUnreadable_andItIsForgotten() {
        let r = resume()
        r.signedOn(user: "alice", role: .clinician, password: Password("correct horse"))
        var context: [UInt8]? = Array("M1".utf8)
        r.lock(sealing: &context)
        r.unlocked(password: Password("battery staple"))
        #expect(r.open() == .unreadable)
        #expect(!r.isSealed && r.open() == .nothing)
    }

    @Test func aNewSignOn_forgetsWhatTheLastOneSealed() {
        let r = resume()
        r.signedOn(user: "alice", role: .clinician, password: Password("correct horse"))
        var context: [UInt8]? = Array("M1".utf8)
        r.lock(sealing: &context)
        r.signedOn(user: "bob", role: .clinician, password: Password("bob's"))
        #expect(!r.isSealed && r.open() == .nothing)
    }

    @Test func lockingAgain_beforeTheShellIsBack_keepsTheFirstSeal() {
        let r = resume()
        r.signedOn(user: "alice", role: .clinician, password: Password("correct horse"))
        var context: [UInt8]? = Array("M1".utf8)
        r.lock(sealing: &context)
        r.unlocked(password: Password("correct horse"))
        var nothing: [UInt8]? = nil
        r.lock(sealing: &nothing)  // a safeguard locked again as the session unlocked
        #expect(!r.holdsKey && r.isSealed)
        r.unlocked(password: Password("correct horse"))
        #expect(r.open() == .context(Array("M1".utf8)))
    }

    @Test func forget_dropsTheKeyAndTheSeal() {
        let r = resume()
        r.signedOn(user: "alice", role: .clinician, password: Password("correct horse"))
        r.forget()
        #expect(!r.holdsKey)
        var context: [UInt8]? = Array("M1".utf8)
        r.lock(sealing: &context)
        #expect(!r.isSealed)
    }
}

/// The driver's part: the runner's context is taken before the wipe, and given back after the
/// unlock, once the chain has heard of it; what the runner did then reaches the chain.
@Suite struct SessionDriverResumeTests {
    /// A runner with one chart's worth of context: `open` opens it, `resume` reopens it.
    final class ContextRunner: CommandRunner {
        var open: [UInt8]?
        var resumed: [[UInt8]] = []
        var events: [SessionEvent] = []
        var prompt: String { "ward> " }

        func run(_ line: Line) -> CommandResult {
            switch line.text {
            case "open":
                open = Array("M1".utf8)
                return .succeeded
            case "lock": return .lock
            default: return .succeeded
            }
        }

        func completions(for word: String, before: String) -> [String] { [] }
        func signedOn(user: String, role: Role) {}
        func wipe() { open = nil }
        func resumableContext() -> [UInt8]? { open }
        func resume(from context: [UInt8]?) {
            guard let context else { return }
            resumed.append(context)
            open = context
            events.append(.accessed(RecordAccess(.opened, record: "M1", outcome: .ok)))
        }
        func takeSessionEvents() -> [SessionEvent] {
            defer { events = [] }
            return events
        }
    }

    func run(_ input: String, resume: SessionResume?) throws -> (ContextRunner, RecordingInterceptor) {
        let scratch = ScratchHome()
        let home = try WardHome.open(option: scratch.path + "/ward")
        let credentials = CredentialStore(home: home, parameters: .testing)
        try credentials.add(name: "alice", role: .clinician, password: Password("correct horse"))
        let recorder = RecordingInterceptor("recorder")
        let clock = ManualClock()
        let chain = InterceptorChain(clock: clock, session: SessionInfo(id: "test"))
        chain.append(recorder)
        let runner = ContextRunner()
        let script = pipeHolding(input)
        defer { close(script) }
        let signals = TestSignals()
        let driver = SessionDriver(
            frontEnd: FakeFrontEnd(interactive: true, input: script, signals: signals),
            clock: clock,
            chain: chain,
            runner: runner,
            credentials: credentials,
            policy: SessionMachine.Policy(),
            logger: Logger(label: "test"),
            resume: resume,
            signals: signals.install
        )
        _ = try driver.run()
        return (runner, recorder)
    }

    @Test func afterAnUnlock_theRunnerGetsItsContextBack_andTheChainHearsTheReopening() throws {
        let resume = SessionResume(cost: .testing, logger: Logger(label: "test")) { _, _ in true }
        let (runner, recorder) = try run("correct horse\nopen\nlock\ncorrect horse\n", resume: resume)
        #expect(runner.resumed == [Array("M1".utf8)])
        let events = recorder.seen.compactMap { if case .session(let e) = $0, e != .promptReady { e } else { nil } }
        let unlocked = events.firstIndex(of: .unlocked(user: "alice"))
        let reopened = events.firstIndex(of: .accessed(RecordAccess(.opened, record: "M1", outcome: .ok)))
        #expect(unlocked != nil && reopened != nil && unlocked! < reopened!)
        #expect(!resume.holdsKey && !resume.isSealed, "the sign-off forgot it")
    }

    @Test func withoutResume_nothingComesBack() throws {
        let (runner, _) = try run("correct horse\nopen\nlock\ncorrect horse\n", resume: nil)
        #expect(runner.resumed.isEmpty)
        let (off, _) = try run(
            "correct horse\nopen\nlock\ncorrect horse\n",
            resume: SessionResume(cost: .testing, logger: Logger(label: "test")) { _, _ in false }
        )
        #expect(off.resumed.isEmpty)
    }
}
