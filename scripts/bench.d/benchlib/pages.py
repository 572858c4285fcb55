"""W5's documents: HTML pages of ~64 KB, as a content site would serve them (documents.write calls
write_pages).

DIR/www/page/<n>.html, n = 0 … COUNT-1, served as text/html by page.php?p=<n>.

What matters for a client that embeds bodies in JSON text: every page has plenty of double quotes
(quoted attributes, an inline script's JSON), newlines and some tabs (indentation), a few
backslashes (the script's escapes), and non-ASCII UTF-8 of every length (é, ü, —, 日本語, emoji),
so no page takes a fast path for clean ASCII. Deterministic (its own fixed seed, independent of
W1's and W2's), so every run serves the same bytes.
"""
import os
import random

TARGET = 64 * 1024
WORDS = ("shake well with ice and strain into a chilled glass rub the rim with salt garnish with "
         "a slice of lime stir gently top up with soda water muddle the mint leaves and sugar pour "
         "over crushed ice serve immediately float the cream on top add a dash of bitters").split()
# Non-ASCII of every UTF-8 length: 2 bytes (é, ü, ñ), 3 (—, …, “”, 日本語), 4 (emoji).
WORLD = ["café", "crème brûlée", "Über", "Müller", "naïve", "jalapeño", "Curaçao", "Glühwein",
         "piña colada", "smörgåsbord", "—", "–", "…", "“a classic”", "« apéritif »", "日本語",
         "東京", "カクテル", "梅酒", "🍸", "🍋", "🧊", "🍹", "½ oz", "20 °C"]
SECTIONS = ["Ingredients", "Method", "History", "Variations", "Serving", "Glassware", "Notes",
            "Nutrition", "Related drinks", "Reviews"]
TAGS = ["sour", "highball", "tiki", "classic", "after-dinner", "aperitif", "brunch", "frozen", "low-abv"]


def words(rng, count):
    out = []
    for _ in range(count):
        out.append(rng.choice(WORLD) if rng.random() < 0.06 else rng.choice(WORDS))
    text = " ".join(out)
    return text[0].upper() + text[1:]


def link(rng):
    slug = "-".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))
    return (f'<a class="{rng.choice(["inline-link", "ref", "drink-link external"])}" '
            f'href="/drinks/{rng.randint(11000, 17999)}/{slug}" title="{words(rng, 3)}">{words(rng, 2)}</a>')


def paragraph(rng):
    parts = []
    for _ in range(rng.randint(3, 6)):
        roll = rng.random()
        if roll < 0.3:
            parts.append(link(rng))
        elif roll < 0.45:
            parts.append(f"<em>{words(rng, rng.randint(2, 5))}</em>")
        elif roll < 0.55:
            parts.append(f'<strong class="hl">{words(rng, rng.randint(1, 3))}</strong>')
        parts.append(words(rng, rng.randint(8, 25)) + ".")
    return f'<p class="{rng.choice(["body", "lead", "body small"])}">' + " ".join(parts) + "</p>\n"


def items(rng):
    tag = rng.choice(["ul", "ol"])
    lines = [f'\t<{tag} class="{rng.choice(["ingredients", "steps", "tips"])}">']
    for i in range(rng.randint(4, 9)):
        lines.append(f'\t\t<li data-step="{i + 1}"><span class="qty">{rng.randint(1, 60)} ml</span> '
                     f'{words(rng, rng.randint(3, 9))}</li>')
    lines.append(f"\t</{tag}>")
    return "\n".join(lines) + "\n"


def table(rng):
    lines = ['<table class="nutrition" summary="Per serving">',
             '\t<thead><tr><th scope="col">Item</th><th scope="col" class="num">Amount</th>'
             '<th scope="col" class="num">% daily</th></tr></thead>', "\t<tbody>"]
    for _ in range(rng.randint(4, 10)):
        lines.append(f'\t\t<tr><td>{words(rng, 2)}</td><td class="num">{rng.randint(0, 400)}.{rng.randint(0, 9)} g</td>'
                     f'<td class="num">{rng.randint(0, 99)} %</td></tr>')
    lines.append("\t</tbody>\n</table>")
    return "\n".join(lines) + "\n"


def figure(rng):
    n = rng.randint(1, 99999)
    return (f'<figure class="photo">\n\t<img src="/media/drink/{n:05x}.jpg" alt="{words(rng, 4)}" width="640" '
            f'height="{rng.choice([360, 427, 480])}" loading="lazy">\n\t<figcaption>{words(rng, 8)}</figcaption>\n'
            f"</figure>\n")


def quote(rng):
    return (f'<blockquote cite="https://example.org/reviews/{rng.randint(1, 9999)}">\n\t<p>“{words(rng, 20)}.”</p>\n'
            f"\t<footer>— {words(rng, 2)}, <cite>{words(rng, 3)}</cite></footer>\n</blockquote>\n")


def block(rng):
    head = f'<section class="block" id="s{rng.randint(1, 9999)}">\n<h2>{rng.choice(SECTIONS)} · {words(rng, 3)}</h2>\n'
    body = [paragraph(rng)]
    for _ in range(rng.randint(1, 3)):
        body.append(rng.choice([paragraph, paragraph, items, table, figure, quote])(rng))
    return (head + "".join(body) + "</section>\n").encode()


def page_head(rng, n):
    title = f"{words(rng, 3)} {n} — Cocktail guide · Café Crème"
    tags = ", ".join(rng.sample(TAGS, 3))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="{words(rng, 12)}">
<meta name="keywords" content="{tags}">
<title>{title}</title>
<link rel="stylesheet" href="/static/css/site.css?v=3">
<link rel="canonical" href="https://www.example.org/drinks/{n}">
<script>
\twindow.dataLayer = window.dataLayer || [];
\tvar page = {{"id": {n}, "path": "\\/drinks\\/{n}", "title": "{title}", "note": "line\\nbreak"}};
</script>
</head>
<body class="page page-drink" data-page-id="{n}">
<header class="site-header">
\t<nav class="nav-main" aria-label="Main">
\t\t<ul>
\t\t\t<li><a class="nav-link" href="/">Home</a></li>
\t\t\t<li><a class="nav-link" href="/drinks/">Drinks</a></li>
\t\t\t<li><a class="nav-link" href="/ingredients/">Ingrédients</a></li>
\t\t\t<li><a class="nav-link active" href="/drinks/{n}" aria-current="page">{title}</a></li>
\t\t</ul>
\t</nav>
</header>
<main id="content">
<article class="drink" itemscope itemtype="https://schema.org/Recipe">
<h1 itemprop="name">{title}</h1>
""".encode()


FOOT = """</article>
</main>
<footer class="site-footer">
\t<p>© 2024 Café Crème — <a href="/about">About</a> · <a href="/privacy">Privacy</a> · 日本語 · Deutsch (Über uns) 🍸</p>
</footer>
</body>
</html>
""".encode()


def write_pages(out, count):
    """Writes COUNT pages to OUT/www/page/; returns their mean size in bytes."""
    rng = random.Random(25)
    os.makedirs(f"{out}/www/page", exist_ok=True)
    # Pages share a pool of sections, as W2's documents share a pool of drinks: writing 128 MB of
    # distinct prose buys nothing, and each page still has its own head and order of sections.
    pool = [block(rng) for _ in range(600)]
    total = 0
    for n in range(count):
        parts = [page_head(rng, n)]
        size, k, stride = len(parts[0]) + len(FOOT), rng.randrange(len(pool)), rng.choice([7, 11, 13, 17])
        while size < TARGET - 900:
            parts.append(pool[k % len(pool)])
            size += len(parts[-1])
            k += stride
        parts.append(FOOT)
        body = b"".join(parts)
        total += len(body)
        with open(f"{out}/www/page/{n}.html", "wb") as f:
            f.write(body)
    return total / max(count, 1)
