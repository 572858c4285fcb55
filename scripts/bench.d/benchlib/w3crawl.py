"""W3 (the crawl shape): the crawl's URL list, and checks that a run did the work.

paths(CRAWL.ndjson, REPLICA.stderr, OUT_DIR)
    From a `batchfetch crawl --details` of the replica (NDJSON) and the replica's startup line
    ("N drinks in M categories"), writes OUT_DIR/paths (every request the crawl makes, relative to
    the API root: list.php?c=list, one filter.php?c= per category, one lookup.php?i= per drink)
    and OUT_DIR/expect.json. Fails unless the crawl saw the whole catalogue.
check_crawl(CRAWL.ndjson, STATS.json, EXPECT.json)
    A measured crawl: exact request count, no retries or failures, every category in list order,
    every drink exactly once as a full record (so its lookup happened).
check_fetch(STATS.json, COUNT)
    A measured `batchfetch fetch`: COUNT records, all ok.

Each raises Incomplete with what is wrong.

The paths are derived, not logged; they are still exactly the crawl's requests, because the
measured crawl runs against static files made from these paths alone (nginx answers 404 to any
other URL, which fails the crawl) and must make exactly as many requests as there are paths.
Query values are encoded as batchfetch's QueryEncoding does (RFC 3986: all but A-Z a-z 0-9 -._~).
"""
import hashlib
import json
import re
from urllib.parse import quote


class Incomplete(Exception):
    """The crawl or the run did not do all the work; the message says what is missing."""


def fail(message):
    raise Incomplete(message)


def read_facets(path):
    facets = []
    try:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if line.strip():
                    facets.append(json.loads(line))
    except OSError as error:
        fail(f"cannot read the crawl's output: {error}")
    except ValueError as error:
        fail(f"line {number} of {path} is not JSON ({error}): a torn or broken line")
    if not all(isinstance(facet, dict) and isinstance(facet.get("drinks"), list) for facet in facets):
        fail(f"{path} has lines that are not {{\"category\": …, \"drinks\": […]}} objects")
    return facets


def paths(crawl_path, replica_stderr, out_dir):
    with open(replica_stderr, encoding="utf-8") as f:
        match = re.search(r"(\d+) drinks in (\d+) categories", f.read())
    if not match:
        fail(f"no 'N drinks in M categories' line in {replica_stderr}")
    drinks_total, categories_total = int(match.group(1)), int(match.group(2))
    facets = read_facets(crawl_path)
    categories = [facet["category"] for facet in facets]
    ids = [drink["idDrink"] for facet in facets for drink in facet["drinks"]]
    if len(categories) != categories_total or len(set(ids)) != drinks_total or len(ids) != drinks_total:
        fail(f"the crawl saw {len(categories)} categories and {len(ids)} drinks ({len(set(ids))} distinct); "
             f"the replica has {categories_total} and {drinks_total} (is its result cap off?)")
    lines = ["list.php?c=list"]
    lines += [f"filter.php?c={quote(name, safe='')}" for name in categories]
    lines += [f"lookup.php?i={quote(id, safe='')}" for id in ids]
    with open(f"{out_dir}/paths", "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    with open(f"{out_dir}/expect.json", "w", encoding="utf-8") as f:
        json.dump({"requests": len(lines), "categories": categories, "drinks": len(ids),
                   "ids_digest": digest(ids)}, f, indent=1)
    return len(lines)


def digest(ids):
    # Order-free: only which drinks came matters here, and a digest keeps expect.json small.
    return hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()


def check_crawl(crawl_path, stats_path, expect_path):
    with open(expect_path, encoding="utf-8") as f:
        expect = json.load(f)
    try:
        with open(stats_path, encoding="utf-8") as f:
            summary = json.load(f)["summary"]
    except (OSError, ValueError, KeyError) as error:
        fail(f"no crawl stats in {stats_path}: {error}")
    wanted = {"requests": expect["requests"], "retries": 0, "failedRequests": 0, "failedFacets": 0,
              "drinks": expect["drinks"], "emitted": len(expect["categories"])}
    wrong = {key: summary.get(key) for key, value in wanted.items() if summary.get(key) != value}
    if wrong:
        fail(f"crawl stats {wrong}, expected {wanted}")
    facets = read_facets(crawl_path)
    categories = [facet.get("category") for facet in facets]
    if categories != expect["categories"]:
        fail(f"categories {categories}, expected {expect['categories']} in that order")
    drinks = [drink for facet in facets for drink in facet["drinks"]]
    summaries = sum(1 for drink in drinks if "strInstructions" not in drink)
    if summaries:
        fail(f"{summaries} drinks are summaries, not full records (lookups missing)")
    if len(drinks) != expect["drinks"] or digest([d["idDrink"] for d in drinks]) != expect["ids_digest"]:
        fail(f"{len(drinks)} drinks that are not the catalogue's {expect['drinks']}")


def check_fetch(stats_path, count):
    try:
        with open(stats_path, encoding="utf-8") as f:
            stats = json.load(f)
    except (OSError, ValueError) as error:
        fail(f"no fetch stats in {stats_path}: {error}")
    if (stats.get("records"), stats.get("ok")) != (count, count):
        fail(f"fetch made {stats.get('records')} records, {stats.get('ok')} ok; expected {count} of {count}")

