"""A FastAPI service that limits GET /request/info/{request_id} as slowapi does.

The peer of internal/benchmarks/slowapi_test.go (make check-peers, make
bench): built from Debian's packages (python3-fastapi, python3-uvicorn,
python3-limits), with slowapi's behaviour copied from its source, where
noted, since slowapi is not packaged. Usage:

    /usr/bin/python3 slowapi_peer.py CONFIG.json

CONFIG names the loopback port, the requests (id: [created, completed], Unix
times) and, per API key (the Authorization header, whole), the limit
("2/second", "10/minute": limits' notation), the strategy ("fixed-window" or
"moving-window") and whether slowapi's headers are on.
"""

import json
import sys
import time

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import FixedWindowRateLimiter, MovingWindowRateLimiter

with open(sys.argv[1]) as f:
    config = json.load(f)

# One storage for every key, as slowapi's Limiter(storage_uri="memory://").
storage = MemoryStorage()
strategies = {
    "fixed-window": FixedWindowRateLimiter(storage),
    "moving-window": MovingWindowRateLimiter(storage),
}
app = FastAPI()


def inject_headers(response, limiter, item, key):
    """slowapi's Limiter._inject_headers (slowapi/extension.py), for one limit."""
    window_stats = limiter.get_window_stats(item, key)
    reset_in = 1 + window_stats[0]
    response.headers.append("X-RateLimit-Limit", str(item.amount))
    response.headers.append("X-RateLimit-Remaining", str(window_stats[1]))
    response.headers.append("X-RateLimit-Reset", str(reset_in))
    existing = response.headers.get("Retry-After")
    if existing is not None:  # _determine_retry_time, for delay-seconds
        reset_in = max(int(time.time() + int(existing)), reset_in)
    response.headers["Retry-After"] = str(int(reset_in - time.time()))
    return response


# async: one event loop serves every request, so limits' MemoryStorage,
# which takes no lock in release 2.8, sees them one at a time.
@app.get("/request/info/{request_id}")
async def request_info(request_id: str, request: Request):
    key = request.headers.get("authorization", "")
    conf = config["keys"].get(key)
    if conf is None:
        return JSONResponse({"detail": "Not authenticated"}, status_code=401)
    item = parse(conf["limit"])
    limiter = strategies[conf["strategy"]]
    if not limiter.hit(item, key):
        # slowapi's _rate_limit_exceeded_handler: its message, no Retry-After.
        response = JSONResponse({"error": f"Rate limit exceeded: {item}"}, status_code=429)
    elif request_id not in config["requests"]:
        response = JSONResponse({"detail": f"Request {request_id} not found"}, status_code=404)
    else:
        created, completed = config["requests"][request_id]
        now = time.time()
        status = "COMPLETED" if now >= completed else "PROCESSING" if now >= (created + completed) / 2 else "PENDING"
        body = {
            "request_id": request_id,
            "request_type": "STORAGE_DESTROY",
            "status": status,
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(created)),
            "object_id": "s-" + request_id,
            "external_message": None,
        }
        response = JSONResponse(body)
        if status != "COMPLETED":
            response.headers["Retry-After"] = "2"  # the API's own
    if conf["headers"]:
        response = inject_headers(response, limiter, item, key)
    return response


uvicorn.run(app, host="127.0.0.1", port=config["port"], log_level="warning", access_log=False)
