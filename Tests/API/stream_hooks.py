"""schemathesis hooks for the run on the endless and long streams (Tests/API/schemathesis-tests.sh).

A GET of /api/v1/samples or /api/v1/stream.mjpg that the server takes is the real stream: it never
ends, and schemathesis would wait on it for ever (its request timeout is between two reads, and a
frame comes every 33 ms). A GET of /api/v1/recording.y4m that the server takes is up to 1800 frames
of raw video, a minute each. Such cases are dropped here; every other case of those operations
(other methods, parameters they do not take, a Last-Event-ID or frame count that is refused) is
sent. stream_check.py reads the streams themselves.

What is taken is judged on the query as it goes on the wire: schemathesis' negative cases often
carry a key whose value is an empty list (`{"frames": 326, "": []}`), which the HTTP client drops,
so the request sent is a valid one; taken for a refused one, each such recording cost up to a
minute (eleven in all).
"""
import re

import schemathesis

ENDLESS = ("/api/v1/samples", "/api/v1/stream.mjpg")
RECORDING = "/api/v1/recording.y4m"
MAXIMUM_FRAMES = 1800


def sent_query(case):
    """The query as the HTTP client sends it: keys whose value is None or an empty list go."""
    return {key: value for key, value in (case.query or {}).items() if value is not None and value != []}


def taken(case):
    """Whether the server would answer this GET with its stream (as QueryString parses it)."""
    query = sent_query(case)
    if case.operation.path in ENDLESS:
        # A Last-Event-ID that is not a frame number is refused at once (400).
        event_id = (case.headers or {}).get("Last-Event-ID")
        refused = event_id is not None and not re.fullmatch(r" *(-1|[0-9]{1,18}) *", event_id)
        return not query and not refused
    if case.operation.path == RECORDING:
        if not query:
            return True
        frames = query.get("frames")
        if set(query) != {"frames"} or isinstance(frames, (list, dict, bool, float)):
            return False
        # Swift's Int(_:) takes an optional sign and digits.
        text = str(frames)
        return re.fullmatch(r"[+-]?[0-9]+", text) is not None and 1 <= int(text) <= MAXIMUM_FRAMES
    return False


@schemathesis.hook
def filter_case(context, case):
    return not (case.method == "GET" and taken(case))
