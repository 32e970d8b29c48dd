"""A bound on what a learner can add to the hub's log.

Two ways in, each with a token bucket (a burst, then a steady rate; the excess is dropped and
counted in one line when the bucket refills):

- what a learner's server prints (its requests, its warnings, anything its processes write to
  the server's output) reaches the hub's log through :func:`forward`, a reader the spawner attaches
  to that server's output: at most :data:`SERVER_BURST` bytes at once and :data:`SERVER_RATE`
  bytes a second per learner;
- everything the hub and its proxy log themselves (a request line per request anyone sends, a
  permission warning per refused API call, a line per failed log-in) passes :class:`RateFilter`
  (:func:`limit_hub_log`, :func:`limit_proxy_log`): at most :data:`ACCESS_BURST` lines at once and
  :data:`ACCESS_RATE` a second for the hub, as many again for the proxy, each line cut at
  :data:`LONGEST` characters; errors always pass (and use up the allowance).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time

SERVER_BURST, SERVER_RATE = 64 * 1024, 1024  # bytes
READ_RATE = 64 * 1024  # bytes a second read from each server's output, at most
ACCESS_BURST, ACCESS_RATE = 200, 10  # lines
LONGEST = 1000  # characters of one line
HUB_LOGGERS = ("JupyterHub", "tornado.access", "tornado.application", "tornado.general")


class Bucket:
    """A token bucket: ``take(n)`` is True while ``n`` tokens are there (``burst`` at most, refilled at ``rate`` a second)."""

    def __init__(self, burst: float, rate: float, clock=time.monotonic) -> None:
        self.burst, self.rate, self.clock = burst, rate, clock
        self.tokens, self.last, self.dropped = float(burst), clock(), 0

    def take(self, n: float = 1) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= n:
            self.tokens -= n
            return True
        self.dropped += 1
        return False


_servers: dict[str, Bucket] = {}


class RateFilter(logging.Filter):
    """Lets :data:`ACCESS_BURST` records through, then :data:`ACCESS_RATE` a second (errors always),
    each cut at :data:`LONGEST` characters; says how many it dropped."""

    def __init__(self, burst: float = ACCESS_BURST, rate: float = ACCESS_RATE) -> None:
        super().__init__()
        self.bucket = Bucket(burst, rate)

    def filter(self, record: logging.LogRecord) -> bool:
        dropped = self.bucket.dropped
        if not self.bucket.take() and record.levelno < logging.ERROR:
            return False
        message = record.getMessage()
        if dropped:
            self.bucket.dropped = 0
            message = f"({dropped} log lines dropped: too many) {message}"
        record.msg, record.args = message[:LONGEST], ()
        return True


def limit_hub_log() -> RateFilter:
    """One :class:`RateFilter` on every logger the hub writes through."""
    limit = RateFilter()
    for name in HUB_LOGGERS:
        logging.getLogger(name).addFilter(limit)
    return limit


def limit_proxy_log() -> RateFilter:
    """A :class:`RateFilter` on the proxy's logger (a line per request it forwards)."""
    limit = RateFilter()
    logging.getLogger("configurable_http_proxy").addFilter(limit)
    return limit


async def forward(fd: int, name: str, log: logging.Logger, burst: int = SERVER_BURST, rate: int = SERVER_RATE,
                  read_rate: int = READ_RATE) -> None:
    """Read the server's output from ``fd`` until it closes; log each line as ``[name] line`` while
    the learner's bucket allows, and drop the rest. The pipe is read at most ``read_rate`` bytes a
    second: a server that writes faster waits on its own full pipe, and the hub's event loop spends
    a bounded time on it whatever it writes."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**16, loop=loop)
    transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), os.fdopen(fd, "rb", 0))
    bucket = _servers.setdefault(name, Bucket(burst, rate))  # kept across restarts: a restart refills nothing
    pending = b""
    try:
        while data := await reader.read(2**16):
            lines = (pending + data).split(b"\n")
            pending = lines.pop()[-LONGEST:]  # a line without its end yet (kept short)
            for i, line in enumerate(lines):
                dropped = bucket.dropped
                if not bucket.take(len(line) + 1):
                    bucket.dropped += len(lines) - i - 1  # the rest of this chunk, in one go
                    break
                if dropped:
                    bucket.dropped = 0
                    log.warning("[%s] (%d log lines of this server's output dropped: too many)", name, dropped)
                log.info("[%s] %s", name, line[:LONGEST].decode(errors="replace").rstrip())
            await asyncio.sleep(len(data) / read_rate)
    finally:
        transport.close()
