"""Schemathesis hooks of `npm run test:schemathesis` (scripts/schemathesis.ts).

Each hook covers a rule an OpenAPI 3.0 document cannot state, so that the document is tested for
everything it can state and nothing is left out silently:

- The ADMIN run holds one token. Deleting, demoting, renaming or re-passwording that token's user
  would leave the rest of the run testing only 401s, so no generated case touches it: PUT/DELETE
  /users/{id} with its id and PUT /users/me are left out (filter_case), and a stateful step that
  reached it through a link goes to an id no user has instead (before_call).
- A window's `from` may not be later than its `to` (a 400, docs/API.md "Dates"): a reversed pair,
  in a path or a query, is put the right way round.
- A timeline spans at most 10,000 buckets (MAX_BUCKETS in src/domain/analytics/buckets.ts): a
  timeline's window is cut to one day, the bucket left as drawn; with no window, YEAR buckets.
- A song search (`q`) answers by relevance and refuses `sort` (a 400): `sort` is dropped beside `q`,
  unless the query was drawn to break the document (then the 400 is what is tested, and dropping
  a broken `sort` would leave Schemathesis expecting a refusal of a request made valid).
- Setlists name songs that exist (a missing one is a 404, which Schemathesis would read as the
  service just created being gone): positive song ids drawn for a setlist are mapped onto the
  songs the store held when the run began (SONG_IDS), and those songs are not deleted (the run's
  own songs are). Negative ids and wrong types are left alone.
- Suggestions are asked for an existing service (`serviceId`) or for a date and a type, not both
  and not half (400s the document cannot state: OpenAPI 3.0 relates no query parameters to each
  other): on GET /suggestions, beside `serviceId`, `date` and `serviceType` are dropped; without
  it, a missing `date` is a fixed Sunday (2026-12-06) and a missing `serviceType` SUN_AM.
- A webhook URL must resolve, to addresses the run allows (a DNS answer the document cannot
  state): a schema-valid `url` on POST and PUT /webhooks is pointed at a receiver on 127.0.0.1 (the
  run's server allows private targets and sends nothing). A redelivery names `eventId` or `since`,
  one of the two (a relation OpenAPI 3.0 cannot state): beside `eventId`, `since` is dropped; with
  neither, `since` is the first event's predecessor.
- A merge (POST /songs/{keepId}/merge) deletes the songs it folds in: those songs are never the
  seeded ones (the setlists above point at them), and a merge does not list the song kept in
  `mergeIds` (a 400 the document cannot state, as it relates a path parameter to the body): it is
  taken out, and a list left empty names a song that does not exist.
"""
import os
import re
from urllib.parse import unquote

import schemathesis

OWN_ID = os.environ.get("OWN_USER_ID", "")
SONG_IDS = [int(x) for x in os.environ.get("SONG_IDS", "").split(",") if x]
MISSING_ID = 2_000_000_000
DAY_MS = 86_400_000

DATE_TIME = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|([+-])(\d{2})(?::?(\d{2}))?))?$"
)


def _days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (any year, 0000 included)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _bound(text):
    """(first, last) epoch ms of a bound as parseBound reads it in UTC, or None when it is not one."""
    # Path parameters arrive percent-encoded (`17%3A57`).
    text = unquote(text if isinstance(text, str) else str(text))
    if re.fullmatch(r"-?\d{1,15}", text):
        return int(text), int(text)
    m = DATE_TIME.match(text)
    if not m:
        return None
    y, mo, d, hh, mi, ss, frac, zone, sign, oh, om = m.groups()
    start = _days_from_civil(int(y), int(mo), int(d)) * DAY_MS
    if hh is None:
        return start, start + DAY_MS - 1
    ms = start + (int(hh) * 60 + int(mi)) * 60_000 + int(ss or 0) * 1000 + int((frac or "0")[:3].ljust(3, "0"))
    if sign:
        ms -= (1 if sign == "+" else -1) * (int(oh) * 60 + int(om or 0)) * 60_000
    return ms, ms


def _order_window(params) -> None:
    if not params or "from" not in params or "to" not in params:
        return
    a, b = _bound(params["from"]), _bound(params["to"])
    if a and b and a[0] > b[1]:
        params["from"], params["to"] = params["to"], params["from"]


def _touches_own_user(case) -> bool:
    method = case.operation.method.upper()
    path = case.operation.path
    if method not in ("PUT", "DELETE"):
        return False
    if path == "/users/me":
        return True
    if path == "/users/{id}":
        return str((case.path_parameters or {}).get("id")) == OWN_ID
    return False


def _deletes_seeded_song(case) -> bool:
    if case.operation.method.upper() != "DELETE" or case.operation.path != "/songs/{id}":
        return False
    return str((case.path_parameters or {}).get("id")) in {str(x) for x in SONG_IDS}


def _merges_seeded_song(case) -> bool:
    if case.operation.path != "/songs/{keepId}/merge" or not isinstance(case.body, dict):
        return False
    ids = case.body.get("mergeIds")
    return isinstance(ids, list) and any(str(x) in {str(y) for y in SONG_IDS} for x in ids)


def _existing_song(song_id):
    if SONG_IDS and isinstance(song_id, int) and not isinstance(song_id, bool) and song_id > 0:
        return SONG_IDS[song_id % len(SONG_IDS)]
    return song_id


def _negative_query(case) -> bool:
    """Whether the case's query was drawn to break the document (the server's 400 is the point)."""
    # `_meta`, not `meta`: reading `meta` revalidates the case, which is settled only once sent.
    meta = getattr(case, "_meta", None)
    components = getattr(meta, "components", None) or {}
    return any(str(getattr(k, "value", k)) == "query" and c.mode.is_negative for k, c in components.items())


def _negative_body(case) -> bool:
    """Whether the case's body was drawn to break the document."""
    meta = getattr(case, "_meta", None)
    components = getattr(meta, "components", None) or {}
    return any(str(getattr(k, "value", k)) == "body" and c.mode.is_negative for k, c in components.items())


# The document's pattern (src/domain/validation.ts), which reads the same in Python.
WEBHOOK_URL = re.compile(
    r"^https?://(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?(?:[/?#][!-~]*)?$"
)
RECEIVER = "http://127.0.0.1:9/schemathesis"


@schemathesis.hook
def filter_case(ctx, case):
    return not _touches_own_user(case) and not _deletes_seeded_song(case) and not _merges_seeded_song(case)


@schemathesis.hook
def map_case(ctx, case):
    _order_window(case.query)
    _order_window(case.path_parameters)
    if case.operation.path == "/reports/timeline" and isinstance(case.query, dict):
        # One day of buckets: the first bound's, or the second's when only it is given. With
        # neither, the window is the services' whole span (the stateful phase writes services
        # from 1900 to 2200): years.
        given = case.query.get("from", case.query.get("to"))
        if given is not None and _bound(given):
            case.query["from"] = case.query["to"] = given
        elif given is None and case.query.get("bucket") in ("WEEK", "MONTH", "QUARTER", "YEAR"):
            case.query["bucket"] = "YEAR"
    if case.operation.path == "/songs" and isinstance(case.query, dict) and "q" in case.query and not _negative_query(case):
        # Search results come by relevance: `sort` beside `q` is a 400 (docs/API.md).
        case.query.pop("sort", None)
    if case.operation.path == "/suggestions":
        if case.query is None:
            case.query = {}
        if isinstance(case.query, dict):
            if "serviceId" in case.query:
                case.query.pop("date", None)
                case.query.pop("serviceType", None)
            else:
                case.query.setdefault("date", "2026-12-06")
                case.query.setdefault("serviceType", "SUN_AM")
    if case.operation.path in ("/webhooks", "/webhooks/{id}") and isinstance(case.body, dict) and not _negative_body(case):
        url = case.body.get("url")
        if isinstance(url, str) and WEBHOOK_URL.match(url) and len(url) <= 2000:
            case.body["url"] = RECEIVER
    if case.operation.path == "/webhooks/{id}/redeliver" and not isinstance(case.body, dict) and not _negative_body(case):
        case.body = {"since": "evt_0"}
    if case.operation.path == "/webhooks/{id}/redeliver" and isinstance(case.body, dict) and not _negative_body(case):
        if "eventId" in case.body:
            case.body.pop("since", None)
        elif "since" not in case.body:
            case.body["since"] = "evt_0"
    if case.operation.path == "/songs/{keepId}/merge" and isinstance(case.body, dict):
        ids = case.body.get("mergeIds")
        keep = (case.path_parameters or {}).get("keepId")
        if isinstance(ids, list) and keep is not None:
            left = [x for x in ids if str(x) != str(keep)]
            case.body["mergeIds"] = left if left or not ids else [MISSING_ID]
    if case.operation.path.startswith("/services/{serviceId}/songs"):
        if isinstance(case.body, dict) and isinstance(case.body.get("songIds"), list):
            ids = case.body["songIds"]
            if all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in ids):
                case.body["songIds"] = list(dict.fromkeys(_existing_song(x) for x in ids))
        if case.path_parameters and "songId" in case.path_parameters:
            case.path_parameters["songId"] = _existing_song(case.path_parameters["songId"])
    return case


@schemathesis.hook
def before_call(ctx, case, kwargs):
    map_case(ctx, case)
    if _deletes_seeded_song(case):
        case.path_parameters["id"] = MISSING_ID
    if _merges_seeded_song(case):
        case.body["mergeIds"] = [MISSING_ID]
    if _touches_own_user(case):
        if case.operation.path == "/users/me":
            # Nothing to change: an empty merge leaves the user as it is.
            case.body = {}
        else:
            case.path_parameters["id"] = MISSING_ID
