import Synchronization

/// The skeleton of a channel's driver: its state (pure machines and their bookkeeping) under one lock,
/// changed in steps. A step decides under the lock and lists what is to be done; the effects are carried
/// out in order once the lock is released (``perform(_:)``), so nothing slow, nothing that calls back, and
/// no continuation runs under it. Effects that must wait their turn behind earlier ones (the store, a
/// socket's writes) go to an ``OrderedWorker`` from `perform`.
///
/// ```swift
/// final class MyChannel: Channel, ChannelDriver {
///     let driverState = DriverState(State())
///     func perform(_ effect: Effect) { … }
///     func keepAlive() async throws {
///         self.step { state, effects in
///             effects.append(.send(state.machine.ping()))
///         }
///     }
/// }
/// ```
@available(*, deprecated, message: "retired: AgentDriver (a link-only agent) and SessionDriver (a session that takes requests) drive channels now")
public protocol ChannelDriver: AnyObject, Sendable {
    associatedtype State: Sendable
    associatedtype Effect: Sendable

    var driverState: DriverState<State> { get }

    /// Carries out one effect of a step, after the lock is released.
    func perform(_ effect: Effect)
}

@available(*, deprecated, message: "retired: AgentDriver (a link-only agent) and SessionDriver (a session that takes requests) drive channels now")
extension ChannelDriver {
    /// Runs `body` under the lock, then performs the effects it listed, in order.
    @discardableResult
    public func step<Result, Failure: Error>(_ body: (inout State, inout [Effect]) throws(Failure) -> Result) throws(Failure) -> Result {
        var effects: [Effect] = []
        let result = try self.driverState.withLock { (state: inout State) throws(Failure) -> Result in try body(&state, &effects) }
        for effect in effects { self.perform(effect) }
        return result
    }

    /// Reads or changes the state under the lock, with no effects.
    public func withState<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        try self.driverState.withLock(body)
    }
}

/// A driver's state under its lock (see ``ChannelDriver``).
@available(*, deprecated, message: "retired: AgentDriver (a link-only agent) and SessionDriver (a session that takes requests) drive channels now")
public final class DriverState<State: Sendable>: Sendable {
    private let mutex: Mutex<State>

    public init(_ initial: State) {
        self.mutex = Mutex(initial)
    }

    public func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        try self.mutex.withLock { (state: inout State) throws(Failure) -> Result in try body(&state) }
    }
}
