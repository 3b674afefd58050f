"""schemathesis hooks for the run on the two endless streams (Tests/API/schemathesis-tests.sh).

A GET of /api/v1/samples or /api/v1/stream.mjpg without a query is the real stream: it never ends
(nor, for practical purposes, does /api/v1/recording.y4m's 300 frames of raw video),
and schemathesis would wait on it for ever (its request timeout is between two reads, and a frame
comes every 33 ms). Such a case is dropped here; every other case of those operations (other
methods, parameters they do not take, a Last-Event-ID that is no frame's) is sent. stream_check.py reads the streams themselves.
"""
import re

import schemathesis

ENDLESS = ("/api/v1/samples", "/api/v1/stream.mjpg", "/api/v1/recording.y4m")


@schemathesis.hook
def filter_case(context, case):
    # A Last-Event-ID that is not a frame number is refused at once (400): such a case is sent.
    event_id = (case.headers or {}).get("Last-Event-ID")
    refused = event_id is not None and not re.fullmatch(r" *(-1|[0-9]{1,18}) *", event_id)
    return not (case.method == "GET" and case.operation.path in ENDLESS and not case.query and not refused)
