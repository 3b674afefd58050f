#!/usr/bin/env python3
"""The two endless streams of `eyedropper serve` against its OpenAPI document (Tests/API/schemathesis-tests.sh).

usage: stream_check.py BASE_URL MAX_STREAMS [--calibrated] [--token TOKEN]

schemathesis reads a response to its end, and these never end: it checks their error paths (a
query parameter, another method), and this reads the first events and parts of the real thing.
Everything is taken from the document the server serves (/api/v1/openapi.json), not from here:
- /api/v1/samples: 200, the documented content type and Cache-Control; three events, each
  `id: N` and `data: ` one line valid against the schema in `x-eyedropper-event-data`, ids
  rising; with --calibrated every sample carries `calibrated`, `deltaE` and `pass`.
- /api/v1/stream.mjpg: 200, `multipart/x-mixed-replace; boundary=` the documented boundary; two
  parts, each with the documented part type and a Content-Length that frames one whole JPEG.
- A parameter they do not take is the documented 400, naming it (schemathesis sends none: they
  declare no parameters to vary).
- MAX_STREAMS streams open at once, the next is the documented 503 with a JSON error body.
Prints one line per check and `N passed, N failed`; exits 1 when any failed.
"""
import argparse
import http.client
import json
import sys
import time
import urllib.parse

import jsonschema_rs

TIMEOUT = 60  # seconds between two reads before a stream counts as stuck: a deadline, not a time given
HEADERS = {}  # Authorization, when serve has a token


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok


def open_stream(base, path):
    """An open connection and its response, the body not read."""
    url = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=TIMEOUT)
    connection.request("GET", path, headers=HEADERS)
    return connection, connection.getresponse()


def validator(document, schema):
    """A JSON Schema 2020-12 validator for `schema`, its $refs resolved in `document`."""
    return jsonschema_rs.Draft202012Validator({**schema, "components": document["components"]})


def errors(validate, instance):
    return [error.message for error in validate.iter_errors(instance)][:3]


def check_headers(checks, name, response, documented, media_type):
    content_type = response.getheader("Content-Type", "")
    checks.check(response.status == 200, f"{name}: 200 ({response.status})")
    checks.check(content_type.split(";")[0].strip() == media_type and media_type in documented["content"],
                 f"{name}: Content-Type {content_type!r} is the documented {media_type}")
    no_store = documented["headers"]["Cache-Control"]
    checks.check(no_store["$ref"] == "#/components/headers/NoStore" and response.getheader("Cache-Control") == "no-store",
                 f"{name}: Cache-Control {response.getheader('Cache-Control')!r} as documented")
    return content_type


def check_events(checks, base, document, calibrated):
    documented = document["paths"]["/api/v1/samples"]["get"]["responses"]["200"]
    connection, response = open_stream(base, "/api/v1/samples")
    try:
        check_headers(checks, "samples", response, documented, "text/event-stream")
        validate = validator(document, documented["content"]["text/event-stream"]["x-eyedropper-event-data"])
        last = -1
        for index in range(3):
            lines = []
            while True:
                line = response.readline().decode("utf-8")
                if line in ("\n", ""):
                    break
                lines.append(line.rstrip("\n"))
            fields = dict(line.split(": ", 1) for line in lines if ": " in line)
            if not checks.check(len(lines) == 2 and set(fields) == {"id", "data"},
                                f"samples: event {index} is an id and a data line ({lines})"):
                return
            line = json.loads(fields["data"])
            problems = errors(validate, line)
            checks.check(not problems, f"samples: event {index}'s data against the document ({problems or line['frame']})")
            checks.check(int(fields["id"]) == line["frame"] and line["frame"] > last,
                         f"samples: event {index}'s id {fields['id']} is its frame, after {last}")
            last = line["frame"]
            if calibrated:
                checks.check(all({"calibrated", "deltaE", "pass"} <= sample.keys() for sample in line["samples"]),
                             f"samples: event {index}'s samples are calibrated and judged (--profile, --target)")
    finally:
        connection.close()


def check_mjpeg(checks, base, document):
    documented = document["paths"]["/api/v1/stream.mjpg"]["get"]["responses"]["200"]
    media = documented["content"]["multipart/x-mixed-replace"]
    connection, response = open_stream(base, "/api/v1/stream.mjpg")
    try:
        content_type = check_headers(checks, "stream.mjpg", response, documented, "multipart/x-mixed-replace")
        boundary = media["x-eyedropper-boundary"]
        checks.check(content_type == f"multipart/x-mixed-replace; boundary={boundary}",
                     f"stream.mjpg: boundary {boundary} as documented ({content_type!r})")
        for index in range(2):
            head = []
            while True:
                line = response.readline().decode("latin-1")
                if line in ("\r\n", ""):
                    break
                head.append(line.rstrip("\r\n"))
            headers = dict(line.split(": ", 1) for line in head[1:] if ": " in line)
            if not checks.check(head[:1] == [f"--{boundary}"] and headers.get("Content-Type") == media["x-eyedropper-part-type"],
                                f"stream.mjpg: part {index} opens with the boundary and the documented type ({head})"):
                return
            jpeg = response.read(int(headers["Content-Length"]))
            checks.check(jpeg[:2] == b"\xff\xd8" and jpeg[-2:] == b"\xff\xd9" and response.read(2) == b"\r\n",
                         f"stream.mjpg: part {index}'s Content-Length ({len(jpeg)}) frames one whole JPEG")
    finally:
        connection.close()


def error_validator(document, path, status):
    """A validator for the JSON body of `path`'s documented `status` answer."""
    documented = document["paths"][path]["get"]["responses"][status]
    response = document["components"]["responses"][documented["$ref"].rsplit("/", 1)[1]]
    return validator(document, response["content"]["application/json"]["schema"])


def check_unknown_parameter(checks, base, document):
    for path in ("/api/v1/samples", "/api/v1/stream.mjpg"):
        connection, response = open_stream(base, path + "?frames=2")
        body = response.read()
        connection.close()
        problems = errors(error_validator(document, path, "400"), json.loads(body or b"null"))
        checks.check(response.status == 400 and not problems and json.loads(body).get("parameter") == "frames",
                     f"{path}?frames=2: the documented 400 naming frames ({response.status}, {problems or body.decode()})")


def check_stream_limit(checks, base, document, limit):
    validate = error_validator(document, "/api/v1/stream.mjpg", "503")
    # The streams read above were closed by this side; the server frees a slot when its next write
    # to the gone client fails, a frame or two later.
    # Waited for, up to a minute (a loaded machine makes its frames later).
    clients = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        connection, response = open_stream(base, "/api/v1/status")
        clients = json.loads(response.read())["streamClients"]
        connection.close()
        if clients == 0:
            break
        time.sleep(0.1)
    checks.check(clients == 0, f"the streams read and closed above have freed their slots ({clients} open after a minute)")
    opened = []
    try:
        for index in range(limit):
            opened.append(open_stream(base, "/api/v1/samples" if index % 2 else "/api/v1/stream.mjpg"))
        statuses = [response.status for _, response in opened]
        checks.check(statuses == [200] * limit, f"{limit} streams open at once (--max-streams): {statuses}")
        connection, response = open_stream(base, "/api/v1/stream.mjpg")
        body = response.read()
        connection.close()
        checks.check(response.status == 503 and response.getheader("Content-Type") == "application/json",
                     f"stream {limit + 1}: 503, JSON ({response.status}, {response.getheader('Content-Type')})")
        problems = errors(validate, json.loads(body or b"null"))
        checks.check(not problems, f"stream {limit + 1}: its body against the document ({problems or body.decode()})")
    finally:
        for connection, _ in opened:
            connection.close()


def main():
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("base")
    parser.add_argument("max_streams", type=int)
    parser.add_argument("--calibrated", action="store_true")
    parser.add_argument("--token")
    arguments = parser.parse_args()
    if arguments.token:
        HEADERS["Authorization"] = f"Bearer {arguments.token}"
    base = arguments.base.rstrip("/")
    connection, response = open_stream(base, "/api/v1/openapi.json")
    document = json.loads(response.read())
    connection.close()
    checks = Checks()
    check_events(checks, base, document, arguments.calibrated)
    check_mjpeg(checks, base, document)
    if not arguments.calibrated:
        check_unknown_parameter(checks, base, document)
        check_stream_limit(checks, base, document, arguments.max_streams)
    print(f"streams: {checks.passed} passed, {checks.failed} failed")
    sys.exit(1 if checks.failed else 0)


if __name__ == "__main__":
    main()
