import Glibc
import SessionTestSupport
import Testing
import WardCore

@testable import ExternalPlugin

/// Plugins/Examples, found from this file's place in the repository.
private let examples: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Tests/ExternalPluginTests/ExternalPluginTests.swift
    return parts.joined(separator: "/") + "/Plugins/Examples"
}()

/// Where this process's throwaway plugins and output files go: one directory, removed with
/// everything in it when the test process exits, so that no run leaves files in /tmp.
private let scratch: String = {
    var template = Array("/tmp/ward-plugin-tests-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(made != nil, "mkdtemp failed")
    let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    atexit(removeScratch)
    return path
}()

private func removeScratch() { _ = system("rm -rf '\(scratch)'") }

/// A new empty file in `scratch` whose name starts with `prefix`, opened for writing.
private func makeFile(_ prefix: String) -> (fd: Int32, path: String) {
    var template = Array("\(scratch)/\(prefix)-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    precondition(fd >= 0, "mkstemp failed")
    return (fd, template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
}

/// Writes a throwaway Python plugin and returns its path. It answers the hello with
/// `answeringHello` (the protocol version it speaks) before `body` runs, unless that is nil.
private func script(_ body: String, answeringHello version: String? = "2.0") -> String {
    let (fd, path) = makeFile("plugin")
    let hello = version.map {
        "sys.stdin.readline()\nprint(json.dumps({\"id\": 0, \"protocol\": \"\($0)\"}), flush=True)\n"
    }
    let text = "import json, sys, time\n" + (hello ?? "") + body
    _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    return path
}

/// An empty file for a plugin to write to; returns its path.
private func emptyFile() -> String {
    let (fd, path) = makeFile("out")
    close(fd)
    return path
}

/// A chain holding one external plugin, built from a `[[plugin]]` table written in TOML.
private final class Harness {
    let chain: InterceptorChain
    init(_ toml: String) throws {
        let registry = PluginRegistry([ExternalPlugin.self])
        let policy = try SitePolicy.parse(
            "[[plugin]]\nname = \"external\"\n" + toml,
            file: "site.toml",
            plugins: registry
        )
        chain = try registry.makeChain(
            policy: policy,
            environment: PluginEnvironment(home: "/tmp", policy: policy),
            clock: ManualClock(),
            session: SessionInfo(id: "test", user: "alice", role: .clinician)
        )
    }
    func line(_ text: String) -> InterceptorChain.Outcome { chain.send(.line(Line(text))).outcome }
    deinit { chain.removeAll() }
}

private func python(_ path: String) -> String { "command = [\"python3\", \"\(path)\"]\n" }

@Suite(.serialized) struct ExternalPluginTests {
    // MARK: The examples

    @Test func breakGlass_deniesRestrictedOpen_thenRewritesConfirmation() throws {
        let h = try Harness(
            python(examples + "/break-glass-review.py") + "settings = { restricted = [\"100042\"] }\ntimeout = \"5s\"\n"
        )
        #expect(h.line("open 100001") == .delivered(.line(Line("open 100001"))))
        #expect(
            h.line("open 100042")
                == .denied(
                    "Patient 100042 is restricted. To open the chart anyway (break the glass), type 'open! 100042'; the access is audited.",
                    by: "external:break-glass-review"
                )
        )
        #expect(h.line("open! 100042") == .delivered(.line(Line("open 100042"))))
    }

    @Test func workingHours_deniesRecordCommands_outsideHours() throws {
        let closed = try Harness(
            python(examples + "/working-hours.py") + "settings = { now = \"sat 10:00\" }\ntimeout = \"5s\"\n"
        )
        #expect(
            closed.line("find smith")
                == .denied(
                    "Records are closed outside working hours (07:00-19:00, mon tue wed thu fri).",
                    by: "external:working-hours"
                )
        )
        #expect(closed.line("whoami") == .delivered(.line(Line("whoami"))))
        let open = try Harness(
            python(examples + "/working-hours.py") + "settings = { now = \"tue 10:00\" }\ntimeout = \"5s\"\n"
        )
        #expect(open.line("find smith") == .delivered(.line(Line("find smith"))))
    }

    // MARK: The protocol

    @Test func plugin_receivesHello_andEventsWithTheirNames_andTheEndWithItsStatus() throws {
        let log = emptyFile()
        let path = script(
            """
            out = open(sys.argv[1], "w")
            for raw in iter(sys.stdin.readline, ""):
                out.write(raw); out.flush()
                m = json.loads(raw)
                if m.get("type") == "hello":
                    print(json.dumps({"id": 0, "protocol": "2.0"}), flush=True)
                if m.get("type") == "event":
                    print(json.dumps({"id": m["id"], "action": "continue"}), flush=True)
            """,
            answeringHello: nil
        )
        let h = try Harness(
            "command = [\"python3\", \"\(path)\", \"\(log)\"]\nevents = [\"line\", \"session\", \"lifecycle\"]\n"
                + "label = \"probe\"\ntimeout = \"5s\"\n[plugin.settings]\nlimit = 3\nwho = [\"a\"]\n"
        )
        _ = h.line("open 123")
        _ = h.chain.send(.session(.locked(.idle)))
        _ = h.chain.send(.lifecycle(.resume(away: .seconds(2))))
        _ = h.chain.send(.key(KeyPress([0x61])))
        _ = h.chain.send(.lifecycle(.resize(rows: 30, columns: 100)))
        _ = h.chain.send(.session(.denied(Line("open 9"), message: "not now", by: "working-hours")))
        h.chain.removeAll(status: .killed(by: SIGTERM))
        let fd = open(log, O_RDONLY)
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = read(fd, &bytes, bytes.count)
        close(fd)
        let lines = String(decoding: bytes[0..<max(n, 0)], as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(
            lines == [
                #"{"id":0,"plugin":"probe","protocol":"2.0","settings":{"limit":3,"who":["a"]},"type":"hello"}"#,
                #"{"event":{"kind":"line","role":"clinician","source":"tty","text":"open 123","user":"alice"},"id":1,"type":"event"}"#,
                #"{"event":{"change":"locked","kind":"session","reason":"idle","role":"clinician","user":"alice"},"id":2,"type":"event"}"#,
                #"{"event":{"away_ms":2000,"kind":"lifecycle","signal":"resume"},"id":3,"type":"event"}"#,
                #"{"event":{"columns":100,"kind":"lifecycle","rows":30,"signal":"resize"},"id":4,"type":"event"}"#,
                #"{"event":{"by":"working-hours","change":"denied","kind":"session","message":"not now","role":"clinician","user":"alice"},"id":5,"type":"event"}"#,
                #"{"status":143,"type":"end"}"#,
            ]
        )
    }

    /// What a command did to a record reaches a session-subscribed plugin as `accessed`: the
    /// action, the MRN as stored, the outcome, and the section read or the break-glass reason.
    @Test func anAccess_reachesThePlugin_withItsActionMRNAndOutcome() throws {
        let policy = try SitePolicy.parse(
            "[[plugin]]\nname = \"external\"\ncommand = [\"true\"]\nevents = [\"session\"]\n",
            file: "site.toml",
            plugins: PluginRegistry([ExternalPlugin.self])
        )
        let plugin = try ExternalPlugin(
            settings: policy.plugins[0],
            environment: PluginEnvironment(home: "/tmp", policy: policy)
        )
        let session = SessionInfo(id: "t", user: "bob", role: .clerk)
        let uuid = "8f3e2a10-5c4b-4d1e-9a7f-2b6c0d9e1f35"
        let read = RecordAccess(.read, record: uuid, detail: "labs", outcome: .denied)
        #expect(
            plugin.payload(for: .session(.accessed(read)), session: session) == [
                "kind": "session", "change": "accessed", "action": "read", "mrn": .string(uuid), "section": "labs",
                "outcome": "denied", "user": "bob", "role": "clerk",
            ]
        )
        let glass = RecordAccess(.brokeGlass, record: "R1", detail: "on call", outcome: .ok)
        #expect(
            plugin.payload(for: .session(.accessed(glass)), session: session) == [
                "kind": "session", "change": "accessed", "action": "break-glass", "mrn": "R1", "reason": "on call",
                "outcome": "ok", "user": "bob", "role": "clerk",
            ]
        )
        let open = RecordAccess(.opened, record: "W9", outcome: .failed)
        #expect(
            plugin.payload(for: .session(.accessed(open)), session: session) == [
                "kind": "session", "change": "accessed", "action": "open", "mrn": "W9", "outcome": "failed",
                "user": "bob", "role": "clerk",
            ]
        )
    }

    @Test func reply_withoutPendingID_isIgnored() throws {
        let path = script(
            """
            for raw in iter(sys.stdin.readline, ""):
                m = json.loads(raw)
                if m.get("type") == "event":
                    print(json.dumps({"id": 999, "action": "deny", "message": "stale"}), flush=True)
                    print(json.dumps({"action": "deny", "message": "no id"}), flush=True)
                    print(json.dumps({"id": m["id"], "action": "rewrite", "text": "show meds"}), flush=True)
            """
        )
        let h = try Harness(python(path) + "timeout = \"5s\"\n")
        #expect(h.line("show") == .delivered(.line(Line("show meds"))))
    }

    @Test func slowReply_isFailure_deniedByDefault_andLateReplyIgnored() throws {
        // The reply to "slow" is held back until the next event, and sent just before that
        // event's own: late by construction, not by a sleep racing the timeout.
        let path = script(
            """
            late = None
            for raw in iter(sys.stdin.readline, ""):
                m = json.loads(raw)
                if m.get("type") != "event":
                    continue
                if "slow" in m["event"]["text"]:
                    late = m["id"]
                    continue
                if late is not None:
                    print(json.dumps({"id": late, "action": "deny", "message": "late"}), flush=True)
                    late = None
                print(json.dumps({"id": m["id"], "action": "continue"}), flush=True)
            """
        )
        // Seconds, not a fraction of one: a loaded machine makes Python slow to answer. Only the
        // held-back reply is meant to miss the deadline.
        let h = try Harness(python(path) + "timeout = \"3s\"\nlabel = \"sleepy\"\n")
        #expect(h.line("find a") == .delivered(.line(Line("find a"))))
        #expect(
            h.line("find slow")
                == .denied(
                    "The 'sleepy' plugin did not answer (timeout); the command was not run.",
                    by: "external:sleepy"
                )
        )
        // The late "deny" arrives first, for an id no longer pending, and is ignored.
        #expect(h.line("find b") == .delivered(.line(Line("find b"))))
    }

    @Test func failure_isAllowed_whenSiteSaysAllow() throws {
        let path = script("time.sleep(5)\n")
        let h = try Harness(python(path) + "timeout = \"50ms\"\non-failure = \"allow\"\n")
        #expect(h.line("find a") == .delivered(.line(Line("find a"))))
    }

    @Test func garbage_isFailure() throws {
        let path = script(
            """
            for raw in iter(sys.stdin.readline, ""):
                if json.loads(raw).get("type") == "event":
                    print("this is not json", flush=True)
            """
        )
        let h = try Harness(python(path) + "timeout = \"5s\"\nlabel = \"noisy\"\n")
        #expect(
            h.line("find a")
                == .denied(
                    "The 'noisy' plugin did not answer (garbage); the command was not run.",
                    by: "external:noisy"
                )
        )
    }

    @Test func crash_restartsOnce_thenFailureModeHolds() throws {
        let counter = emptyFile()
        let path = script(
            """
            with open(sys.argv[1], "a") as f: f.write("started\\n")
            for raw in iter(sys.stdin.readline, ""):
                m = json.loads(raw)
                if m.get("type") == "event":
                    if "crash" in m["event"]["text"]: sys.exit(3)
                    print(json.dumps({"id": m["id"], "action": "continue"}), flush=True)
            """
        )
        let h = try Harness(
            "command = [\"python3\", \"\(path)\", \"\(counter)\"]\ntimeout = \"5s\"\nlabel = \"fragile\"\n"
        )
        #expect(h.line("find a") == .delivered(.line(Line("find a"))))
        #expect(
            h.line("crash")
                == .denied(
                    "The 'fragile' plugin did not answer (crashed); the command was not run.",
                    by: "external:fragile"
                )
        )
        #expect(h.line("find b") == .delivered(.line(Line("find b"))))  // restarted
        #expect(
            h.line("crash")
                == .denied(
                    "The 'fragile' plugin did not answer (crashed); the command was not run.",
                    by: "external:fragile"
                )
        )
        #expect(
            h.line("find c")
                == .denied(
                    "The 'fragile' plugin did not answer (crashed); the command was not run.",
                    by: "external:fragile"
                )
        )
        let fd = open(counter, O_RDONLY)
        var bytes = [UInt8](repeating: 0, count: 256)
        let n = read(fd, &bytes, bytes.count)
        close(fd)
        #expect(String(decoding: bytes[0..<max(n, 0)], as: UTF8.self) == "started\nstarted\n")
    }

    // MARK: The protocol's version

    @Test func plugin_ofWardsMajorVersion_runs_whateverItsMinor() throws {
        let path = script(
            """
            for raw in iter(sys.stdin.readline, ""):
                m = json.loads(raw)
                if m.get("type") == "event":
                    print(json.dumps({"id": m["id"], "action": "deny", "message": "no"}), flush=True)
            """,
            answeringHello: "2.7"
        )
        let h = try Harness(python(path) + "timeout = \"5s\"\nlabel = \"later\"\n")
        #expect(h.line("find a") == .denied("no", by: "external:later"))
    }

    @Test func plugin_ofAnotherMajorVersion_isRefusedAtStart_withTheVersions() {
        let path = script("for raw in iter(sys.stdin.readline, \"\"): pass\n", answeringHello: "1.0")
        let error = configError { try Harness(python(path) + "timeout = \"5s\"\nlabel = \"old\"\n") }
        #expect(
            error?.description
                == "site.toml:1: plugin 'external' cannot start: the 'old' plugin speaks protocol 1.0;"
                + " this Ward speaks 2.0. Update the plugin, or remove it from the site file."
        )
    }

    @Test func plugin_thatDoesNotAnswerTheHello_isRefusedAtStart() {
        let silent = script("sys.exit(0)\n", answeringHello: nil)
        let error = configError { try Harness(python(silent) + "timeout = \"5s\"\nlabel = \"mute\"\n") }
        #expect(
            error?.description
                == "site.toml:1: plugin 'external' cannot start: the 'mute' plugin did not answer the hello"
                + #" (crashed); it must answer with {"id":0,"protocol":"2.0"} (man ward-site.toml)."#
        )
        let vague = script("for raw in iter(sys.stdin.readline, \"\"): pass\n", answeringHello: "two")
        #expect(
            configError { try Harness(python(vague) + "label = \"vague\"\n") }?.description
                == "site.toml:1: plugin 'external' cannot start: the 'vague' plugin did not say which protocol"
                + #" it speaks; it must answer the hello with {"id":0,"protocol":"2.0"} (man ward-site.toml)."#
        )
    }

    @Test func protocolVersion_readsMajorAndMinor() {
        #expect(ProtocolVersion("2.0") == ProtocolVersion(major: 2, minor: 0))
        #expect(ProtocolVersion("2") == ProtocolVersion(major: 2, minor: 0))
        #expect(ProtocolVersion("3.14") == ProtocolVersion(major: 3, minor: 14))
        for bad in ["", "2.", ".1", "2.0.1", "+2", "two", "2.x", "-1"] {
            #expect(ProtocolVersion(bad) == nil, "\(bad)")
        }
    }

    @Test func missingProgram_failsAtBuild_withLine() {
        let error = configError { try Harness("command = [\"/nonexistent/plugin\"]\n") }
        #expect(
            error?.description
                == "site.toml:3: plugin 'external' cannot start: cannot run /nonexistent/plugin: no such file or directory."
        )
    }

    @Test func settings_errors_nameTheirLines() {
        #expect(
            configError { try Harness("events = [\"line\"]\n") }?.description
                == "site.toml:1: plugin 'external' has no 'command'; add one."
        )
        #expect(
            configError { try Harness("command = [\"true\"]\nevents = [\"key\"]\n") }?.description
                == "site.toml:4: 'events' is \"key\"; allowed: \"line\", \"session\", \"lifecycle\"."
        )
        #expect(
            configError { try Harness("command = [\"true\"]\non-failure = \"maybe\"\n") }?.description
                == "site.toml:4: 'on-failure' is \"maybe\"; allowed: \"deny\", \"allow\"."
        )
        #expect(
            configError { try Harness("command = [\"true\"]\ntimeout = \"1m\"\n") }?.description
                == "site.toml:4: 'timeout' is 1m; allowed: 1ms to 30s."
        )
        #expect(
            configError { try Harness("command = [\"true\"]\ntimout = \"1s\"\n") }?.description
                == "site.toml:4: unknown key 'timout' in plugin 'external'; did you mean 'timeout'?"
        )
        #expect(
            configError { try Harness("command = [\"true\"]\nsettings = { limit = nan }\n") }?.description
                == "site.toml:4: plugin 'external' cannot start: 'settings' holds nan or inf, which JSON cannot carry."
        )
    }

    @Test func json_messageIsOneLine_withSortedKeys_andWholeNumbersWhole() {
        let message: JSONValue = [
            "id": 3, "type": "event",
            "event": ["text": "café \"x\"\n\u{2028}a/b", "n": .number(2.5), "w": .number(4), "user": .null],
        ]
        #expect(
            message.line
                == #"{"event":{"n":2.5,"text":"café \"x\"\n\u2028a/b","user":null,"w":4},"id":3,"type":"event"}"#
        )
        #expect(JSONValue.number(.nan).line == nil)
    }

    @Test func json_reply_readsFieldByField_andOnlyAnObjectCounts() {
        let reply = PluginReply(
            json: Array(#"{"id":7,"action":"deny","message":"caf\u00e9 \"x\"\n","n":[1,2.5,true,null]}"#.utf8)
        )
        #expect(reply?.id == 7)
        #expect(reply?.action == "deny")
        #expect(reply?.message == "café \"x\"\n")
        #expect(PluginReply(json: Array(#"{"id":3.0,"action":"continue"}"#.utf8))?.id == 3)
        let mistyped = PluginReply(json: Array(#"{"id":true,"action":5,"text":null}"#.utf8))
        #expect(mistyped != nil && mistyped?.id == nil && mistyped?.action == nil && mistyped?.text == nil)
        #expect(PluginReply(json: Array(#"{"id":2.5}"#.utf8))?.id == nil)
        for garbage in ["nonsense", "", "[1]", "null", #""id""#, #"{"id":1} {"id":1}"#, #"{"id":1"#] {
            #expect(PluginReply(json: Array(garbage.utf8)) == nil, "\(garbage)")
        }
    }

    /// The cost a line pays to pass one external plugin (printed, not asserted).
    @Test func benchmark_roundTrip() throws {
        let path = script(
            """
            for raw in iter(sys.stdin.readline, ""):
                m = json.loads(raw)
                if m.get("type") == "event":
                    sys.stdout.write('{"id":%d,"action":"continue"}\\n' % m["id"]); sys.stdout.flush()
            """
        )
        let h = try Harness(python(path) + "timeout = \"5s\"\n")
        _ = h.line("warm up")
        let rounds = 2000
        let start = monotonicNow()
        for i in 0..<rounds { _ = h.line("show meds \(i)") }
        let perLine = Double(monotonicNow() - start) / Double(rounds) / 1000
        print("external plugin round trip: \(Int(perLine)) µs per line over \(rounds) lines")
        #expect(perLine < 50_000)
    }
}

private func configError<T>(_ body: () throws -> T) -> ConfigError? {
    do {
        _ = try body()
        return nil
    } catch let error as ConfigError {
        return error
    } catch {
        return nil
    }
}
