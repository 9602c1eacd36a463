"""Build the WordNet 3.0 tables that METEOR's synonym stage needs, as package data.

Reads a WordNet 3.0 database directory in the Princeton ``dict/`` layout (``index.{noun,verb,adj,adv}``,
``data.{...}`` and ``{noun,verb,adj,adv}.exc``) and writes ``src/nlgmetrics/data/wordnet/wn30-meteor.txt.gz``
plus the WordNet licence notice beside it. The source used for the shipped file is Debian's ``wordnet-base``
package (``apt-get install wordnet-base``; it installs the database under ``/usr/share/wordnet``)::

    python scripts/build_wordnet.py --source /usr/share/wordnet

What is kept is exactly what ``nltk.corpus.wordnet.synsets(word)`` and ``Lemma.name()`` need for
``nltk.translate.meteor_score``: the morphological exception lists, every (lemma, part of speech) of the
index files with its synsets, and the lemma names of every synset that has a name without ``_`` (METEOR
drops names with ``_``; synsets with no other name are left out, their lemmas keep an empty list). The
output is deterministic: the same input gives the same bytes.

File layout (UTF-8 text, gzip without a timestamp): a header line, then sections introduced by
``@name count`` lines:

* ``@exc.n``, ``@exc.v``, ``@exc.a``, ``@exc.r``: the exception lists' lines as WordNet has them
  (inflected form, then its base forms), in file order;
* ``@synsets``: one line per kept synset, its lemma names without ``_`` separated by spaces; a synset's id
  is its line number in this section;
* ``@lemmas``: one index lemma per line;
* ``@senses``: for the lemma on the same line of ``@lemmas``, four ``|``-separated fields (noun, verb,
  adjective, adverb), each ``-`` when the lemma is not in that part of speech's index, else the
  space-separated ids of its kept synsets (possibly none), in index order.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import re
import subprocess
from pathlib import Path

POS = ("n", "v", "a", "r")
FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
_MARKER = re.compile(r"(.*?)(\([^()]*\))?$")  # a syntactic marker such as "(a)" or "(ip)" after an adjective
OUT = Path(__file__).resolve().parent.parent / "src" / "nlgmetrics" / "data" / "wordnet"
FORMAT = "nlgmetrics-wordnet-meteor 1"


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _debian_version() -> str:
    try:
        out = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", "wordnet-base"], capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def licence_text(source: Path) -> str:
    """The WordNet licence, as the header of ``data.adj`` carries it (numbered lines starting with spaces)."""
    out = []
    for line in _lines(source / "data.adj"):
        if not line.startswith(" "):
            break
        out.append(re.sub(r"^\s*\d+ ?", "", line).rstrip())
    return "\n".join(out).strip() + "\n"


def build(source: Path) -> tuple[bytes, str]:
    digest = hashlib.sha256()
    # synsets: (pos, offset) -> names without "_"
    names_of: dict[tuple[str, int], list[str]] = {}
    for pos in POS:
        path = source / f"data.{FILES[pos]}"
        digest.update(path.read_bytes())
        for line in _lines(path):
            if line.startswith(" "):
                continue
            fields = line.split()
            offset = int(fields[0])
            n_lemmas = int(fields[3], 16)
            names = []
            for i in range(n_lemmas):
                m = _MARKER.match(fields[4 + 2 * i])
                assert m is not None
                name = m.group(1)
                if "_" not in name:
                    names.append(name)
            names_of[(pos, offset)] = names
    synset_ids: dict[tuple[str, int], int] = {}
    synset_lines: list[str] = []
    senses: dict[str, dict[str, list[int]]] = {}
    for pos in POS:
        path = source / f"index.{FILES[pos]}"
        digest.update(path.read_bytes())
        for line in _lines(path):
            if line.startswith(" "):
                continue
            fields = line.split()
            lemma, lemma_pos, n_synsets, n_pointers = fields[0], fields[1], int(fields[2]), int(fields[3])
            assert lemma_pos == pos, line
            offsets = [int(x) for x in fields[4 + n_pointers + 2 :][:n_synsets]]
            assert len(offsets) == n_synsets, line
            ids = []
            for offset in offsets:
                key = (pos, offset)
                if not names_of[key]:
                    continue
                if key not in synset_ids:
                    synset_ids[key] = len(synset_lines)
                    synset_lines.append(" ".join(names_of[key]))
                ids.append(synset_ids[key])
            senses.setdefault(lemma, {})[pos] = ids  # a repeated lemma: the later line wins, as in NLTK
    exceptions = {}
    for pos in POS:
        path = source / f"{FILES[pos]}.exc"
        digest.update(path.read_bytes())
        exceptions[pos] = [" ".join(line.split()) for line in _lines(path) if line.strip()]
    out = io.StringIO()
    version = _debian_version()
    out.write(
        f"# {FORMAT} | WordNet 3.0 | source: Debian wordnet-base {version} | sha256 of the data, index and "
        f"exception files: {digest.hexdigest()}\n"
    )
    for pos in POS:
        out.write(f"@exc.{pos} {len(exceptions[pos])}\n")
        out.writelines(line + "\n" for line in exceptions[pos])
    out.write(f"@synsets {len(synset_lines)}\n")
    out.writelines(line + "\n" for line in synset_lines)
    lemmas = sorted(senses)
    out.write(f"@lemmas {len(lemmas)}\n")
    out.writelines(lemma + "\n" for lemma in lemmas)
    out.write(f"@senses {len(lemmas)}\n")
    for lemma in lemmas:
        per = senses[lemma]
        fields = [" ".join(map(str, per[p])) if p in per else "-" for p in POS]
        out.write("|".join(fields) + "\n")
    raw = out.getvalue().encode("utf-8")
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9, mtime=0, filename="") as gz:
        gz.write(raw)
    return buf.getvalue(), f"Debian wordnet-base {version}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=Path("/usr/share/wordnet"), help="WordNet 3.0 dict directory")
    parser.add_argument("--out", type=Path, default=OUT, help="output directory")
    args = parser.parse_args()
    data, origin = build(args.source)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "wn30-meteor.txt.gz").write_bytes(data)
    notice = (
        "The file wn30-meteor.txt.gz in this directory is derived from WordNet 3.0 "
        f"({origin}) by scripts/build_wordnet.py.\n\n" + licence_text(args.source)
    )
    (args.out / "LICENSE").write_text(notice, encoding="utf-8")
    print(f"wrote {args.out / 'wn30-meteor.txt.gz'} ({len(data):,} bytes) from {origin}")


if __name__ == "__main__":
    main()
