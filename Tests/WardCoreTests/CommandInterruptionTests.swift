import Testing
import WardCore

/// When is a command abandoned? Only when a terminate signal came while it ran and it
/// failed. The process-wide request itself is never made here: it would interrupt other tests.
@Suite struct CommandInterruptionTests {
    @Test func aCommandThatFails_afterSIGTERMCameWhileItRan_isAbandoned() {
        var signal: UnixSignal?
        let run = CommandInterruption.run(
            {
                signal = .sigterm
                return .failed
            },
            requested: { signal }
        )
        #expect(run.result == .failed && run.abandonedBy == .terminate)
    }

    @Test func aCommandThatFails_afterSIGHUP_isAbandonedByTheHangup() {
        var signal: UnixSignal?
        let run = CommandInterruption.run(
            {
                signal = .sighup
                return .failed
            },
            requested: { signal }
        )
        #expect(run.abandonedBy == .hangup)
    }

    @Test func aCommandThatFinishedDespiteTheSignal_isNotAbandoned() {
        var signal: UnixSignal?
        let run = CommandInterruption.run(
            {
                signal = .sigterm
                return .succeeded
            },
            requested: { signal }
        )
        #expect(run.result == .succeeded && run.abandonedBy == nil)
    }

    @Test func aFailure_withNoSignal_orOneFromBefore_isAnOrdinaryFailure() {
        #expect(CommandInterruption.run({ .failed }, requested: { nil }).abandonedBy == nil)
        #expect(CommandInterruption.run({ .failed }, requested: { .sigterm }).abandonedBy == nil)
    }

    @Test func registeredHandlers_stayUntilTheirRegistrationGoes() {
        var registration: CommandInterruption.Registration? = CommandInterruption.register {}
        #expect(registration != nil)
        registration = nil
        #expect(CommandInterruption.requestedBy == nil)
    }
}
