"""Drives the Python client that openapi-python-client generated from a live server's /openapi.json.

Usage: check_python_client.py BASE_URL OWNER_KEY (the generated `datahost_client` package on PYTHONPATH).
Run by tests/tools/clients.sh against a server on the demo seeds. Every check asserts through the generated,
typed models: if a schema name, an enum or a field changes shape, importing or parsing fails here.
"""

import inspect
import sys

from datahost_client import AuthenticatedClient, Client
from datahost_client.api.congress_trades import get_congress_trades
from datahost_client.api.institutional_holdings import get_institutional_holdings
from datahost_client.api.sam_entities import get_sam_entities
from datahost_client.models import (
    CongressFiling,
    CongressTrade,
    CongressTradesResponse,
    DataStatus,
    Error,
    GetSamEntitiesStatus,
    InstitutionalHolding,
    InstitutionalHoldingPutCall,
    InstitutionalHoldingsResponse,
    SamEntitiesResponse,
    SamEntity,
    SamEntityStatus,
)
from datahost_client.types import Unset

base_url, key = sys.argv[1], sys.argv[2]
client = AuthenticatedClient(base_url=base_url, token=key, raise_on_unexpected_status=True)


def ok(response, model):
    """The parsed 200 body, checked to be the generated model."""
    assert response.status_code == 200, f"{response.status_code}: {response.content[:300]!r}"
    assert isinstance(response.parsed, model), type(response.parsed)
    return response.parsed


# 1. Three endpoints, typed models parsed.
trades = ok(get_congress_trades.sync_detailed(client=client, limit=3), CongressTradesResponse)
assert trades.data_status == DataStatus.DEMO, trades.data_status
assert trades.count == 3 and all(isinstance(f, CongressFiling) for f in trades.filings), trades.filings
first = trades.filings[0]
assert first.trades and all(isinstance(t, CongressTrade) for t in first.trades), first.trades
print(f"congress-trades: {trades.count} filings, the first by {first.member} with {len(first.trades)} trades")

holdings = ok(
    get_institutional_holdings.sync_detailed(client=client, q="Meridian Oak Capital (demo)", limit=2),
    InstitutionalHoldingsResponse,
)
assert holdings.cik == "0009990303" and holdings.count == 2 and holdings.truncated, holdings
for h in holdings.holdings:
    assert isinstance(h, InstitutionalHolding), h
    # The nullable enum: None for the security itself, else the named enum (no `...Type2Type1` classes).
    assert h.put_call is None or isinstance(h.put_call, InstitutionalHoldingPutCall), h.put_call
print(f"institutional-holdings: {holdings.filer}, {holdings.total_holdings} holdings, {holdings.total_value_usd} USD")

inactive = ok(
    get_sam_entities.sync_detailed(client=client, status=GetSamEntitiesStatus.INACTIVE, limit=50),
    SamEntitiesResponse,
)
assert inactive.total == 35 and inactive.count == 35, (inactive.total, inactive.count)
assert all(isinstance(e, SamEntity) and e.status == SamEntityStatus.INACTIVE for e in inactive.entities)
print(f"sam-entities: {inactive.total} Inactive registrations, status parsed as {SamEntityStatus.__name__}")

# 2. Errors: the envelope read through the client, for a 401 (no key) and a 400 (a malformed parameter).
anonymous = Client(base_url=base_url)
unauthorized = get_congress_trades.sync_detailed(client=anonymous)
assert unauthorized.status_code == 401 and isinstance(unauthorized.parsed, Error), unauthorized
assert unauthorized.parsed.code == 401 and "/docs#" in unauthorized.parsed.docs, unauthorized.parsed
bad = get_sam_entities.sync_detailed(client=client, uei="TOO-SHORT")
assert bad.status_code == 400 and isinstance(bad.parsed, Error), bad
assert bad.parsed.code == 400 and "uei" in bad.parsed.error, bad.parsed
print(f"errors: 401 `{unauthorized.parsed.error}`; 400 `{bad.parsed.error}`")

# 3. A paged walk: follow `next` through `cursor` until it is null, and find every registration exactly once.
# The contract: every list endpoint takes an opaque `cursor` and answers a top-level `next` (a cursor, or null
# on the last page) with a `Link: <url>; rel="next"` header beside it.
if "cursor" not in inspect.signature(get_sam_entities.sync_detailed).parameters:
    sys.exit("FAIL paged walk: /v1/sam-entities documents no `cursor` parameter in /openapi.json (pagination missing)")
everything = ok(get_sam_entities.sync_detailed(client=client, limit=50), SamEntitiesResponse)
seen, cursor, pages = [], None, 0
while True:
    kwargs = {"cursor": cursor} if cursor is not None else {}
    response = get_sam_entities.sync_detailed(client=client, limit=20, **kwargs)
    page = ok(response, SamEntitiesResponse)
    pages += 1
    seen.extend(e.uei for e in page.entities)
    cursor = page.next_ if hasattr(page, "next_") else getattr(page, "next")
    assert not isinstance(cursor, Unset), "a list response without `next`"
    link = response.headers.get("link")
    if cursor is None:
        assert link is None or 'rel="next"' not in link, f"last page still links a next page: {link}"
        break
    assert link is not None and 'rel="next"' in link, f"page {pages}: `next` without a Link rel=next header"
    assert pages <= everything.total, f"more pages than registrations ({pages}): `next` never ends"
assert len(seen) == len(set(seen)) == everything.total, (len(seen), len(set(seen)), everything.total)
print(f"paged walk: {everything.total} registrations in {pages} pages of 20, each once")
print("python client: all checks passed")
