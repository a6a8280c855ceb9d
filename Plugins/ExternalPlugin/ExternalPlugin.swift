import Glibc
import Logging
import WardPluginAPI

/// Runs a site's own program as an interceptor: Ward sends it each subscribed event as one JSON
/// line, and it answers `continue`, `deny` with a message, or `rewrite` with a new line.
///
/// The protocol (man/ward-site.toml.5 documents it for plugin authors; keep these names):
///
/// ```
/// Ward → plugin, once:  {"id":0,"type":"hello","protocol":"2.0","plugin":"NAME","settings":{...}}
/// plugin → Ward:        {"id":0,"protocol":"2.0"}
/// Ward → plugin:        {"id":N,"type":"event","event":{"kind":"line","text":"open 123",
///                        "user":"alice","role":"clinician","source":"tty"}}
/// plugin → Ward:        {"id":N,"action":"continue"}
///                       {"id":N,"action":"deny","message":"..."}
///                       {"id":N,"action":"rewrite","text":"..."}
/// Ward → plugin, last:  {"type":"end","status":0}
/// ```
///
/// The plugin answers the hello with the protocol version it speaks, `MAJOR.MINOR`, as sudo's
/// plugins declare `SUDO_API_VERSION`: a minor version only adds fields, which a reader
/// ignores, while a major one changes what a message means. A plugin that speaks another major
/// version, or does not say, is refused at start (`failedToStart`): Ward stops before anyone
/// signs on, as for a plugin that does not load, rather than run a guard that misreads events.
///
/// Never a key press and never a secret: only `line`, `session` and `lifecycle` events exist
/// here. Fails closed by default: a reply slower than `timeout`, a crash, or a line that is not
/// a reply counts as a failure and `on-failure` (`deny` unless the site says `allow`) decides.
/// A plugin that crashes is started again once; after a second crash its failure mode holds
/// for the rest of the session.
///
/// - Important: `intercept` waits for the reply on the loop's thread, bounded by `timeout`:
///   the line cannot run before the plugin has judged it, and the loop is single-threaded.
public final class ExternalPlugin: Plugin {
    public static let name = "external"
    public static let summary = "Runs a site program that may allow, deny or rewrite lines (JSON Lines)."
    /// Each `[[plugin]]` of this name runs a program of its own; a site may chain several.
    public static let isRepeatable = true

    /// Which events a site may subscribe a plugin to.
    public static let eventKinds = ["line", "session", "lifecycle"]

    /// The protocol this Ward speaks. 2.0: the plugin answers the hello; the last message is
    /// `end`; `resize` carries `rows` and `columns`; `denied` carries `by`.
    public static let protocolVersion = ProtocolVersion(major: 2, minor: 0)

    /// The least time the hello's answer is waited for, whatever `timeout` says: a program's
    /// start (an interpreter loading its modules) takes longer than an answer.
    static let helloTimeout = Duration.seconds(5)

    let label: String
    let command: [String]
    let events: Set<String>
    let timeout: Duration
    let failClosed: Bool
    let settings: JSONValue

    /// `external:LABEL` (`external:working-hours`): a site may chain several external plugins,
    /// and a refusal names the one that said no (the audit record's `plugin`).
    public var name: String { "\(Self.name):\(label)" }

    private var process: PluginProcess?
    private var restartsLeft = 1
    private var nextID = 1

    /// Builds the plugin from its `[[plugin]]` table; starts nothing (the process starts in `added`).
    public init(settings table: PluginSettings, environment: PluginEnvironment) throws {
        guard let command = try table.strings("command"), let program = command.first, !program.isEmpty else {
            throw ConfigError.missingKey(file: table.file, line: table.line, key: "command", table: "plugin 'external'")
        }
        if program.contains("/"), access(program, X_OK) != 0 {
            throw ConfigError.pluginFailed(
                file: table.file,
                line: table.line(of: "command"),
                name: "external",
                reason: "cannot run \(program): \(String(cString: strerror(errno)).lowercased())."
            )
        }
        let events = try table.strings("events") ?? ["line"]
        for kind in events where !Self.eventKinds.contains(kind) {
            throw ConfigError.outOfRange(
                file: table.file,
                line: table.line(of: "events"),
                key: "events",
                value: "\"\(kind)\"",
                allowed: Self.eventKinds.map { "\"\($0)\"" }.joined(separator: ", ")
            )
        }
        self.command = command
        self.events = Set(events)
        self.timeout = try table.duration("timeout", in: .milliseconds(1) ... .seconds(30)) ?? .milliseconds(500)
        self.failClosed = try table.choice("on-failure", from: ["deny", "allow"]).map { $0 == "deny" } ?? true
        // `["python3", "/opt/ward/working-hours.py"]` is "working-hours": the first path's base name.
        let path = command.first { $0.contains("/") } ?? program
        let base = path.split(separator: "/").last.map(String.init) ?? path
        self.label = try table.string("label") ?? String(base.split(separator: ".").first ?? Substring(base))
        self.settings = JSONValue(try table.table("settings") ?? [:])
        guard settings.line != nil else {
            throw ConfigError.pluginFailed(
                file: table.file,
                line: table.line(of: "settings"),
                name: "external",
                reason: "'settings' holds nan or inf, which JSON cannot carry."
            )
        }
    }

    public func added(context: PluginContext) {
        if let refusal = start(context: context) { context.failedToStart(refusal) }
    }

    /// Tells the plugin how the session ended (`end`, with the exit status), then stops it.
    public func removed(status: ExitStatus, context: PluginContext) {
        _ = process?.send(["type": "end", "status": .integer(Int(status.rawValue))])
        process?.stop()
        process = nil
    }

    public func intercept(_ event: Event, context: PluginContext) -> Disposition {
        if case .session(.accessedTogether(let accesses)) = event {
            // The plugin's protocol has one message per access: each in turn, as before.
            for access in accesses { _ = intercept(.session(.accessed(access)), context: context) }
            return .pass
        }
        guard let payload = payload(for: event, session: context.session) else { return .pass }
        let outcome = ask(payload, context: context)
        guard case .line(let line) = event else { return .pass }  // notifications: nothing to decide
        switch outcome {
        case .continue:
            return .pass
        case .deny(let message):
            return .deny(message)
        case .rewrite(let text):
            return .replace(.line(Line(text, source: line.source)))
        case .failed(let failure):
            if failClosed {
                return .deny("The '\(label)' plugin did not answer (\(failure)); the command was not run.")
            }
            return .pass
        }
    }

    /// What the plugin decided about one event.
    enum Outcome: Equatable {
        case `continue`
        case deny(String)
        case rewrite(String)
        case failed(PluginProcess.Failure)
    }

    /// Sends one event and waits at most `timeout` for its answer.
    func ask(_ event: JSONValue, context: PluginContext) -> Outcome {
        guard let process, process.isAlive else {
            return .failed(.crashed)
        }
        let id = nextID
        nextID += 1
        let deadline = monotonicNow() + timeout.nanoseconds
        let message: JSONValue = ["id": .integer(id), "type": "event", "event": event]
        let result = process.send(message) ? process.reply(to: id, deadline: deadline) : .failure(.crashed)
        switch result {
        case .success(let reply):
            switch reply.action {
            case "continue": return .continue
            case "deny": return .deny(reply.message ?? "Refused by the '\(label)' plugin.")
            case "rewrite":
                guard let text = reply.text else { return failed(.garbage, context: context) }
                return .rewrite(text)
            default: return failed(.garbage, context: context)
            }
        case .failure(let failure):
            return failed(failure, context: context)
        }
    }

    private func failed(_ failure: PluginProcess.Failure, context: PluginContext) -> Outcome {
        context.logger.warning(
            "external plugin failed",
            metadata: ["plugin.label": "\(label)", "plugin.failure": "\(failure)"]
        )
        if failure == .crashed || process?.isAlive == false {
            process?.stop()
            process = nil
            if restartsLeft > 0 {
                restartsLeft -= 1
                if let refusal = start(context: context) {
                    // Too late to stop the session: its failure mode holds from here on.
                    context.logger.warning(
                        "external plugin refused at restart",
                        metadata: ["plugin.label": "\(label)", "plugin.refusal": "\(refusal)"]
                    )
                }
            }
        }
        return .failed(failure)
    }

    /// Starts the program and has it say which protocol it speaks; returns why it is refused,
    /// nil when it runs. A program that cannot be started is no refusal: it counts as crashed,
    /// and `on-failure` decides about each line.
    private func start(context: PluginContext) -> String? {
        guard let started = PluginProcess(command: command) else {
            context.logger.warning("external plugin did not start", metadata: ["plugin.label": "\(label)"])
            return nil
        }
        let hello: JSONValue = [
            "id": 0, "type": "hello", "protocol": .string(Self.protocolVersion.description), "plugin": .string(label),
            "settings": settings,
        ]
        let deadline = monotonicNow() + max(timeout, Self.helloTimeout).nanoseconds
        let answer = started.send(hello) ? started.reply(to: 0, deadline: deadline) : .failure(.crashed)
        let refusal: String? =
            switch answer {
            case .success(let reply):
                switch reply.protocolVersion.flatMap(ProtocolVersion.init) {
                case let version? where version.major == Self.protocolVersion.major: nil
                case let version?:
                    "the '\(label)' plugin speaks protocol \(version); this Ward speaks \(Self.protocolVersion)."
                        + " Update the plugin, or remove it from the site file."
                case nil:
                    "the '\(label)' plugin did not say which protocol it speaks; it must answer the hello"
                        + " with {\"id\":0,\"protocol\":\"\(Self.protocolVersion)\"} (man ward-site.toml)."
                }
            case .failure(let failure):
                "the '\(label)' plugin did not answer the hello (\(failure)); it must answer"
                    + " with {\"id\":0,\"protocol\":\"\(Self.protocolVersion)\"} (man ward-site.toml)."
            }
        if refusal == nil {
            process = started
        } else {
            started.stop()
        }
        return refusal
    }

    /// The event as the plugin sees it; nil for events it did not subscribe to (and always
    /// for keys, focus and timers).
    func payload(for event: Event, session: SessionInfo) -> JSONValue? {
        let user = session.user.map(JSONValue.string) ?? .null  // null before sign-on
        let role = session.role.map { JSONValue.string($0.rawValue) } ?? .null
        switch event {
        case .line(let line) where events.contains("line"):
            return [
                "kind": "line", "text": .string(line.text), "user": user, "role": role,
                "source": .string(line.source.description),
            ]
        case .session(let change) where events.contains("session"):
            switch change {
            case .signedOn(let name, let roleName):
                return [
                    "kind": "session", "change": "signed-on", "user": .string(name), "role": .string(roleName.rawValue),
                ]
            case .signOnFailed(let name, let reason):
                // No name for an unknown user: it may be a password typed as a name.
                return [
                    "kind": "session", "change": "sign-on-failed", "user": name.map(JSONValue.string) ?? .null,
                    "reason": .string(reason.rawValue),
                ]
            case .unlockFailed(let name, let reason):
                return [
                    "kind": "session", "change": "unlock-failed", "user": .string(name),
                    "reason": .string(reason.rawValue),
                ]
            case .locked(let reason):
                return [
                    "kind": "session", "change": "locked", "reason": .string(reason.rawValue), "user": user,
                    "role": role,
                ]
            case .unlocked(let name):
                return ["kind": "session", "change": "unlocked", "user": .string(name)]
            case .signedOff(let reason):
                return [
                    "kind": "session", "change": "signed-off", "reason": .string(reason.rawValue), "user": user,
                    "role": role,
                ]
            case .denied(_, let message, let plugin):
                return [
                    "kind": "session", "change": "denied", "message": .string(message),
                    "by": plugin.map(JSONValue.string) ?? .null, "user": user, "role": role,
                ]
            case .abandoned(_, let signal):
                return [
                    "kind": "session", "change": "abandoned", "signal": signal == .hangup ? "hangup" : "terminate",
                    "user": user, "role": role,
                ]
            case .promptReady:
                return nil  // once per command: not worth a round trip to a plugin
            case .accessedTogether:
                return nil  // sent as each access in turn (`intercept`)
            case .programStarted(let start):
                return ["kind": "session", "change": "program-started", "path": .string(start.path), "user": user]
            case .programExited(let exit):
                return [
                    "kind": "session", "change": "program-exited", "status": .integer(Int(exit.status.rawValue)),
                    "user": user,
                ]
            case .programExecDenied(let attempt):
                return [
                    "kind": "session", "change": "program-exec-denied", "path": .string(attempt.path),
                    "reason": .string(attempt.reason), "user": user,
                ]
            case .auditRead(let reading):
                return [
                    "kind": "session", "change": "audit-read", "question": .string(reading.question),
                    "outcome": .string(reading.outcome.rawValue), "user": user, "role": role,
                ]
            case .accessed(let access):
                var fields: [String: JSONValue] = [
                    "kind": "session", "change": "accessed", "action": .string(access.action.rawValue),
                    "mrn": .string(access.record), "outcome": .string(access.outcome.rawValue), "user": user,
                    "role": role,
                ]
                switch access.action {
                case .read: fields["section"] = access.detail.map(JSONValue.string)
                case .brokeGlass: fields["reason"] = access.detail.map(JSONValue.string)
                case .listed, .opened, .wrote, .closed: break
                }
                return .object(fields)
            }
        case .lifecycle(let signal) where events.contains("lifecycle"):
            switch signal {
            case .interrupt: return ["kind": "lifecycle", "signal": "interrupt"]
            case .suspend: return ["kind": "lifecycle", "signal": "suspend"]
            case .resume(let away):
                return [
                    "kind": "lifecycle", "signal": "resume", "away_ms": .integer(Int(away.nanoseconds / 1_000_000)),
                ]
            case .hangup: return ["kind": "lifecycle", "signal": "hangup"]
            case .terminate: return ["kind": "lifecycle", "signal": "terminate"]
            case .resize(let rows, let columns):
                return ["kind": "lifecycle", "signal": "resize", "rows": .integer(rows), "columns": .integer(columns)]
            }
        default:
            return nil
        }
    }
}

extension JSONValue {
    /// A site file's `settings` table, as the hello carries it.
    init(_ table: [String: PluginSettings.Value]) {
        self = .object(table.mapValues(JSONValue.init))
    }

    init(_ value: PluginSettings.Value) {
        switch value {
        case .string(let s): self = .string(s)
        case .integer(let n): self = .integer(n)
        case .bool(let b): self = .bool(b)
        case .float(let d): self = .number(d)
        case .array(let items): self = .array(items.map(JSONValue.init))
        case .table(let fields): self = JSONValue(fields)
        }
    }
}
