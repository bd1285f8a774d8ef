import AttendantPluginAPI
import Glibc
import Testing

@testable import AttendantCore

/// Each token source against the real thing: commands run by posix_spawn, files, a credentials
/// folder, an HTTP server on loopback. Messages are checked word for word.
@Suite(.timeLimit(.minutes(2))) struct TokenSourceTests {
    static func command(_ arguments: [String], channel: String = "desk", environment: [String: String] = [:]) -> any TokenSource {
        TokenSettings.Source.command(arguments).makeSource(channel: channel, environment: environment)
    }

    static func fetch(_ source: any TokenSource) async -> Result<String, TokenError> {
        do {
            return .success(try await source.fetch())
        } catch let error as TokenError {
            return .failure(error)
        } catch {
            Issue.record("not a TokenError: \(error)")
            return .failure(TokenError(.source, "\(error)"))
        }
    }

    static func processExists(_ pid: pid_t) -> Bool { kill(pid, 0) == 0 || errno != ESRCH }

    // MARK: token-command

    @Test func commandOutputIsTheTokenAndItKnowsItsChannel() async throws {
        let source = Self.command(["/bin/sh", "-c", #"echo "tok-$1-$ATTENDANT_CHANNEL"; echo noise >&2"#, "sh", "arg"])
        #expect(await Self.fetch(source) == .success("tok-arg-desk\n"))
        #expect("\(source)" == "token command /bin/sh")
        // A bare name is looked up in $PATH.
        #expect(await Self.fetch(Self.command(["echo", "from-path"])) == .success("from-path\n"))
    }

    @Test func failuresNameTheProgramAndQuoteTheLastLineOfStandardError() async {
        let failing = Self.command([
            "/bin/sh", "-c",
            "echo secret-output; echo 'first problem' >&2; printf 'pass: attendant/desk is not in the password store\\n\\n' >&2; exit 3",
        ])
        #expect(
            await Self.fetch(failing)
                == .failure(TokenError(.source, "token command /bin/sh exited with status 3: pass: attendant/desk is not in the password store"))
        )
        let silent = Self.command(["/bin/sh", "-c", "exit 1", "--password", "hunter2"])
        #expect(
            await Self.fetch(silent)
                == .failure(TokenError(.source, "token command /bin/sh exited with status 1 (and printed nothing on standard error)"))
        )
        let killed = Self.command(["/bin/sh", "-c", "echo dying >&2; kill -9 $$"])
        #expect(await Self.fetch(killed) == .failure(TokenError(.source, "token command /bin/sh was killed by signal 9 (Killed): dying")))
        let missing = Self.command(["/nonexistent/get-token"])
        #expect(
            await Self.fetch(missing)
                == .failure(TokenError(.source, "token command /nonexistent/get-token could not be started: No such file or directory"))
        )
    }

    @Test func aCommandThatPrintsNothingIsAClearError() async {
        let empty = Self.command(["/bin/sh", "-c", "echo 'not signed in' >&2"])
        #expect(
            await Self.fetch(empty)
                == .failure(
                    TokenError(
                        .empty,
                        "token command /bin/sh printed nothing on standard output (exit status 0); its standard error said: not signed in"
                    )
                )
        )
        #expect(
            await Self.fetch(Self.command(["/bin/true"]))
                == .failure(TokenError(.empty, "token command /bin/true printed nothing on standard output (exit status 0)"))
        )
    }

    @Test func tooMuchOutputIsRefused() async {
        let flood = Self.command(["/bin/sh", "-c", "head -c 200000 /dev/zero | tr '\\0' a"])
        #expect(
            await Self.fetch(flood)
                == .failure(TokenError(.malformed, "token command /bin/sh printed more than 64 KiB; it must print the token alone"))
        )
    }

    @Test func cancellingStopsTheCommandAndWhatItStarted() async throws {
        let folder = TemporaryFolder()
        let source = Self.command(["/bin/sh", "-c", "echo $$ > \(folder.path)/pid; sleep 1000 & echo $! > \(folder.path)/child; wait"])
        let task = Task { try? await source.fetch() }
        // The shell creates each file before it writes the pid into it.
        let written = { (name: String) in folder.read(name).flatMap { pid_t($0.trimmingCharacters(in: "\n")) } }
        while written("child") == nil && !Task.isCancelled { await Task.yield() }
        let pid = try #require(written("pid"))
        let child = try #require(written("child"))
        task.cancel()
        _ = await task.value
        #expect(!Self.processExists(pid), "the shell is gone (and reaped)")
        var waited = 0
        while Self.processExists(child) && waited < 100 {
            await Task.yield()
            waited += 1
        }
        #expect(!Self.processExists(child) || Self.isZombie(child), "its child got the signal too (same process group)")
    }

    static func isZombie(_ pid: pid_t) -> Bool {
        guard let file = fopen("/proc/\(pid)/stat", "r") else { return true }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 512)
        guard fgets(&buffer, 512, file) != nil else { return true }
        let stat = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    @Test func aCommandInheritsNoDescriptorOfTheDaemons() async throws {
        // A socket as swift-nio opens them: without close-on-exec.
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        #expect(fcntl(socket, F_GETFD) & FD_CLOEXEC == 0)
        // ls lists its own descriptors: standard input, output and error, and the folder it reads.
        let outcome = try await ChildProcess(arguments: ["/bin/ls", "/proc/self/fd"]).run()
        #expect(String(decoding: outcome.output, as: UTF8.self).split(separator: "\n") == ["0", "1", "2", "3"])
    }

    @Test func aCommandThatIgnoresSIGTERMGetsSIGKILL() async throws {
        let folder = TemporaryFolder()
        var command = ChildProcess(arguments: ["/bin/sh", "-c", "trap '' TERM; echo $$ > \(folder.path)/pid; while :; do sleep 1; done"])
        command.killGrace = .milliseconds(300)
        let task = Task { try await command.run() }
        while folder.read("pid") == nil { await Task.yield() }
        let pid = try #require(folder.read("pid").flatMap { pid_t($0.trimmingCharacters(in: "\n")) })
        task.cancel()
        let outcome = try await task.value
        #expect(outcome.stopped)
        #expect(outcome.termination == .signalled(SIGKILL))
        #expect(!Self.processExists(pid))
    }

    @Test func aBackgroundProcessHoldingTheOutputDoesNotDelayTheToken() async {
        let started = ContinuousClock.now
        // The background process holds the output for 60 s; the token must come long before that, however
        // loaded the machine (a bound near the command's own run time failed on a busy CI machine).
        let source = Self.command(["/bin/sh", "-c", "echo early-token; sleep 60 &"])
        #expect(await Self.fetch(source) == .success("early-token\n"))
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    // MARK: token-file and token-credential

    @Test func filesAreReadAtEveryFetch() async {
        let folder = TemporaryFolder()
        let path = folder.write("token", "first\n")
        let source = TokenSettings.Source.file("~/token").makeSource(channel: "desk", environment: ["HOME": folder.path])
        #expect("\(source)" == "token file ~/token")
        #expect(await Self.fetch(source) == .success("first\n"))
        folder.write("token", "second")
        #expect(await Self.fetch(source) == .success("second"))
        chmod(path, 0o640)
        #expect(
            await Self.fetch(source)
                == .failure(
                    TokenError(
                        .source,
                        "token file ~/token: \(folder.path)/token can be read or changed by other users (mode 0640); make it private with chmod 600 \(folder.path)/token"
                    )
                )
        )
        chmod(path, 0o600)
        unlink(path)
        #expect(
            await Self.fetch(source)
                == .failure(TokenError(.source, "token file ~/token: cannot read \(folder.path)/token: No such file or directory"))
        )
        mkdir(path, 0o700)
        #expect(await Self.fetch(source) == .failure(TokenError(.source, "token file ~/token: \(folder.path)/token is not a regular file")))
        rmdir(path)
    }

    @Test func credentialsComeFromTheCredentialsDirectory() async {
        let folder = TemporaryFolder()
        folder.write("desk-token", "from-systemd\n", mode: 0o400)
        let source = TokenSettings.Source.credential("desk-token").makeSource(channel: "desk", environment: ["CREDENTIALS_DIRECTORY": folder.path])
        #expect("\(source)" == "credential \"desk-token\"")
        #expect(await Self.fetch(source) == .success("from-systemd\n"))
        let missing = TokenSettings.Source.credential("other").makeSource(channel: "desk", environment: ["CREDENTIALS_DIRECTORY": folder.path])
        #expect(
            await Self.fetch(missing)
                == .failure(
                    TokenError(
                        .source,
                        "credential \"other\": cannot read \(folder.path)/other: No such file or directory; does the unit have LoadCredential=other:… (or LoadCredentialEncrypted=)?"
                    )
                )
        )
        let outside = TokenSettings.Source.credential("desk-token").makeSource(channel: "desk", environment: [:])
        #expect(
            await Self.fetch(outside)
                == .failure(
                    TokenError(
                        .source,
                        "credential \"desk-token\": $CREDENTIALS_DIRECTORY is not set, so attendantd did not get credentials from systemd; add LoadCredential=desk-token:/path/to/token (or LoadCredentialEncrypted=) to the unit, or use token-file"
                    )
                )
        )
    }

    // MARK: token-url

    @Test func urlBodiesAndJSONFields() async throws {
        let server = try await LoopbackHTTPServer.start { request in
            switch (request.method, request.uri) {
            case ("GET", "/plain?key=secret"): .init(body: "plain-token\n")
            case ("POST", "/json"): .init(contentType: "application/json", body: #"{"data":{"token":"json-token","ttl":3600}}"#)
            case ("GET", "/json"): .init(contentType: "application/json", body: #"{"token":"x"}"#)
            case (_, "/number"): .init(contentType: "application/json", body: #"{"token":42}"#)
            case (_, "/refused"): .init(status: 401, body: "no")
            default: .init(status: 404, body: "")
            }
        }
        defer { Task { try? await server.stop() } }
        func url(_ path: String, _ method: TokenSettings.HTTPMethod = .get, field: String? = nil) -> any TokenSource {
            TokenSettings.Source.url(server.url + path, method: method, field: field).makeSource(channel: "desk", environment: [:])
        }
        #expect("\(url("/plain?key=secret"))" == "token URL \(server.url)/plain")
        #expect(await Self.fetch(url("/plain?key=secret")) == .success("plain-token\n"))
        #expect(await Self.fetch(url("/json", .post, field: "data.token")) == .success("json-token"))
        #expect(server.requests.contains { $0.method == "POST" && $0.headers["user-agent"] == "attendantd" })
        #expect(
            await Self.fetch(url("/json"))
                == .failure(
                    TokenError(.malformed, "token URL \(server.url)/json answered with JSON; set token-url-field to the field that holds the token")
                )
        )
        #expect(
            await Self.fetch(url("/number", field: "token"))
                == .failure(TokenError(.malformed, "token URL \(server.url)/number answered JSON without a string field \"token\" (it is a number)"))
        )
        #expect(
            await Self.fetch(url("/json", field: "data.token"))
                == .failure(
                    TokenError(.malformed, "token URL \(server.url)/json answered JSON without a string field \"data.token\" (there is none)")
                )
        )
        #expect(
            await Self.fetch(url("/plain?key=secret", field: "token"))
                == .failure(
                    TokenError(
                        .malformed,
                        "token URL \(server.url)/plain did not answer with JSON (unexpected character at byte 0), but token-url-field is set"
                    )
                )
        )
        #expect(await Self.fetch(url("/refused")) == .failure(TokenError(.source, "token URL \(server.url)/refused answered HTTP 401 Unauthorized")))
    }

    @Test func anUnreachableURLIsASourceError() async throws {
        // A bound socket that does not listen: connecting to it is refused at once.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &socketAddress) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &socketAddress) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let address = "http://127.0.0.1:\(UInt16(bigEndian: socketAddress.sin_port))"
        let source = TokenSettings.Source.url(address + "/token", method: .get, field: nil).makeSource(channel: "desk", environment: [:])
        guard case .failure(let error) = await Self.fetch(source) else {
            Issue.record("a closed port gave a token")
            return
        }
        #expect(error.code == .source)
        #expect(error.message == "token URL \(address)/token: Connection refused", "\(error)")
    }
}
