// CXoneCore tests: the wire suites (Wire*.swift) and the chat-machine suites (Chat*.swift) sit beside this file.
