"""schemathesis hooks for the run on the two endless streams (Tests/API/schemathesis-tests.sh).

A GET of /api/v1/samples or /api/v1/stream.mjpg without a query is the real stream: it never ends
(nor, for practical purposes, does /api/v1/recording.y4m's 300 frames of raw video),
and schemathesis would wait on it for ever (its request timeout is between two reads, and a frame
comes every 33 ms). Such a case is dropped here; every other case of those operations (other
methods, and parameters they do not take) is sent. stream_check.py reads the streams themselves.
"""
import schemathesis

ENDLESS = ("/api/v1/samples", "/api/v1/stream.mjpg", "/api/v1/recording.y4m")


@schemathesis.hook
def filter_case(context, case):
    return not (case.method == "GET" and case.operation.path in ENDLESS and not case.query)
