import NIOCore

/// Runs a task's jobs on a connection's event-loop thread, not on Swift's shared pool: that pool
/// has a thread per core, and callers blocked waiting for an answer, as Ward's thread waits on
/// `PostgresLink`, can hold every one of them (seen with tests run side by side), so a task
/// queued there would never start. It also saves a hop: the task's awaits resume on the thread
/// that reads the server's answers.
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
