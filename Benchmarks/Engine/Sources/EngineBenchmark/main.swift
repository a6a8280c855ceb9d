// Measures the cost of one key press passing a chain of five interceptors, the path every key
// takes before readline sees it. Goal: under 1 µs per event.
//
// The interceptors do what real ones do per key: note the time (idle timer), check the session
// (audit log ignores keys), look at the event kind (suspend and focus guards), and one counts
// bytes, so the optimiser cannot drop the work.
import WardCore

final class NotesActivity: Plugin {
    static let name = "notes-activity"
    static let summary = "Notes the time of each key, as the idle timer does."
    var last = Instant(nanoseconds: 0)
    init() {}
    init(settings: PluginSettings, environment: PluginEnvironment) {}
    func intercept(_ event: Event, context: PluginContext) -> Disposition {
        switch event {
        case .key, .line:
            last = context.now
            return .pass
        default: return .pass
        }
    }
}

final class IgnoresKeys: Plugin {
    static let name = "ignores-keys"
    static let summary = "Counts lines and lets keys pass, as the audit log does."
    var lines = 0
    init() {}
    init(settings: PluginSettings, environment: PluginEnvironment) {}
    func intercept(_ event: Event, context: PluginContext) -> Disposition {
        if case .line = event { lines += 1 }
        return .pass
    }
}

final class CountsBytes: Plugin {
    static let name = "counts-bytes"
    static let summary = "Counts the bytes of each key."
    var bytes = 0
    init() {}
    init(settings: PluginSettings, environment: PluginEnvironment) {}
    func intercept(_ event: Event, context: PluginContext) -> Disposition {
        if case .key(let key) = event { bytes &+= key.bytes.count }
        return .pass
    }
}

final class WatchesLifecycle: Plugin {
    static let name = "watches-lifecycle"
    static let summary = "Notes a suspend, as the suspend guard does."
    var suspended = false
    init() {}
    init(settings: PluginSettings, environment: PluginEnvironment) {}
    func intercept(_ event: Event, context: PluginContext) -> Disposition {
        if case .lifecycle(.suspend) = event { suspended = true }
        return .pass
    }
}

let clock = BootClock()
let chain = InterceptorChain(clock: clock, session: SessionInfo(id: "bench", user: "demo", role: .clinician))
let counter = CountsBytes()
chain.append(NotesActivity())
chain.append(IgnoresKeys())
chain.append(WatchesLifecycle())
chain.append(NotesActivity())
chain.append(counter)

let keys = (0..<64).map { i in Event.key(KeyPress([UInt8(97 + i % 26)])) }
let eventsPerRun = 200_000
let runs = 31
var perEvent: [Double] = []
let timer = ContinuousClock()

for run in 0..<(runs + 3) {
    let start = timer.now
    for i in 0..<eventsPerRun {
        if case .delivered = chain.send(keys[i & 63]).outcome {} else { fatalError("a key was swallowed") }
    }
    let elapsed = timer.now - start
    if run >= 3 { perEvent.append(Double(elapsed.nanoseconds) / Double(eventsPerRun)) }  // 3 warm-ups
}
perEvent.sort()
let median = perEvent[perEvent.count / 2]
print(
    "key event through 5 interceptors: median \(String(format: median)) ns/event, "
        + "min \(String(format: perEvent.first!)), max \(String(format: perEvent.last!)) "
        + "(\(runs) runs of \(eventsPerRun) events; bytes seen \(counter.bytes))"
)

func String(format value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}
