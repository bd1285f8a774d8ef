package import AttendantPluginAPI
import Glibc

/// Rings audibly while a call rings: the XDG sound theme's `phone-incoming-call` event, or a configured
/// sound file, through libcanberra (the freedesktop event-sound library that desktops use), played again
/// each time it ends until the call does, as twilio-voice.js plays its incoming sound with `shouldLoop` and
/// baresip repeats its ring. Stopping cancels the sound that plays (`ca_context_cancel`) at once.
///
/// libcanberra is loaded at run time (`libcanberra.so.0`), so the daemon runs without it: calls are then
/// only seen, and the log says what to install. A sound that cannot play (no sound server, no theme, a
/// file that is not there) is logged once per call and not retried until the next call.
///
/// One task (``run()``) owns the libcanberra context; ``ring(_:)`` and libcanberra's finish callback only
/// queue inputs for it. The callback must not call back into libcanberra: it runs on the PulseAudio
/// backend's main-loop thread with that loop locked.
package final class CallRinger: Sendable {
    enum Input: Sendable {
        case ring(Bool)
        case finished(id: UInt32, error: Int32)
    }

    private let sound: String?
    private let library: String
    private let logger: Logger
    private let inputs: AsyncStream<Input>
    private let continuation: AsyncStream<Input>.Continuation

    /// - Parameters:
    ///   - sound: a sound file to play; nil plays the sound theme's `phone-incoming-call`.
    ///   - library: the libcanberra to load (tests name one that is not there).
    package init(sound: String?, logger: Logger, library: String = "libcanberra.so.0") {
        self.sound = sound
        self.library = library
        self.logger = logger
        (self.inputs, self.continuation) = AsyncStream.makeStream()
    }

    /// Starts (true) or stops (false) the ring; repeating a state does nothing.
    package func ring(_ on: Bool) {
        self.continuation.yield(.ring(on))
    }

    /// Ends ``run()`` (the ring stops).
    package func finish() { self.continuation.finish() }

    /// Plays and stops the ring until ``finish()`` or cancellation.
    package func run() async {
        var player: Canberra.Player?
        var unavailable = false
        var ringing = false
        var playing: UInt32?
        var nextID: UInt32 = 1
        var failedThisCall = false

        func play() {
            guard let player, playing == nil, !failedThisCall else { return }
            let id = nextID
            nextID &+= 1
            let continuation = self.continuation
            switch player.play(id: id, sound: self.sound, finished: { error in continuation.yield(.finished(id: id, error: error)) }) {
            case .success:
                playing = id
            case .failure(let error):
                failedThisCall = true
                self.logger.warning("cannot ring for the incoming call: \(error); it is only shown")
            }
        }

        for await input in self.inputs {
            switch input {
            case .ring(let on):
                guard on != ringing else { continue }
                ringing = on
                if on {
                    failedThisCall = false
                    if player == nil && !unavailable {
                        do {
                            player = try Canberra.Player(library: self.library)
                        } catch {
                            unavailable = true
                            self.logger.warning("\(error); incoming calls are shown but not heard")
                        }
                    }
                    play()
                } else if let id = playing {
                    player?.cancel(id: id)
                    playing = nil
                }
            case .finished(let id, let error):
                guard id == playing else { continue }
                playing = nil
                if error == Canberra.success {
                    if ringing { play() }
                } else if error != Canberra.canceled {
                    failedThisCall = true
                    self.logger.warning("the ring stopped: \(player?.describe(error) ?? "error \(error)"); the call is only shown")
                }
            }
        }
        if let id = playing { player?.cancel(id: id) }
        player?.destroy()
    }
}

/// The part of libcanberra's C API the ringer uses, bound with dlopen/dlsym. Only its non-variadic
/// functions: the property lists are built with `ca_proplist_sets` and played with `ca_context_play_full`.
enum Canberra {
    /// `CA_SUCCESS`, and `CA_ERROR_CANCELED` (canberra.h).
    static let success: Int32 = 0
    static let canceled: Int32 = -11

    struct LoadError: Error, CustomStringConvertible {
        let description: String
    }

    typealias Callback = @convention(c) (OpaquePointer?, UInt32, Int32, UnsafeMutableRawPointer?) -> Void

    /// One `ca_context` and the functions bound from the library.
    final class Player: @unchecked Sendable {
        private let handle: UnsafeMutableRawPointer
        private let context: OpaquePointer
        private let proplistCreate: @convention(c) (UnsafeMutablePointer<OpaquePointer?>) -> Int32
        private let proplistDestroy: @convention(c) (OpaquePointer?) -> Int32
        private let proplistSets: @convention(c) (OpaquePointer?, UnsafePointer<CChar>, UnsafePointer<CChar>) -> Int32
        private let playFull: @convention(c) (OpaquePointer?, UInt32, OpaquePointer?, Callback?, UnsafeMutableRawPointer?) -> Int32
        private let cancelID: @convention(c) (OpaquePointer?, UInt32) -> Int32
        private let contextDestroy: @convention(c) (OpaquePointer?) -> Int32
        private let strerror: @convention(c) (Int32) -> UnsafePointer<CChar>?

        init(library: String) throws {
            guard let handle = dlopen(library, RTLD_NOW | RTLD_LOCAL) else {
                let why = dlerror().map { String(cString: $0) } ?? library
                throw LoadError(
                    description:
                        "libcanberra cannot be loaded (\(why)): install libcanberra0, libcanberra-pulse and sound-theme-freedesktop to hear calls"
                )
            }
            func symbol<T>(_ name: String, as type: T.Type) throws -> T {
                guard let pointer = dlsym(handle, name) else {
                    throw LoadError(description: "\(library) has no \(name): it is not a libcanberra 0.30 this daemon can use")
                }
                return unsafeBitCast(pointer, to: type)
            }
            do {
                let contextCreate = try symbol("ca_context_create", as: (@convention(c) (UnsafeMutablePointer<OpaquePointer?>) -> Int32).self)
                let changeProps = try symbol("ca_context_change_props_full", as: (@convention(c) (OpaquePointer?, OpaquePointer?) -> Int32).self)
                self.proplistCreate = try symbol("ca_proplist_create", as: (@convention(c) (UnsafeMutablePointer<OpaquePointer?>) -> Int32).self)
                self.proplistDestroy = try symbol("ca_proplist_destroy", as: (@convention(c) (OpaquePointer?) -> Int32).self)
                self.proplistSets = try symbol(
                    "ca_proplist_sets",
                    as: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>, UnsafePointer<CChar>) -> Int32).self
                )
                self.playFull = try symbol(
                    "ca_context_play_full",
                    as: (@convention(c) (OpaquePointer?, UInt32, OpaquePointer?, Callback?, UnsafeMutableRawPointer?) -> Int32).self
                )
                self.cancelID = try symbol("ca_context_cancel", as: (@convention(c) (OpaquePointer?, UInt32) -> Int32).self)
                self.contextDestroy = try symbol("ca_context_destroy", as: (@convention(c) (OpaquePointer?) -> Int32).self)
                self.strerror = try symbol("ca_strerror", as: (@convention(c) (Int32) -> UnsafePointer<CChar>?).self)
                var context: OpaquePointer?
                let created = contextCreate(&context)
                guard created == Canberra.success, let context else {
                    throw LoadError(description: "libcanberra could not make a context (error \(created))")
                }
                self.handle = handle
                self.context = context
                // Who plays: the sound server shows it (PulseAudio's application.name) and may apply policy.
                _ = self.withProperties(["application.name": "Attendant", "application.id": "attendant"]) { changeProps(context, $0) }
            } catch {
                dlclose(handle)
                throw error
            }
        }

        /// Plays the ring once as sound `id`; `finished` is called with libcanberra's result when it ends or
        /// is cancelled (never when this returns a failure).
        func play(id: UInt32, sound: String?, finished: @escaping @Sendable (Int32) -> Void) -> Result<Void, LoadError> {
            var properties = ["media.role": "event", "event.description": "Incoming call", "canberra.cache-control": "never"]
            if let sound {
                properties["media.filename"] = sound
            } else {
                properties["event.id"] = "phone-incoming-call"
            }
            let box = Unmanaged.passRetained(FinishBox(finished)).toOpaque()
            let started = self.withProperties(properties) { list in
                self.playFull(
                    self.context,
                    id,
                    list,
                    { _, _, error, userdata in
                        guard let userdata else { return }
                        Unmanaged<FinishBox>.fromOpaque(userdata).takeRetainedValue().finished(error)
                    },
                    box
                )
            }
            guard started == Canberra.success else {
                Unmanaged<FinishBox>.fromOpaque(box).release()
                let what = sound.map { "the sound file \($0)" } ?? "the sound theme's phone-incoming-call"
                return .failure(LoadError(description: "libcanberra cannot play \(what): \(self.describe(started))"))
            }
            return .success(())
        }

        func cancel(id: UInt32) {
            _ = self.cancelID(self.context, id)
        }

        func describe(_ error: Int32) -> String {
            self.strerror(error).map { String(cString: $0) } ?? "error \(error)"
        }

        /// Destroys the context; the library stays loaded (its threads may still be ending).
        func destroy() {
            _ = self.contextDestroy(self.context)
        }

        private func withProperties(_ properties: [String: String], _ body: (OpaquePointer?) -> Int32) -> Int32 {
            var list: OpaquePointer?
            let created = self.proplistCreate(&list)
            guard created == Canberra.success else { return created }
            defer { _ = self.proplistDestroy(list) }
            for (key, value) in properties {
                let set = self.proplistSets(list, key, value)
                guard set == Canberra.success else { return set }
            }
            return body(list)
        }
    }

    /// What the finish callback calls, kept alive by the retain passed as the callback's userdata.
    private final class FinishBox {
        let finished: @Sendable (Int32) -> Void
        init(_ finished: @escaping @Sendable (Int32) -> Void) { self.finished = finished }
    }
}
