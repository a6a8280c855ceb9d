import Glibc
import SessionTestSupport
import Testing
import WardCore

@Suite(.serialized) struct EventLoopTests {
    @Test func wakesForInput_onTheWatchedDescriptor() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        let loop = EventLoop(clock: BootClock())
        var got: [UInt8] = []
        loop.watch(fds[0]) {
            var b: UInt8 = 0
            _ = read(fds[0], &b, 1)
            got.append(b)
            loop.stop()
        }
        var byte: UInt8 = 42
        _ = write(fds[1], &byte, 1)
        loop.run()
        #expect(got == [42])
        #expect(loop.wakeCount == 1)
    }

    @Test func watchesForRoomToWrite_apartFromInput_untilUnwatched() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        let loop = EventLoop(clock: ManualClock())
        var writable = 0
        var readable = 0
        loop.watch(fds[1]) { readable += 1 }  // a pipe's write end never has input
        loop.watchWritable(fds[1]) {
            writable += 1
            loop.unwatchWritable(fds[1])
        }
        loop.runOnce()
        #expect(writable == 1)
        #expect(readable == 0)
        loop.nextDeadline = { nil }
        var byte: UInt8 = 1
        _ = write(fds[1], &byte, 1)
        loop.watch(fds[0]) {
            var b: UInt8 = 0
            _ = read(fds[0], &b, 1)
            readable += 1
        }
        loop.runOnce()  // only the input wakes it now: the writable watch is gone
        #expect(writable == 1)
        #expect(readable == 1)
    }

    @Test func sleepsUntilTheDeadline_andWakesOnceForIt() {
        let clock = BootClock()
        let loop = EventLoop(clock: clock)
        let deadline = clock.now + .milliseconds(50)
        var fired: Instant?
        loop.nextDeadline = { fired == nil ? deadline : nil }
        loop.onWake = {
            if clock.now >= deadline {
                fired = clock.now
                loop.stop()
            }
        }
        loop.run()
        #expect(loop.wakeCount == 1)  // no periodic wake-ups before the deadline
        let late = (fired ?? deadline) - deadline
        #expect(late >= .zero)
    }

    @Test func aPassedDeadline_doesNotBlock() {
        let clock = ManualClock()
        let loop = EventLoop(clock: clock)
        loop.nextDeadline = { clock.now - .seconds(1) }
        var woke = false
        loop.onWake = { woke = true }
        loop.runOnce()
        #expect(woke)
    }

    @Test func signalsArriveAsBytesOnThePipe() throws {
        let signals = try SignalPipe(signals: [.sigwinch])
        defer { signals.close() }
        let clock = BootClock()
        let loop = EventLoop(clock: clock)
        var received: [UnixSignal] = []
        loop.watch(signals.readEnd) {
            received += signals.drain()
            loop.stop()
        }
        let giveUp = clock.now + .seconds(5)
        loop.nextDeadline = { giveUp }
        loop.onWake = { if clock.now >= giveUp { loop.stop() } }
        // To the process, not this thread: test threads may block signals, and then a raise()d
        // signal would stay pending on them forever.
        kill(getpid(), SIGWINCH)
        loop.run()
        #expect(received == [.sigwinch])
        #expect(UnixSignal.sigtstp.description == "SIGTSTP")
    }
}
