"""The hub's proxy: the pure-Python configurable-http-proxy, with room for a whole class at once.

It forwards each request with Tornado's HTTP client, which by default lets 10 requests through
at a time and queues the rest for at most 20 seconds before answering 503. A class that logs in
together outruns that: while the hub holds each "start my server" request for up to 10 s, the
load test's 30 learners saw four of those requests refused with 503 before their servers were
even asked for. Here the client may keep :data:`CONCURRENT` requests in flight, as the Node.js
proxy does without a limit; nothing else changes.

Run as ``python -m classroom.proxy`` with configurable-http-proxy's own arguments (the hub does).
"""

from __future__ import annotations

import sys

from tornado.httpclient import AsyncHTTPClient

from classroom.logcap import limit_proxy_log

CONCURRENT = 1024  # requests forwarded at once: far above a class's (each learner has a handful)


def configure() -> None:
    """Let the proxy's HTTP client forward :data:`CONCURRENT` requests at once; bound what it logs
    (a line per request: :func:`classroom.logcap.limit_proxy_log`)."""
    AsyncHTTPClient.configure(None, max_clients=CONCURRENT)
    limit_proxy_log()


def main() -> int:
    from configurable_http_proxy.cli import main as proxy  # the classroom group installs it

    configure()
    return proxy()


if __name__ == "__main__":
    sys.exit(main())
