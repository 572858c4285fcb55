#!/usr/bin/env python3
"""Writes the bench dataset: static JSON files shaped like TheCocktailDB v1 responses, and HTML pages.

usage: gen_dataset.py DIR W1_COUNT W2_COUNT [W5_COUNT]

DIR/www/lookup/<id>.json   W1: one drink, ~2.2 KB, as lookup.php?i=<id> returns it
DIR/www/search/<name>.json W2: ~64 KB of drinks, as search.php?s=<name> returns it
DIR/www/page/<n>.html      W5: ~64 KB HTML pages (gen_html.py), served as text/html
DIR/meta.json              counts and mean sizes, read back by scripts/bench

Deterministic (fixed seed), so every run serves the same bytes. Compact JSON with '/' escaped as
'\\/', the way the real API's PHP encoder writes it.
"""
import json
import os
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in scripts/bench.d for the import below
import gen_html  # noqa: E402

WORDS = ("shake well with ice and strain into a chilled glass rub the rim with salt garnish with "
         "a slice of lime stir gently top up with soda water muddle the mint leaves and sugar pour "
         "over crushed ice serve immediately float the cream on top add a dash of bitters").split()
CATEGORIES = ["Ordinary Drink", "Cocktail", "Shake", "Other / Unknown", "Cocoa", "Shot",
              "Coffee / Tea", "Homemade Liqueur", "Punch / Party Drink", "Beer", "Soft Drink"]
GLASSES = ["Cocktail glass", "Highball glass", "Old-fashioned glass", "Collins glass",
           "Margarita glass", "Champagne flute", "Shot glass", "Coffee mug", "Pint glass"]
INGREDIENTS = ["Tequila", "Triple sec", "Lime juice", "Salt", "Vodka", "Gin", "Light rum",
               "Dark rum", "Sugar syrup", "Mint", "Soda water", "Bitters", "Orange peel",
               "Cranberry juice", "Lemon juice", "Grenadine", "Cream", "Coffee liqueur",
               "Sweet Vermouth", "Dry Vermouth", "Campari", "Bourbon", "Scotch", "Ice"]
MEASURES = ["1 1/2 oz ", "1/2 oz ", "1 oz ", "2 oz ", "1 dash ", "1 tsp ", "Top up ",
            "3 cl ", "2 cl ", "1 slice ", "6 leaves "]


def sentence(rng, words):
    text = " ".join(rng.choice(WORDS) for _ in range(words))
    return text[0].upper() + text[1:] + "."


def drink(rng, drink_id):
    d = {
        "idDrink": str(drink_id),
        "strDrink": " ".join(rng.choice(WORDS).capitalize() for _ in range(2)) + f" {drink_id}",
        "strDrinkAlternate": None,
        "strTags": rng.choice([None, "IBA,ContemporaryClassic", "Sour,Summer", "Christmas"]),
        "strVideo": None,
        "strCategory": rng.choice(CATEGORIES),
        "strIBA": rng.choice([None, "Contemporary Classics", "Unforgettables"]),
        "strAlcoholic": rng.choice(["Alcoholic", "Non alcoholic", "Optional alcohol"]),
        "strGlass": rng.choice(GLASSES),
        "strInstructions": sentence(rng, rng.randint(45, 60)),
        "strInstructionsES": sentence(rng, rng.randint(30, 42)),
        "strInstructionsDE": sentence(rng, rng.randint(30, 42)),
        "strInstructionsFR": rng.choice([None, sentence(rng, 25)]),
        "strInstructionsIT": sentence(rng, rng.randint(30, 42)),
        "strInstructionsZH-HANS": None,
        "strInstructionsZH-HANT": None,
        "strDrinkThumb": f"https://www.thecocktaildb.com/images/media/drink/{drink_id:x}qwxuyw1.jpg",
    }
    used = rng.randint(3, 7)
    for i in range(1, 16):
        d[f"strIngredient{i}"] = rng.choice(INGREDIENTS) if i <= used else None
    for i in range(1, 16):
        d[f"strMeasure{i}"] = rng.choice(MEASURES) if i <= used else None
    d["strImageSource"] = rng.choice([None, "https://commons.wikimedia.org/wiki/File:Klassiche_Margarita.jpg"])
    d["strImageAttribution"] = rng.choice([None, "Cocktailmarler"])
    d["strCreativeCommonsConfirmed"] = rng.choice(["Yes", "No"])
    d["dateModified"] = f"2016-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} 10:{rng.randint(10, 59)}:{rng.randint(10, 59)}"
    return d


def encode(document):
    # PHP's json_encode (the real API's) escapes every '/' as '\/'; '/' occurs only inside strings.
    return json.dumps(document, separators=(",", ":")).replace("/", "\\/").encode()


def main():
    out, w1, w2 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    w5 = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    rng = random.Random(7)
    os.makedirs(f"{out}/www/lookup", exist_ok=True)
    os.makedirs(f"{out}/www/search", exist_ok=True)
    w1_bytes = 0
    for n in range(w1):
        body = encode({"drinks": [drink(rng, 11000 + n)]})
        w1_bytes += len(body)
        with open(f"{out}/www/lookup/{11000 + n}.json", "wb") as f:
            f.write(body)
    # W2 documents share a pool of drinks (generating 60,000 distinct ones buys nothing).
    pool = [encode(drink(rng, 200000 + n)) for n in range(400)]
    w2_bytes = 0
    for n in range(w2):
        parts, size, k = [], 0, rng.randrange(len(pool))
        while size < 64 * 1024 - 2300:
            parts.append(pool[k % len(pool)])
            size += len(parts[-1]) + 1
            k += 7
        body = b'{"drinks":[' + b",".join(parts) + b"]}"
        w2_bytes += len(body)
        with open(f"{out}/www/search/w2-{n}.json", "wb") as f:
            f.write(body)
    meta = {
        "source": "static files generated by scripts/bench.d/gen_dataset.py (not the replica)",
        "w1": {"documents": w1, "mean_bytes": w1_bytes / max(w1, 1), "shape": "lookup.php?i=ID"},
        "w2": {"documents": w2, "mean_bytes": w2_bytes / max(w2, 1), "shape": "search.php?s=NAME"},
    }
    # W5 has a seed of its own (gen_html.py), so W1's and W2's bytes do not depend on it.
    if w5:
        meta["w5"] = {"documents": w5, "mean_bytes": gen_html.write_pages(out, w5),
                      "shape": "page.php?p=N", "content_type": "text/html"}
    with open(f"{out}/meta.json", "w") as f:
        json.dump(meta, f)


if __name__ == "__main__":
    main()
