"""Conformance check of the simulator's GMS CometD server with an independent Bayeux client.

Usage: aiocometd_check.py COMETD_URL long-polling|websocket [SERVICE]

With aiocometd-ng (PyPI aiocometd-ng==0.5.6, installed by scripts/setup into .build-python) it
handshakes, subscribes to the GMS Chat v2 service channel and to a broadcast channel, publishes on the
broadcast channel and receives the event, publishes requestChat and waits for the agent's greeting,
then publishes sendMessage and waits for its echo. It prints one JSON line: {"ok": true, ...} or
{"ok": false, "error": ...}, and exits 0 or 1.
"""
import asyncio
import json
import logging
import sys

from aiocometd_ng import Client, ConnectionType

# Closing the client logs a harmless CancelledError traceback; keep stdout and stderr readable.
logging.disable(logging.CRITICAL)

BROADCAST = "/attendant/conformance"


async def next_event(client, channel, predicate, what):
    """The next message on `channel` with `data` for which predicate holds; others are skipped."""
    while True:
        message = await asyncio.wait_for(client.receive(), timeout=30)
        if message.get("channel") == channel and "data" in message and predicate(message["data"]):
            return message
        if message.get("channel") == channel and "successful" not in message and "data" not in message:
            raise RuntimeError(f"unexpected message while waiting for {what}: {message}")


async def check(url, transport, service):
    kind = {"long-polling": ConnectionType.LONG_POLLING, "websocket": ConnectionType.WEBSOCKET}[transport]
    channel = f"/service/chatV2/{service}"
    result = {"transport": transport}
    async with Client(url, connection_types=[kind]) as client:
        result["client_id"] = client._transport.client_id  # -ng has no client_id property
        result["connection_type"] = client._transport.connection_type.value
        await client.subscribe(channel)
        await client.subscribe(BROADCAST)

        ack = await client.publish(BROADCAST, {"text": "hello"})
        result["broadcast_ack"] = ack.get("successful")
        event = await next_event(client, BROADCAST, lambda data: data.get("text") == "hello", "the broadcast")
        result["broadcast_event"] = event["data"]

        ack = await client.publish(channel, {"operation": "requestChat", "nickname": "Ann Conformance", "subject": "Billing"})
        result["request_chat_ack"] = ack.get("successful")
        greeting = None
        rows = []
        while greeting is None:
            event = await next_event(client, channel, lambda data: "messages" in data, "the chat events")
            data = event["data"]
            if data.get("statusCode") != 0:
                raise RuntimeError(f"requestChat failed: {data}")
            result["chat_id"] = data["chatId"]
            result["secure_key"] = data["secureKey"]
            for message in data["messages"]:
                rows.append([message["index"], message["type"], message["from"]["type"]])
                if message["type"] == "Message" and message["from"]["type"] == "Agent":
                    greeting = message["text"]
        result["greeting"] = greeting

        ack = await client.publish(channel, {"operation": "sendMessage", "secureKey": result["secure_key"], "message": "conformance says hi"})
        result["send_ack"] = ack.get("successful")
        result["send_ack_is_ack"] = "data" not in ack
        while True:
            event = await next_event(client, channel, lambda data: "messages" in data, "the echo")
            echoed = [m for m in event["data"]["messages"] if m.get("text") == "conformance says hi"]
            for message in event["data"]["messages"]:
                rows.append([message["index"], message["type"], message["from"]["type"]])
            if echoed:
                result["echo_from"] = echoed[0]["from"]["type"]
                break
        result["rows"] = rows
    result["ok"] = True
    return result


def main():
    if len(sys.argv) < 3 or sys.argv[2] not in ("long-polling", "websocket"):
        print(json.dumps({"ok": False, "error": "usage: aiocometd_check.py COMETD_URL long-polling|websocket [SERVICE]"}))
        return 2
    url, transport = sys.argv[1], sys.argv[2]
    service = sys.argv[3] if len(sys.argv) > 3 else "customer-support"
    try:
        result = asyncio.run(asyncio.wait_for(check(url, transport, service), timeout=90))
    except BaseException as error:  # noqa: BLE001 - one JSON line whatever happened
        print(json.dumps({"ok": False, "transport": transport, "error": f"{type(error).__name__}: {error}"}))
        return 1
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
