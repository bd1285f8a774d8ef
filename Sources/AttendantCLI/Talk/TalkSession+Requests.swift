import AttendantControl
import Foundation
import Glibc

extension TalkSession {
    /// Starts the request a view's action asks for, beside the view: its answer comes back as an event.
    /// (`quit` is the caller's.)
    func carryOut(_ action: TalkView.Action, in group: inout TaskGroup<Void>, sink: AsyncStream<Event>.Continuation) {
        let (client, channel) = (self.client, self.channel)
        switch action {
        case .quit:
            break
        case .send(let text, let thread):
            group.addTask {
                do throws(ControlClientError) {
                    let delivery = try await client.chatSendMessage(channel: channel, thread: thread, text: text)
                    sink.yield(.sent(text, .success(delivery)))
                } catch {
                    sink.yield(.sent(text, .failure(error)))
                }
            }
        case .typing(let started, let thread):
            var arguments = ["state": started ? "started" : "stopped"]
            if let thread { arguments["thread"] = thread }
            group.addTask { [arguments] in
                do throws(ControlClientError) {
                    _ = try await client.channelRequest(channel: channel, command: "chat-typing", arguments: arguments)
                } catch {
                    sink.yield(.typingRefused(error))
                }
            }
        case .choose(let message, let choice, let label, let thread):
            group.addTask {
                do throws(ControlClientError) {
                    try await client.chatChoose(channel: channel, thread: thread, message: message, choice: choice)
                    sink.yield(.chose(label, nil))
                } catch {
                    sink.yield(.chose(label, error))
                }
            }
        case .markRead(let message, let thread):
            group.addTask {
                do throws(ControlClientError) {
                    try await client.chatMarkRead(channel: channel, thread: thread, message: message)
                } catch {
                    sink.yield(.readRefused(error))
                }
            }
        case .loadOlder(let thread):
            group.addTask {
                do throws(ControlClientError) {
                    sink.yield(.older(.success(try await client.chatLoadOlder(channel: channel, thread: thread))))
                } catch {
                    sink.yield(.older(.failure(error)))
                }
            }
        case .save(let message, let attachment, let thread):
            // Into the download folder under the sender's name made safe, as chat save does.
            let folder = SavedFile.downloadFolder(environment: ProcessInfo.processInfo.environment)
            group.addTask {
                do throws(ControlClientError) {
                    let (path, saved) = try await SavedFile.receive(into: folder, name: SavedFile.safeName(attachment.name)) {
                        descriptor throws(ControlClientError) in
                        try await client.chatSaveAttachment(
                            channel: channel,
                            thread: thread,
                            message: message,
                            attachment: attachment.id,
                            into: descriptor
                        )
                    }
                    sink.yield(.saved(attachment.name, .success((path, saved.mimeType, saved.size))))
                } catch {
                    sink.yield(.saved(attachment.name, .failure(error)))
                }
            }
        case .sendFile(let path, let thread):
            let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
            let expanded = path.hasPrefix("~/") ? home + path.dropFirst() : path
            group.addTask {
                do throws(ControlClientError) {
                    let (name, descriptor) = try SavedFile.openToSend(expanded)
                    defer { close(descriptor) }
                    var status = stat()
                    let size = fstat(descriptor, &status) == 0 ? Int64(status.st_size) : 0
                    let mimeType = SavedFile.mimeType(forName: name)
                    let delivery = try await client.chatSendFile(channel: channel, thread: thread, name: name, mimeType: mimeType, from: descriptor)
                    sink.yield(.fileSent(path, .success((name, mimeType, size, delivery["message"]))))
                } catch {
                    sink.yield(.fileSent(path, .failure(error)))
                }
            }
        }
    }
}
